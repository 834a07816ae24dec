// The passes after parallelize work on its kernels: its variants are parsed again, and the
// map's grid is vectorized (fuse-pointwise), the time loop's launches replayed from a graph
// (cuda-graph). Their recipes follow parallelize's, and each variant has one head line.
// RUN: rm -rf %t && %kfuse bundle %s -o %t --budget=12
// RUN: FileCheck %s < %t/manifest.txt
// CHECK:      variant v1 v1.cu parallelize@smooth#0(block=256)+fuse-pointwise(block=256,vec=4)@smooth#0-#0+cuda-graph@smooth
// CHECK-NEXT: variant v2 v2.cu parallelize@smooth#0(block=256)+fuse-pointwise(block=256,vec=4)@smooth#0-#0
// CHECK-NEXT: variant v3 v3.cu parallelize@smooth#0(block=256)
// CHECK-NEXT: variant v4 v4.cu parallelize@smooth#0(oneblock=1)+cuda-graph@smooth
// CHECK-NEXT: variant v5 v5.cu parallelize@smooth#0(oneblock=1)
// CHECK-NEXT: variant v6 v6.cu parallelize@smooth#0(block=128)+fuse-pointwise
// RUN: %strip-checks %t/v1.cu | FileCheck --check-prefix=V1 %s
// V1:      // kfuse variant parallelize@smooth#0(block=256)+fuse-pointwise(block=256,vec=4)@smooth#0-#0+cuda-graph@smooth
// V1-NOT:  // kfuse variant
// V1:      __global__ void __launch_bounds__(256) smooth_serial_p_par1_pointwise(
// V1:      return kf_graph_call(
// V1:      // smooth's work as written, run eagerly (and captured) by the wrapper above
// V1-NEXT:   static void smooth_eager(
// V1-NEXT:   smooth_serial_p_par1_pointwise<<<
// V1-NEXT:   for (int kf_t = 0; kf_t < (steps); kf_t += 1) {
// V1-NEXT:     smooth_serial_p_par2<<<
// RUN: %nvcc -Werror all-warnings -c %t/v1.cu -o %t/v1.o
// The default output is the first variant: every pass with its defaults.
// RUN: %kfuse %s --emit=transformed -o %t.cu
// RUN: cmp %t.cu %t/v1.cu
#include <cuda_runtime.h>

__global__ void smooth_serial(int n, int steps, const float *x, float *y, float *a, float *b) {
  for (int i = 0; i < n; i++)
    y[i] = 2.0f * x[i] + 1.0f;
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.5f * a[i] + 0.25f * (a[i - 1] + a[i + 1]);
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i];
  }
}

// kfuse: in    x float[n]
// kfuse: out   y float[n]
// kfuse: inout a float[n]
// kfuse: inout b float[n]
// kfuse: tune  n=1048576 steps=8
// kfuse: check n=1001 steps=3
extern "C" void smooth(int n, int steps, const float *x, float *y, float *a, float *b, cudaStream_t stream) {
  smooth_serial<<<1, 1, 0, stream>>>(n, steps, x, y, a, b);
}
