// port of polybench/symm.cu: one thread per element of C
#include <cuda_runtime.h>

__global__ void symm_kernel(const float *A, const float *B, float *C, int m, int n, float alpha,
                            float beta) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  float s = 0.0f;
  for (int k = 0; k <= i; ++k)
    s += A[i * m + k] * B[k * n + j];
  for (int k = i + 1; k < m; ++k)
    s += A[k * m + i] * B[k * n + j];
  C[i * n + j] = beta * C[i * n + j] + alpha * s;
}

// kfuse: in A float[m][m]
// kfuse: in B float[m][n]
// kfuse: inout C float[m][n]
// kfuse: tune m=96 n=108 alpha=1.5 beta=1.2
// kfuse: check m=37 n=29 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void symm(const float *A, const float *B, float *C, int m, int n, float alpha,
                     float beta, cudaStream_t stream) {
  symm_kernel<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, m, n, alpha, beta);
}
