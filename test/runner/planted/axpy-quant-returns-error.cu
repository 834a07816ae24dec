// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/axpy_quant %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: refuses odd sizes by returning cudaErrorInvalidValue (the contract lets the
// entry be called with any N that satisfies its assumes: N >= 1).
// Caught by: the entry's result: a cudaError_t entry must return cudaSuccess.
// CHECK: axpy_quant failed entry returned cudaErrorInvalidValue
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void axpy_quant2(const __half2* x, float2* acc, int2* q, int pairs, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  float2 v = __half22float2(x[i]), a = acc[i];
  a.x = a.x + alpha * v.x;
  a.y = a.y + alpha * v.y;
  acc[i] = a;
  q[i] = make_int2((int)floorf(a.x * 8.f), (int)floorf(a.y * 8.f));
}

extern "C" cudaError_t axpy_quant(const __half* x, float* acc, int* q, int N, float alpha,
                                  cudaStream_t stream) {
  if (N % 2) return cudaErrorInvalidValue;  // "pairs only"
  int pairs = N / 2;
  axpy_quant2<<<(pairs + 255) / 256, 256, 0, stream>>>((const __half2*)x, (float2*)acc,
                                                       (int2*)q, pairs, alpha);
  return cudaGetLastError();
}
