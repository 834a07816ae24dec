// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void instance_norm(const float* x, float* y, int N, int C, int H, int W, float eps, cudaStream_t stream);
int main() {
  int N = 112, C = 64, H = 512, W = 512; float *x, *y; size_t n = (size_t)N * C * H * W;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMemset(x, 0, n * 4);
  for (int i = 0; i < 2; i++) instance_norm(x, y, N, C, H, W, 1e-5f, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
