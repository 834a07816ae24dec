// port of polybench/cholesky.cu: a host loop over the pivot column k, two launches per step
#include <cuda_runtime.h>
#include <math.h>

__global__ void cholesky_setup(const float *M, float *L, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float v = 0.0f;
  if (j < i) v = M[i * n + j];
  if (j == i) v = M[i * n + i] + 2.0f * n;
  L[i * n + j] = v;
}

// column k below the diagonal divided by sqrt(L[k][k]); the diagonal itself is left for the
// update kernel, so no thread here writes what another reads
__global__ void cholesky_column(float *L, int n, int k) {
  int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  L[i * n + k] = L[i * n + k] / sqrtf(L[k * n + k]);
}

// trailing lower triangle minus column k's outer product; thread (k, k) takes the square root
__global__ void cholesky_update(float *L, int n, int k) {
  int j = k + blockIdx.x * blockDim.x + threadIdx.x;
  int i = k + blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j > i) return;
  if (j == k) {
    if (i == k) L[k * n + k] = sqrtf(L[k * n + k]);
    return;
  }
  L[i * n + j] -= L[i * n + k] * L[j * n + k];
}

// kfuse: in M float[n][n]
// kfuse: out L float[n][n]
// kfuse: init M uniform(-1,1)
// kfuse: tune n=180
// kfuse: check n=37
extern "C" void cholesky(const float *M, float *L, int n, cudaStream_t stream) {
  dim3 block(16, 16);
  cholesky_setup<<<dim3((n + 15) / 16, (n + 15) / 16), block, 0, stream>>>(M, L, n);
  for (int k = 0; k < n; ++k) {
    int rest = n - k;
    if (rest > 1)
      cholesky_column<<<(rest - 1 + 255) / 256, 256, 0, stream>>>(L, n, k);
    cholesky_update<<<dim3((rest + 15) / 16, (rest + 15) / 16), block, 0, stream>>>(L, n, k);
  }
}
