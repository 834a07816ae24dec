// KernelBench level 2, problem 82: Conv2d_Tanh_Scaling_BiasAdd_Max
//   y = maxpool2d(tanh(conv2d(x)) * scaling_factor + bias[C,1,1], pool)
#include <cuda_runtime.h>
#include <cfloat>

constexpr int kKernel = 3;
constexpr int kThreads = 256;

__global__ void conv2d_fwd(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y, int N, int C,
                           int H, int W, int K) {
  const int OH = H - kKernel + 1, OW = W - kKernel + 1;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * K * OH * OW) {
    const int ow = i % OW, oh = i / OW % OH, k = i / (OW * OH) % K, n = i / (OW * OH * K);
    float acc = b[k];
    for (int c = 0; c < C; ++c) {
      const float* xp = &x[((n * C + c) * H + oh) * W + ow];
      const float* wp = &w[(k * C + c) * kKernel * kKernel];
      for (int r = 0; r < kKernel; ++r)
        for (int s = 0; s < kKernel; ++s) acc += xp[r * W + s] * wp[r * kKernel + s];
    }
    y[i] = acc;
  }
}

__global__ void tanh_fwd(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tanhf(in[i]);
}

__global__ void scale_fwd(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void channel_bias_fwd(const float* __restrict__ in, const float* __restrict__ bias,
                                 float* __restrict__ out, int C, int HW, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[i / HW % C];
}

__global__ void maxpool_fwd(const float* __restrict__ in, float* __restrict__ out, int NC, int H,
                            int W, int P) {
  const int PH = H / P, PW = W / P;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < NC * PH * PW) {
    const int pw = i % PW, ph = i / PW % PH, nc = i / (PW * PH);
    float m = -FLT_MAX;
    for (int r = 0; r < P; ++r)
      for (int s = 0; s < P; ++s) {
        const float v = in[(nc * H + ph * P + r) * W + pw * P + s];
        m = v > m ? v : m;
      }
    out[i] = m;
  }
}

// kfuse: in  x    float[N][C][H][W]
// kfuse: in  w    float[K][C][3][3]
// kfuse: in  b    float[K]
// kfuse: in  bias float[K][1][1]
// kfuse: out y    float[N][K][(H - 2) / pool][(W - 2) / pool]
// kfuse: init x    uniform(0,1)
// kfuse: init w    uniform(-0.1,0.1)
// kfuse: init b    uniform(-0.1,0.1)
// kfuse: init bias uniform(-0.1,0.1)
// kfuse: assume pool >= 1 && H - 2 >= pool && W - 2 >= pool
// kfuse: tune  N=128 C=8 H=256 W=256 K=64 pool=4 scaling_factor=2.0
// kfuse: check N=3 C=3 H=13 W=11 K=5 pool=4 scaling_factor=2.0
// kfuse: check N=2 C=5 H=9 W=8 K=3 pool=3 scaling_factor=0.5
extern "C" void conv2d_tanh_scaling_bias_add_max(const float* x, const float* w, const float* b,
                                                 const float* bias, float* y, int N, int C, int H,
                                                 int W, int K, int pool, float scaling_factor,
                                                 cudaStream_t stream) {
  const int OH = H - kKernel + 1, OW = W - kKernel + 1;
  const int n = N * K * OH * OW;
  const int np = N * K * (OH / pool) * (OW / pool);
  const int g = (n + kThreads - 1) / kThreads;
  float *a, *c;
  cudaMallocAsync(&a, sizeof(float) * n, stream);
  cudaMallocAsync(&c, sizeof(float) * n, stream);
  conv2d_fwd<<<g, kThreads, 0, stream>>>(x, w, b, a, N, C, H, W, K);
  tanh_fwd<<<g, kThreads, 0, stream>>>(a, c, n);
  scale_fwd<<<g, kThreads, 0, stream>>>(c, a, scaling_factor, n);
  channel_bias_fwd<<<g, kThreads, 0, stream>>>(a, bias, c, K, OH * OW, n);
  maxpool_fwd<<<(np + kThreads - 1) / kThreads, kThreads, 0, stream>>>(c, y, N * K, OH, OW, pool);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(c, stream);
}
