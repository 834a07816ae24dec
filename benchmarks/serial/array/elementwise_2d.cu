// serial: elementwise_2d: C[i][j] = A[i][j] * B[i][j] + 1 over rows x cols with nested loops
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void elementwise_2d_serial(int rows, int cols, const float *A, const float *B, float *C) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      C[i * cols + j] = A[i * cols + j] * B[i * cols + j] + 1.0f;
}

// kfuse: in A float[rows][cols]
// kfuse: in B float[rows][cols]
// kfuse: out C float[rows][cols]
// kfuse: tune rows=1024 cols=1024
// kfuse: check rows=37 cols=53
extern "C" void elementwise_2d(const float *A, const float *B, float *C, int rows, int cols,
                               cudaStream_t stream) {
  elementwise_2d_serial<<<1, 1, 0, stream>>>(rows, cols, A, B, C);
}
