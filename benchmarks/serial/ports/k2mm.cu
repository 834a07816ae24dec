// port of polybench/k2mm.cu: one kernel per product, one thread per output element
#include <cuda_runtime.h>

__global__ void k2mm_ab(const float *A, const float *B, float *tmp, int ni, int nj, int nk,
                        float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  float s = 0.0f;
  for (int k = 0; k < nk; ++k)
    s += A[i * nk + k] * B[k * nj + j];
  tmp[i * nj + j] = alpha * s;
}

__global__ void k2mm_tc(const float *tmp, const float *C, float *D, int ni, int nj, int nl,
                        float beta) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || l >= nl) return;
  float s = 0.0f;
  for (int j = 0; j < nj; ++j)
    s += tmp[i * nj + j] * C[j * nl + l];
  D[i * nl + l] = s + beta * D[i * nl + l];
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
  dim3 block(16, 16);
  k2mm_ab<<<dim3((nj + 15) / 16, (ni + 15) / 16), block, 0, stream>>>(A, B, tmp, ni, nj, nk, alpha);
  k2mm_tc<<<dim3((nl + 15) / 16, (ni + 15) / 16), block, 0, stream>>>(tmp, C, D, ni, nj, nl, beta);
}
