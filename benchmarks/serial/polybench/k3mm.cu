// serial: k3mm: three matrix products, E = A * B, F = C * D, G = E * F
// kind: linalg
// expect: parallel
// port: ports/k3mm.cu
#include <cuda_runtime.h>

__global__ void k3mm_serial(const float *A, const float *B, const float *C, const float *D,
                            float *E, float *F, float *G, int ni, int nj, int nk, int nl, int nm) {
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j) {
      float s = 0.0f;
      for (int k = 0; k < nk; ++k)
        s += A[i * nk + k] * B[k * nj + j];
      E[i * nj + j] = s;
    }
  for (int j = 0; j < nj; ++j)
    for (int l = 0; l < nl; ++l) {
      float s = 0.0f;
      for (int m = 0; m < nm; ++m)
        s += C[j * nm + m] * D[m * nl + l];
      F[j * nl + l] = s;
    }
  for (int i = 0; i < ni; ++i)
    for (int l = 0; l < nl; ++l) {
      float s = 0.0f;
      for (int j = 0; j < nj; ++j)
        s += E[i * nj + j] * F[j * nl + l];
      G[i * nl + l] = s;
    }
}

// kfuse: in A float[ni][nk]
// kfuse: in B float[nk][nj]
// kfuse: in C float[nj][nm]
// kfuse: in D float[nm][nl]
// kfuse: out E float[ni][nj]
// kfuse: out F float[nj][nl]
// kfuse: out G float[ni][nl]
// kfuse: tune ni=70 nj=72 nk=66 nl=76 nm=62
// kfuse: check ni=37 nj=29 nk=41 nl=33 nm=27
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void k3mm(const float *A, const float *B, const float *C, const float *D, float *E,
                     float *F, float *G, int ni, int nj, int nk, int nl, int nm,
                     cudaStream_t stream) {
  k3mm_serial<<<1, 1, 0, stream>>>(A, B, C, D, E, F, G, ni, nj, nk, nl, nm);
}
