// Loops the pass leaves as they are: a conditional update that is no arg form (a sum of the
// positive terms), and arg forms it cannot split exactly: `>=` (keeps the last extreme), an
// index narrower than the loop's (arg = j could wrap and lose j's order), and a stride that
// is no positive literal (the first step need not be the smallest j).
// RUN: %kfuse %s --passes=split-accumulators --emit=transformed -o - | FileCheck %s
// CHECK-NOT: {{^// kfuse variant}}
// CHECK-LABEL: {{^}}extern "C" void refused
// CHECK: positive_sum<<<(rows + 255) / 256, 256, 0, stream>>>(x, s, rows, D);
// CHECK: argmax_last<<<(rows + 255) / 256, 256, 0, stream>>>(x, a, rows, D);
// CHECK: argmax_narrow<<<(rows + 255) / 256, 256, 0, stream>>>(x, b, rows, D);
// CHECK: argmax_strided<<<(rows + 255) / 256, 256, 0, stream>>>(x, c, rows, D, 1);
#include <cuda_runtime.h>

__global__ void positive_sum(const float* x, float* out, int rows, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < D; ++j) {
    const float v = x[(size_t)r * D + j];
    if (v > 0.0f) s += v;
  }
  out[r] = s;
}

__global__ void argmax_last(const float* x, long long* out, int rows, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = x[(size_t)r * D];
  long long best_j = 0;
  for (int j = 1; j < D; ++j) {
    const float v = x[(size_t)r * D + j];
    if (v >= best) {
      best = v;
      best_j = j;
    }
  }
  out[r] = best_j;
}

__global__ void argmax_narrow(const float* x, long long* out, int rows, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = x[(size_t)r * D];
  int best_j = 0;
  for (long long j = 1; j < D; ++j) {
    const float v = x[(size_t)r * D + j];
    if (v > best) {
      best = v;
      best_j = j;
    }
  }
  out[r] = best_j;
}

__global__ void argmax_strided(const float* x, long long* out, int rows, int D, int step) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = x[(size_t)r * D];
  long long best_j = 0;
  for (int j = 1; j < D; j += step) {
    const float v = x[(size_t)r * D + j];
    if (v > best) {
      best = v;
      best_j = j;
    }
  }
  out[r] = best_j;
}

// kfuse: in  x float[rows][D]
// kfuse: out s float[rows]
// kfuse: out a int64[rows]
// kfuse: out b int64[rows]
// kfuse: out c int64[rows]
// kfuse: tune rows=64 D=4096
extern "C" void refused(const float* x, float* s, long long* a, long long* b, long long* c, int rows, int D,
                        cudaStream_t stream) {
  positive_sum<<<(rows + 255) / 256, 256, 0, stream>>>(x, s, rows, D);
  argmax_last<<<(rows + 255) / 256, 256, 0, stream>>>(x, a, rows, D);
  argmax_narrow<<<(rows + 255) / 256, 256, 0, stream>>>(x, b, rows, D);
  argmax_strided<<<(rows + 255) / 256, 256, 0, stream>>>(x, c, rows, D, 1);
}
