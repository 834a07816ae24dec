// Dereferences and atomics through buffer pointers: *p is p[0], *(p + i) is p[i].
#include <cuda_runtime.h>

__global__ void deref(const float* x, const float* scale, float* y, float* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* row = x + i;
  float v = *row * *scale + *(x + i) + *(i + x);
  *(y + i) = v;
  atomicAdd(total, v);
  atomicAdd(y + n, 1.0f);
}

// p + i - 1 is p[i - 1]; a pointer minus an index first is p[0 - i].
__global__ void deref_minus(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n) y[i] = *(x + i - 1);
}

__global__ void reversed(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* back = x - i;
  if (i < n) y[i] = *(x - i + (n - 1)) + back[n - 1];
}

// A pointer that is not a buffer pointer plus an offset leaves its kernel opaque.
__global__ void not_a_buffer(const float* const* rows, float* y, int n) {
  y[threadIdx.x] = *rows[threadIdx.x];
}

// kfuse: in  x float[N]
// kfuse: in  s float[1]
// kfuse: out y float[N + 1]
// kfuse: out t float[1]
// kfuse: tune  N=4096
// kfuse: check N=33
extern "C" void deref_sum(const float* x, const float* s, float* y, float* t, int N,
                          cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float) * (N + 1), stream);
  cudaMemsetAsync(t, 0, sizeof(float), stream);
  deref<<<(N + 255) / 256, 256, 0, stream>>>(x, s, y, t, N);
}
