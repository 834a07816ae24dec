// root and gather: the reference of the planted variants test/runner/planted/lookup-*.cu.
// Two entries whose inputs come from closed intervals, where the endpoints are as valid as
// anything between them: a square root of values in [0, 1], and a row lookup by indices in
// [0, C).
#include <cuda_runtime.h>
#include <math.h>

__global__ void root_kernel(const float* x, float* y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) y[i] = sqrtf(x[i]);
}

__global__ void gather_rows(const float* table, const int* idx, float* out, int N, int D) {
  int d = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y;
  if (d < D) out[(size_t)n * D + d] = table[(size_t)idx[n] * D + d];
}

// kfuse: in  x float[N]
// kfuse: out y float[N]
// kfuse: init x uniform(0,1)
// kfuse: tune  N=4194304
// kfuse: check N=1001
// kfuse: assume N >= 1
extern "C" void root(const float* x, float* y, int N, cudaStream_t stream) {
  root_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}

// kfuse: in  table float[C][D]
// kfuse: in  idx   int32[N]
// kfuse: out out   float[N][D]
// kfuse: init idx int(0,C)
// kfuse: tune  N=4096 C=100000 D=64
// kfuse: check N=7 C=1000 D=5
// kfuse: assume N >= 1 && C >= 2 && D >= 1 && N <= 65535
extern "C" void gather(const float* table, const int* idx, float* out, int N, int C, int D,
                       cudaStream_t stream) {
  gather_rows<<<dim3((D + 63) / 64, N), 64, 0, stream>>>(table, idx, out, N, D);
}
