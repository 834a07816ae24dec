// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size, int dim1, int dim2, cudaStream_t stream);
int main() {
  int B = 128, D1 = 4096, D2 = 4095; float *x, *y; size_t n = (size_t)B * D1 * D2;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, (size_t)B * D2 * 4); cudaMemset(x, 0, n * 4);
  for (int i = 0; i < 2; i++) sum_reduction_over_a_dimension(x, y, B, D1, D2, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
