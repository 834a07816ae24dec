// A one-thread-per-row running sum becomes one block per row: the reference's own
// expressions at each element j, the row r taken from the row loop over blocks, a chunked
// warp-shuffle scan with the carry in a register. The output compiles with nvcc.
// RUN: %kfuse %s --passes=row-scan --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c %t.cu -o %t.o
// CHECK: // kfuse variant row-scan(block=1024,vpt=8)@cumsum#0-#0
// CHECK-LABEL: // kfuse row-scan of cumsum_rows (line {{[0-9]+}}): one block of 1024 threads per row, 8 consecutive elements a
// CHECK-NEXT: // thread per chunk of 8192 in a shared tile; a warp-shuffle block scan, the carry in a register
// CHECK-NEXT: __global__ void __launch_bounds__(1024) cumsum_rows_by_block(const float *x, float *y, int rows, int L) {
// CHECK: for (long long kf_r = blockIdx.x; kf_r < (long long)(rows); kf_r += gridDim.x) {
// CHECK-NEXT: const int r = (int)kf_r;
// CHECK-NEXT: const float *in = x + r * L;
// CHECK-NEXT: float *out = y + r * L;
// CHECK-NEXT: const long long kf_len = (long long)(L);
// CHECK-NEXT: float kf_carry = 0.f;
// CHECK: const int j = (int)(kf_c + kf_p);
// CHECK-NEXT: kf_e = 2.f * in[j];
// CHECK: out[j] = kf_tile[kf_p + kf_p / 32];
// CHECK-LABEL: {{^}}extern "C" void cumsum(
// CHECK-NEXT: cumsum_rows_by_block<<<528, 1024, 0, stream>>>(x, y, R, L);
#include <cuda_runtime.h>

__global__ void cumsum_rows(const float* x, float* y, int rows, int L) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * L;
  float* out = y + r * L;
  float running = 0.f;
  for (int j = 0; j < L; ++j) {
    running += 2.f * in[j];
    out[j] = running;
  }
}

// kfuse: in  x float[R][L]
// kfuse: out y float[R][L]
// kfuse: tune R=1024 L=4096
extern "C" void cumsum(const float* x, float* y, int R, int L, cudaStream_t stream) {
  cumsum_rows<<<(R + 127) / 128, 128, 0, stream>>>(x, y, R, L);
}
