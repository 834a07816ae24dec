// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/col_sum %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
// RUN: %kfuse-runner --no-time --deterministic %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck --check-prefix=DET %s
//
// Planted: the reference's own algorithm, float atomics into each column, for both
// entries: fine for col_sum, whose reference gives other last bits on every run too, and
// wrong for col_sum_det, which says `deterministic`. With kfuse-runner --deterministic,
// col_sum must rerun bit for bit as well.
// Caught by: repeated runs on the same inputs, bit for bit where determinism is asked for.
// CHECK-DAG: col_sum ok
// CHECK-DAG: col_sum_det failed not deterministic: 's' differs {{.*}}the entry asks for bit-identical reruns (deterministic)
// DET-DAG: col_sum failed not deterministic: 's' differs {{.*}}the entry asks for bit-identical reruns (deterministic)
// DET-DAG: col_sum_det failed not deterministic:
#include <cuda_runtime.h>

__global__ void col_sum_atomic(const float* x, float* s, int R, int C) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (size_t)R * C) atomicAdd(&s[i % C], x[i]);
}

static void sums(const float* x, float* s, int R, int C, cudaStream_t stream) {
  cudaMemsetAsync(s, 0, sizeof(float) * C, stream);
  size_t n = (size_t)R * C;
  col_sum_atomic<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, s, R, C);
}

extern "C" void col_sum(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}

extern "C" void col_sum_det(const float* x, float* s, int R, int C, cudaStream_t stream) {
  sums(x, s, R, C, stream);
}
