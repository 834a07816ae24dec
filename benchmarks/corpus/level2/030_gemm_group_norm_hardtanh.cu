// KernelBench level 2, problem 30: Gemm_GroupNorm_Hardtanh
//   y = hardtanh(group_norm(linear(x, W, b), G, gamma, beta), lo, hi)
// GroupNorm on a (B, F) tensor: group g of row b is features [g*F/G, (g+1)*F/G).
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void linear_fwd(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                           int OUT) {
  const int o = blockIdx.x * BLOCK + threadIdx.x;
  const int r = blockIdx.y;
  if (o < OUT && r < B) {
    const float* xr = x + (size_t)r * IN;
    const float* wr = w + (size_t)o * IN;
    float acc = 0.0f;
    for (int k = 0; k < IN; ++k) acc += xr[k] * wr[k];
    y[(size_t)r * OUT + o] = acc + b[o];
  }
}

// One thread per (row, group), looping over the group's features.
__global__ void group_norm_rows(const float* __restrict__ in, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ out, int B,
                                int F, int G, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= B * G) return;
  const int r = t / G, g = t % G;
  const int cpg = F / G;
  const float* src = in + (size_t)r * F + g * cpg;
  float* dst = out + (size_t)r * F + g * cpg;
  float mean = 0.0f;
  for (int j = 0; j < cpg; ++j) mean += src[j];
  mean /= cpg;
  float var = 0.0f;
  for (int j = 0; j < cpg; ++j) var += (src[j] - mean) * (src[j] - mean);
  var /= cpg;
  const float inv = 1.0f / sqrtf(var + eps);
  for (int j = 0; j < cpg; ++j) {
    const int f = g * cpg + j;
    dst[j] = (src[j] - mean) * inv * gamma[f] + beta[f];
  }
}

__global__ void hardtanh(const float* __restrict__ in, float* __restrict__ out, float lo, float hi,
                         int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(fmaxf(in[i], lo), hi);
}

// kfuse: in  x     float[B][IN]
// kfuse: in  w     float[OUT][IN]
// kfuse: in  b     float[OUT]
// kfuse: in  gamma float[OUT]
// kfuse: in  beta  float[OUT]
// kfuse: out y     float[B][OUT]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.01,0.01)
// kfuse: init b     uniform(-0.01,0.01)
// kfuse: init gamma uniform(0.5,2.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: assume OUT % G == 0
// kfuse: assume B <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 OUT=8192 G=16 hardtanh_min=-2.0 hardtanh_max=2.0
// kfuse: check B=3 IN=77 OUT=129 G=3 hardtanh_min=-2.0 hardtanh_max=2.0
// kfuse: check B=5 IN=40 OUT=64 G=16 hardtanh_min=-0.5 hardtanh_max=1.0
extern "C" void gemm_group_norm_hardtanh(const float* x, const float* w, const float* b,
                                         const float* gamma, const float* beta, float* y, int B,
                                         int IN, int OUT, int G, float hardtanh_min,
                                         float hardtanh_max, cudaStream_t stream) {
  constexpr int BS = 128;
  const int n = B * OUT;
  float *lin, *gn;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&gn, sizeof(float) * n, stream);
  linear_fwd<BS><<<dim3((OUT + BS - 1) / BS, B), BS, 0, stream>>>(x, w, b, lin, B, IN, OUT);
  group_norm_rows<<<(B * G + 127) / 128, 128, 0, stream>>>(lin, gamma, beta, gn, B, OUT, G, 1e-5f);
  hardtanh<<<(n + 255) / 256, 256, 0, stream>>>(gn, y, hardtanh_min, hardtanh_max, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(gn, stream);
}
