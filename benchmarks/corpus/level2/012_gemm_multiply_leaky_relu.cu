// KernelBench level 2, problem 12: Gemm_Multiply_LeakyReLU
//   y = leaky_relu(linear(x, W, b) * multiplier, negative_slope)
#include <cuda_runtime.h>

// x @ w^T, one thread per output element, flat 1D grid.
__global__ void gemm_nt(const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ c, int M, int N, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  const int m = idx / N;
  const int n = idx - m * N;
  const float* ar = a + (size_t)m * K;
  const float* br = b + (size_t)n * K;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc = fmaf(ar[k], br[k], acc);
  c[idx] = acc;
}

__global__ void add_row_bias(const float* __restrict__ in, const float* __restrict__ bias,
                             float* __restrict__ out, int M, int N) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  out[idx] = in[idx] + bias[idx % N];
}

__global__ void mul_scalar(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  out[idx] = in[idx] * s;
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, float slope,
                           int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  const float v = in[idx];
  out[idx] = v > 0.f ? v : v * slope;
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.01,0.01)
// kfuse: init b uniform(-0.01,0.01)
// kfuse: tune  M=1024 K=8192 N=8192 multiplier=2.0 negative_slope=0.1
// kfuse: check M=3 K=77 N=129 multiplier=2.0 negative_slope=0.1
// kfuse: check M=9 K=300 N=7 multiplier=-0.5 negative_slope=0.01
extern "C" void gemm_multiply_leaky_relu(const float* x, const float* w, const float* b, float* y,
                                         int M, int K, int N, float multiplier,
                                         float negative_slope, cudaStream_t stream) {
  const int n = M * N;
  const int T = 256, G = (n + T - 1) / T;
  float *mm, *lin, *scaled;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&scaled, sizeof(float) * n, stream);
  gemm_nt<<<G, T, 0, stream>>>(x, w, mm, M, N, K);
  add_row_bias<<<G, T, 0, stream>>>(mm, b, lin, M, N);
  mul_scalar<<<G, T, 0, stream>>>(lin, scaled, multiplier, n);
  leaky_relu<<<G, T, 0, stream>>>(scaled, y, negative_slope, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(scaled, stream);
}
