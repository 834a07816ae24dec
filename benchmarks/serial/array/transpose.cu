// serial: transpose: B[j][i] = A[i][j] for a rows x cols matrix A
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void transpose_serial(int rows, int cols, const float *A, float *B) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      B[j * rows + i] = A[i * cols + j];
}

// kfuse: in A float[rows][cols]
// kfuse: out B float[cols][rows]
// kfuse: tune rows=512 cols=512
// kfuse: check rows=37 cols=53
extern "C" void transpose(const float *A, float *B, int rows, int cols, cudaStream_t stream) {
  transpose_serial<<<1, 1, 0, stream>>>(rows, cols, A, B);
}
