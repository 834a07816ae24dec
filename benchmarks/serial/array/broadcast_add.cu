// serial: broadcast_add: Y[i][j] = X[i][j] + b[j], a row vector added to every row
// kind: array
// expect: parallel
#include <cuda_runtime.h>

__global__ void broadcast_add_serial(int rows, int cols, const float *X, const float *b, float *Y) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      Y[i * cols + j] = X[i * cols + j] + b[j];
}

// kfuse: in X float[rows][cols]
// kfuse: in b float[cols]
// kfuse: out Y float[rows][cols]
// kfuse: tune rows=1024 cols=1024
// kfuse: check rows=37 cols=53
extern "C" void broadcast_add(const float *X, const float *b, float *Y, int rows, int cols,
                              cudaStream_t stream) {
  broadcast_add_serial<<<1, 1, 0, stream>>>(rows, cols, X, b, Y);
}
