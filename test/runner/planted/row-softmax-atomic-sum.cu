// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: row_sum splits each row over four blocks that add into the output with
// atomicAdd (after a delay that varies with the clock, as on a busy GPU): every result is
// within tolerance, but the order of the additions, and so the last bits, change from run
// to run, while the reference is bit-for-bit repeatable.
// Caught by: repeated runs on the same inputs (bit for bit where the reference is).
// CHECK-DAG: row_softmax ok
// CHECK-DAG: row_sum failed not deterministic: 's' differs between two runs
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(const float* x, float* y, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * C;
  float* yr = y + (size_t)r * C;
  float m = -INFINITY;
  for (int c = 0; c < C; ++c) m = fmaxf(m, xr[c]);
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(xr[c] - m);
  for (int c = 0; c < C; ++c) yr[c] = expf(xr[c] - m) / s;
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_rows<<<(R + 127) / 128, 128>>>(x, y, R, C);
}

__global__ void sum_rows_split(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.y + threadIdx.y, part = blockIdx.y;
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  long long t0 = clock64(), wait = (long long)((now >> 6) % 8) * 2000 + part * 500;
  while (clock64() - t0 < wait) {
  }
  if (r >= R || threadIdx.x != 0) return;
  int c0 = (int)((long long)C * part / 4), c1 = (int)((long long)C * (part + 1) / 4);
  float acc = 0.f;
  for (int c = c0; c < c1; ++c) acc += x[(size_t)r * C + c];
  atomicAdd(&s[r], acc);
}

extern "C" void row_sum(const float* x, float* s, int R, int C) {
  cudaMemsetAsync(s, 0, sizeof(float) * R, 0);
  sum_rows_split<<<dim3((R + 7) / 8, 4), dim3(1, 8)>>>(x, s, R, C);
}
