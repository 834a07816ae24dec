// KernelBench level 2, problem 99: Matmul_GELU_Softmax
//   y = softmax(gelu(linear(x, W, b)), dim=1)
// GEMM through cublasGemmEx (fp32 in/out, CUBLAS_COMPUTE_32F); softmax one block per row.
#include <cuda_runtime.h>
#include <cublas_v2.h>

constexpr int SM_THREADS = 512;

namespace {
cublasHandle_t blas_handle = nullptr;

cublasHandle_t get_blas(cudaStream_t s) {
  if (blas_handle == nullptr) cublasCreate(&blas_handle);
  cublasSetStream(blas_handle, s);
  return blas_handle;
}
}  // namespace

__global__ void add_bias_kernel(const float* __restrict__ in, const float* __restrict__ b,
                                float* __restrict__ out, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + b[i % cols];
}

__global__ void gelu_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}

__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float red[SM_THREADS];
  const float* src = in + (size_t)blockIdx.x * cols;
  float* dst = out + (size_t)blockIdx.x * cols;
  const int t = threadIdx.x;

  float m = -INFINITY;
  for (int j = t; j < cols; j += SM_THREADS) m = fmaxf(m, src[j]);
  red[t] = m;
  __syncthreads();
  for (int s = SM_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();

  float sum = 0.0f;
  for (int j = t; j < cols; j += SM_THREADS) sum += expf(src[j] - row_max);
  red[t] = sum;
  __syncthreads();
  for (int s = SM_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = t; j < cols; j += SM_THREADS) dst[j] = expf(src[j] - row_max) * inv;
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B][OUT]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.05,0.05)
// kfuse: tol rtol=1e-3 atol=1e-6
// kfuse: tune  B=1024 IN=8192 OUT=8192
// kfuse: check B=3 IN=77 OUT=129
// kfuse: check B=9 IN=300 OUT=10
extern "C" cudaError_t matmul_gelu_softmax(const float* x, const float* w, const float* b,
                                           float* y, int B, int IN, int OUT,
                                           cudaStream_t stream) {
  cublasHandle_t h = get_blas(stream);
  const int n = B * OUT;
  float *mm, *lin, *act;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&act, sizeof(float) * n, stream);
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, OUT, B, IN, &one, w, CUDA_R_32F,
                                   IN, x, CUDA_R_32F, IN, &zero, mm, CUDA_R_32F, OUT,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  add_bias_kernel<<<(n + 255) / 256, 256, 0, stream>>>(mm, b, lin, OUT, n);
  gelu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(lin, act, n);
  softmax_rows<<<B, SM_THREADS, 0, stream>>>(act, y, OUT);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(act, stream);
  if (st != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  return cudaGetLastError();
}
