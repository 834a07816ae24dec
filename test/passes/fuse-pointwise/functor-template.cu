// Launches of template kernels over functors fuse like any pointwise launches once
// instantiated: each functor's operator() is inlined, its field values become scalar
// arguments of the fused kernel, and the intermediate disappears.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse fuse-pointwise (block 256, vec 4) of map_Scale (line {{[0-9]+}}), map_Shift (line {{[0-9]+}}), over n elements
// CHECK: float t_v = x_4.x * s0;
// CHECK-NEXT: // map_Shift
// CHECK-NEXT: float y_v = t_v + kShift;
// CHECK-LABEL: {{^}}extern "C" void scale_shift
// CHECK-NOT: cudaMallocAsync
// CHECK: <<<{{.*}}>>>(x, y, 3.0f, kShift, n);
// CHECK-NOT: map<<<
#include <cuda_runtime.h>

struct Scale {
  float k;
  __device__ float operator()(float v) const { return v * k; }
};
struct Shift {
  float d;
  __device__ float operator()(float v) const { return v + d; }
};

template <typename Op>
__global__ void map(const float* __restrict__ in, float* __restrict__ out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096
extern "C" void scale_shift(const float* x, float* y, int n, cudaStream_t stream) {
  const float kShift = 0.25f;
  float* t;
  cudaMallocAsync(&t, sizeof(float) * n, stream);
  map<<<(n + 255) / 256, 256, 0, stream>>>(x, t, n, Scale{3.0f});
  map<<<(n + 255) / 256, 256, 0, stream>>>(t, y, n, Shift{kShift});
  cudaFreeAsync(t, stream);
}
