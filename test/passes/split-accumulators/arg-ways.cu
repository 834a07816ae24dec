// An argmin written as two selects (the index first, then the value) in a grid-stride loop
// over the outputs: the arg form, split into 4 accumulators a thread (the threads form does
// not take a grid-stride kernel). The update is printed as one `if`; the pairs combine with
// `<` on the values and the first index among equal ones.
// RUN: %kfuse %s --passes=split-accumulators --pin split-accumulators.ways=4 --emit=transformed -o - | FileCheck %s
// CHECK: // kfuse variant split-accumulators(ways=4)@argmin_mid#0
// CHECK-LABEL: {{^}}__global__ void argmin_cols_split(
// CHECK:        int64_t arg = 0;
// CHECK-NEXT:   { // kfuse split-accumulators: best in 4 accumulators, 4 steps at a time
// CHECK-NEXT:     long long kf_j = 1;
// CHECK-NEXT:     float kf_best1 = best, kf_best2 = best, kf_best3 = best;
// CHECK-NEXT:     int64_t kf_arg1 = arg, kf_arg2 = arg, kf_arg3 = arg;
// CHECK:              const int64_t i = (int64_t)(kf_j + 3 * (long long)(1));
// CHECK-NEXT:         const float v = col[i * D2];
// CHECK-NEXT:         if (v < kf_best3) {
// CHECK-NEXT:           kf_best3 = v;
// CHECK-NEXT:           kf_arg3 = i;
// CHECK-NEXT:         }
// CHECK:            if (kf_best3 < best || (kf_best3 == best && kf_arg3 < arg)) {
// CHECK-NEXT:         best = kf_best3;
// CHECK-NEXT:         arg = kf_arg3;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     out[o] = arg;
// CHECK-LABEL: {{^}}extern "C" void argmin_mid
// CHECK: argmin_cols_split<<<1024, 256, 0, stream>>>(x, out, B, D1, D2);
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void argmin_cols(const float* x, int64_t* out, int64_t B, int64_t D1, int64_t D2) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < B * D2; o += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = o / D2;
    const int64_t j = o - b * D2;
    const float* col = x + b * D1 * D2 + j;
    float best = col[0];
    int64_t arg = 0;
    for (int64_t i = 1; i < D1; ++i) {
      const float v = col[i * D2];
      arg = v < best ? i : arg;
      best = v < best ? v : best;
    }
    out[o] = arg;
  }
}

// kfuse: in  x   float[B][D1][D2]
// kfuse: out out int64[B][D2]
// kfuse: init x int(0,8)
// kfuse: assume D1 >= 1
// kfuse: tune  B=16 D1=1000 D2=300
// kfuse: check B=3 D1=33 D2=129
// kfuse: check B=2 D1=7 D2=1
// kfuse: check B=1 D1=1 D2=5
extern "C" void argmin_mid(const float* x, int64_t* out, int64_t B, int64_t D1, int64_t D2, cudaStream_t stream) {
  argmin_cols<<<1024, 256, 0, stream>>>(x, out, B, D1, D2);
}
