// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/axpy_quant %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Correct: two elements per thread through __half2, float2 and int2 (8-byte accesses), the
// odd last element by a scalar path, and a grid of a quarter the threads.
// Caught by: nothing: it must be accepted; integer outputs match exactly because each
// element is computed by the same expression.
// CHECK: axpy_quant ok
// CHECK-NOT: failed
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void axpy_quant2(const __half* x, float* acc, int* q, int N, float alpha) {
  int pairs = N / 2;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x) {
    float2 v = __half22float2(reinterpret_cast<const __half2*>(x)[i]);
    float2 a = reinterpret_cast<float2*>(acc)[i];
    a.x = a.x + alpha * v.x;
    a.y = a.y + alpha * v.y;
    reinterpret_cast<float2*>(acc)[i] = a;
    reinterpret_cast<int2*>(q)[i] = make_int2((int)floorf(a.x * 8.f), (int)floorf(a.y * 8.f));
  }
  if (N % 2 && blockIdx.x == 0 && threadIdx.x == 0) {
    int i = N - 1;
    float a = acc[i] + alpha * __half2float(x[i]);
    acc[i] = a;
    q[i] = (int)floorf(a * 8.f);
  }
}

extern "C" cudaError_t axpy_quant(const __half* x, float* acc, int* q, int N, float alpha,
                                  cudaStream_t stream) {
  int pairs = N / 2, threads = 256, blocks = (pairs / 4 + threads - 1) / threads;
  axpy_quant2<<<blocks > 0 ? blocks : 1, threads, 0, stream>>>(x, acc, q, N, alpha);
  return cudaGetLastError();
}
