// Window conditions that are not checked once (hoist stays without effect, every kernel is
// still coarsened): an unsigned comparison (a position below 0 wraps, so the condition is
// not monotone in the step), an equality, a product of the step with itself, a condition on
// a value the body assigns, and a loop whose stride is no positive literal.
// RUN: %kfuse %s --passes=coarsen --pin coarsen.divide=0 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: // kfuse variant coarsen(blocks=4)@no_hoist#0+coarsen(blocks=4)@no_hoist#1+coarsen(blocks=4)@no_hoist#2+coarsen(blocks=4)@no_hoist#3+coarsen(blocks=4)@no_hoist#4
// CHECK-NOT: kf_inside
#include <cuda_runtime.h>

__global__ void wraps(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    int p = i - 2 + k;
    if ((unsigned)p < (unsigned)n) s += x[p];
  }
  y[i] = s;
}

__global__ void equal(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    int p = i + k;
    if (p != n) s += x[p % n];
  }
  y[i] = s;
}

__global__ void square(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    int p = i + k * k;
    if (p < n) s += x[p];
  }
  y[i] = s;
}

__global__ void assigned(const float* x, float* y, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  int p = i;
  for (int k = 0; k < K; ++k) {
    if (p < n) s += x[p];
    p += 2;
  }
  y[i] = s;
}

__global__ void stride(const float* x, float* y, int n, int K, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < K; k += step) {
    int p = i + k;
    if (p < n) s += x[p];
  }
  y[i] = s;
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: assume n >= 1 && K >= 1
// kfuse: tune  n=1048576 K=4
// kfuse: check n=1000 K=3
extern "C" void no_hoist(const float* x, float* y, int n, int K, cudaStream_t stream) {
  const int grid = (n + 255) / 256;
  wraps<<<grid, 256, 0, stream>>>(x, y, n, K);
  equal<<<grid, 256, 0, stream>>>(x, y, n, K);
  square<<<grid, 256, 0, stream>>>(x, y, n, K);
  assigned<<<grid, 256, 0, stream>>>(x, y, n, K);
  stride<<<grid, 256, 0, stream>>>(x, y, n, K, 1);
}
