// KernelBench level 2, problem 28: BMM_InstanceNorm_Sum_ResidualAdd_Multiply
//   t = linear(x, W, b); t = instance_norm(t viewed as (B,1,1,F)); t = t + y; out = t * y
// InstanceNorm2d on the (B,1,1,F) view normalizes each row over its F features (eps 1e-5,
// no affine). The GEMM is a cuBLAS call.
#include <cuda_runtime.h>
#include <cublas_v2.h>

namespace {
cublasHandle_t handle = nullptr;
constexpr int kRowThreads = 512;
}  // namespace

__global__ void bias_add(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int F, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] + bias[i % F];
}

// One block per row; shared-memory tree reductions for the mean and the biased variance.
__global__ void row_instance_norm(const float* __restrict__ in, float* __restrict__ out, int F,
                                  float eps) {
  __shared__ float buf[kRowThreads];
  const float* src = in + (size_t)blockIdx.x * F;
  float* dst = out + (size_t)blockIdx.x * F;
  const int t = threadIdx.x;
  float s = 0.0f;
  for (int j = t; j < F; j += kRowThreads) s += src[j];
  buf[t] = s;
  __syncthreads();
  for (int k = kRowThreads / 2; k > 0; k >>= 1) {
    if (t < k) buf[t] += buf[t + k];
    __syncthreads();
  }
  const float mean = buf[0] / F;
  __syncthreads();
  float q = 0.0f;
  for (int j = t; j < F; j += kRowThreads) {
    const float d = src[j] - mean;
    q += d * d;
  }
  buf[t] = q;
  __syncthreads();
  for (int k = kRowThreads / 2; k > 0; k >>= 1) {
    if (t < k) buf[t] += buf[t + k];
    __syncthreads();
  }
  const float rstd = rsqrtf(buf[0] / F + eps);
  for (int j = t; j < F; j += kRowThreads) dst[j] = (src[j] - mean) * rstd;
}

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] + b[i];
}

__global__ void mul_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] * b[i];
}

// kfuse: in  x   float[B][IN]
// kfuse: in  y   float[B][F]
// kfuse: in  w   float[F][IN]
// kfuse: in  b   float[F]
// kfuse: out out float[B][F]
// kfuse: init x uniform(0,1)
// kfuse: init y uniform(0,1)
// kfuse: init w uniform(-0.01,0.01)
// kfuse: init b uniform(-0.01,0.01)
// kfuse: assume F >= 2
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 F=8192 eps=1e-5
// kfuse: check B=3 IN=77 F=129 eps=1e-5
// kfuse: check B=7 IN=5 F=33 eps=1e-3
extern "C" cudaError_t bmm_instance_norm_sum_residual_add_multiply(const float* x, const float* y,
                                                                   const float* w, const float* b,
                                                                   float* out, int B, int IN,
                                                                   int F, float eps,
                                                                   cudaStream_t stream) {
  if (!handle) cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const int n = B * F;
  const int grid = (n + 255) / 256;
  float *mm, *lin, *nrm, *sum;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&nrm, sizeof(float) * n, stream);
  cudaMallocAsync(&sum, sizeof(float) * n, stream);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, F, B, IN, &one, w, IN, x, IN, &zero, mm, F);
  bias_add<<<grid, 256, 0, stream>>>(mm, b, lin, F, n);
  row_instance_norm<<<B, kRowThreads, 0, stream>>>(lin, nrm, F, eps);
  add_kernel<<<grid, 256, 0, stream>>>(nrm, y, sum, n);
  mul_kernel<<<grid, 256, 0, stream>>>(sum, y, out, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(nrm, stream);
  cudaFreeAsync(sum, stream);
  return cudaGetLastError();
}
