// port of polybench/heat_3d.cu: a 2-D grid over (k, j) with blockIdx.z for i, two launches per step
#include <cuda_runtime.h>

__global__ void heat_3d_step(const float *src, float *dst, int n) {
  int k = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  int j = 1 + blockIdx.y * blockDim.y + threadIdx.y;
  int i = 1 + blockIdx.z;
  if (j >= n - 1 || k >= n - 1) return;
  int s = n * n;
  int c = i * s + j * n + k;
  dst[c] = src[c] + 0.125f * (src[c + s] - 2.0f * src[c] + src[c - s]) +
           0.125f * (src[c + n] - 2.0f * src[c] + src[c - n]) +
           0.125f * (src[c + 1] - 2.0f * src[c] + src[c - 1]);
}

// kfuse: inout A float[n][n][n]
// kfuse: inout B float[n][n][n]
// kfuse: tune n=40 tsteps=10
// kfuse: check n=19 tsteps=3
extern "C" void heat_3d(float *A, float *B, int n, int tsteps, cudaStream_t stream) {
  if (n < 3) return;
  dim3 block(16, 16), grid((n - 2 + 15) / 16, (n - 2 + 15) / 16, n - 2);
  for (int t = 0; t < tsteps; ++t) {
    heat_3d_step<<<grid, block, 0, stream>>>(A, B, n);
    heat_3d_step<<<grid, block, 0, stream>>>(B, A, n);
  }
}
