// KernelBench level 2, problem 44: ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean
//   t = convT(x) * multiplier; t = mean(t, (2,3), keepdim); t = mean(t, (2,3), keepdim)
// The second mean acts on a 1x1 plane; it is still its own kernel, as in eager mode.
#include <cuda_runtime.h>

constexpr int RED_THREADS = 256;

// ConvTranspose2d with runtime kernel size, stride, padding and output padding.
__global__ void conv_transpose2d(const float* __restrict__ x, const float* __restrict__ w,
                                 const float* __restrict__ b, float* __restrict__ y,
                                 int N, int CI, int H, int W, int CO, int K, int S, int P,
                                 int OH, int OW) {
  const long long total = (long long)N * CO * OH * OW;
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int ow = (int)(idx % OW);
  const int oh = (int)((idx / OW) % OH);
  const int co = (int)((idx / ((long long)OW * OH)) % CO);
  const int n = (int)(idx / ((long long)OW * OH * CO));
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    const float* xp = x + ((long long)n * CI + ci) * H * W;
    const float* wp = w + ((long long)ci * CO + co) * K * K;
    for (int kh = 0; kh < K; ++kh) {
      const int th = oh + P - kh;
      if (th < 0 || th % S) continue;
      const int ih = th / S;
      if (ih >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const int tw = ow + P - kw;
        if (tw < 0 || tw % S) continue;
        const int iw = tw / S;
        if (iw >= W) continue;
        acc += xp[ih * W + iw] * wp[kh * K + kw];
      }
    }
  }
  y[idx] = acc;
}

__global__ void multiply_scalar(const float* __restrict__ in, float* __restrict__ out, float m,
                                long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * m;
}

// One block per (n, c) plane: shared-memory tree reduction, then divide by the plane size.
__global__ void plane_mean(const float* __restrict__ in, float* __restrict__ out, int HW) {
  __shared__ float partial[RED_THREADS];
  const float* src = in + (long long)blockIdx.x * HW;
  float s = 0.0f;
  for (int i = threadIdx.x; i < HW; i += blockDim.x) s += src[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] / (float)HW;
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  w      float[CI][CO][K][K]
// kfuse: in  b      float[CO]
// kfuse: out y      float[N][CO][1][1]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.08,0.08)
// kfuse: init b uniform(-0.08,0.08)
// kfuse: assume S >= 1 && P >= 0 && OP >= 0 && OP < S && K >= 1
// kfuse: assume (H - 1) * S + K + OP > 2 * P && (W - 1) * S + K + OP > 2 * P
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune  N=16 CI=64 H=128 W=128 CO=128 K=3 S=2 P=1 OP=1 multiplier=0.5
// kfuse: check N=3 CI=5 H=9 W=7 CO=11 K=3 S=2 P=1 OP=1 multiplier=0.5
// kfuse: check N=2 CI=3 H=6 W=5 CO=4 K=4 S=3 P=2 OP=0 multiplier=-1.25
extern "C" void conv_transpose2d_multiply_global_avg_pool_global_avg_pool_mean(
    const float* x, const float* w, const float* b, float* y, int N, int CI, int H, int W,
    int CO, int K, int S, int P, int OP, float multiplier, cudaStream_t stream) {
  const int OH = (H - 1) * S - 2 * P + K + OP;
  const int OW = (W - 1) * S - 2 * P + K + OP;
  const long long n = (long long)N * CO * OH * OW;
  float *conv, *scaled, *pooled;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&scaled, sizeof(float) * n, stream);
  cudaMallocAsync(&pooled, sizeof(float) * N * CO, stream);
  const unsigned nb = (unsigned)((n + 255) / 256);
  conv_transpose2d<<<nb, 256, 0, stream>>>(x, w, b, conv, N, CI, H, W, CO, K, S, P, OH, OW);
  multiply_scalar<<<nb, 256, 0, stream>>>(conv, scaled, multiplier, n);
  plane_mean<<<N * CO, RED_THREADS, 0, stream>>>(scaled, pooled, OH * OW);
  plane_mean<<<N * CO, RED_THREADS, 0, stream>>>(pooled, y, 1);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(scaled, stream);
  cudaFreeAsync(pooled, stream);
}
