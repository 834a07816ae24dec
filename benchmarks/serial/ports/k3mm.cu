// port of polybench/k3mm.cu: one naive matmul kernel launched three times
#include <cuda_runtime.h>

// Y[r][c] = sum_k X[r][k] * W[k][c]
__global__ void k3mm_matmul(const float *X, const float *W, float *Y, int rows, int cols,
                            int inner) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  float s = 0.0f;
  for (int k = 0; k < inner; ++k)
    s += X[r * inner + k] * W[k * cols + c];
  Y[r * cols + c] = s;
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
  dim3 block(16, 16);
  k3mm_matmul<<<dim3((nj + 15) / 16, (ni + 15) / 16), block, 0, stream>>>(A, B, E, ni, nj, nk);
  k3mm_matmul<<<dim3((nl + 15) / 16, (nj + 15) / 16), block, 0, stream>>>(C, D, F, nj, nl, nm);
  k3mm_matmul<<<dim3((nl + 15) / 16, (ni + 15) / 16), block, 0, stream>>>(E, F, G, ni, nl, nj);
}
