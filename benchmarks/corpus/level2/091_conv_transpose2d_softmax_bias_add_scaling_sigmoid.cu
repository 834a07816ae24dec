// KernelBench level 2, problem 91: ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid
//   y = sigmoid((softmax_c(convT(x)) + bias[C,1,1]) * scaling_factor)
// ConvTranspose2d(kernel 4, stride 2, padding 1, output_padding 1): OH = 2*H + 1.
#include <cuda_runtime.h>

constexpr int KSZ = 4;
constexpr int STR = 2;
constexpr int PAD = 1;
constexpr int OPAD = 1;

// Gather form; only the kernel taps whose parity matches the output position contribute,
// so kh runs over (oh + PAD) mod STR, +STR, ...
__global__ void conv_transpose2d_k4s2(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ b, float* __restrict__ y,
                                      int N, int CI, int H, int W, int CO, int OH, int OW) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * CO * OH * OW) return;
  const int ow = i % OW;
  const int oh = (i / OW) % OH;
  const int co = (i / (OW * OH)) % CO;
  const int n = i / (OW * OH * CO);
  float acc = b[co];
  const int kh0 = (oh + PAD) % STR;
  const int kw0 = (ow + PAD) % STR;
  for (int ci = 0; ci < CI; ++ci) {
    for (int kh = kh0; kh < KSZ; kh += STR) {
      const int ih = (oh + PAD - kh) / STR;
      if (oh + PAD - kh < 0 || ih >= H) continue;
      for (int kw = kw0; kw < KSZ; kw += STR) {
        const int iw = (ow + PAD - kw) / STR;
        if (ow + PAD - kw < 0 || iw >= W) continue;
        acc += x[((n * CI + ci) * H + ih) * W + iw] * w[((ci * CO + co) * KSZ + kh) * KSZ + kw];
      }
    }
  }
  y[i] = acc;
}

// Softmax over the channel dimension: one thread per (n, h, w), three passes over C.
__global__ void softmax_channels(const float* __restrict__ in, float* __restrict__ out, int N,
                                 int C, int HW) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * HW) return;
  const int n = i / HW, p = i % HW;
  const float* src = in + (size_t)n * C * HW + p;
  float* dst = out + (size_t)n * C * HW + p;
  float m = src[0];
  for (int c = 1; c < C; ++c) m = fmaxf(m, src[(size_t)c * HW]);
  float s = 0.0f;
  for (int c = 0; c < C; ++c) s += expf(src[(size_t)c * HW] - m);
  const float inv = 1.0f / s;
  for (int c = 0; c < C; ++c) dst[(size_t)c * HW] = expf(src[(size_t)c * HW] - m) * inv;
}

__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int C, int HW, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[(i / HW) % C];
}

__global__ void scale(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void sigmoid(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f / (1.0f + __expf(-in[i]));
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  w      float[CI][CO][4][4]
// kfuse: in  conv_b float[CO]
// kfuse: in  bias   float[CO][1][1]
// kfuse: out y      float[N][CO][2 * H + 1][2 * W + 1]
// kfuse: init x      uniform(0,1)
// kfuse: init w      uniform(-0.06,0.06)
// kfuse: init conv_b uniform(-0.06,0.06)
// kfuse: init bias   uniform(-1,1)
// kfuse: tune  N=128 CI=64 H=64 W=64 CO=128 scaling_factor=2.0
// kfuse: check N=3 CI=5 H=7 W=9 CO=11 scaling_factor=2.0
extern "C" void conv_transpose2d_softmax_bias_add_scaling_sigmoid(
    const float* x, const float* w, const float* conv_b, const float* bias, float* y, int N,
    int CI, int H, int W, int CO, float scaling_factor, cudaStream_t stream) {
  const int OH = (H - 1) * STR - 2 * PAD + KSZ + OPAD;
  const int OW = (W - 1) * STR - 2 * PAD + KSZ + OPAD;
  const int HW = OH * OW;
  const int n = N * CO * HW;
  const int T = 256;
  float *conv, *sm, *biased, *scaled;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&sm, sizeof(float) * n, stream);
  cudaMallocAsync(&biased, sizeof(float) * n, stream);
  cudaMallocAsync(&scaled, sizeof(float) * n, stream);
  conv_transpose2d_k4s2<<<(n + T - 1) / T, T, 0, stream>>>(x, w, conv_b, conv, N, CI, H, W, CO,
                                                           OH, OW);
  softmax_channels<<<(N * HW + T - 1) / T, T, 0, stream>>>(conv, sm, N, CO, HW);
  add_bias<<<(n + T - 1) / T, T, 0, stream>>>(sm, bias, biased, CO, HW, n);
  scale<<<(n + T - 1) / T, T, 0, stream>>>(biased, scaled, scaling_factor, n);
  sigmoid<<<(n + T - 1) / T, T, 0, stream>>>(scaled, y, n);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(sm, stream);
  cudaFreeAsync(biased, stream);
  cudaFreeAsync(scaled, stream);
}
