// KernelBench level 2, problem 22: Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish
//   t = linear(x, W, b) * scale_factor; t = t + t; t = clamp(t, lo, hi);
//   l = logsumexp(t, dim=1, keepdim); y = l * mish(l)
// The GEMM goes to cuBLAS, as nn.Linear does.
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define LSE_THREADS 256

static cublasHandle_t g_cublas = nullptr;

static cublasHandle_t cublas_handle(cudaStream_t stream) {
  if (g_cublas == nullptr) cublasCreate(&g_cublas);
  cublasSetStream(g_cublas, stream);
  return g_cublas;
}

__global__ void add_bias_rows(const float* __restrict__ in, const float* __restrict__ bias,
                              float* __restrict__ out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = in[i] + bias[i % cols];
}

__global__ void scale_kernel(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void residual_add(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void clamp_kernel(const float* __restrict__ in, float* __restrict__ out, float lo,
                             float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(fmaxf(in[i], lo), hi);
}

// One block per row: max by tree reduction, then sum of exp(v - max) by tree reduction.
__global__ void logsumexp_rows(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float sh[LSE_THREADS];
  const float* row = in + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += LSE_THREADS) m = fmaxf(m, row[j]);
  sh[threadIdx.x] = m;
  __syncthreads();
  for (int s = LSE_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = sh[0];
  __syncthreads();
  float acc = 0.f;
  for (int j = threadIdx.x; j < cols; j += LSE_THREADS) acc += expf(row[j] - mx);
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = LSE_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = mx + logf(sh[0]);
}

__device__ __forceinline__ float mish(float v) { return v * tanhf(log1pf(expf(v))); }

__global__ void mul_mish(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * mish(in[i]);
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B][1]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.03,0.03)
// kfuse: init b uniform(-0.03,0.03)
// kfuse: tune  B=1024 IN=8192 OUT=8192 scale_factor=2.0 clamp_min=-10.0 clamp_max=10.0
// kfuse: check B=3 IN=77 OUT=129 scale_factor=2.0 clamp_min=-10.0 clamp_max=10.0
// kfuse: check B=5 IN=33 OUT=300 scale_factor=20.0 clamp_min=-2.0 clamp_max=1.5
extern "C" void matmul_scale_residual_add_clamp_log_sum_exp_mish(
    const float* x, const float* w, const float* b, float* y, int B, int IN, int OUT,
    float scale_factor, float clamp_min, float clamp_max, cudaStream_t stream) {
  const int n = B * OUT;
  const int nb = (n + 255) / 256;
  float *mm, *lin, *sc, *res, *cl, *lse;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&sc, sizeof(float) * n, stream);
  cudaMallocAsync(&res, sizeof(float) * n, stream);
  cudaMallocAsync(&cl, sizeof(float) * n, stream);
  cudaMallocAsync(&lse, sizeof(float) * B, stream);

  // Row-major y[B][OUT] = x[B][IN] * w[OUT][IN]^T, i.e. column-major y^T = w^T(op T) * x^T.
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(cublas_handle(stream), CUBLAS_OP_T, CUBLAS_OP_N, OUT, B, IN, &alpha, w, IN, x, IN,
              &beta, mm, OUT);
  add_bias_rows<<<nb, 256, 0, stream>>>(mm, b, lin, B, OUT);
  scale_kernel<<<nb, 256, 0, stream>>>(lin, sc, scale_factor, n);
  residual_add<<<nb, 256, 0, stream>>>(sc, sc, res, n);
  clamp_kernel<<<nb, 256, 0, stream>>>(res, cl, clamp_min, clamp_max, n);
  logsumexp_rows<<<B, LSE_THREADS, 0, stream>>>(cl, lse, OUT);
  mul_mish<<<(B + 255) / 256, 256, 0, stream>>>(lse, y, B);

  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(sc, stream);
  cudaFreeAsync(res, stream);
  cudaFreeAsync(cl, stream);
  cudaFreeAsync(lse, stream);
}
