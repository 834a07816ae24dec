// A consumer that writes a buffer the run reads (here it clears x as it goes) would have
// other threads' prologues read the cleared values.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-consumer-writes-input.cu:[[@LINE+23]]:3: remark: not fused: 'sum_clear' writes 'x', which the run reads [-Rpass-missed=fuse-prologue]
// CHECK-NOT: {{^// kfuse variant}}
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i] = 3.f * x[i];
}

__global__ void sum_clear(const float* s, float* x, float* out, int n) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) { acc += s[(i + 1) % n]; x[i] = 0.f; }
  atomicAdd(out, acc);
}

// kfuse: inout x float[n]
// kfuse: out out float[1]
// kfuse: tune n=4096
extern "C" void sum_and_clear(float* x, float* out, int n, cudaStream_t stream) {
  float* s;
  cudaMallocAsync(&s, n * sizeof(float), stream);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, s, n);
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  sum_clear<<<1, 256, 0, stream>>>(s, x, out, n);
  cudaFreeAsync(s, stream);
}
