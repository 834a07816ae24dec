// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void cumsum_reverse(const float* x, float* y, int batch_size, int L, cudaStream_t stream);
int main() {
  int B = 32768, L = 32768; float *x, *y;
  cudaMalloc(&x, (size_t)B * L * 4); cudaMalloc(&y, (size_t)B * L * 4);
  cudaMemset(x, 0, (size_t)B * L * 4);
  for (int i = 0; i < 2; i++) cumsum_reverse(x, y, B, L, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
