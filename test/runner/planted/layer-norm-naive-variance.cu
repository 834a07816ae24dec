// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/layer_norm %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: layer_norm's variance as E[x^2] - E[x]^2, one block a row, both sums in one
// pass: right on typical draws, but for inputs with a large common offset (100 + N(0,1)
// is as valid as N(0,1)) the two terms are near 10^4 and their difference, 1, keeps only
// the last bits of float's precision. The half entry is the reference's.
// Caught by: the stress inputs: a normal input shifted by 100, compared with a tolerance
// that admits 4x the reference's own rounding noise there (compare.h).
// CHECK-DAG: layer_norm failed mismatch: 'y' {{.*}}stress: 'x' {{[+-]}} 100
// CHECK-DAG: layer_norm_half ok
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void layer_norm_one_pass(const float* x, const float* gamma, const float* beta,
                                    float* y, int R, int D) {
  __shared__ float s1[256], s2[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  float a = 0.f, b = 0.f;
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float v = xr[d];
    a += v;
    b += v * v;
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) {
      s1[threadIdx.x] += s1[threadIdx.x + k];
      s2[threadIdx.x] += s2[threadIdx.x + k];
    }
    __syncthreads();
  }
  float mean = s1[0] / D;
  float var = s2[0] / D - mean * mean;
  float inv = rsqrtf(fmaxf(var, 0.f) + 1e-5f);
  for (int d = threadIdx.x; d < D; d += blockDim.x)
    y[(size_t)blockIdx.x * D + d] = (xr[d] - mean) * inv * gamma[d] + beta[d];
}

extern "C" void layer_norm(const float* x, const float* gamma, const float* beta, float* y,
                           int R, int D, cudaStream_t stream) {
  layer_norm_one_pass<<<R, 256, 0, stream>>>(x, gamma, beta, y, R, D);
}

__global__ void layer_norm_rows_half(const __half* x, const float* gamma, const float* beta,
                                     __half* y, int R, int D) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const __half* xr = x + (size_t)r * D;
  float mean = 0.f;
  for (int d = 0; d < D; ++d) mean += __half2float(xr[d]);
  mean /= D;
  float var = 0.f;
  for (int d = 0; d < D; ++d) {
    float c = __half2float(xr[d]) - mean;
    var += c * c;
  }
  var /= D;
  float inv = rsqrtf(var + 1e-5f);
  for (int d = 0; d < D; ++d)
    y[(size_t)r * D + d] = __float2half((__half2float(xr[d]) - mean) * inv * gamma[d] + beta[d]);
}

extern "C" void layer_norm_half(const __half* x, const float* gamma, const float* beta,
                                __half* y, int R, int D, cudaStream_t stream) {
  layer_norm_rows_half<<<(R + 127) / 128, 128, 0, stream>>>(x, gamma, beta, y, R, D);
}
