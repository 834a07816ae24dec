// What the model shows cannot be captured stays eager, with the reason as a remark: a
// synchronous allocation, a host synchronization, a launch on the legacy default stream,
// no stream parameter. An entry that can be captured beside them still is.
// RUN: %kfuse %s --passes=cuda-graph --emit=transformed -R -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// CHECK-DAG: refused.cu:28:3: remark: not captured: 'sync_alloc': cudaMalloc synchronizes the host (its *Async form on the stream can be captured) [-Rpass-missed=cuda-graph]
// CHECK-DAG: refused.cu:40:3: remark: not captured: 'host_sync': cudaStreamSynchronize may synchronize or read device data on the host [-Rpass-missed=cuda-graph]
// CHECK-DAG: refused.cu:48:3: remark: not captured: 'legacy_launch': 'scale' is launched on the legacy default stream [-Rpass-missed=cuda-graph]
// CHECK-DAG: refused.cu:55:17: remark: not captured: 'no_stream': it has no stream parameter: its work runs on the legacy default stream, which cannot be captured [-Rpass-missed=cuda-graph]
// OUT: // kfuse variant cuda-graph@fine
// OUT: {{^}}extern "C" void sync_alloc(
// OUT-NOT: sync_alloc_eager
// OUT: {{^}}extern "C" void fine(
// OUT-NEXT: // kfuse cuda-graph
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void sync_alloc(const float* x, float* y, int n, cudaStream_t stream) {
  float* t;
  cudaMalloc(&t, sizeof(float) * n);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, t, 2.0f, n);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(t, y, 2.0f, n);
  cudaFree(t);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void host_sync(const float* x, float* y, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, y, 2.0f, n);
  cudaStreamSynchronize(stream);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void legacy_launch(const float* x, float* y, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void no_stream(const float* x, float* y, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune  n=4096
// kfuse: check n=7
extern "C" void fine(const float* x, float* y, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, y, 2.0f, n);
}
