// KernelBench level 2, problem 64: Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU
//   t = logsumexp(linear(x, W, b), dim=1, keepdim); t = leaky(leaky(t)); y = gelu(gelu(t))
#include <cuda_runtime.h>

constexpr float kSlope = 0.01f;
constexpr int kWarp = 32;

__global__ void gemm_bias(const float* __restrict__ A, const float* __restrict__ Wt,
                          const float* __restrict__ bias, float* __restrict__ C, int M, int K,
                          int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[(size_t)m * K + k] * Wt[(size_t)n * K + k];
  C[(size_t)m * N + n] = acc + bias[n];
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

// One warp per row.
__global__ void logsumexp_warp(const float* __restrict__ in, float* __restrict__ out, int M,
                               int N) {
  const int row = blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (row >= M) return;  // whole warps leave together
  const float* p = in + (size_t)row * N;
  float m = -INFINITY;
  for (int j = lane; j < N; j += kWarp) m = fmaxf(m, p[j]);
  m = warp_max(m);
  float s = 0.0f;
  for (int j = lane; j < N; j += kWarp) s += expf(p[j] - m);
  s = warp_sum(s);
  if (lane == 0) out[row] = m + logf(s);
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : kSlope * in[i];
}

__global__ void gelu(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][1]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.1,0.1)
// kfuse: init b uniform(-0.1,0.1)
// kfuse: assume M <= 65535
// kfuse: tune  M=1024 K=8192 N=8192
// kfuse: check M=3 K=77 N=129
// kfuse: check M=37 K=3 N=5
extern "C" void gemm_log_sum_exp_leaky_relu_leaky_relu_gelu_gelu(const float* x, const float* w,
                                                                 const float* b, float* y, int M,
                                                                 int K, int N,
                                                                 cudaStream_t stream) {
  float *lin, *t0, *t1;
  cudaMallocAsync(&lin, sizeof(float) * M * N, stream);
  cudaMallocAsync(&t0, sizeof(float) * M, stream);
  cudaMallocAsync(&t1, sizeof(float) * M, stream);
  gemm_bias<<<dim3((N + 255) / 256, M), 256, 0, stream>>>(x, w, b, lin, M, K, N);
  const int rows_per_block = 256 / kWarp;
  logsumexp_warp<<<(M + rows_per_block - 1) / rows_per_block, 256, 0, stream>>>(lin, t0, M, N);
  const int g = (M + 255) / 256;
  leaky_relu<<<g, 256, 0, stream>>>(t0, t1, M);
  leaky_relu<<<g, 256, 0, stream>>>(t1, t0, M);
  gelu<<<g, 256, 0, stream>>>(t0, t1, M);
  gelu<<<g, 256, 0, stream>>>(t1, y, M);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
}
