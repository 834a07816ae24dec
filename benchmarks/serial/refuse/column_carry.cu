// serial: column_carry: each row a running blend along the row, started from the last value of the row above
// kind: refuse
// expect: refuse: A[i][j] reads A[i][j-1] (distance (0,1)) and carry[i-1], which every iteration of row i-1 writes and its last (j = n-1) leaves: the distance (1, j-n+1) grows with n, so no front s * i + j (s fixed) puts that writer before every reader of its row
#include <cuda_runtime.h>

__global__ void column_carry_serial(int n, float *A, float *carry) {
  for (int i = 1; i < n; ++i)
    for (int j = 1; j < n; ++j) {
      A[i * n + j] = 0.5f * (A[i * n + j - 1] + carry[i - 1]) - 0.25f * A[i * n + j];
      carry[i] = A[i * n + j];
    }
}

// kfuse: inout A float[n][n]
// kfuse: inout carry float[n]
// kfuse: assume n >= 2
// kfuse: tune n=1024
// kfuse: check n=37
extern "C" void column_carry(float *A, float *carry, int n, cudaStream_t stream) {
  column_carry_serial<<<1, 1, 0, stream>>>(n, A, carry);
}
