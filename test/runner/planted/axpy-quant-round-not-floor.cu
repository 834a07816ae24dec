// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/axpy_quant %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: quantizes with rintf (round to nearest) instead of floorf.
// Caught by: the exact comparison of integer outputs.
// CHECK: axpy_quant failed mismatch: 'q' element {{[0-9]+}} is {{-?[0-9]+}}, reference {{-?[0-9]+}} (exact)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void axpy_quant_kernel(const __half* x, float* acc, int* q, int N, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float a = acc[i] + alpha * __half2float(x[i]);
  acc[i] = a;
  q[i] = (int)rintf(a * 8.f);
}

extern "C" cudaError_t axpy_quant(const __half* x, float* acc, int* q, int N, float alpha,
                                  cudaStream_t stream) {
  axpy_quant_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, acc, q, N, alpha);
  return cudaGetLastError();
}
