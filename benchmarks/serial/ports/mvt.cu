// port of polybench/mvt.cu: one thread per element of x1, then of x2
#include <cuda_runtime.h>

__global__ void mvt_x1(const float *A, float *x1, const float *y1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = x1[i];
  for (int j = 0; j < n; ++j)
    s += A[i * n + j] * y1[j];
  x1[i] = s;
}

__global__ void mvt_x2(const float *A, float *x2, const float *y2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = x2[i];
  for (int j = 0; j < n; ++j)
    s += A[j * n + i] * y2[j];
  x2[i] = s;
}

// kfuse: in A float[n][n]
// kfuse: inout x1 float[n]
// kfuse: inout x2 float[n]
// kfuse: in y1 float[n]
// kfuse: in y2 float[n]
// kfuse: tune n=720
// kfuse: check n=37
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void mvt(const float *A, float *x1, float *x2, const float *y1, const float *y2, int n,
                    cudaStream_t stream) {
  mvt_x1<<<(n + 255) / 256, 256, 0, stream>>>(A, x1, y1, n);
  mvt_x2<<<(n + 255) / 256, 256, 0, stream>>>(A, x2, y2, n);
}
