// A loop whose accumulator is updated under a condition (an argmax keeps the index with
// the value), or whose body does anything but declare locals and update one accumulator,
// is left as it is.
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o - | FileCheck %s
// CHECK-NOT: {{^// kfuse variant}}
// CHECK-LABEL: {{^}}extern "C" void argmax_entry
// CHECK: argmax_rows<<<(rows + 255) / 256, 256, 0, stream>>>(x, out, rows, D);
#include <cuda_runtime.h>

__global__ void argmax_rows(const float* x, long long* out, int rows, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = x[(size_t)r * D];
  long long best_j = 0;
  for (int j = 1; j < D; ++j) {
    const float v = x[(size_t)r * D + j];
    if (v > best) {
      best = v;
      best_j = j;
    }
  }
  out[r] = best_j;
}

// kfuse: in  x float[rows][D]
// kfuse: out out int64[rows]
// kfuse: tune rows=64 D=4096
extern "C" void argmax_entry(const float* x, long long* out, int rows, int D, cudaStream_t stream) {
  argmax_rows<<<(rows + 255) / 256, 256, 0, stream>>>(x, out, rows, D);
}
