// Not a KernelBench problem: a file with two annotated entries, the forward and the backward
// of a linear layer y = x @ w^T + b. Naive kernels, one thread per output element.
#include <cuda_runtime.h>

// y[i][n] = sum_k x[i][k] * w[n][k] + b[n]
__global__ void linear_fwd_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                  const float* __restrict__ b, float* __restrict__ y, int B, int K,
                                  int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  if (n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += x[(size_t)i * K + k] * w[(size_t)n * K + k];
  y[(size_t)i * N + n] = acc + b[n];
}

// dx[i][k] = sum_n dy[i][n] * w[n][k]
__global__ void linear_bwd_input_kernel(const float* __restrict__ dy, const float* __restrict__ w,
                                        float* __restrict__ dx, int B, int K, int N) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  if (k >= K) return;
  float acc = 0.0f;
  for (int n = 0; n < N; ++n) acc += dy[(size_t)i * N + n] * w[(size_t)n * K + k];
  dx[(size_t)i * K + k] = acc;
}

// dw[n][k] = sum_i dy[i][n] * x[i][k]
__global__ void linear_bwd_weight_kernel(const float* __restrict__ dy, const float* __restrict__ x,
                                         float* __restrict__ dw, int B, int K, int N) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = blockIdx.y;
  if (k >= K) return;
  float acc = 0.0f;
  for (int i = 0; i < B; ++i) acc += dy[(size_t)i * N + n] * x[(size_t)i * K + k];
  dw[(size_t)n * K + k] = acc;
}

// kfuse: in  x float[B][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[B][N]
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.05,0.05)
// kfuse: assume B <= 65535
// kfuse: tune  B=512 K=4096 N=4096
// kfuse: check B=3 K=77 N=129
// kfuse: check B=1 K=5 N=33
extern "C" void linear_forward(const float* x, const float* w, const float* b, float* y, int B,
                               int K, int N, cudaStream_t stream) {
  dim3 grid((N + 255) / 256, B);
  linear_fwd_kernel<<<grid, 256, 0, stream>>>(x, w, b, y, B, K, N);
}

// The backward pass: grad input and grad weight from grad output.
// kfuse: in  x  float[B][K]
// kfuse: in  w  float[N][K]
// kfuse: in  dy float[B][N]
// kfuse: out dx float[B][K]
// kfuse: out dw float[N][K]
// kfuse: init w uniform(-0.05,0.05)
// kfuse: assume B <= 65535 && N <= 65535
// kfuse: tune  B=512 K=4096 N=4096
// kfuse: check B=3 K=77 N=129
// kfuse: check B=1 K=5 N=33
extern "C" void linear_backward(const float* x, const float* w, const float* dy, float* dx,
                                float* dw, int B, int K, int N, cudaStream_t stream) {
  dim3 grid_dx((K + 255) / 256, B);
  linear_bwd_input_kernel<<<grid_dx, 256, 0, stream>>>(dy, w, dx, B, K, N);
  dim3 grid_dw((K + 255) / 256, N);
  linear_bwd_weight_kernel<<<grid_dw, 256, 0, stream>>>(dy, x, dw, B, K, N);
}
