// port of polybench/gesummv.cu: one thread per element of y
#include <cuda_runtime.h>

__global__ void gesummv_kernel(const float *A, const float *B, const float *x, float *y, int n,
                               float alpha, float beta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sa = 0.0f, sb = 0.0f;
  for (int j = 0; j < n; ++j) {
    sa += A[i * n + j] * x[j];
    sb += B[i * n + j] * x[j];
  }
  y[i] = alpha * sa + beta * sb;
}

// kfuse: in A float[n][n]
// kfuse: in B float[n][n]
// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: tune n=700 alpha=1.5 beta=1.2
// kfuse: check n=37 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void gesummv(const float *A, const float *B, const float *x, float *y, int n,
                        float alpha, float beta, cudaStream_t stream) {
  gesummv_kernel<<<(n + 255) / 256, 256, 0, stream>>>(A, B, x, y, n, alpha, beta);
}
