// port of polybench/floyd_warshall.cu: a host loop over k, one thread per (i, j) in each step.
// With non-negative lengths row k and column k do not change in step k, so the threads of a
// step do not depend on each other.
#include <cuda_runtime.h>

__global__ void floyd_warshall_step(float *path, int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float via = path[i * n + k] + path[k * n + j];
  if (via < path[i * n + j])
    path[i * n + j] = via;
}

// kfuse: inout path float[n][n]
// kfuse: init path uniform(0,100)
// kfuse: assume n >= 1
// kfuse: tune n=100
// kfuse: check n=37
extern "C" void floyd_warshall(float *path, int n, cudaStream_t stream) {
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  for (int k = 0; k < n; ++k)
    floyd_warshall_step<<<grid, dim3(16, 16), 0, stream>>>(path, n, k);
}
