// layer_norm and layer_norm_half: the reference of the planted variants
// test/runner/planted/layer-norm-*.cu. One thread per row: the mean, then the variance of
// x - mean (two passes, as a careful reference computes it, not E[x^2] - E[x]^2), then the
// normalization with a learned scale and shift. The half entry reads and writes half and
// keeps its statistics in float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void layer_norm_rows(const float* x, const float* gamma, const float* beta, float* y,
                                int R, int D) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  const float* xr = x + (size_t)r * D;
  float mean = 0.f;
  for (int d = 0; d < D; ++d) mean += xr[d];
  mean /= D;
  float var = 0.f;
  for (int d = 0; d < D; ++d) {
    float c = xr[d] - mean;
    var += c * c;
  }
  var /= D;
  float inv = rsqrtf(var + 1e-5f);
  for (int d = 0; d < D; ++d) y[(size_t)r * D + d] = (xr[d] - mean) * inv * gamma[d] + beta[d];
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

// kfuse: in  x     float[R][D]
// kfuse: in  gamma float[D]
// kfuse: in  beta  float[D]
// kfuse: out y     float[R][D]
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: tune  R=2048 D=1024
// kfuse: check R=3 D=777
// kfuse: assume R >= 1 && D >= 1
extern "C" void layer_norm(const float* x, const float* gamma, const float* beta, float* y,
                           int R, int D, cudaStream_t stream) {
  layer_norm_rows<<<(R + 127) / 128, 128, 0, stream>>>(x, gamma, beta, y, R, D);
}

// kfuse: in  x     half[R][D]
// kfuse: in  gamma float[D]
// kfuse: in  beta  float[D]
// kfuse: out y     half[R][D]
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: tune  R=2048 D=1024
// kfuse: check R=5 D=333
// kfuse: assume R >= 1 && D >= 1
extern "C" void layer_norm_half(const __half* x, const float* gamma, const float* beta,
                                __half* y, int R, int D, cudaStream_t stream) {
  layer_norm_rows_half<<<(R + 127) / 128, 128, 0, stream>>>(x, gamma, beta, y, R, D);
}
