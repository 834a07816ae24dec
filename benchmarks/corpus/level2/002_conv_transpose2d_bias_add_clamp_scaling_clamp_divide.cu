// KernelBench level 2, problem 2: ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide
//   y = clamp(clamp(convT(x) + bias, 0, 1) * s, 0, 1) / s
// ConvTranspose2d(64 -> 64, kernel 3, stride 2, padding 1, output_padding 1): OH = 2*H.
#include <cuda_runtime.h>

#define KSZ 3
#define STRIDE 2
#define PAD 1
#define OUT_PAD 1

// Gather formulation of the transposed convolution, one output element per loop trip,
// grid-stride so any grid size covers the tensor.
__global__ void conv_transpose2d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                        const float* __restrict__ b, float* __restrict__ y,
                                        int N, int CI, int H, int W, int CO) {
  const int OH = (H - 1) * STRIDE - 2 * PAD + KSZ + OUT_PAD;
  const int OW = (W - 1) * STRIDE - 2 * PAD + KSZ + OUT_PAD;
  const size_t total = (size_t)N * CO * OH * OW;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    const int ow = (int)(i % OW);
    const int oh = (int)((i / OW) % OH);
    const int co = (int)((i / ((size_t)OW * OH)) % CO);
    const int n = (int)(i / ((size_t)OW * OH * CO));
    float acc = b[co];
    for (int ci = 0; ci < CI; ++ci) {
      for (int kh = 0; kh < KSZ; ++kh) {
        const int th = oh + PAD - kh;
        if (th < 0 || th % STRIDE != 0) continue;
        const int ih = th / STRIDE;
        if (ih >= H) continue;
        for (int kw = 0; kw < KSZ; ++kw) {
          const int tw = ow + PAD - kw;
          if (tw < 0 || tw % STRIDE != 0) continue;
          const int iw = tw / STRIDE;
          if (iw >= W) continue;
          acc += x[(((size_t)n * CI + ci) * H + ih) * W + iw] *
                 w[((ci * CO + co) * KSZ + kh) * KSZ + kw];
        }
      }
    }
    y[i] = acc;
  }
}

struct ClampOp {
  float lo, hi;
  __device__ float operator()(float v) const { return fminf(fmaxf(v, lo), hi); }
};
struct MulOp {
  float s;
  __device__ float operator()(float v) const { return v * s; }
};
struct DivOp {
  float s;
  __device__ float operator()(float v) const { return v / s; }
};

template <typename Op>
__global__ void unary_map(const float* __restrict__ in, float* __restrict__ out, size_t n, Op op) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = op(in[i]);
}

__global__ void bias_add_nchw(const float* __restrict__ in, const float* __restrict__ bias,
                              float* __restrict__ out, int C, int HW, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] + bias[(i / HW) % C];
}

// kfuse: in  x       float[N][CI][H][W]
// kfuse: in  w       float[CI][CO][3][3]
// kfuse: in  conv_b  float[CO]
// kfuse: in  bias    float[CO][1][1]
// kfuse: out y       float[N][CO][2 * H][2 * W]
// kfuse: init x      uniform(0,1)
// kfuse: init w      uniform(-0.1,0.1)
// kfuse: init conv_b uniform(-0.1,0.1)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume scale > 0
// kfuse: tune  N=128 CI=64 H=128 W=128 CO=64 scale=2.0
// kfuse: check N=3 CI=5 H=7 W=9 CO=6 scale=2.0
// kfuse: check N=1 CI=16 H=13 W=5 CO=3 scale=0.75
extern "C" cudaError_t conv_transpose2d_bias_add_clamp_scaling_clamp_divide(
    const float* x, const float* w, const float* conv_b, const float* bias, float* y,
    int N, int CI, int H, int W, int CO, float scale, cudaStream_t stream) {
  const int OH = 2 * H, OW = 2 * W;
  const size_t n = (size_t)N * CO * OH * OW;
  const int threads = 256;
  const int blocks = (int)((n + threads - 1) / threads);
  float *t0, *t1;
  cudaMallocAsync(&t0, n * sizeof(float), stream);
  cudaMallocAsync(&t1, n * sizeof(float), stream);
  conv_transpose2d_kernel<<<blocks, threads, 0, stream>>>(x, w, conv_b, t0, N, CI, H, W, CO);
  bias_add_nchw<<<blocks, threads, 0, stream>>>(t0, bias, t1, CO, OH * OW, n);
  unary_map<<<blocks, threads, 0, stream>>>(t1, t0, n, ClampOp{0.0f, 1.0f});
  unary_map<<<blocks, threads, 0, stream>>>(t0, t1, n, MulOp{scale});
  unary_map<<<blocks, threads, 0, stream>>>(t1, t0, n, ClampOp{0.0f, 1.0f});
  unary_map<<<blocks, threads, 0, stream>>>(t0, y, n, DivOp{scale});
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
  return cudaGetLastError();
}
