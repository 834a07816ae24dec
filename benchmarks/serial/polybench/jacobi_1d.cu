// serial: jacobi_1d: 1-D three-point Jacobi smoothing, from A into B and back each time step
// kind: stencil
// expect: parallel
// port: ports/jacobi_1d.cu
#include <cuda_runtime.h>

__global__ void jacobi_1d_serial(float *A, float *B, int n, int tsteps) {
  for (int t = 0; t < tsteps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; ++i)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}

// kfuse: inout A float[n]
// kfuse: inout B float[n]
// kfuse: tune n=25000 tsteps=20
// kfuse: check n=1001 tsteps=3
extern "C" void jacobi_1d(float *A, float *B, int n, int tsteps, cudaStream_t stream) {
  jacobi_1d_serial<<<1, 1, 0, stream>>>(A, B, n, tsteps);
}
