// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/row_softmax %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: the same register-resident softmax for rows of exactly 1024, dispatched only
// there, and the reference's kernel for every other length: a specialised kernel
// dispatched correctly.
// Caught by: nothing: both entries must be accepted, shapes past the bindings included.
// CHECK-DAG: row_softmax ok
// CHECK-DAG: row_sum ok
// CHECK-NOT: failed
#include <cuda_runtime.h>
#include <math.h>

// One block of 128 threads a row, each thread keeping its 8 of the row's 1024 values in
// registers: one read of the row, warp shuffles and a shared-memory exchange for the max
// and the sum.
__device__ float block_reduce(float v, bool is_max) {
  __shared__ float part[4];
  __syncthreads(); /* part may still be read by a previous call */
  for (int o = 16; o > 0; o >>= 1) {
    float t = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, t) : v + t;
  }
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  v = part[0];
  for (int w = 1; w < 4; ++w) v = is_max ? fmaxf(v, part[w]) : v + part[w];
  return v;
}

__global__ void softmax_1024(const float* x, float* y, int C) {
  const float* xr = x + (size_t)blockIdx.x * C;
  float* yr = y + (size_t)blockIdx.x * C;
  float v[8];
  float m = -INFINITY;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    v[j] = xr[threadIdx.x + 128 * j];
    m = fmaxf(m, v[j]);
  }
  m = block_reduce(m, true);
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    v[j] = expf(v[j] - m);
    s += v[j];
  }
  s = block_reduce(s, false);
#pragma unroll
  for (int j = 0; j < 8; ++j) yr[threadIdx.x + 128 * j] = v[j] / s;
}

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
  if (C == 1024)
    softmax_1024<<<R, 128>>>(x, y, C);
  else
    softmax_rows<<<(R + 127) / 128, 128>>>(x, y, R, C);
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
