// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void log_softmax(const float* x, float* y, int batch_size, int dim, cudaStream_t stream);
int main() {
  int B = 4096, D = 393216; float *x, *y;
  cudaMalloc(&x, (size_t)B * D * 4); cudaMalloc(&y, (size_t)B * D * 4);
  cudaMemset(x, 0, (size_t)B * D * 4);
  for (int i = 0; i < 2; i++) log_softmax(x, y, B, D, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
