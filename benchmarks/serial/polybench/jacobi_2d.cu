// serial: jacobi_2d: 2-D five-point Jacobi smoothing, from A into B and back each time step
// kind: stencil
// expect: parallel
// port: ports/jacobi_2d.cu
#include <cuda_runtime.h>

__global__ void jacobi_2d_serial(float *A, float *B, int n, int tsteps) {
  for (int t = 0; t < tsteps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                               A[(i - 1) * n + j] + A[(i + 1) * n + j]);
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        A[i * n + j] = 0.2f * (B[i * n + j] + B[i * n + j - 1] + B[i * n + j + 1] +
                               B[(i - 1) * n + j] + B[(i + 1) * n + j]);
  }
}

// kfuse: inout A float[n][n]
// kfuse: inout B float[n][n]
// kfuse: tune n=224 tsteps=10
// kfuse: check n=37 tsteps=3
extern "C" void jacobi_2d(float *A, float *B, int n, int tsteps, cudaStream_t stream) {
  jacobi_2d_serial<<<1, 1, 0, stream>>>(A, B, n, tsteps);
}
