// A loop that carries a dependence around one that does not (y[j] += over i) is interchanged
// rather than run as a host loop of launches: a 1-D grid over the inner loop, each thread
// running the outer one, in its order, with y[j] in a register meanwhile. Where the inner loop's bounds name the outer one's
// variable (a triangle), the two are not interchanged.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.remarks | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void mvt_serial(int n, const float *A, const float *x, float *y) {
  for (int j = 0; j < n; ++j)
    y[j] = 0.0f;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      y[j] += A[i * n + j] * x[i];
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < i; ++j)
      y[j] += y[i];
}

// kfuse: in A float[n][n]
// kfuse: in x float[n]
// kfuse: out y float[n]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1024
// kfuse: check n=37
extern "C" void mvt(const float *A, const float *x, float *y, int n, cudaStream_t stream) {
  mvt_serial<<<1, 1, 0, stream>>>(n, A, x, y);
}

// REMARK: interchange.cu:14:3: remark: parallelized: the loop over 'j' as a 1-D grid [-Rpass=parallelize]
// REMARK: interchange.cu:16:3: remark: parallelized: the loop over 'j' as a 1-D grid, interchanged with the loop over 'i' around it, which each thread runs [-Rpass=parallelize]
// REMARK: interchange.cu:20:5: remark: parallelized: the loop over 'j' as a 1-D grid [-Rpass=parallelize]
// CHECK-LABEL: // kfuse parallelize of mvt_serial (line {{[0-9]+}}): the loop at line 17 and the one around it at line 16 interchanged, a 1-D grid over the first, each thread running the second
// CHECK-NEXT: __global__ void mvt_serial_p_par2(int n, const float *A, const float *x, float *y) {
// CHECK-NEXT:   for (int j = (blockIdx.x * blockDim.x + threadIdx.x); j < n; j += gridDim.x * blockDim.x) {
// CHECK-NEXT:     float kf_y = y[j];
// CHECK-NEXT:     for (int i = 0; i < n; i += 1) {
// CHECK-NEXT:       kf_y += A[i * n + j] * x[i];
// CHECK-NEXT:     }
// CHECK-NEXT:     y[j] = kf_y;
// CHECK-NEXT:   }
// CHECK-LABEL: extern "C" void mvt(
// CHECK:          for (int kf_i = 1; kf_i < (n); kf_i += 1) {
// CHECK-NEXT:       mvt_serial_p_par3<<<
