// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time --sanitize %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: a block-per-row softmax whose shared-memory tree reductions lack the
// __syncthreads() between steps, so threads read partial results other warps have not
// written yet.
// Caught by: compute-sanitizer racecheck (--sanitize), or the tolerance rule or the
// repeated-run check when the race shows in a plain run. The other entry, row_sum, is
// right and stays ok: verdicts are per entry.
// CHECK-DAG: row_softmax failed {{racecheck|mismatch|not deterministic}}
// CHECK-DAG: row_sum ok
#include <cuda_runtime.h>
#include <math.h>

// one block of 256 threads per row; max and sum by tree reductions in shared memory
__global__ void softmax_block(const float* x, float* y, int R, int C) {
  __shared__ float red[256];
  int r = blockIdx.x, t = threadIdx.x;
  const float* xr = x + (size_t)r * C;
  float* yr = y + (size_t)r * C;
  float m = -INFINITY;
  for (int c = t; c < C; c += 256) m = fmaxf(m, xr[c]);
  red[t] = m;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if (t < h) red[t] = fmaxf(red[t], red[t + h]);
    // missing: __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.f;
  for (int c = t; c < C; c += 256) s += expf(xr[c] - m);
  red[t] = s;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if (t < h) red[t] += red[t + h];
    // missing: __syncthreads();
  }
  s = red[0];
  for (int c = t; c < C; c += 256) yr[c] = expf(xr[c] - m) / s;
}

extern "C" void row_softmax(const float* x, float* y, int R, int C) {
  softmax_block<<<R, 256>>>(x, y, R, C);
}

__global__ void sum_rows(const float* x, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += x[(size_t)r * C + c];
  s[r] = acc;
}

extern "C" void row_sum(const float* x, float* s, int R, int C) {
  sum_rows<<<(R + 127) / 128, 128>>>(x, s, R, C);
}
