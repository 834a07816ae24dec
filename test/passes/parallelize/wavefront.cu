// Loop nests whose loops have no independent iterations as written, but whose iterations can
// run in fronts (a wavefront): a Gauss-Seidel sweep (fronts of i + j), a bubble sort's passes
// pipelined (fronts of 2 * pass + i: pass + i would put a swap beside the one it must follow),
// and a nest whose distances grow with n, which no front of fixed slope orders (kept serial).
// isl decides each; the host evaluates the fronts' range at the outer loop's ends, then launches a
// grid a front, or, where that loop's range fits one block (1024), one block for every front.
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.remarks | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.cu
#include <cuda_runtime.h>

__global__ void fronts_serial(float *A, float *a, float *B, float *carry, int n) {
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j)
      A[i * n + j] = 0.2f * (A[(i - 1) * n + j] + A[i * n + j - 1] + A[i * n + j] + A[i * n + j + 1] +
                             A[(i + 1) * n + j]);
  for (int pass = 0; pass < n - 1; ++pass)
    for (int i = 0; i < n - 1 - pass; ++i)
      if (a[i] > a[i + 1]) {
        float t = a[i];
        a[i] = a[i + 1];
        a[i + 1] = t;
      }
  for (int i = 1; i < n; ++i)
    for (int j = 1; j < n; ++j) {
      B[i * n + j] = 0.5f * (B[i * n + j - 1] + carry[i - 1]);
      carry[i] = B[i * n + j];
    }
}

// kfuse: inout A float[n][n]
// kfuse: inout a float[n]
// kfuse: inout B float[n][n]
// kfuse: inout carry float[n]
// kfuse: assume n >= 3
// kfuse: tune n=256
// kfuse: check n=37
extern "C" void fronts(float *A, float *a, float *B, float *carry, int n, cudaStream_t stream) {
  fronts_serial<<<1, 1, 0, stream>>>(A, a, B, carry, n);
}

// REMARK: wavefront.cu:24:3: remark: kept serial: the loop over 'i': carry[i - 1] (line 26) and carry[i] (line 27) touch one element 1 iteration of 'i' apart [-Rpass-missed=parallelize]
// REMARK-NEXT: wavefront.cu:25:5: remark: kept serial: the loop over 'j'
// REMARK-NEXT: wavefront.cu:13:3: remark: parallelized: the loop over 'i' as a wavefront with the loop over 'j' in it (fronts of i + j, a launch each, or one block for all where it fits) [-Rpass=parallelize]
// REMARK-NEXT: wavefront.cu:17:3: remark: parallelized: the loop over 'pass' as a wavefront with the loop over 'i' in it (fronts of 2 * pass + i, a launch each, or one block for all where it fits) [-Rpass=parallelize]
// REMARK-NOT: parallelized

// CHECK-LABEL: __global__ void fronts_serial_p_par1(float *A, float *a, float *B, float *carry, int n, long long kf_front) {
// CHECK-NEXT: for (int i = 1 + (blockIdx.x * blockDim.x + threadIdx.x); i < n - 1; i += gridDim.x * blockDim.x) {
// CHECK-NEXT: const int j = (int)(kf_front - i);
// CHECK-NEXT: if (j < 1 || j >= n - 1)
// CHECK-NEXT: continue; /* not in this front */
// CHECK-LABEL: __global__ void __launch_bounds__(1024) fronts_serial_p_par1_fronts(float *A, float *a, float *B, float *carry, int n, long long kf_first, long long kf_last) {
// CHECK-NEXT: for (long long kf_front = kf_first; kf_front <= kf_last; kf_front++) {
// CHECK-NEXT: for (int i = 1 + (threadIdx.x); i < n - 1; i += blockDim.x) {
// CHECK-NEXT: const int j = (int)(kf_front - i);
// CHECK-NEXT: if (j < 1 || j >= n - 1)
// CHECK-NEXT: continue; /* not in this front */
// CHECK-NEXT: A[i * n + j] =
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads(); /* the front done before the next */
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void fronts_serial_p_par2(
// CHECK: const int i = (int)(kf_front - 2 * (long long)pass);
// CHECK-NEXT: if (i < 0 || i >= n - 1 - pass)
// CHECK-LABEL: __global__ void __launch_bounds__(1024) fronts_serial_p_par2_fronts(
// CHECK-LABEL: extern "C" void fronts(
// CHECK: // the fronts of i + j: linear in i, so the first and last are at i's first or last value
// CHECK: const int kf_i = 1;
// CHECK-NEXT: const long long kf_lo = (long long)kf_i + (1), kf_hi = (long long)kf_i + ((n) - 1) - 1;
// CHECK: const int kf_i = ((n) - 1) - 1;
// CHECK: const long long kf_n = kfuse_par_count((long long)(1), (long long)((n) - 1), 1);
// CHECK-NEXT: if (kf_n <= 1024) /* i's range in one block: it runs every front */
// CHECK-NEXT: fronts_serial_p_par1_fronts<<<1, kfuse_par_blocks(kf_n, 32, 32) * 32, 0, stream>>>(A, a, B, carry, n, kf_first, kf_last);
// CHECK-NEXT: else
// CHECK-NEXT: for (long long kf_front = kf_first; kf_front <= kf_last; kf_front++)
// CHECK-NEXT: fronts_serial_p_par1<<<kfuse_par_blocks(kf_n, 256, 1048576), 256, 0, stream>>>(A, a, B, carry, n, kf_front);
// CHECK: // the fronts of 2 * pass + i: linear in pass
// CHECK: fronts_serial_p_par2<<<
// CHECK: fronts_serial_p_serial3<<<1, 1, 0, stream>>>
