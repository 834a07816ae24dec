// oneblock=1 with a reduction in the host loop (durbin's shape): in one block the block's tree
// is the whole reduction's, sized by the block's 1024 threads, and thread 0 folds it into the
// frame, where the next call reads it after the barrier. No second kernel of the blocks'
// partial results, and no room for them in the frame. Threads past the range's count (k here)
// hold the identity, so the tree starts at the widest level below the count.
// The threads of the block pass values through the frame and the arrays across barriers, so the
// block's kernel and its functions drop the no-alias qualifier the input's pointers carry: with
// it, nvcc may load such memory above the barrier after which another thread's store is to be
// seen (gramschmidt's one block failed so on the H200).
// RUN: %kfuse %s --passes=parallelize --pin parallelize.oneblock=1 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s --implicit-check-not=_done --implicit-check-not=kf_part --implicit-check-not=restrict
#include <cuda_runtime.h>

__global__ void steps_serial(const float *__restrict__ a, float *__restrict__ y, int n) {
  for (int k = 1; k < n; ++k) {
    float s = 0.0f;
    for (int i = 0; i < k; ++i)
      s += a[i] * y[i];
    y[k] = y[k] - s;
  }
}

// kfuse: in a float[n]
// kfuse: inout y float[n]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1000
// kfuse: check n=37
extern "C" void steps(const float *a, float *y, int n, cudaStream_t stream) {
  steps_serial<<<1, 1, 0, stream>>>(a, y, n);
}

// CHECK: __global__ void steps_serial(const float *__restrict__ a, float *__restrict__ y, int n) {
// CHECK: static __device__ void steps_serial_p_red{{[0-9]+}}(const float *a, float *y, int n, int k, steps_serial_p_frame *kf_fr) {
// CHECK: int kf_top = 512; /* the widest level below the range's count */
// CHECK-NEXT: while (kf_top > 0 && kf_top >= (long long)(k))
// CHECK-NEXT: kf_top >>= 1;
// CHECK-NEXT: __shared__ float kf_sh_s[1024];
// CHECK: for (int kf_w = kf_top; kf_w > 0; kf_w >>= 1) {
// CHECK: if (threadIdx.x == 0) {
// CHECK-NEXT: kf_fr->s = kf_fr->s + kf_sh_s[0];
// CHECK: __global__ void __launch_bounds__(1024) steps_serial_p_block(const float *a, float *y, int n, steps_serial_p_frame *kf_fr) {
// CHECK: for (int kf_k = 1; kf_k < (n); kf_k += 1) {
// CHECK: steps_serial_p_red{{[0-9]+}}(a, y, n, kf_k, kf_fr);
// CHECK-NEXT: __syncthreads();
// CHECK: steps_serial_p_block<<<1, 1024, 0, stream>>>(a, y, n, steps_serial_p_fr);
