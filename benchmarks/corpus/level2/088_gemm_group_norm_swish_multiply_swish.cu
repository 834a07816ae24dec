// KernelBench level 2, problem 88: Gemm_GroupNorm_Swish_Multiply_Swish
//   t = group_norm(linear(x, W, b), G, gamma, beta); t = t * sigmoid(t);
//   t = t * multiply_weight[F]; y = t * sigmoid(t)
// GEMM by cublasSgemm; GroupNorm: one warp per (row, group).
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t g_blas = nullptr;

__global__ void bias_add(const float* __restrict__ in, const float* __restrict__ b,
                         float* __restrict__ out, int F, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + b[i % F];
}

__global__ void group_norm_warp(const float* __restrict__ in, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ out, int B,
                                int F, int G) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= B * G) return;
  const int gs = F / G;
  const int f0 = (warp % G) * gs;
  const float* p = in + (size_t)(warp / G) * F + f0;
  float s = 0.f;
  for (int j = lane; j < gs; j += 32) s += p[j];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float mean = s / gs;
  float q = 0.f;
  for (int j = lane; j < gs; j += 32) {
    const float d = p[j] - mean;
    q += d * d;
  }
  for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
  const float rstd = rsqrtf(q / gs + 1e-5f);
  float* dst = out + (size_t)(warp / G) * F + f0;
  for (int j = lane; j < gs; j += 32) dst[j] = (p[j] - mean) * rstd * gamma[f0 + j] + beta[f0 + j];
}

__global__ void swish(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v * (1.0f / (1.0f + expf(-v)));
  }
}

__global__ void mul_feature(const float* __restrict__ in, const float* __restrict__ m,
                            float* __restrict__ out, int F, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * m[i % F];
}

// kfuse: in  x               float[B][IN]
// kfuse: in  w               float[F][IN]
// kfuse: in  b               float[F]
// kfuse: in  gamma           float[F]
// kfuse: in  beta            float[F]
// kfuse: in  multiply_weight float[F]
// kfuse: out y               float[B][F]
// kfuse: init x               uniform(0,1)
// kfuse: init w               uniform(-0.01,0.01)
// kfuse: init b               uniform(-0.01,0.01)
// kfuse: init gamma           uniform(0.5,1.5)
// kfuse: init beta            uniform(-0.5,0.5)
// kfuse: init multiply_weight normal
// kfuse: assume F % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 F=8192 G=256
// kfuse: check B=3 IN=77 F=129 G=3
// kfuse: check B=5 IN=12 F=200 G=2
extern "C" void gemm_group_norm_swish_multiply_swish(const float* x, const float* w,
                                                     const float* b, const float* gamma,
                                                     const float* beta,
                                                     const float* multiply_weight, float* y,
                                                     int B, int IN, int F, int G,
                                                     cudaStream_t stream) {
  if (!g_blas) cublasCreate(&g_blas);
  cublasSetStream(g_blas, stream);
  const int n = B * F;
  const int nb = (n + 255) / 256;
  float *mm, *lin, *gn, *s1, *mu;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&gn, sizeof(float) * n, stream);
  cudaMallocAsync(&s1, sizeof(float) * n, stream);
  cudaMallocAsync(&mu, sizeof(float) * n, stream);
  const float alpha = 1.0f, beta0 = 0.0f;
  cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, F, B, IN, &alpha, w, IN, x, IN, &beta0, mm, F);
  bias_add<<<nb, 256, 0, stream>>>(mm, b, lin, F, n);
  const int warps = B * G;
  group_norm_warp<<<(warps * 32 + 255) / 256, 256, 0, stream>>>(lin, gamma, beta, gn, B, F, G);
  swish<<<nb, 256, 0, stream>>>(gn, s1, n);
  mul_feature<<<nb, 256, 0, stream>>>(s1, multiply_weight, mu, F, n);
  swish<<<nb, 256, 0, stream>>>(mu, y, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(gn, stream);
  cudaFreeAsync(s1, stream);
  cudaFreeAsync(mu, stream);
}
