// KernelBench level 3, problem 17: SqueezeNetFireModule.
//   s  = ReLU(conv1x1(x; C -> S))
//   e1 = ReLU(conv1x1(s; S -> E1))
//   e3 = ReLU(conv3x3 pad 1(s; S -> E3))
//   out = cat([e1, e3], dim=1)          -> out[N][E1+E3][H][W]
// Each conv and each ReLU is its own kernel; the concat is two slice copies.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ float relu_f(float v) { return v > 0.f ? v : 0.f; }

__device__ __forceinline__ int64_t nchw(int64_t n, int64_t c, int64_t h, int64_t w,
                                        int64_t C, int64_t H, int64_t W) {
  return ((n * C + c) * H + h) * W + w;
}

// 16x16 spatial tile per block; blockIdx.z = n * OC + oc
__global__ void conv2d_tile(const float* __restrict__ x, const float* __restrict__ wt,
                            const float* __restrict__ bias, float* __restrict__ y,
                            int C, int OC, int H, int W, int K, int pad) {
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y * blockDim.y + threadIdx.y;
  const int oc = blockIdx.z % OC;
  const int n = blockIdx.z / OC;
  if (oh >= H || ow >= W) return;
  float acc = bias[oc];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < K; ++kh)
      for (int kw = 0; kw < K; ++kw) {
        const int ih = oh - pad + kh, iw = ow - pad + kw;
        if (ih >= 0 && ih < H && iw >= 0 && iw < W)
          acc += x[nchw(n, c, ih, iw, C, H, W)] * wt[((int64_t)(oc * C + c) * K + kh) * K + kw];
      }
  y[nchw(n, oc, oh, ow, OC, H, W)] = acc;
}

__global__ void relu_kernel(float* __restrict__ t, int64_t n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = relu_f(t[i]);
}

// dst[n][c0 + c][hw] = src[n][c][hw], dst has CD channels, src has CS
__global__ void copy_channels(const float* __restrict__ src, float* __restrict__ dst, int N,
                              int CS, int CD, int c0, int64_t HW) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)N * CS * HW) return;
  const int64_t hw = i % HW;
  const int64_t c = (i / HW) % CS;
  const int64_t n = i / (HW * CS);
  dst[(n * CD + c0 + c) * HW + hw] = src[i];
}

static unsigned grid1d(int64_t n) { return (unsigned)((n + 255) / 256); }

static void conv_relu(const float* x, const float* w, const float* b, float* y, int N, int C,
                      int OC, int H, int W, int K, cudaStream_t s) {
  dim3 block(16, 16);
  dim3 grid((W + 15) / 16, (H + 15) / 16, N * OC);
  conv2d_tile<<<grid, block, 0, s>>>(x, w, b, y, C, OC, H, W, K, K / 2);
  const int64_t n = (int64_t)N * OC * H * W;
  relu_kernel<<<grid1d(n), 256, 0, s>>>(y, n);
}

// kfuse: in  x     float[N][C][H][W]
// kfuse: in  sq_w  float[S][C][1][1]
// kfuse: in  sq_b  float[S]
// kfuse: in  e1_w  float[E1][S][1][1]
// kfuse: in  e1_b  float[E1]
// kfuse: in  e3_w  float[E3][S][3][3]
// kfuse: in  e3_b  float[E3]
// kfuse: out out   float[N][E1+E3][H][W]
// kfuse: init x    uniform(0,1)
// kfuse: init sq_w uniform(-0.577,0.577)
// kfuse: init sq_b uniform(-0.1,0.1)
// kfuse: init e1_w uniform(-0.408,0.408)
// kfuse: init e1_b uniform(-0.1,0.1)
// kfuse: init e3_w uniform(-0.136,0.136)
// kfuse: init e3_b uniform(-0.1,0.1)
// kfuse: tune  N=128 C=3 H=256 W=256 S=6 E1=64 E3=64
// kfuse: check N=2 C=3 H=9 W=7 S=5 E1=6 E3=7
// kfuse: check N=1 C=4 H=17 W=19 S=3 E1=5 E3=4
extern "C" void squeezenet_fire_module(const float* x, const float* sq_w, const float* sq_b,
                                       const float* e1_w, const float* e1_b, const float* e3_w,
                                       const float* e3_b, float* out, int N, int C, int H,
                                       int W, int S, int E1, int E3, cudaStream_t stream) {
  const int64_t HW = (int64_t)H * W;
  float *sq, *ex1, *ex3;
  cudaMallocAsync(&sq, sizeof(float) * N * S * HW, stream);
  cudaMallocAsync(&ex1, sizeof(float) * N * E1 * HW, stream);
  cudaMallocAsync(&ex3, sizeof(float) * N * E3 * HW, stream);

  conv_relu(x, sq_w, sq_b, sq, N, C, S, H, W, 1, stream);
  conv_relu(sq, e1_w, e1_b, ex1, N, S, E1, H, W, 1, stream);
  conv_relu(sq, e3_w, e3_b, ex3, N, S, E3, H, W, 3, stream);

  copy_channels<<<grid1d((int64_t)N * E1 * HW), 256, 0, stream>>>(ex1, out, N, E1, E1 + E3, 0,
                                                                    HW);
  copy_channels<<<grid1d((int64_t)N * E3 * HW), 256, 0, stream>>>(ex3, out, N, E3, E1 + E3, E1,
                                                                    HW);
  cudaFreeAsync(sq, stream);
  cudaFreeAsync(ex1, stream);
  cudaFreeAsync(ex3, stream);
}
