// port of polybench/gemver.cu: the rank-2 update over a 2-D grid, then two matrix-vector kernels
#include <cuda_runtime.h>

__global__ void gemver_update(float *A, const float *u1, const float *v1, const float *u2,
                              const float *v2, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  A[i * n + j] = A[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
}

__global__ void gemver_x(const float *A, float *x, const float *y, const float *z, int n,
                         float beta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += A[j * n + i] * y[j];
  x[i] = x[i] + beta * s + z[i];
}

__global__ void gemver_w(const float *A, const float *x, float *w, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += A[i * n + j] * x[j];
  w[i] = w[i] + alpha * s;
}

// kfuse: inout A float[n][n]
// kfuse: in u1 float[n]
// kfuse: in v1 float[n]
// kfuse: in u2 float[n]
// kfuse: in v2 float[n]
// kfuse: inout w float[n]
// kfuse: inout x float[n]
// kfuse: in y float[n]
// kfuse: in z float[n]
// kfuse: tune n=500 alpha=1.5 beta=1.2
// kfuse: check n=37 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void gemver(float *A, const float *u1, const float *v1, const float *u2,
                       const float *v2, float *w, float *x, const float *y, const float *z, int n,
                       float alpha, float beta, cudaStream_t stream) {
  gemver_update<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16), 0, stream>>>(A, u1, v1, u2, v2, n);
  gemver_x<<<(n + 255) / 256, 256, 0, stream>>>(A, x, y, z, n, beta);
  gemver_w<<<(n + 255) / 256, 256, 0, stream>>>(A, x, w, n, alpha);
}
