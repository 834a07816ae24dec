// The entry becomes a wrapper that replays its work from a CUDA graph per argument tuple
// (kf_graph_call); the body, as written, becomes a static function declared above the
// annotations, which stay on the wrapper. The output compiles. The pass runs by default and
// is optional: the bundle holds the program with the graph and without it, for the runner
// to measure both, before the next values of the other passes' parameters.
// RUN: %kfuse %s --passes=cuda-graph --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.o %}
// RUN: rm -rf %t.b && %kfuse --bundle %t.b --max-variants=3 %s
// RUN: FileCheck %s --check-prefix=BUNDLE < %t.b/manifest.txt
// BUNDLE: variant v1 v1.cu fuse-pointwise(block=256,vec=4)@twice#1-#2+cuda-graph@twice
// BUNDLE-NEXT: variant v2 v2.cu fuse-pointwise(block=256,vec=4)@twice#1-#2{{$}}
// BUNDLE-NEXT: variant v3 v3.cu fuse-pointwise(block=256,vec=4,ilp=2)@twice#1-#2+cuda-graph@twice
// BUNDLE-NOT: variant
// CHECK: // kfuse variant cuda-graph@twice
// CHECK: {{^}}struct kf_graph {
// CHECK: {{^}}static void twice_eager(const float* x, float* y, int n, cudaStream_t stream);
// CHECK-NEXT: {{^}}// kfuse: in  x float[n]
// CHECK: {{^}}extern "C" void twice(const float* x, float* y, int n, cudaStream_t stream) {
// CHECK-NEXT: {{^}}  // kfuse cuda-graph: the calls below, replayed from a CUDA graph
// CHECK: {{^}}  static kf_graph kf_graph_state;
// CHECK-NEXT: {{^}}  return kf_graph_call(kf_graph_state, stream, kf_graph_key(x, y, n),
// CHECK-NEXT: {{^}}                       [&](cudaStream_t kf_stream) {
// CHECK-NEXT: {{^}}                         return twice_eager(x, y, n, kf_stream);
// CHECK: {{^}}static void twice_eager(const float* x, float* y, int n, cudaStream_t stream) {
// CHECK-NEXT: {{^}}  float* t;
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void twice(const float* x, float* y, int n, cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, sizeof(float) * n, stream);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, t, 2.0f, n);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(t, y, 2.0f, n);
  cudaFreeAsync(t, stream);
}
