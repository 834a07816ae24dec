// serial: seidel_2d: 2-D nine-point Gauss-Seidel smoothing in place, rows top to bottom, each row left to right
// kind: stencil
// expect: parallel
// As written neither space loop has independent iterations: A[i][j] reads A[i][j-1] and
// A[i-1][j-1], A[i-1][j], A[i-1][j+1] written earlier in the same sweep (distances (0,1), (1,1),
// (1,0), (1,-1)) and A[i][j+1], A[i+1][*] that later iterations overwrite. Fronts of 2i + j
// respect every one of them: kfuse's wavefront (session 24; until then a must-refuse program).
#include <cuda_runtime.h>

__global__ void seidel_2d_serial(float *A, int n, int tsteps) {
  for (int t = 0; t < tsteps; ++t)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        A[i * n + j] = (A[(i - 1) * n + j - 1] + A[(i - 1) * n + j] + A[(i - 1) * n + j + 1] +
                        A[i * n + j - 1] + A[i * n + j] + A[i * n + j + 1] +
                        A[(i + 1) * n + j - 1] + A[(i + 1) * n + j] + A[(i + 1) * n + j + 1]) /
                       9.0f;
}

// kfuse: inout A float[n][n]
// kfuse: tune n=230 tsteps=20
// kfuse: check n=37 tsteps=3
extern "C" void seidel_2d(float *A, int n, int tsteps, cudaStream_t stream) {
  seidel_2d_serial<<<1, 1, 0, stream>>>(A, n, tsteps);
}
