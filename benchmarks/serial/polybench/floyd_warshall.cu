// serial: floyd_warshall: all-pairs shortest path lengths, relaxed in place through each intermediate vertex k
// kind: medley
// expect: parallel
// In step k, path[i][j] = min(path[i][j], path[i][k] + path[k][j]) writes path[i][k] (j == k)
// that the other j of row i read, and row k (i == k) that every i reads: the i and j loops are
// independent only because path[k][k] >= 0 leaves row and column k unchanged, a fact about the
// values, not the indices. Fronts of i + j within each step keep every one of those orders:
// kfuse's wavefront (session 24; until then a must-refuse program).
// port: ports/floyd_warshall.cu
#include <cuda_runtime.h>

__global__ void floyd_warshall_serial(float *path, int n) {
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        float via = path[i * n + k] + path[k * n + j];
        if (via < path[i * n + j])
          path[i * n + j] = via;
      }
}

// kfuse: inout path float[n][n]
// kfuse: init path uniform(0,100)
// kfuse: assume n >= 1
// kfuse: tune n=100
// kfuse: check n=37
extern "C" void floyd_warshall(float *path, int n, cudaStream_t stream) {
  floyd_warshall_serial<<<1, 1, 0, stream>>>(path, n);
}
