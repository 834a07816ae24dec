// A kernel that spells its block size as a constant (`blockIdx.x * BLOCK + threadIdx.x`)
// is pointwise where it is launched with BLOCK threads; launched with another count, its
// threads would not cover the elements one each, and it is left alone.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: constant-block-size.cu:[[@LINE+28]]:3: remark: not fused: 'scale' is not pointwise: it does not start from a linear thread index (blockIdx.x * blockDim.x + threadIdx.x) [-Rpass-missed=fuse-pointwise]
// CHECK-LABEL: extern "C" void scale_shift{{[(]}}
// CHECK: fused_scale_shift<<<{{.*}}>>>(x, y, 2.f, n);
// CHECK-NEXT: scale<<<(n + 127) / 128, 128, 0, stream>>>(y, z, 3.f, n);
#include <cuda_runtime.h>

#define BLOCK 256
constexpr int THREADS = 256;

__global__ void scale(const float* x, float* y, float s, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) y[i] = x[i] * s;
}

__global__ void shift(const float* y, float* z, int n) {
  int i = THREADS * blockIdx.x + threadIdx.x;
  if (i < n) z[i] = y[i] + 1.f;
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: out z float[n]
// kfuse: tune n=1048576
extern "C" void scale_shift(const float* x, float* y, float* z, int n, cudaStream_t stream) {
  float* t = nullptr;
  cudaMalloc(&t, n * sizeof(float));
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(x, t, 2.f, n);
  shift<<<(n + 255) / 256, THREADS, 0, stream>>>(t, y, n);
  scale<<<(n + 127) / 128, 128, 0, stream>>>(y, z, 3.f, n);
  cudaFree(t);
}
