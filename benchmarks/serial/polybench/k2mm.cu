// serial: k2mm: two chained matrix products, tmp = alpha * A * B and D = tmp * C + beta * D
// kind: linalg
// expect: parallel
// port: ports/k2mm.cu
#include <cuda_runtime.h>

__global__ void k2mm_serial(const float *A, const float *B, const float *C, float *D, float *tmp,
                            int ni, int nj, int nk, int nl, float alpha, float beta) {
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      float s = 0.0f;
      for (int k = 0; k < nk; ++k)
        s += A[i * nk + k] * B[k * nj + j];
      tmp[i * nj + j] = alpha * s;
    }
  for (int i = 0; i < ni; ++i)
    for (int l = 0; l < nl; ++l) {
      float s = 0.0f;
      for (int j = 0; j < nj; ++j)
        s += tmp[i * nj + j] * C[j * nl + l];
      D[i * nl + l] = s + beta * D[i * nl + l];
    }
}

// kfuse: in A float[ni][nk]
// kfuse: in B float[nk][nj]
// kfuse: in C float[nj][nl]
// kfuse: inout D float[ni][nl]
// kfuse: out tmp float[ni][nj]
// kfuse: tune ni=78 nj=84 nk=70 nl=80 alpha=1.5 beta=1.2
// kfuse: check ni=37 nj=29 nk=41 nl=33 alpha=-0.5 beta=0.75
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void k2mm(const float *A, const float *B, const float *C, float *D, float *tmp, int ni,
                     int nj, int nk, int nl, float alpha, float beta, cudaStream_t stream) {
  k2mm_serial<<<1, 1, 0, stream>>>(A, B, C, D, tmp, ni, nj, nk, nl, alpha, beta);
}
