// KernelBench level 2, problem 24: Conv3d_Min_Softmax
//   y = softmax_c(min_d conv3d(x))      (min over depth, dim=2; softmax over channels, dim=1)
#include <cuda_runtime.h>
#include <cstdint>

template <int KS>
__global__ void conv3d_valid(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ y,
                             int N, int C, int D, int H, int W, int F) {
  const int OD = D - KS + 1, OH = H - KS + 1, OW = W - KS + 1;
  const int64_t total = (int64_t)N * F * OD * OH * OW;
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int64_t r = idx;
  const int ow = r % OW; r /= OW;
  const int oh = r % OH; r /= OH;
  const int od = r % OD; r /= OD;
  const int f = r % F;
  const int n = r / F;
  float acc = b[f];
  for (int c = 0; c < C; ++c) {
    const float* xc = x + ((int64_t)n * C + c) * D * H * W;
    const float* wc = w + ((int64_t)f * C + c) * KS * KS * KS;
    for (int kd = 0; kd < KS; ++kd)
      for (int kh = 0; kh < KS; ++kh)
        for (int kw = 0; kw < KS; ++kw)
          acc += xc[((od + kd) * H + oh + kh) * W + ow + kw] * wc[(kd * KS + kh) * KS + kw];
  }
  y[idx] = acc;
}

// torch.min(x, dim=2)[0]: one thread per (n, f, h, w).
__global__ void min_over_depth(const float* __restrict__ in, float* __restrict__ out,
                               int64_t NF, int D, int HW) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= NF * HW) return;
  const int64_t nf = idx / HW;
  const int p = idx % HW;
  const float* src = in + nf * D * HW + p;
  float m = src[0];
  for (int d = 1; d < D; ++d) m = fminf(m, src[(int64_t)d * HW]);
  out[idx] = m;
}

__global__ void softmax_over_channels(const float* __restrict__ in, float* __restrict__ out,
                                     int N, int C, int HW) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)N * HW) return;
  const int64_t n = idx / HW;
  const int p = idx % HW;
  const float* src = in + n * C * HW + p;
  float m = src[0];
  for (int c = 1; c < C; ++c) m = fmaxf(m, src[(int64_t)c * HW]);
  float s = 0.f;
  for (int c = 0; c < C; ++c) s += expf(src[(int64_t)c * HW] - m);
  for (int c = 0; c < C; ++c) out[n * C * HW + (int64_t)c * HW + p] = expf(src[(int64_t)c * HW] - m) / s;
}

// kfuse: in  x float[N][C][D][H][W]
// kfuse: in  w float[F][C][3][3][3]
// kfuse: in  b float[F]
// kfuse: out y float[N][F][H - 2][W - 2]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.2,0.2)
// kfuse: init b uniform(-0.2,0.2)
// kfuse: assume D >= 3 && H >= 3 && W >= 3
// kfuse: tune  N=128 C=3 D=24 H=32 W=32 F=24
// kfuse: check N=3 C=2 D=5 H=9 W=11 F=7
extern "C" void conv3d_min_softmax(const float* x, const float* w, const float* b, float* y,
                                   int N, int C, int D, int H, int W, int F,
                                   cudaStream_t stream) {
  const int OD = D - 2, OH = H - 2, OW = W - 2;
  const int64_t nconv = (int64_t)N * F * OD * OH * OW;
  const int64_t nmin = (int64_t)N * F * OH * OW;
  float *conv, *mn;
  cudaMallocAsync(&conv, sizeof(float) * nconv, stream);
  cudaMallocAsync(&mn, sizeof(float) * nmin, stream);
  conv3d_valid<3><<<(unsigned)((nconv + 255) / 256), 256, 0, stream>>>(x, w, b, conv, N, C, D, H,
                                                                      W, F);
  min_over_depth<<<(unsigned)((nmin + 255) / 256), 256, 0, stream>>>(conv, mn, (int64_t)N * F, OD,
                                                                     OH * OW);
  softmax_over_channels<<<(unsigned)(((int64_t)N * OH * OW + 255) / 256), 256, 0, stream>>>(
      mn, y, N, F, OH * OW);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(mn, stream);
}
