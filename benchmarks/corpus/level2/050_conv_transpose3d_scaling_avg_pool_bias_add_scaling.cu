// KernelBench level 2, problem 50: ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling
//   y = (avgpool3d(convT3d(x) * scale1, 2) + bias[C,1,1,1]) * scale2
// scale1 and scale2 are learnable scalars (nn.Parameter of one element): device buffers.
#include <cuda_runtime.h>

#define KS 3
#define ST 2
#define PD 1

__global__ void conv_transpose3d_s2(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ b, float* __restrict__ y,
                                    int N, int CI, int D, int H, int W, int CO) {
  const int OD = (D - 1) * ST - 2 * PD + KS;
  const int OH = (H - 1) * ST - 2 * PD + KS;
  const int OW = (W - 1) * ST - 2 * PD + KS;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * CO * OD * OH * OW) return;
  int ow = i % OW;
  int oh = (i / OW) % OH;
  int od = (i / (OW * OH)) % OD;
  int co = (i / (OW * OH * OD)) % CO;
  int n = i / (OW * OH * OD * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci)
    for (int kd = 0; kd < KS; ++kd) {
      int td = od + PD - kd;
      if (td < 0 || (td & 1) || (td >> 1) >= D) continue;
      for (int kh = 0; kh < KS; ++kh) {
        int th = oh + PD - kh;
        if (th < 0 || (th & 1) || (th >> 1) >= H) continue;
        for (int kw = 0; kw < KS; ++kw) {
          int tw = ow + PD - kw;
          if (tw < 0 || (tw & 1) || (tw >> 1) >= W) continue;
          acc += x[(((n * CI + ci) * D + (td >> 1)) * H + (th >> 1)) * W + (tw >> 1)] *
                 w[(((ci * CO + co) * KS + kd) * KS + kh) * KS + kw];
        }
      }
    }
  y[i] = acc;
}

__global__ void scale_by_param(const float* __restrict__ in, const float* __restrict__ s,
                               float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s[0];
}

__global__ void avgpool3d_2(const float* __restrict__ in, float* __restrict__ out, int NC, int D,
                            int H, int W) {
  int PD_ = D / 2, PH = H / 2, PW = W / 2;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= NC * PD_ * PH * PW) return;
  int pw = i % PW, ph = (i / PW) % PH, pd = (i / (PW * PH)) % PD_, nc = i / (PW * PH * PD_);
  float s = 0.f;
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 2; ++c)
      for (int e = 0; e < 2; ++e)
        s += in[((nc * D + 2 * pd + a) * H + 2 * ph + c) * W + 2 * pw + e];
  out[i] = s * 0.125f;
}

__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int C, int S, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[(i / S) % C];
}

// kfuse: in  x      float[N][CI][D][H][W]
// kfuse: in  w      float[CI][CO][3][3][3]
// kfuse: in  b      float[CO]
// kfuse: in  scale1 float[1]
// kfuse: in  bias   float[CO][1][1][1]
// kfuse: in  scale2 float[1]
// kfuse: out y      float[N][CO][(2 * D - 1) / 2][(2 * H - 1) / 2][(2 * W - 1) / 2]
// kfuse: init x      uniform(0,1)
// kfuse: init w      uniform(-0.3,0.3)
// kfuse: init b      uniform(-0.3,0.3)
// kfuse: init scale1 uniform(0.25,1.5)
// kfuse: init bias   uniform(-0.2,0.2)
// kfuse: init scale2 uniform(0.5,2)
// kfuse: assume D >= 2 && H >= 2 && W >= 2
// kfuse: tune  N=128 CI=3 D=16 H=32 W=32 CO=16
// kfuse: check N=3 CI=2 D=3 H=5 W=6 CO=5
extern "C" void conv_transpose3d_scaling_avg_pool_bias_add_scaling(
    const float* x, const float* w, const float* b, const float* scale1, const float* bias,
    const float* scale2, float* y, int N, int CI, int D, int H, int W, int CO,
    cudaStream_t stream) {
  const int OD = 2 * D - 1, OH = 2 * H - 1, OW = 2 * W - 1;
  const int n = N * CO * OD * OH * OW;
  const int PDp = OD / 2, PHp = OH / 2, PWp = OW / 2;
  const int np = N * CO * PDp * PHp * PWp;
  float *conv, *scaled, *pooled, *biased;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&scaled, sizeof(float) * n, stream);
  cudaMallocAsync(&pooled, sizeof(float) * np, stream);
  cudaMallocAsync(&biased, sizeof(float) * np, stream);
  conv_transpose3d_s2<<<(n + 255) / 256, 256, 0, stream>>>(x, w, b, conv, N, CI, D, H, W, CO);
  scale_by_param<<<(n + 255) / 256, 256, 0, stream>>>(conv, scale1, scaled, n);
  avgpool3d_2<<<(np + 255) / 256, 256, 0, stream>>>(scaled, pooled, N * CO, OD, OH, OW);
  add_bias<<<(np + 255) / 256, 256, 0, stream>>>(pooled, bias, biased, CO, PDp * PHp * PWp, np);
  scale_by_param<<<(np + 255) / 256, 256, 0, stream>>>(biased, scale2, y, np);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(scaled, stream);
  cudaFreeAsync(pooled, stream);
  cudaFreeAsync(biased, stream);
}
