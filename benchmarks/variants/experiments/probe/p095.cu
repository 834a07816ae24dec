// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
extern "C" void cross_entropy_loss(const float* predictions, const int64_t* targets, float* loss,
                                   int batch_size, int num_classes, cudaStream_t stream);
int main() {
  int B = 32768, C = 4096; float *x, *loss; int64_t* t;
  cudaMalloc(&x, (size_t)B * C * 4); cudaMalloc(&t, (size_t)B * 8); cudaMalloc(&loss, 4);
  cudaMemset(x, 0, (size_t)B * C * 4); cudaMemset(t, 0, (size_t)B * 8);
  for (int i = 0; i < 2; i++) cross_entropy_loss(x, t, loss, B, C, 0);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
