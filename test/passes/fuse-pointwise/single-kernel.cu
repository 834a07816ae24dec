// A single naive elementwise kernel goes through the pointwise emitter: a grid-stride loop
// with 16-byte loads and stores (its buffers hold float) and a scalar path for the rest;
// the launch is replaced in place.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o %t.1.cu
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o %t.2.cu
// RUN: cmp %t.1.cu %t.2.cu
// CHECK: // kfuse variant fuse-pointwise(block=256,vec=4)@scale_relu#0-#0
// CHECK-LABEL: // kfuse fuse-pointwise (block 256, vec 4) of scale_relu_kernel (line {{[0-9]+}}), over n elements
// CHECK-NEXT: __global__ void __launch_bounds__(256) scale_relu_pointwise(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
// CHECK: const long long kf_n4 = (kf_addresses & 15) == 0 ? n / 4 : 0;
// CHECK: const float4 x_4 = reinterpret_cast<const float4*>(x)[kf_j];
// CHECK: float m1_v = x_4.x * alpha;
// CHECK: reinterpret_cast<float4*>(y)[kf_j] = y_o;
// CHECK: for (long long kf_i = 4 * kf_n4 + kf_start; kf_i < n; kf_i += kf_stride) {
// CHECK: float m1_v = x[i] * alpha;
// CHECK: y[i] = y_v;
// CHECK-LABEL: extern "C" void scale_relu
// CHECK: scale_relu_pointwise<<<(unsigned)(n / 1024 + 1 < 1048576 ? n / 1024 + 1 : 1048576), 256, 0, stream>>>(x, y, alpha, n);
// CHECK-NOT: scale_relu_kernel<<<
#include <cuda_runtime.h>

__global__ void scale_relu_kernel(const float* x, float* y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i] * alpha;
  y[i] = v > 0.f ? v : 0.f;
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=1048576 alpha=2.0
extern "C" void scale_relu(const float* x, float* y, int n, float alpha, cudaStream_t stream) {
  scale_relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, alpha, n);
}
