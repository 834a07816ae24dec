// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/lookup %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: root computes sqrt(x) as x * rsqrt(x), a fast-math rewrite: right everywhere
// in (0, 1], and 0 * inf = NaN at x = 0, an endpoint of the declared uniform(0,1) that
// typical draws never hit. gather is the reference's.
// Caught by: the stress inputs: uniform inputs at their endpoints.
// CHECK-DAG: root failed mismatch: 'y' element {{[0-9]+}} is nan, reference 0 {{.*}}stress: uniform and int inputs at their endpoints
// CHECK-DAG: gather ok
#include <cuda_runtime.h>
#include <math.h>

__global__ void root_rsqrt(const float* x, float* y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) y[i] = x[i] * rsqrtf(x[i]);
}

__global__ void gather_rows(const float* table, const int* idx, float* out, int N, int D) {
  int d = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y;
  if (d < D) out[(size_t)n * D + d] = table[(size_t)idx[n] * D + d];
}

extern "C" void root(const float* x, float* y, int N, cudaStream_t stream) {
  root_rsqrt<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}

extern "C" void gather(const float* table, const int* idx, float* out, int N, int C, int D,
                       cudaStream_t stream) {
  gather_rows<<<dim3((D + 63) / 64, N), 64, 0, stream>>>(table, idx, out, N, D);
}
