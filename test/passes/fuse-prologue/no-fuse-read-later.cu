// An intermediate that a later step reads as well stays stored: the prologue replaces
// only the consumer's loads.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-read-later.cu:[[@LINE+28]]:3: remark: not fused: 'e' is read by another step than 'row_sum', or not allocated and freed by the entry [-Rpass-missed=fuse-prologue]
// CHECK-NOT: {{^// kfuse variant}}
#include <cuda_runtime.h>

__global__ void expo(const float* x, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] = expf(x[i]);
}

__global__ void row_sum(const float* e, float* m, int D) {
  float s = 0.f;
  for (int j = 0; j < D; ++j) s += e[blockIdx.x * D + j];
  m[blockIdx.x] = s;
}

__global__ void normalize(const float* e, const float* m, float* y, int n, int D) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = e[i] / m[i / D];
}

// kfuse: in  x float[R][D]
// kfuse: out y float[R][D]
// kfuse: tune R=256 D=1024
extern "C" void softmax(const float* x, float* y, int R, int D, cudaStream_t stream) {
  float *e, *m;
  cudaMallocAsync(&e, R * D * sizeof(float), stream);
  cudaMallocAsync(&m, R * sizeof(float), stream);
  expo<<<(R * D + 255) / 256, 256, 0, stream>>>(x, e, R * D);
  row_sum<<<R, 1, 0, stream>>>(e, m, D);
  normalize<<<(R * D + 255) / 256, 256, 0, stream>>>(e, m, y, R * D, D);
  cudaFreeAsync(e, stream);
  cudaFreeAsync(m, stream);
}
