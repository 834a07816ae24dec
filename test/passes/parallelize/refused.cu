// Loops whose iterations depend on each other stay serial, and -R names the dependence: the
// statement pair and the distance (a recurrence; a row that carries its last value to the next,
// which no wavefront orders either), the scalar carried from one iteration to the next, the index
// kfuse cannot model (a scatter through a load), the component that may leave its row. A kernel
// that returns early, takes one buffer twice, or runs in more than one thread is not the pass's.
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.remarks | FileCheck %s
// RUN: cmp %s %t.cu
#include <cuda_runtime.h>

__global__ void recur(int n, const float *a, float *x) {
  for (int i = 1; i < n; ++i)
    x[i] = sinf(x[i - 1]) + a[i];
}

__global__ void lcg(int n, unsigned seed, int *out) {
  unsigned state = seed;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    out[i] = (int)(state >> 1);
  }
}

__global__ void carried(int n, float *A, float *c) {
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      A[i * n + j] = 0.5f * (A[i * n + j - 1] + c[i - 1]);
      c[i] = A[i * n + j];
    }
}

__global__ void scatter(int n, const int *idx, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[idx[i]] = x[i];
}

__global__ void wide_rows(int n, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n + 2; ++j)
      y[i * n + j] = x[i];
}

__global__ void early(int n, const float *x, float *y) {
  if (n < 2)
    return;
  for (int i = 0; i < n; ++i)
    y[i] = x[i];
}

__global__ void twice(int n, float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] += x[i];
}

__global__ void already(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

// kfuse: in a float[n]
// kfuse: inout x float[n]
// kfuse: out o int32[n]
// kfuse: inout A float[n][n]
// kfuse: in idx int32[n]
// kfuse: init idx int(0,n)
// kfuse: inout y float[n][n + 2]
// kfuse: out z float[n]
// kfuse: assume n >= 3
// kfuse: tune n=64
extern "C" void all(const float *a, float *x, int *o, float *A, const int *idx, float *y, float *z, int n,
                    cudaStream_t stream) {
  recur<<<1, 1, 0, stream>>>(n, a, x);
  lcg<<<1, 1, 0, stream>>>(n, 7u, o);
  carried<<<1, 1, 0, stream>>>(n, A, x);
  scatter<<<1, 1, 0, stream>>>(n, idx, a, z);
  wide_rows<<<1, 1, 0, stream>>>(n, a, y);
  early<<<1, 1, 0, stream>>>(n, a, z);
  twice<<<1, 1, 0, stream>>>(n, z, z);
  already<<<(n + 255) / 256, 256, 0, stream>>>(n, a, z);
}

// CHECK: refused.cu:12:3: remark: kept serial: the loop over 'i': x[i] (line 13) and x[i - 1] (line 13) touch one element 1 iteration of 'i' apart [-Rpass-missed=parallelize]
// CHECK: refused.cu:18:3: remark: kept serial: the loop over 'i': assigns 'state' (declared outside it) in one iteration for the next [-Rpass-missed=parallelize]
// CHECK: refused.cu:25:3: remark: kept serial: the loop over 'i': c[i - 1] (line 27) and c[i] (line 28) touch one element 1 iteration of 'i' apart [-Rpass-missed=parallelize]
// CHECK: refused.cu:26:5: remark: kept serial: the loop over 'j': A[i * n + j] (line 27) and A[i * n + j - 1] (line 27) touch one element 1 iteration of 'j' apart [-Rpass-missed=parallelize]
// CHECK: refused.cu:33:3: remark: kept serial: the loop over 'i': y[idx[i]] (line 34) and y[idx[i]] (line 34) may touch one element: an index kfuse cannot model [-Rpass-missed=parallelize]
// CHECK: refused.cu:39:5: remark: kept serial: the loop over 'j': y[i * n + j] (line 40) and y[i * n + j] (line 40) may touch one element: a component of the index may leave its row [-Rpass-missed=parallelize]
// CHECK: refused.cu:{{[0-9]+}}:3: remark: not parallelized: 'early' returns early: the statements after the return would run in launches of their own [-Rpass-missed=parallelize]
// CHECK: refused.cu:{{[0-9]+}}:3: remark: not parallelized: 'twice' takes one buffer twice ('z') [-Rpass-missed=parallelize]
// CHECK-NOT: 'already'
