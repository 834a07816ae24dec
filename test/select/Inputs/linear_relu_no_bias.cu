// A wrong hand-written variant of the contract's example: it leaves out the bias.
// kfuse check must reject it and exit 1.
#include <cuda_runtime.h>

__global__ void linear_relu_fused(const float* x, const float* w, const float* bias, float* out,
                                  int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  float v = acc;
  out[b * N + n] = v > 0.f ? v : 0.f;
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  linear_relu_fused<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, bias, out, B, K, N);
}
