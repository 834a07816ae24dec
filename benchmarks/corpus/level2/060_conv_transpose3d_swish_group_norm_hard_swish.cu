// KernelBench level 2, problem 60: ConvTranspose3d_Swish_GroupNorm_HardSwish
//   y = hardswish(group_norm(swish(convT3d(x)), G, gamma, beta, eps))
#include <cuda_runtime.h>

constexpr int K = 3;
constexpr int STRIDE = 2;
constexpr int PAD = 1;
constexpr int NT = 1024;  // threads of a group-norm block

__device__ __forceinline__ float sigmoidf_(float v) { return 1.0f / (1.0f + expf(-v)); }

__global__ void conv_transpose3d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                        const float* __restrict__ b, float* __restrict__ y,
                                        int N, int CI, int D, int H, int W, int CO, int OD,
                                        int OH, int OW) {
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t total = (size_t)N * CO * OD * OH * OW;
  if (idx >= total) return;
  const int ow = idx % OW;
  const int oh = idx / OW % OH;
  const int od = idx / ((size_t)OW * OH) % OD;
  const int co = idx / ((size_t)OW * OH * OD) % CO;
  const int n = idx / ((size_t)OW * OH * OD * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    for (int kd = (od + PAD) % STRIDE; kd < K; kd += STRIDE) {
      const int id = (od + PAD - kd) / STRIDE;
      if (od + PAD - kd < 0 || id >= D) continue;
      for (int kh = (oh + PAD) % STRIDE; kh < K; kh += STRIDE) {
        const int ih = (oh + PAD - kh) / STRIDE;
        if (oh + PAD - kh < 0 || ih >= H) continue;
        for (int kw = (ow + PAD) % STRIDE; kw < K; kw += STRIDE) {
          const int iw = (ow + PAD - kw) / STRIDE;
          if (ow + PAD - kw < 0 || iw >= W) continue;
          acc += x[(((size_t)(n * CI + ci) * D + id) * H + ih) * W + iw] *
                 w[(((ci * CO + co) * K + kd) * K + kh) * K + kw];
        }
      }
    }
  }
  y[idx] = acc;
}

__global__ void swish_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sigmoidf_(in[i]) * in[i];
}

// One block per (n, g), NT threads, shared-memory tree reductions; normalizes in place
// of a separate apply kernel.
__global__ void group_norm_kernel(const float* __restrict__ in, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ out,
                                  int C, int G, int S, float eps) {
  __shared__ float red[NT];
  const int cpg = C / G;
  const size_t len = (size_t)cpg * S;
  const size_t base = (size_t)blockIdx.x * len;
  const int g = blockIdx.x % G;
  const int t = threadIdx.x;

  float s = 0.0f;
  for (size_t j = t; j < len; j += NT) s += in[base + j];
  red[t] = s;
  __syncthreads();
  for (int off = NT / 2; off > 0; off >>= 1) {
    if (t < off) red[t] += red[t + off];
    __syncthreads();
  }
  const float mean = red[0] / (float)len;
  __syncthreads();

  float q = 0.0f;
  for (size_t j = t; j < len; j += NT) {
    const float d = in[base + j] - mean;
    q += d * d;
  }
  red[t] = q;
  __syncthreads();
  for (int off = NT / 2; off > 0; off >>= 1) {
    if (t < off) red[t] += red[t + off];
    __syncthreads();
  }
  const float rstd = rsqrtf(red[0] / (float)len + eps);

  for (size_t j = t; j < len; j += NT) {
    const int c = g * cpg + (int)(j / S);
    out[base + j] = (in[base + j] - mean) * rstd * gamma[c] + beta[c];
  }
}

__global__ void hardswish_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
}

// kfuse: in  x     float[N][CI][D][H][W]
// kfuse: in  w     float[CI][CO][3][3][3]
// kfuse: in  b     float[CO]
// kfuse: in  gamma float[CO]
// kfuse: in  beta  float[CO]
// kfuse: out y     float[N][CO][2 * D - 1][2 * H - 1][2 * W - 1]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.3,0.3)
// kfuse: init b     uniform(-0.3,0.3)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.2,0.2)
// kfuse: assume CO % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 CI=3 D=16 H=32 W=32 CO=16 G=4 eps=1e-5
// kfuse: check N=3 CI=2 D=3 H=5 W=4 CO=6 G=3 eps=1e-5
extern "C" void conv_transpose3d_swish_group_norm_hard_swish(
    const float* x, const float* w, const float* b, const float* gamma, const float* beta,
    float* y, int N, int CI, int D, int H, int W, int CO, int G, float eps,
    cudaStream_t stream) {
  const int OD = (D - 1) * STRIDE - 2 * PAD + K;
  const int OH = (H - 1) * STRIDE - 2 * PAD + K;
  const int OW = (W - 1) * STRIDE - 2 * PAD + K;
  const int S = OD * OH * OW;
  const size_t n = (size_t)N * CO * S;
  const unsigned nb = (unsigned)((n + 255) / 256);
  float *conv, *sw, *gn;
  cudaMallocAsync(&conv, n * sizeof(float), stream);
  cudaMallocAsync(&sw, n * sizeof(float), stream);
  cudaMallocAsync(&gn, n * sizeof(float), stream);
  conv_transpose3d_kernel<<<nb, 256, 0, stream>>>(x, w, b, conv, N, CI, D, H, W, CO, OD, OH, OW);
  swish_kernel<<<nb, 256, 0, stream>>>(conv, sw, n);
  group_norm_kernel<<<N * G, NT, 0, stream>>>(sw, gamma, beta, gn, CO, G, S, eps);
  hardswish_kernel<<<nb, 256, 0, stream>>>(gn, y, n);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(sw, stream);
  cudaFreeAsync(gn, stream);
}
