// Thread-per-row kernels become a warp per row: a softmax (max, sum of exp, normalize:
// two reduction loops and a map loop, the guard a return) and an instance norm (sum, sum of
// squares, normalize, the guard a block around them, the rows through pointer locals, a sum
// that starts from a bias). The thread index becomes the warp's, the loops run over the
// lanes, each reduction ends in the warp's combination (one helper per operator, emitted
// once), a sum's initial value is counted by lane 0 only, and the grid is 32 times the
// reference's. The variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=row-warps --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: grep -c '^template <typename T> __device__ __forceinline__ T kf_warp_sum' %t.cu | FileCheck --check-prefix=ONCE %s
// ONCE: {{^}}1{{$}}
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// CHECK: // kfuse variant row-warps@rows#0+row-warps@rows#1
// CHECK-LABEL: template <typename T> __device__ __forceinline__ T kf_warp_fmaxf(T v) {
// CHECK:          v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
// CHECK-NEXT:   return __shfl_sync(0xffffffffu, v, 0);
// CHECK-LABEL: template <typename T> __device__ __forceinline__ T kf_warp_sum(T v) {
// CHECK:          v += __shfl_down_sync(0xffffffffu, v, o);
// CHECK-LABEL: // kfuse row-warps of softmax_rows (line {{[0-9]+}}): a warp per row, the lanes along its 3 loops
// CHECK-NEXT: __global__ void softmax_rows_warps(const float *in, float *out, int rows, int T) {
// CHECK-NEXT:   const int kf_lane = threadIdx.x & 31;
// CHECK-NEXT:   const int r = ((blockIdx.x * blockDim.x + threadIdx.x) / 32);
// CHECK:          for (int j = kf_lane; j < T; j += 32)
// CHECK-NEXT:       m = fmaxf(m, x[j]);
// CHECK-NEXT:     m = kf_warp_fmaxf(m);
// CHECK:          if (kf_lane != 0) s = 0; // the initial value counted once, by lane 0
// CHECK:          s = kf_warp_sum(s);
// CHECK:        // kfuse row-warps: over the row's lanes
// CHECK-NEXT:   for (int j = kf_lane; j < T; j += 32)
// CHECK-NEXT:     y[j] = expf(x[j] - m) / s;
// CHECK-LABEL: // kfuse row-warps of norm_rows (line {{[0-9]+}}): a warp per row, the lanes along its 3 loops
// CHECK:          for (int i = kf_lane; i < S; i += 32) {
// CHECK-NEXT:         float d = src[i] - mean;
// CHECK-LABEL: extern "C" void rows(
// CHECK:        softmax_rows_warps<<<32u * (unsigned)((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, T);
// CHECK:        norm_rows_warps<<<32u * (unsigned)((rows + 63) / 64), 64, 0, stream>>>(x, bias, z, rows, T);
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(const float* in, float* out, int rows, int T) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * T;
  float* y = out + (size_t)r * T;
  float m = -INFINITY;
  for (int j = 0; j < T; ++j) m = fmaxf(m, x[j]);
  float s = 0.f;
  for (int j = 0; j < T; ++j) s += expf(x[j] - m);
  for (int j = 0; j < T; ++j) y[j] = expf(x[j] - m) / s;
}

__global__ void norm_rows(const float* in, const float* bias, float* out, int NC, int S) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < NC) {
    const float* src = in + (size_t)p * S;
    float* dst = out + (size_t)p * S;
    float sum = bias[p];
    for (int i = 0; i < S; i++) sum += src[i];
    float mean = sum / S;
    float sq = 0.f;
    for (int i = 0; i < S; i++) {
      float d = src[i] - mean;
      sq += d * d;
    }
    float rstd = rsqrtf(sq / S + 1e-5f);
    for (int i = 0; i < S; i++) dst[i] = (src[i] - mean) * rstd;
  }
}

// kfuse: in  x    float[rows][T]
// kfuse: in  bias float[rows]
// kfuse: out y    float[rows][T]
// kfuse: out z    float[rows][T]
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  rows=4096 T=1000
// kfuse: check rows=5 T=33
// kfuse: check rows=130 T=7
extern "C" void rows(const float* x, const float* bias, float* y, float* z, int rows, int T, cudaStream_t stream) {
  softmax_rows<<<(rows + 127) / 128, 128, 0, stream>>>(x, y, rows, T);
  norm_rows<<<(rows + 63) / 64, 64, 0, stream>>>(x, bias, z, rows, T);
}
