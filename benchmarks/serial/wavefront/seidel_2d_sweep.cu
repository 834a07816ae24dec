// serial: seidel_2d: one in-place 2-D Gauss-Seidel sweep, A[i][j] = mean of itself and its 4 neighbours, row-major order
// kind: stencil
// expect: parallel
// As written neither loop has independent iterations: A[i][j] reads A[i-1][j] (distance (1,0),
// carried by i) and A[i][j-1] (distance (0,1), carried by j), both updated earlier in the
// sweep. Fronts of i + j respect both: kfuse's wavefront (session 24; until then this program
// was refuse/seidel_2d.cu, a must-refuse program).
#include <cuda_runtime.h>

__global__ void seidel_2d_serial(int n, float *A) {
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j)
      A[i * n + j] = 0.2f * (A[(i - 1) * n + j] + A[i * n + j - 1] + A[i * n + j] +
                             A[i * n + j + 1] + A[(i + 1) * n + j]);
}

// kfuse: inout A float[n][n]
// kfuse: assume n >= 3
// kfuse: tune n=1024
// kfuse: check n=37
extern "C" void seidel_2d(float *A, int n, cudaStream_t stream) {
  seidel_2d_serial<<<1, 1, 0, stream>>>(n, A);
}
