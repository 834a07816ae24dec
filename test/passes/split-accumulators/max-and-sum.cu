// A block-per-row reduction whose threads keep one accumulator each (a dependent chain of
// fmaxf, then of +=) gets four: four consecutive steps of the loop at a time, each into
// its own accumulator, the rest one at a time into the first, combined at the end. The
// steps are the reference's code with the loop variable and the accumulator renamed; the
// launch keeps its configuration.
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse split-accumulators of row_stats (line {{[0-9]+}}): 2 reduction loops, 4 accumulators each
// CHECK-NEXT: __global__ void row_stats_split(
// CHECK: { // kfuse split-accumulators: m in 4 accumulators, 4 steps at a time
// CHECK-NEXT: long long kf_j = threadIdx.x;
// CHECK-NEXT: float kf_m1 = m, kf_m2 = m, kf_m3 = m;
// CHECK-NEXT: for (; kf_j + 3 * (long long)(blockDim.x) < (long long)(D); kf_j += 4 * (long long)(blockDim.x)) {
// CHECK: const int j = (int)(kf_j + 3 * (long long)(blockDim.x));
// CHECK-NEXT: kf_m3 = fmaxf(kf_m3, xr[j]);
// CHECK: for (; kf_j < (long long)(D); kf_j += (long long)(blockDim.x)) {
// CHECK-NEXT: const int j = (int)(kf_j);
// CHECK-NEXT: m = fmaxf(m, xr[j]);
// CHECK: m = fmaxf(fmaxf(m, kf_m1), fmaxf(kf_m2, kf_m3));
// CHECK: { // kfuse split-accumulators: s in 4 accumulators, 4 steps at a time
// CHECK-NEXT: long long kf_j = threadIdx.x;
// CHECK-NEXT: float kf_s1 = 0, kf_s2 = 0, kf_s3 = 0;
// CHECK: const int j = (int)(kf_j + (long long)(blockDim.x));
// CHECK-NEXT: const float d = xr[j] - mx;
// CHECK-NEXT: kf_s1 += d * d;
// CHECK: s = (s + kf_s1) + (kf_s2 + kf_s3);
// CHECK-LABEL: {{^}}extern "C" void row_stats_entry
// CHECK: row_stats_split<<<rows, 256, 0, stream>>>(x, out, D);
#include <cuda_runtime.h>

__global__ void row_stats(const float* x, float* out, int D) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  float m = -1e30f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, xr[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    const float d = xr[j] - mx;
    s += d * d;
  }
  red[threadIdx.x] = s;
  __syncthreads();
  for (int t = blockDim.x / 2; t > 0; t >>= 1) {
    if (threadIdx.x < t) red[threadIdx.x] += red[threadIdx.x + t];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = red[0];
}

// kfuse: in  x float[rows][D]
// kfuse: out out float[rows]
// kfuse: tune rows=64 D=4096
extern "C" void row_stats_entry(const float* x, float* out, int rows, int D, cudaStream_t stream) {
  row_stats<<<rows, 256, 0, stream>>>(x, out, D);
}
