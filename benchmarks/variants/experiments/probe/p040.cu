// Calls the entry twice at its tune shape (input filled with ones), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
extern "C" void layernorm(const float* x, const float* weight, const float* bias, float* y, int N, int C, int H,
                          int W, cudaStream_t stream);
int main() {
  int N = 16, C = 64, H = 256, W = 256;
  size_t n = (size_t)N * C * H * W, m = (size_t)C * H * W;
  float *x, *w, *b, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMalloc(&w, m * 4); cudaMalloc(&b, m * 4);
  std::vector<float> ones(n, 1.0f);
  cudaMemcpy(x, ones.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(w, ones.data(), m * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, ones.data(), m * 4, cudaMemcpyHostToDevice);
  for (int i = 0; i < 2; i++) layernorm(x, w, b, y, N, C, H, W, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
