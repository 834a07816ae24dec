// port of polybench/lu.cu: a host loop over the pivot k, a column kernel and an update kernel per step
#include <cuda_runtime.h>

__global__ void lu_setup(const float *M, float *LU, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float v = M[i * n + j];
  if (i == j) v += 2.0f * n;
  LU[i * n + j] = v;
}

__global__ void lu_column(float *LU, int n, int k) {
  int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  LU[i * n + k] = LU[i * n + k] / LU[k * n + k];
}

__global__ void lu_update(float *LU, int n, int k) {
  int j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  int i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  LU[i * n + j] -= LU[i * n + k] * LU[k * n + j];
}

// kfuse: in M float[n][n]
// kfuse: out LU float[n][n]
// kfuse: init M uniform(-1,1)
// kfuse: tune n=110
// kfuse: check n=37
extern "C" void lu(const float *M, float *LU, int n, cudaStream_t stream) {
  dim3 block(16, 16);
  lu_setup<<<dim3((n + 15) / 16, (n + 15) / 16), block, 0, stream>>>(M, LU, n);
  for (int k = 0; k + 1 < n; ++k) {
    int rest = n - k - 1;
    lu_column<<<(rest + 255) / 256, 256, 0, stream>>>(LU, n, k);
    lu_update<<<dim3((rest + 15) / 16, (rest + 15) / 16), block, 0, stream>>>(LU, n, k);
  }
}
