// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/col_sum %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
// RUN: %kfuse-runner --no-time --deterministic %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck --check-prefix=DET %s
//
// Planted: each block sums a band of 64 rows of its 256 columns in registers, then adds
// its partial sums into the output with one atomicAdd per column: far fewer atomics than
// the reference, and as unrepeatable in the last bits (the bands arrive in any order).
// Fine for col_sum, wrong for col_sum_det (and for both with --deterministic).
// Caught by: repeated runs on the same inputs, bit for bit where determinism is asked for.
// CHECK-DAG: col_sum ok
// CHECK-DAG: col_sum_det failed not deterministic: 's' differs {{.*}}(deterministic)
// DET-DAG: col_sum failed not deterministic: 's' differs {{.*}}(deterministic)
// DET-DAG: col_sum_det failed not deterministic:
#include <cuda_runtime.h>

enum { BAND = 64 };

__global__ void col_sum_bands(const float* x, float* s, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r0 = blockIdx.y * BAND;
  if (c >= C) return;
  float acc = 0.f;
  for (int r = r0; r < R && r < r0 + BAND; ++r) acc += x[(size_t)r * C + c];
  atomicAdd(&s[c], acc);
}

static void sums(const float* x, float* s, int R, int C, cudaStream_t stream) {
  cudaMemsetAsync(s, 0, sizeof(float) * C, stream);
  col_sum_bands<<<dim3((C + 255) / 256, (R + BAND - 1) / BAND), 256, 0, stream>>>(x, s, R, C);
}

extern "C" void col_sum(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}

extern "C" void col_sum_det(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}
