// port of polybench/jacobi_1d.cu: one thread per interior point, two launches per step
#include <cuda_runtime.h>

__global__ void jacobi_1d_step(const float *src, float *dst, int n) {
  int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1) return;
  dst[i] = 0.33333f * (src[i - 1] + src[i] + src[i + 1]);
}

// kfuse: inout A float[n]
// kfuse: inout B float[n]
// kfuse: tune n=25000 tsteps=20
// kfuse: check n=1001 tsteps=3
extern "C" void jacobi_1d(float *A, float *B, int n, int tsteps, cudaStream_t stream) {
  if (n < 3) return;
  int blocks = (n - 2 + 255) / 256;
  for (int t = 0; t < tsteps; ++t) {
    jacobi_1d_step<<<blocks, 256, 0, stream>>>(A, B, n);
    jacobi_1d_step<<<blocks, 256, 0, stream>>>(B, A, n);
  }
}
