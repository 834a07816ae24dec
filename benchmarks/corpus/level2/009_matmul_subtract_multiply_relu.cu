// KernelBench level 2, problem 9: Matmul_Subtract_Multiply_ReLU
//   y = relu((linear(x, W, b) - subtract_value) * multiply_value)
#include <cuda_runtime.h>

#define TB 16

// addmm: out[m][n] = bias[n] + sum_k x[m][k] * w[n][k]; 2D grid of 16x16 blocks.
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ bias, float* __restrict__ out,
                              int M, int K, int N) {
  int col = blockIdx.x * TB + threadIdx.x;
  int row = blockIdx.y * TB + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += x[row * K + k] * w[col * K + k];
    out[row * N + col] = acc + bias[col];
  }
}

__global__ void subtract_kernel(const float* __restrict__ in, float* __restrict__ out, float v,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - v;
}

__global__ void multiply_kernel(const float* __restrict__ in, float* __restrict__ out, float v,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * v;
}

__global__ void relu_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.06,0.06)
// kfuse: init b uniform(-0.5,0.5)
// kfuse: tune  M=1024 K=8192 N=8192 subtract_value=2.0 multiply_value=1.5
// kfuse: check M=3 K=77 N=129 subtract_value=0.1 multiply_value=1.5
// kfuse: check M=17 K=31 N=5 subtract_value=-0.25 multiply_value=-2.0
extern "C" void matmul_subtract_multiply_relu(const float* x, const float* w, const float* b,
                                              float* y, int M, int K, int N, float subtract_value,
                                              float multiply_value, cudaStream_t stream) {
  const int n = M * N;
  float *lin, *sub, *mul;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&sub, sizeof(float) * n, stream);
  cudaMallocAsync(&mul, sizeof(float) * n, stream);
  dim3 block(TB, TB);
  dim3 grid((N + TB - 1) / TB, (M + TB - 1) / TB);
  linear_kernel<<<grid, block, 0, stream>>>(x, w, b, lin, M, K, N);
  subtract_kernel<<<(n + 255) / 256, 256, 0, stream>>>(lin, sub, subtract_value, n);
  multiply_kernel<<<(n + 255) / 256, 256, 0, stream>>>(sub, mul, multiply_value, n);
  relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(mul, y, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(sub, stream);
  cudaFreeAsync(mul, stream);
}
