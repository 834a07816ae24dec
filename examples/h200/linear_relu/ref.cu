#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void bias_relu(const float* y, const float* bias, float* out, int B, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N) return;
  float v = y[i] + bias[i % N];
  out[i] = v > 0.f ? v : 0.f;
}

// kfuse: in  x    float[B][K]
// kfuse: in  w    float[N][K]
// kfuse: in  bias float[N]
// kfuse: out out  float[B][N]
// kfuse: tune  B=512 K=4096 N=4096
// kfuse: check B=3 K=77 N=129
extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  float* y;
  cudaMallocAsync(&y, sizeof(float) * B * N, stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, y, B, K, N);
  bias_relu<<<(B * N + 255) / 256, 256, 0, stream>>>(y, bias, out, B, N);
  cudaFreeAsync(y, stream);
}
