// A pointwise run that feeds the scan (here x * mask) is computed where the scan loads
// its element (fuse-prologue's function), so the masked values are never stored.
// RUN: %kfuse %s --passes=row-scan --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant row-scan(block=1024,vpt=8)@masked_cumsum#1-#2
// CHECK: __device__ __forceinline__ float row_scan_by_block_masked(const float* __restrict__ x, const float* __restrict__ mask, long long kf_i) {
// CHECK: // with the prologue row_scan_by_block_masked: masked is never stored
// CHECK-NEXT: __global__ void __launch_bounds__(1024) row_scan_by_block(float *out, int rows, int L, const float* __restrict__ x, const float* __restrict__ mask) {
// CHECK: kf_e = row_scan_by_block_masked(x, mask, (long long)(r * L + j));
// CHECK-LABEL: {{^}}extern "C" void masked_cumsum(
// CHECK-NOT: cudaMallocAsync
// CHECK: row_scan_by_block<<<528, 1024, 0, stream>>>(y, R, L, x, mask);
// CHECK-NOT: cudaFreeAsync
#include <cuda_runtime.h>

__global__ void mask_mul(const float* x, const float* mask, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * mask[i];
}

__global__ void row_scan(const float* in, float* out, int rows, int L) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int j = 0; j < L; ++j) {
      s += in[r * L + j];
      out[r * L + j] = s;
    }
  }
}

// kfuse: in  x float[R][L]
// kfuse: in  mask float[R][L]
// kfuse: out y float[R][L]
// kfuse: tune R=1024 L=4096
extern "C" void masked_cumsum(const float* x, const float* mask, float* y, int R, int L, cudaStream_t stream) {
  float* masked;
  cudaMallocAsync(&masked, R * L * sizeof(float), stream);
  mask_mul<<<(R * L + 255) / 256, 256, 0, stream>>>(x, mask, masked, R * L);
  row_scan<<<(R + 63) / 64, 64, 0, stream>>>(masked, y, R, L);
  cudaFreeAsync(masked, stream);
}
