// KernelBench level 2, problem 74: ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max
//   y = maxpool3d(leaky(leaky(convT3d(x), 0.2) * multiplier[C,1,1,1], 0.2), 2)
#include <cuda_runtime.h>

static constexpr int KS = 3;
static constexpr int STRIDE = 2;
static constexpr int PADDING = 1;
static constexpr int OUTPUT_PADDING = 1;
static constexpr float SLOPE = 0.2f;

__global__ void convt3d(const float* __restrict__ x, const float* __restrict__ w,
                        const float* __restrict__ b, float* __restrict__ y, int N, int CI, int D,
                        int H, int W, int CO) {
  const int OD = 2 * D, OH = 2 * H, OW = 2 * W;
  // 3D grid: x over ow, y over oh, z over (n, co, od)
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y;
  const int z = blockIdx.z;
  if (ow >= OW) return;
  const int od = z % OD;
  const int co = (z / OD) % CO;
  const int n = z / (OD * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    for (int kd = 0; kd < KS; ++kd) {
      const int td = od + PADDING - kd;
      if (td < 0 || td % STRIDE) continue;
      const int id = td / STRIDE;
      if (id >= D) continue;
      for (int kh = 0; kh < KS; ++kh) {
        const int th = oh + PADDING - kh;
        if (th < 0 || th % STRIDE) continue;
        const int ih = th / STRIDE;
        if (ih >= H) continue;
        for (int kw = 0; kw < KS; ++kw) {
          const int tw = ow + PADDING - kw;
          if (tw < 0 || tw % STRIDE) continue;
          const int iw = tw / STRIDE;
          if (iw >= W) continue;
          acc += x[(((n * CI + ci) * D + id) * H + ih) * W + iw] *
                 w[(((ci * CO + co) * KS + kd) * KS + kh) * KS + kw];
        }
      }
    }
  }
  y[((size_t)z * OH + oh) * OW + ow] = acc;
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v > 0.f ? v : SLOPE * v;
  }
}

__global__ void channel_mul(const float* __restrict__ in, const float* __restrict__ m,
                            float* __restrict__ out, int C, int S, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * m[i / S % C];
}

__global__ void maxpool3d_2(const float* __restrict__ in, float* __restrict__ out, int NC, int D,
                            int H, int W) {
  const int PD = D / 2, PH = H / 2, PW = W / 2;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= NC * PD * PH * PW) return;
  const int pw = i % PW, ph = i / PW % PH, pd = i / (PW * PH) % PD, nc = i / (PW * PH * PD);
  const float* p = in + (((size_t)nc * D + 2 * pd) * H + 2 * ph) * W + 2 * pw;
  float m = p[0];
  m = fmaxf(m, p[1]);
  m = fmaxf(m, p[W]);
  m = fmaxf(m, p[W + 1]);
  m = fmaxf(m, p[H * W]);
  m = fmaxf(m, p[H * W + 1]);
  m = fmaxf(m, p[H * W + W]);
  m = fmaxf(m, p[H * W + W + 1]);
  out[i] = m;
}

// kfuse: in  x          float[N][CI][D][H][W]
// kfuse: in  w          float[CI][CO][3][3][3]
// kfuse: in  b          float[CO]
// kfuse: in  multiplier float[CO][1][1][1]
// kfuse: out y          float[N][CO][D][H][W]
// kfuse: init x          uniform(0,1)
// kfuse: init w          uniform(-0.15,0.15)
// kfuse: init b          uniform(-0.15,0.15)
// kfuse: init multiplier normal
// kfuse: assume N * CO * 2 * D <= 65535 && 2 * H <= 65535
// kfuse: tune  N=16 CI=16 D=16 H=32 W=32 CO=32
// kfuse: check N=3 CI=5 D=3 H=5 W=7 CO=6
extern "C" void conv_transpose3d_leaky_relu_multiply_leaky_relu_max(
    const float* x, const float* w, const float* b, const float* multiplier, float* y, int N,
    int CI, int D, int H, int W, int CO, cudaStream_t stream) {
  // (D - 1) * STRIDE - 2 * PADDING + KS + OUTPUT_PADDING == 2 * D
  static_assert(STRIDE == 2 && PADDING == 1 && KS == 3 && OUTPUT_PADDING == 1, "OD = 2*D");
  const int OD = 2 * D, OH = 2 * H, OW = 2 * W;
  const int S = OD * OH * OW;
  const int n = N * CO * S;
  const int np = N * CO * D * H * W;
  float *conv, *a, *m;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&a, sizeof(float) * n, stream);
  cudaMallocAsync(&m, sizeof(float) * n, stream);
  dim3 grid((OW + 63) / 64, OH, N * CO * OD);
  convt3d<<<grid, 64, 0, stream>>>(x, w, b, conv, N, CI, D, H, W, CO);
  leaky_relu<<<(n + 255) / 256, 256, 0, stream>>>(conv, a, n);
  channel_mul<<<(n + 255) / 256, 256, 0, stream>>>(a, multiplier, m, CO, S, n);
  leaky_relu<<<(n + 255) / 256, 256, 0, stream>>>(m, a, n);
  maxpool3d_2<<<(np + 255) / 256, 256, 0, stream>>>(a, y, N * CO, OD, OH, OW);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(m, stream);
}
