// KernelBench level 2, problem 86: Matmul_Divide_GELU
//   y = gelu(linear(x, W, b) / divisor)
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_exact(float v) {
  const float kInvSqrt2 = 0.70710678118654752440f;
  return v * 0.5f * (1.0f + erff(v * kInvSqrt2));
}

__global__ void linear_fwd(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y, int M, int K,
                           int N) {
  // grid.x tiles N, grid.y is the row
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += x[(size_t)m * K + k] * w[(size_t)n * K + k];
    y[(size_t)m * N + n] = acc + b[n];
  }
}

__global__ void divide_fwd(const float* __restrict__ in, float* __restrict__ out, float d,
                           size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / d;
}

__global__ void gelu_fwd(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gelu_exact(in[i]);
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.1,0.1)
// kfuse: init b uniform(-0.1,0.1)
// kfuse: assume M <= 65535
// kfuse: tune  M=1024 K=8192 N=8192 divisor=10.0
// kfuse: check M=3 K=77 N=129 divisor=10.0
// kfuse: check M=7 K=256 N=15 divisor=0.5
extern "C" cudaError_t matmul_divide_gelu(const float* x, const float* w, const float* b, float* y,
                                          int M, int K, int N, float divisor,
                                          cudaStream_t stream) {
  const size_t n = (size_t)M * N;
  float *lin, *dv;
  cudaError_t e = cudaMallocAsync(&lin, n * sizeof(float), stream);
  if (e != cudaSuccess) return e;
  e = cudaMallocAsync(&dv, n * sizeof(float), stream);
  if (e != cudaSuccess) return e;
  linear_fwd<<<dim3((N + 127) / 128, M), 128, 0, stream>>>(x, w, b, lin, M, K, N);
  const unsigned g = (unsigned)((n + 255) / 256);
  divide_fwd<<<g, 256, 0, stream>>>(lin, dv, divisor, n);
  gelu_fwd<<<g, 256, 0, stream>>>(dv, y, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(dv, stream);
  return cudaGetLastError();
}
