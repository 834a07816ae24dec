// KernelBench level 2, problem 94: Gemm_BiasAdd_Hardtanh_Mish_GroupNorm
//   t = linear(x, W, b) + bias[F]; t = hardtanh(t, -1, 1); t = mish(t);
//   y = group_norm(t, G, gamma, beta)
#include <cuda_runtime.h>

#define GN_EPS 1e-5f
#define GN_THREADS 128

__device__ __forceinline__ float mish_f(float v) {
  const float sp = v > 20.0f ? v : log1pf(expf(v));
  return v * tanhf(sp);
}

// x @ W^T + b, one thread per output (2D: x over features, y over rows)
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                              int F) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (f >= F || r >= B) return;
  float acc = b[f];
  for (int k = 0; k < IN; ++k) acc += x[(size_t)r * IN + k] * w[(size_t)f * IN + k];
  y[(size_t)r * F + f] = acc;
}

__global__ void bias_add_kernel(const float* __restrict__ in, const float* __restrict__ bias,
                                float* __restrict__ out, int F, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[i % F];
}

__global__ void hardtanh_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(fmaxf(in[i], -1.0f), 1.0f);
}

__global__ void mish_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mish_f(in[i]);
}

// One block per (row, group): tree reductions in shared memory.
__global__ void group_norm_kernel(const float* __restrict__ in, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ out, int F,
                                  int G) {
  __shared__ float red[GN_THREADS];
  const int gs = F / G;
  const int row = blockIdx.x / G, g = blockIdx.x % G;
  const float* src = in + (size_t)row * F + g * gs;
  float* dst = out + (size_t)row * F + g * gs;
  float s = 0.0f;
  for (int j = threadIdx.x; j < gs; j += GN_THREADS) s += src[j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = GN_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  const float mean = red[0] / gs;
  __syncthreads();
  float q = 0.0f;
  for (int j = threadIdx.x; j < gs; j += GN_THREADS) q += (src[j] - mean) * (src[j] - mean);
  red[threadIdx.x] = q;
  __syncthreads();
  for (int k = GN_THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  const float rstd = rsqrtf(red[0] / gs + GN_EPS);
  for (int j = threadIdx.x; j < gs; j += GN_THREADS)
    dst[j] = (src[j] - mean) * rstd * gamma[g * gs + j] + beta[g * gs + j];
}

// kfuse: in  x     float[B][IN]
// kfuse: in  w     float[F][IN]
// kfuse: in  b     float[F]
// kfuse: in  bias  float[F]
// kfuse: in  gamma float[F]
// kfuse: in  beta  float[F]
// kfuse: out y     float[B][F]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.03,0.03)
// kfuse: init b     uniform(-0.03,0.03)
// kfuse: init bias  uniform(-0.5,0.5)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: assume F % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 F=8192 G=256
// kfuse: check B=3 IN=77 F=129 G=3
// kfuse: check B=6 IN=30 F=40 G=5
extern "C" void gemm_bias_add_hardtanh_mish_group_norm(const float* x, const float* w,
                                                       const float* b, const float* bias,
                                                       const float* gamma, const float* beta,
                                                       float* y, int B, int IN, int F, int G,
                                                       cudaStream_t stream) {
  const int n = B * F;
  float *lin, *t0, *t1;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&t0, sizeof(float) * n, stream);
  cudaMallocAsync(&t1, sizeof(float) * n, stream);
  dim3 block(32, 8);
  dim3 grid((F + 31) / 32, (B + 7) / 8);
  linear_kernel<<<grid, block, 0, stream>>>(x, w, b, lin, B, IN, F);
  bias_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(lin, bias, t0, F, n);
  hardtanh_kernel<<<(n + 255) / 256, 256, 0, stream>>>(t0, t1, n);
  mish_kernel<<<(n + 255) / 256, 256, 0, stream>>>(t1, t0, n);
  group_norm_kernel<<<B * G, GN_THREADS, 0, stream>>>(t0, gamma, beta, y, F, G);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
}
