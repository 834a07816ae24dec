// Row-major indices that the dependence test takes apart in two ways: a sweep that runs
// backwards within its row (i * n + n - 1 - jj: the component n - 1 - jj of stride 1, not
// i + 1 of stride n and -1 - jj of stride 1), and a first row against the last one
// (i against (n - 1) * n + i, whose n * n makes the stride n). Each loop over i is a grid;
// the sweeps carry their dependence along j and stay inside each thread. But i * n + n - jj
// reaches the next row (jj = 0): that loop over i stays serial.
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.remarks | FileCheck %s
#include <cuda_runtime.h>

__global__ void rows_serial(const float *x, float *y, float *v, float *w, int n) {
  for (int i = 0; i < n; ++i) {
    float carry = 0.0f;
    for (int jj = 0; jj < n; ++jj) {
      int j = n - 1 - jj;
      carry = 0.5f * carry + x[i * n + j];
      y[i * n + j] = carry;
    }
  }
  for (int i = 1; i < n - 1; ++i) {
    v[i] = 1.0f;
    v[(n - 1) * n + i] = 2.0f;
    for (int j = 1; j < n - 1; ++j)
      v[j * n + i] = v[(j - 1) * n + i] + x[j * n + i];
  }
  for (int i = 0; i < n; ++i)
    for (int jj = 0; jj < n; ++jj)
      w[i * n + n - jj] = w[i * n + jj] + 1.0f;
}

// kfuse: in x float[n][n]
// kfuse: out y float[n][n]
// kfuse: inout v float[n][n]
// kfuse: inout w float[n + 1][n]
// kfuse: assume n >= 3
// kfuse: tune n=512
// kfuse: check n=37
extern "C" void rows(const float *x, float *y, float *v, float *w, int n, cudaStream_t stream) {
  rows_serial<<<1, 1, 0, stream>>>(x, y, v, w, n);
}

// CHECK: rows.cu:26:3: remark: kept serial: the loop over 'i': w[i * n + n - jj] (line 28) and w[i * n + n - jj] (line 28) may touch one element: a component of the index may leave its row [-Rpass-missed=parallelize]
// CHECK-NEXT: rows.cu:27:5: remark: kept serial: the loop over 'jj'
// CHECK-NEXT: rows.cu:12:3: remark: parallelized: the loop over 'i' as a 1-D grid [-Rpass=parallelize]
// CHECK-NEXT: rows.cu:20:3: remark: parallelized: the loop over 'i' as a 1-D grid [-Rpass=parallelize]
// CHECK-NOT: kept serial
