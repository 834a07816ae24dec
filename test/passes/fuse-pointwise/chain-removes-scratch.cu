// Three elementwise launches through two scratch buffers become one kernel: the values
// pass in registers, the scratch buffers and their allocations and frees disappear, and
// the output is written once.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: // kfuse fuse-pointwise (block 256, vec 4) of absval (line {{[0-9]+}}), add_one (line {{[0-9]+}}), divide (line {{[0-9]+}}), over n elements
// CHECK-NEXT: fused_absval_add_one_divide(const float* __restrict__ x, float* __restrict__ y, float s0, long long n)
// CHECK: float t1_v = fabsf(x[i]);
// CHECK-NEXT: // add_one
// CHECK-NEXT: float t2_v = t1_v + s0;
// CHECK-NEXT: // divide
// CHECK-NEXT: float y_v = x[i] / t2_v;
// CHECK-NEXT: y[i] = y_v;
// CHECK-LABEL: extern "C" void softsign
// CHECK-NOT: cudaMallocAsync
// CHECK: fused_absval_add_one_divide<<<{{.*}}, 256, 0, stream>>>(x, y, 1.0f, n);
// CHECK-NOT: cudaFreeAsync
// CHECK: }
#include <cuda_runtime.h>

__global__ void absval(const float* x, float* t, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = fabsf(x[i]);
}

__global__ void add_one(const float* t, float c, float* u, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = t[i] + c;
}

__global__ void divide(const float* x, const float* u, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / u[i];
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=1048576
extern "C" void softsign(const float* x, float* y, long long n, cudaStream_t stream) {
  float *t1, *t2;
  cudaMallocAsync(&t1, n * sizeof(float), stream);
  cudaMallocAsync(&t2, n * sizeof(float), stream);
  absval<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, t1, n);
  add_one<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(t1, 1.0f, t2, n);
  divide<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, t2, y, n);
  cudaFreeAsync(t1, stream);
  cudaFreeAsync(t2, stream);
}
