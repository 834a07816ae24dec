// KernelBench level 1, problem 97: F.scaled_dot_product_attention(Q, K, V), no mask, no
// dropout, default scale 1/sqrt(E). Q, K, V, O: (B, H, L, E).
// The math path: S = (Q K^T) * scale via cublasSgemmStridedBatched, row softmax (one warp
// per row, shuffles), O = P V via cublasSgemmStridedBatched.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <math.h>

static cublasHandle_t handle_for(cudaStream_t stream) {
  static cublasHandle_t h = nullptr;
  if (h == nullptr) cublasCreate(&h);
  cublasSetStream(h, stream);
  return h;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// one warp per row of length L; rows = B * H * L
__global__ void softmax_rows_warp(const float* __restrict__ s, float* __restrict__ p, long rows,
                                  int L) {
  const long row = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* in = s + row * L;
  float* out = p + row * L;
  float m = -INFINITY;
  for (int j = lane; j < L; j += 32) m = fmaxf(m, in[j]);
  m = warp_max(m);
  float sum = 0.0f;
  for (int j = lane; j < L; j += 32) sum += expf(in[j] - m);
  sum = warp_sum(sum);
  const float inv = 1.0f / sum;
  for (int j = lane; j < L; j += 32) out[j] = expf(in[j] - m) * inv;
}

// kfuse: in  Q float[B][H][L][E]
// kfuse: in  K float[B][H][L][E]
// kfuse: in  V float[B][H][L][E]
// kfuse: out O float[B][H][L][E]
// kfuse: init Q uniform(0,1)
// kfuse: init K uniform(0,1)
// kfuse: init V uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=32 H=32 L=512 E=1024
// kfuse: check B=2 H=3 L=33 E=17
// kfuse: check B=1 H=1 L=7 E=129
extern "C" void scaled_dot_product_attention(const float* Q, const float* K, const float* V,
                                             float* O, int B, int H, int L, int E,
                                             cudaStream_t stream) {
  cublasHandle_t h = handle_for(stream);
  const int batch = B * H;
  const long long strideQKV = (long long)L * E;
  const long long strideS = (long long)L * L;
  float *scores, *probs;
  cudaMallocAsync(&scores, sizeof(float) * (size_t)batch * L * L, stream);
  cudaMallocAsync(&probs, sizeof(float) * (size_t)batch * L * L, stream);

  const float scale = 1.0f / sqrtf((float)E);
  const float one = 1.0f, zero = 0.0f;
  // Row-major S (L x L) = Q K^T is column-major S^T = K Q^T: op_T on K's buffer, op_N on Q's.
  cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, L, L, E, &scale, K, E, strideQKV, Q, E,
                            strideQKV, &zero, scores, L, strideS, batch);

  const long rows = (long)batch * L;
  const int warps_per_block = 8;
  softmax_rows_warp<<<(unsigned int)((rows + warps_per_block - 1) / warps_per_block),
                      32 * warps_per_block, 0, stream>>>(scores, probs, rows, L);

  // Row-major O (L x E) = P V is column-major O^T = V^T P^T.
  cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, E, L, L, &one, V, E, strideQKV, probs, L,
                            strideS, &zero, O, E, strideQKV, batch);

  cudaFreeAsync(scores, stream);
  cudaFreeAsync(probs, stream);
}
