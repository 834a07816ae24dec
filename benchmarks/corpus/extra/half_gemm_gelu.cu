// Not a KernelBench problem: half precision linear + GELU, as eager PyTorch runs
// F.gelu(F.linear(x, w) + b) on __half tensors: a GEMM accumulating in float and rounding
// its output to half, a bias-add kernel, a GELU kernel (float math, half storage).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu_exact(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
}

// y[m][n] = sum_k x[m][k] * w[n][k]
__global__ void hgemm_nt_naive(const __half* __restrict__ x, const __half* __restrict__ w,
                               __half* __restrict__ y, int M, int K, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m < M && n < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(x[(size_t)m * K + k]) * __half2float(w[(size_t)n * K + k]);
    y[(size_t)m * N + n] = __float2half(acc);
  }
}

__global__ void add_bias_half(const __half* __restrict__ y, const __half* __restrict__ b,
                              __half* __restrict__ z, int M, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) z[i] = __float2half(__half2float(y[i]) + __half2float(b[i % N]));
}

__global__ void gelu_half(const __half* __restrict__ z, __half* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2half(gelu_exact(__half2float(z[i])));
}

// kfuse: in  x   half[M][K]
// kfuse: in  w   half[N][K]
// kfuse: in  b   half[N]
// kfuse: out out half[M][N]
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.5,0.5)
// kfuse: assume M <= 2147483392 / N
// kfuse: tune  M=1024 K=4096 N=4096
// kfuse: check M=33 K=77 N=129
// kfuse: check M=3 K=5 N=7
extern "C" void half_gemm_gelu(const __half* x, const __half* w, const __half* b, __half* out,
                               int M, int K, int N, cudaStream_t stream) {
  __half *y, *z;
  cudaMallocAsync(&y, sizeof(__half) * (size_t)M * N, stream);
  cudaMallocAsync(&z, sizeof(__half) * (size_t)M * N, stream);
  dim3 block(32, 8);
  dim3 grid((N + 31) / 32, (M + 7) / 8);
  hgemm_nt_naive<<<grid, block, 0, stream>>>(x, w, y, M, K, N);
  const int total = M * N;
  add_bias_half<<<(total + 255) / 256, 256, 0, stream>>>(y, b, z, M, N);
  gelu_half<<<(total + 255) / 256, 256, 0, stream>>>(z, out, total);
  cudaFreeAsync(y, stream);
  cudaFreeAsync(z, stream);
}
