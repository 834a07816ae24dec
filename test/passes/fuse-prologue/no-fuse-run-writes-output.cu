// A run that also writes a buffer read after it (here the caller's output y) must stay:
// the prologue would not store it.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-run-writes-output.cu:[[@LINE+24]]:3: remark: not fused: the run also writes 'y', which the caller or a later step reads [-Rpass-missed=fuse-prologue]
// CHECK-NOT: {{^// kfuse variant}}
// CHECK: row_sum<<<R, 64, 0, stream>>>(e, m, D);
#include <cuda_runtime.h>

__global__ void expo(const float* x, float* y, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = 2.f * x[i]; e[i] = expf(x[i]); }
}

__global__ void row_sum(const float* e, float* m, int D) {
  float s = 0.f;
  for (int j = 0; j < D; ++j) s += e[blockIdx.x * D + j];
  if (threadIdx.x == 0) m[blockIdx.x] = s;
}

// kfuse: in  x float[R][D]
// kfuse: out y float[R][D]
// kfuse: out m float[R]
// kfuse: tune R=256 D=1024
extern "C" void twice_and_sum(const float* x, float* y, float* m, int R, int D, cudaStream_t stream) {
  float* e;
  cudaMallocAsync(&e, R * D * sizeof(float), stream);
  expo<<<(R * D + 255) / 256, 256, 0, stream>>>(x, y, e, R * D);
  row_sum<<<R, 64, 0, stream>>>(e, m, D);
  cudaFreeAsync(e, stream);
}
