// A consumer that reads the intermediate through a pointer local into it (one block per
// row, `const float* row = a + blockIdx.x * D`) keeps the pointer's offset as an integer
// and calls the prologue at offset + j.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: __global__ void fused_absval_row_mean(float *m, int D, const float* __restrict__ x) {
// CHECK: const long long row_at = (long long)(blockIdx.x * D); // was row, a pointer into a
// CHECK: s += fused_absval_row_mean_a(x, row_at + (long long)(j));
// CHECK: fused_absval_row_mean<<<R, 128, 0, stream>>>(m, D, x);
// CHECK-NEXT: divide<<<(R * D + 255) / 256, 256, 0, stream>>>(x, m, y, R * D, D);
#include <cuda_runtime.h>

__global__ void absval(const float* x, float* a, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) a[i] = fabsf(x[i]);
}

__global__ void row_mean(const float* a, float* m, int D) {
  __shared__ float red[128];
  const float* row = a + blockIdx.x * D;
  float s = 0.f;
  for (int j = threadIdx.x; j < D; j += 128) s += row[j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = 64; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) m[blockIdx.x] = red[0] / D;
}

__global__ void divide(const float* x, const float* m, float* y, int n, int D) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / m[i / D];
}

// kfuse: in  x float[R][D]
// kfuse: out y float[R][D]
// kfuse: init x uniform(0,1)
// kfuse: tune R=1024 D=4096
extern "C" void l1_norm(const float* x, float* y, int R, int D, cudaStream_t stream) {
  float *a, *m;
  cudaMallocAsync(&a, R * D * sizeof(float), stream);
  cudaMallocAsync(&m, R * sizeof(float), stream);
  absval<<<1024, 256, 0, stream>>>(x, a, R * D);
  row_mean<<<R, 128, 0, stream>>>(a, m, D);
  divide<<<(R * D + 255) / 256, 256, 0, stream>>>(x, m, y, R * D, D);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(m, stream);
}
