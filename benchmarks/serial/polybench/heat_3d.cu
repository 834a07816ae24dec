// serial: heat_3d: explicit 3-D heat equation, a 7-point stencil from A into B and back each time step
// kind: stencil
// expect: parallel
// port: ports/heat_3d.cu
#include <cuda_runtime.h>

__global__ void heat_3d_serial(float *A, float *B, int n, int tsteps) {
  const int s = n * n;
  for (int t = 0; t < tsteps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        for (int k = 1; k < n - 1; ++k) {
          int c = i * s + j * n + k;
          B[c] = A[c] + 0.125f * (A[c + s] - 2.0f * A[c] + A[c - s]) +
                 0.125f * (A[c + n] - 2.0f * A[c] + A[c - n]) +
                 0.125f * (A[c + 1] - 2.0f * A[c] + A[c - 1]);
        }
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        for (int k = 1; k < n - 1; ++k) {
          int c = i * s + j * n + k;
          A[c] = B[c] + 0.125f * (B[c + s] - 2.0f * B[c] + B[c - s]) +
                 0.125f * (B[c + n] - 2.0f * B[c] + B[c - n]) +
                 0.125f * (B[c + 1] - 2.0f * B[c] + B[c - 1]);
        }
  }
}

// kfuse: inout A float[n][n][n]
// kfuse: inout B float[n][n][n]
// kfuse: tune n=40 tsteps=10
// kfuse: check n=19 tsteps=3
extern "C" void heat_3d(float *A, float *B, int n, int tsteps, cudaStream_t stream) {
  heat_3d_serial<<<1, 1, 0, stream>>>(A, B, n, tsteps);
}
