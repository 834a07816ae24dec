// port of polybench/trisolv.cu: a host loop over the columns; step j takes column j off the
// later entries and finishes x[j + 1]
#include <cuda_runtime.h>

__global__ void trisolv_start(const float *L, const float *b, float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = b[i];
  if (i == 0) v = v / (L[0] + 2.0f * n);
  x[i] = v;
}

__global__ void trisolv_step(const float *L, float *x, int n, int j) {
  int i = j + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  v -= L[i * n + j] * x[j];
  if (i == j + 1) v = v / (L[i * n + i] + 2.0f * n);
  x[i] = v;
}

// kfuse: in L float[n][n]
// kfuse: in b float[n]
// kfuse: out x float[n]
// kfuse: init L uniform(-1,1)
// kfuse: tune n=1400
// kfuse: check n=37
// x is of the order of b / (2n), so the absolute floor is set well below it
// kfuse: tol rtol=1e-3 atol=1e-7
extern "C" void trisolv(const float *L, const float *b, float *x, int n, cudaStream_t stream) {
  trisolv_start<<<(n + 255) / 256, 256, 0, stream>>>(L, b, x, n);
  for (int j = 0; j + 1 < n; ++j)
    trisolv_step<<<(n - j - 1 + 255) / 256, 256, 0, stream>>>(L, x, n, j);
}
