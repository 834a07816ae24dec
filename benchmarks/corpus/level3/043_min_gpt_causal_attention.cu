// KernelBench level 3, problem 43: MinGPTCausalAttention.
//   qkv = c_attn(x); q, k, v split and viewed as (B, NH, T, HD)
//   att = (q @ k^T) * (1/sqrt(HD)); att = masked_fill(causal mask == 0, -inf)
//   att = softmax(att, -1); (attn dropout p = 0: identity)
//   y = att @ v -> transpose(1, 2).contiguous() -> (B, T, C); out = c_proj(y)
//   (resid dropout p = 0: identity)
// The Linear layers are cuBLAS sgemm calls plus a bias kernel; attention is written out
// as eager runs it: matmul, scale, masked_fill, softmax (a thread per row), matmul, and the
// head-merging copy, each its own kernel with its result in global memory.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <math.h>

static cublasHandle_t handle = NULL;

#define THREADS 256

__global__ void add_bias(float* y, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] += bias[i % cols];
}

// att[b][h][i][j] = q(b,i,h) . k(b,j,h);  grid (T/THREADS, T, B*NH)
__global__ void qk_matmul(const float* qkv, float* att, int T, int C, int NH) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  int bh = blockIdx.z;
  if (j >= T) return;
  int b = bh / NH, h = bh % NH, HD = C / NH;
  const float* q = qkv + ((size_t)b * T + i) * 3 * C + h * HD;
  const float* k = qkv + ((size_t)b * T + j) * 3 * C + C + h * HD;
  float s = 0.f;
  for (int d = 0; d < HD; ++d) s += q[d] * k[d];
  att[((size_t)bh * T + i) * T + j] = s;
}

__global__ void scale_kernel(float* att, float scale, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) att[i] *= scale;
}

// masked_fill(tril(ones(T, T)) == 0, -inf): positions j > i
__global__ void causal_mask_fill(float* att, int T, size_t n) {
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  int j = idx % T;
  int i = (idx / T) % T;
  if (j > i) att[idx] = -INFINITY;
}

// softmax over the last dim, one thread per row
__global__ void softmax_rowwise(const float* in, float* out, size_t rows, int T) {
  size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + r * T;
  float* y = out + r * T;
  float m = -INFINITY;
  for (int j = 0; j < T; ++j) m = fmaxf(m, x[j]);
  float s = 0.f;
  for (int j = 0; j < T; ++j) s += expf(x[j] - m);
  for (int j = 0; j < T; ++j) y[j] = expf(x[j] - m) / s;
}

// yh[b][h][i][d] = sum_j p[b][h][i][j] * v(b,j,h)[d]
__global__ void pv_matmul(const float* p, const float* qkv, float* yh, int B, int T, int C,
                          int NH) {
  int HD = C / NH;
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)B * NH * T * HD) return;
  int d = idx % HD;
  size_t row = idx / HD;  // (b*NH + h)*T + i
  int bh = row / T;
  int b = bh / NH, h = bh % NH;
  const float* pr = p + row * T;
  const float* v = qkv + (size_t)b * T * 3 * C + 2 * C + h * HD + d;
  float s = 0.f;
  for (int j = 0; j < T; ++j) s += pr[j] * v[(size_t)j * 3 * C];
  yh[idx] = s;
}

// y[b][i][h*HD + d] = yh[b][h][i][d]
__global__ void merge_heads(const float* yh, float* y, int B, int T, int C, int NH) {
  int HD = C / NH;
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)B * T * C) return;
  int c = idx % C;
  size_t bi = idx / C;
  int i = bi % T;
  int b = bi / T;
  int h = c / HD, d = c % HD;
  y[idx] = yh[(((size_t)b * NH + h) * T + i) * HD + d];
}

static unsigned nblocks(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

// out[M][N] = in[M][K] w[N][K]^T + bias[N]
static void linear(const float* in, const float* w, const float* bias, float* out, int M, int K,
                   int N, cudaStream_t stream) {
  const float alpha = 1.f, beta = 0.f;
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, in, K, &beta, out, N);
  add_bias<<<nblocks((size_t)M * N), THREADS, 0, stream>>>(out, bias, M, N);
}

// kfuse: in  x      float[B][T][C]
// kfuse: in  attn_w float[3*C][C]
// kfuse: in  attn_b float[3*C]
// kfuse: in  proj_w float[C][C]
// kfuse: in  proj_b float[C]
// kfuse: out out    float[B][T][C]
// kfuse: init x      uniform(0,1)
// kfuse: init attn_w uniform(-0.036,0.036)
// kfuse: init attn_b uniform(-0.036,0.036)
// kfuse: init proj_w uniform(-0.036,0.036)
// kfuse: init proj_b uniform(-0.036,0.036)
// kfuse: assume C % NH == 0
// kfuse: assume B * NH <= 65535
// kfuse: assume T <= 1024
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=128 T=512 C=768 NH=8
// kfuse: check B=2 T=7 C=12 NH=3
// kfuse: check B=1 T=33 C=16 NH=2
extern "C" void min_gpt_causal_attention(const float* x, const float* attn_w,
                                         const float* attn_b, const float* proj_w,
                                         const float* proj_b, float* out, int B, int T, int C,
                                         int NH, cudaStream_t stream) {
  if (handle == NULL) cublasCreate(&handle);
  cublasSetStream(handle, stream);

  const int M = B * T;
  const size_t n_att = (size_t)B * NH * T * T;
  const float scale = 1.0f / sqrtf((float)(C / NH));
  float *qkv, *att, *prob, *yh, *y;
  cudaMallocAsync(&qkv, sizeof(float) * M * 3 * C, stream);
  cudaMallocAsync(&att, sizeof(float) * n_att, stream);
  cudaMallocAsync(&prob, sizeof(float) * n_att, stream);
  cudaMallocAsync(&yh, sizeof(float) * M * C, stream);
  cudaMallocAsync(&y, sizeof(float) * M * C, stream);

  linear(x, attn_w, attn_b, qkv, M, C, 3 * C, stream);
  qk_matmul<<<dim3((T + THREADS - 1) / THREADS, T, B * NH), THREADS, 0, stream>>>(qkv, att, T,
                                                                                 C, NH);
  scale_kernel<<<nblocks(n_att), THREADS, 0, stream>>>(att, scale, n_att);
  causal_mask_fill<<<nblocks(n_att), THREADS, 0, stream>>>(att, T, n_att);
  softmax_rowwise<<<nblocks((size_t)B * NH * T), THREADS, 0, stream>>>(att, prob,
                                                                       (size_t)B * NH * T, T);
  pv_matmul<<<nblocks((size_t)M * C), THREADS, 0, stream>>>(prob, qkv, yh, B, T, C, NH);
  merge_heads<<<nblocks((size_t)M * C), THREADS, 0, stream>>>(yh, y, B, T, C, NH);
  linear(y, proj_w, proj_b, out, M, C, C, stream);

  cudaFreeAsync(qkv, stream);
  cudaFreeAsync(att, stream);
  cudaFreeAsync(prob, stream);
  cudaFreeAsync(yh, stream);
  cudaFreeAsync(y, stream);
}
