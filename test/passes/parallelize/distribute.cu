// A loop whose body holds work of two kinds is distributed: its statements are grouped so
// that those sharing a variable the loop changes stay together, each group becomes a loop of
// its own (a copy of the loop over those statements, a declaration computed from the loop's
// variable copied into each group that uses it), and each is planned alone. bicg's two
// products become a grid over i and an interchanged grid over j; a dependence from one part
// to a later iteration of the next keeps its order (two grids); one from the second part to a
// later iteration of the first would be reversed, so that loop stays one; so does a loop with
// a `continue`, which a part without it would not honour. A parallel loop is distributed where
// every part is a deeper grid: the rows of t, then those of u, each a 2-D grid rather than one
// thread a row.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.remarks | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void dist_serial(int n, int m, const float *A, const float *r, const float *p, const float *x,
                            float *s, float *q, float *a, float *b, float *c, float *d, float *e, float *f,
                            float *t, float *u) {
  for (int j = 0; j < m; ++j)
    s[j] = 0.0f;
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < m; ++j) {
      s[j] += r[i] * A[i * m + j];
      acc += A[i * m + j] * p[j];
    }
    q[i] = acc;
  }
  a[0] = x[0];
  b[0] = 0.0f;
  for (int i = 1; i < n; ++i) {
    int k = 2 * i + 1;
    a[i] = x[i] * (float)k;
    b[i] = a[i - 1] + (float)k;
  }
  c[0] = 0.0f;
  d[0] = x[0];
  for (int i = 1; i < n; ++i) {
    c[i] = d[i - 1] + 1.0f;
    d[i] = c[i] * 0.5f;
  }
  for (int i = 1; i < n; ++i) {
    if (x[i] < 0.0f)
      continue;
    e[i] = x[i] * 2.0f;
    f[i] = e[i - 1];
  }
  for (int i = 0; i < n; ++i) {
    int row = i * m;
    for (int j = 0; j < m; ++j)
      t[row + j] = A[row + j] * x[i];
    for (int j = 0; j < m; ++j)
      u[row + j] = t[row + j] * t[row + j];
  }
}

// kfuse: in A float[n][m]
// kfuse: in r float[n]
// kfuse: in p float[m]
// kfuse: in x float[n]
// kfuse: out s float[m]
// kfuse: out q float[n]
// kfuse: out a float[n]
// kfuse: out b float[n]
// kfuse: out c float[n]
// kfuse: out d float[n]
// kfuse: inout e float[n]
// kfuse: inout f float[n]
// kfuse: out t float[n][m]
// kfuse: out u float[n][m]
// kfuse: assume n >= 1
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=700 m=740
// kfuse: check n=37 m=41
extern "C" void dist(const float *A, const float *r, const float *p, const float *x, float *s, float *q,
                     float *a, float *b, float *c, float *d, float *e, float *f, float *t, float *u, int n,
                     int m, cudaStream_t stream) {
  dist_serial<<<1, 1, 0, stream>>>(n, m, A, r, p, x, s, q, a, b, c, d, e, f, t, u);
}

// REMARK: distribute.cu:41:3: remark: kept serial: the loop over 'i': d[i - 1] (line 42) and d[i] (line 43) touch one element 1 iteration of 'i' apart [-Rpass-missed=parallelize]
// REMARK-NEXT: distribute.cu:45:3: remark: kept serial: the loop over 'i': e[i] (line 48) and e[i - 1] (line 49) touch one element 1 iteration of 'i' apart [-Rpass-missed=parallelize]
// REMARK-NEXT: distribute.cu:22:3: remark: parallelized: the loop over 'j' as a 1-D grid [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:24:3: remark: distributed: the loop over 'i' into loops of their own, run one after another (2 items) [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:24:3: remark: parallelized: the loop over 'i' as a 1-D grid [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:24:3: remark: parallelized: the loop over 'j' as a 1-D grid, interchanged with the loop over 'i' around it, which each thread runs [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:34:3: remark: distributed: the loop over 'i' into loops of their own, run one after another (2 items) [-Rpass=parallelize]
// (one remark for the two grids: the same words at the same place are said once)
// REMARK-NEXT: distribute.cu:34:3: remark: parallelized: the loop over 'i' as a 1-D grid [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:51:3: remark: distributed: the loop over 'i' into loops of their own, run one after another (2 items) [-Rpass=parallelize]
// REMARK-NEXT: distribute.cu:51:3: remark: parallelized: the loop over 'i' as a 2-D grid [-Rpass=parallelize]
// REMARK-NOT: distributed

// The products: each q[i] from its own row, then s as an interchanged grid.
// CHECK-LABEL: // kfuse parallelize of dist_serial (line {{[0-9]+}}): the loop at line 24, 1-D grid (a part of the loop at line 24, distributed)
// CHECK-NEXT: __global__ void dist_serial_p_par2(
// CHECK-NEXT:   for (int i = (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += gridDim.x * blockDim.x) {
// CHECK-NEXT:     float acc = 0.0f;
// CHECK-NEXT:     for (int j = 0; j < m; j += 1) {
// CHECK-NEXT:       acc += A[i * m + j] * p[j];
// CHECK-NEXT:     }
// CHECK-NEXT:     q[i] = acc;
// CHECK-NEXT:   }
// CHECK-LABEL: // kfuse parallelize of dist_serial (line {{[0-9]+}}): the loop at line 26 and the one around it at line 24 interchanged, a 1-D grid over the first, each thread running the second (a part of the loop at line 24, distributed)
// CHECK-NEXT: __global__ void dist_serial_p_par3(
// CHECK-NEXT:   for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < m; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:     float kf_s = s[j];
// CHECK-NEXT:     for (int i = 0; i < n; i += 1) {
// CHECK-NEXT:       kf_s += r[i] * A[i * m + j];
// CHECK-NEXT:     }
// CHECK-NEXT:     s[j] = kf_s;
// CHECK-NEXT:   }

// The forward dependence: all of a, then all of b; k declared in each.
// CHECK-LABEL: the loop at line 34, 1-D grid (a part of the loop at line 34, distributed)
// CHECK:        for (int i = 1 + (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += gridDim.x * blockDim.x) {
// CHECK-NEXT:     int k = 2 * i + 1;
// CHECK-NEXT:     a[i] = x[i] * (float)k;
// CHECK-NEXT:   }
// CHECK-LABEL: the loop at line 34, 1-D grid (a part of the loop at line 34, distributed)
// CHECK:        for (int i = 1 + (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += gridDim.x * blockDim.x) {
// CHECK-NEXT:     int k = 2 * i + 1;
// CHECK-NEXT:     b[i] = a[i - 1] + (float)k;
// CHECK-NEXT:   }

// The backward one stays one loop, in one thread.
// CHECK-LABEL: lines 39 on, in one thread
// CHECK:        for (int i = 1; i < n; i += 1) {
// CHECK-NEXT:     c[i] = d[i - 1] + 1.0f;
// CHECK-NEXT:     d[i] = c[i] * 0.5f;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 1; i < n; i += 1) {
// CHECK-NEXT:     if (x[i] < 0.0f) {
// CHECK-NEXT:       continue;
// CHECK-NEXT:     }
// CHECK-NEXT:     e[i] = x[i] * 2.0f;
// CHECK-NEXT:     f[i] = e[i - 1];
// CHECK-NEXT:   }

// The rows of t, then those of u: 2-D grids, row declared in each where it was, after i's header.
// CHECK-LABEL: // kfuse parallelize of dist_serial (line {{[0-9]+}}): the loops at line 51, 2-D grid (a part of the loop at line 51, distributed)
// CHECK-NEXT: __global__ void dist_serial_p_par8(
// CHECK-NEXT:   for (int i = (blockIdx.y * blockDim.y + threadIdx.y); i < n; i += gridDim.y * blockDim.y) {
// CHECK-NEXT:     int row = i * m;
// CHECK-NEXT:     for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < m; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:       t[row + j] = A[row + j] * x[i];
// CHECK-LABEL: __global__ void dist_serial_p_par9(
// CHECK-NEXT:   for (int i = (blockIdx.y * blockDim.y + threadIdx.y); i < n; i += gridDim.y * blockDim.y) {
// CHECK-NEXT:     int row = i * m;
// CHECK-NEXT:     for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < m; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:       u[row + j] = t[row + j] * t[row + j];

// CHECK-LABEL: extern "C" void dist(
// CHECK:        dist_serial_p_par2<<<
// CHECK-NEXT:   dist_serial_p_par3<<<
// CHECK-NEXT:   dist_serial_p_serial4<<<1, 1, 0, stream>>>
// CHECK-NEXT:   dist_serial_p_par5<<<
// CHECK-NEXT:   dist_serial_p_par6<<<
// CHECK-NEXT:   dist_serial_p_serial7<<<1, 1, 0, stream>>>
// CHECK-NEXT:   dist_serial_p_par8<<<dim3(
// CHECK-NEXT:   dist_serial_p_par9<<<dim3(
