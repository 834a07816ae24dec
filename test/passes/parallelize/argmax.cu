// An argmax (the first index of the largest value, `>`) and an argmin written to keep the
// last index (`<=`) become reductions of a value and its index: each thread keeps its own,
// the trees break ties by index (the first or the last, as the loop's comparison had it),
// and the result replaces the value from before the loop only as the comparison says.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.remarks | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void arg_serial(int n, const float *x, int *out) {
  float best = x[0];
  int at = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > best) {
      best = x[i];
      at = i;
    }
  float low = x[0];
  int last = 0;
  for (int i = 1; i < n; ++i)
    if (low >= x[i]) {
      last = i;
      low = x[i];
    }
  out[0] = at;
  out[1] = last;
}

// kfuse: in x float[n]
// kfuse: out out int32[2]
// kfuse: init x int(0,8)
// kfuse: assume n >= 1
// kfuse: tune n=100000
// kfuse: check n=1001
extern "C" void arg(const float *x, int *out, int n, cudaStream_t stream) {
  arg_serial<<<1, 1, 0, stream>>>(n, x, out);
}

// REMARK: argmax.cu:16:3: remark: parallelized: the loop over 'i' as a reduction [-Rpass=parallelize]
// REMARK: argmax.cu:23:3: remark: parallelized: the loop over 'i' as a reduction [-Rpass=parallelize]
// CHECK-LABEL: struct arg_serial_p_frame {
// CHECK:        float kf_part_best[1024];
// CHECK-NEXT:   int kf_part_at[1024];
// CHECK-LABEL: __global__ void arg_serial_p_red2(
// CHECK-NEXT:   float best = -INFINITY;
// CHECK-NEXT:   int at = 2147483647;
// CHECK:        if (kf_sh_best[threadIdx.x + kf_w] > kf_sh_best[threadIdx.x] || (kf_sh_best[threadIdx.x + kf_w] == kf_sh_best[threadIdx.x] && kf_sh_at[threadIdx.x + kf_w] < kf_sh_at[threadIdx.x])) {
// CHECK-LABEL: __global__ void arg_serial_p_red2_done(
// CHECK:        if (kf_sh_best[0] > kf_fr->best) {
// CHECK-NEXT:     kf_fr->best = kf_sh_best[0];
// CHECK-NEXT:     kf_fr->at = kf_sh_at[0];
// CHECK-LABEL: __global__ void arg_serial_p_red4(
// CHECK-NEXT:   float low = INFINITY;
// CHECK-NEXT:   int last = (-2147483647 - 1);
// CHECK:        if (kf_sh_low[threadIdx.x + kf_w] < kf_sh_low[threadIdx.x] || (kf_sh_low[threadIdx.x + kf_w] == kf_sh_low[threadIdx.x] && kf_sh_last[threadIdx.x + kf_w] > kf_sh_last[threadIdx.x])) {
// CHECK-LABEL: __global__ void arg_serial_p_red4_done(
// CHECK:        if (kf_sh_low[0] <= kf_fr->low) {
