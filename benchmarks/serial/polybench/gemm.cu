// serial: gemm: C = alpha * A * B + beta * C for dense row-major matrices
// kind: linalg
// expect: parallel
// port: ports/gemm.cu
#include <cuda_runtime.h>

__global__ void gemm_serial(const float *A, const float *B, float *C, int ni, int nj, int nk,
                            float alpha, float beta) {
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < nk; ++k)
        acc += A[i * nk + k] * B[k * nj + j];
      C[i * nj + j] = alpha * acc + beta * C[i * nj + j];
    }
}

// kfuse: in A float[ni][nk]
// kfuse: in B float[nk][nj]
// kfuse: inout C float[ni][nj]
// kfuse: tune ni=100 nj=110 nk=90 alpha=1.5 beta=1.2
// kfuse: check ni=37 nj=29 nk=41 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void gemm(const float *A, const float *B, float *C, int ni, int nj, int nk, float alpha,
                     float beta, cudaStream_t stream) {
  gemm_serial<<<1, 1, 0, stream>>>(A, B, C, ni, nj, nk, alpha, beta);
}
