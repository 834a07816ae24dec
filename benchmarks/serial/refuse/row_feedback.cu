// serial: row_feedback: each row a running sum along the row, fed by the mirror element of the row above
// kind: refuse
// expect: refuse: A[i][j] reads A[i][j-1] (distance (0,1)) and A[i-1][n-1-j], written by the previous row's iteration n-1-j: the distance (1, 2j-n+1) runs from 1-n to n-1, so no front s * i + j (any fixed s) puts every writer before its reader
#include <cuda_runtime.h>

__global__ void row_feedback_serial(int n, float *A) {
  for (int i = 1; i < n; ++i)
    for (int j = 1; j < n; ++j)
      A[i * n + j] = 0.5f * A[i * n + j - 1] + 0.25f * A[(i - 1) * n + n - 1 - j] + A[i * n + j];
}

// kfuse: inout A float[n][n]
// kfuse: assume n >= 2
// kfuse: tune n=1024
// kfuse: check n=37
extern "C" void row_feedback(float *A, int n, cudaStream_t stream) {
  row_feedback_serial<<<1, 1, 0, stream>>>(n, A);
}
