// A kernel whose element passes a buffer to a function (which may read any element of it)
// is not pointwise: kfuse fuses elements whose buffers it sees loaded at the element, and
// leaves the launch as it is, saying why (the next launch alone is still vectorized).
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - -R 2>&1 | FileCheck %s
// CHECK: remark: not fused: 'add_neighbour' is not pointwise: it uses the buffer 'x' other than by loading its element [-Rpass-missed=fuse-pointwise]
// CHECK: {{^}}// kfuse variant fuse-pointwise(block=256,vec=4)@neighbours#2-#2{{$}}
// CHECK-LABEL: {{^}}extern "C" void neighbours
// CHECK: add_neighbour<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n);
// CHECK-NEXT: scale_pointwise<<<
#include <cuda_runtime.h>

__device__ float next_of(const float* p, int i, int n) { return i + 1 < n ? p[i + 1] : 0.0f; }

__global__ void add_neighbour(const float* x, float* t, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] + next_of(x, i, n);
}

__global__ void scale(const float* t, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * t[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
extern "C" void neighbours(const float* x, float* y, int n, cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, sizeof(float) * n, stream);
  add_neighbour<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(t, y, n);
  cudaFreeAsync(t, stream);
}
