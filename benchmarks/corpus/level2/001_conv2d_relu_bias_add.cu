// KernelBench level 2, problem 1: Conv2D_ReLU_BiasAdd
//   y = relu(conv2d(x, W, b)) + bias[C]   (the model's bias parameter has shape (C,1,1))
// Reference in PyTorch-eager style: one kernel per operator, intermediates in global memory.
#include <cuda_runtime.h>

constexpr int KS = 3;        // conv kernel size (stride 1, no padding)
constexpr int THREADS = 256;

__global__ void conv2d_fwd(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y,
                           int N, int CI, int H, int W, int CO) {
  const int OH = H - KS + 1;
  const int OW = W - KS + 1;
  const int total = N * CO * OH * OW;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int ow = idx % OW;
  const int oh = (idx / OW) % OH;
  const int co = (idx / (OW * OH)) % CO;
  const int n = idx / (OW * OH * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    const float* xp = x + ((n * CI + ci) * H + oh) * W + ow;
    const float* wp = w + (co * CI + ci) * KS * KS;
    for (int kh = 0; kh < KS; ++kh)
      for (int kw = 0; kw < KS; ++kw)
        acc += xp[kh * W + kw] * wp[kh * KS + kw];
  }
  y[idx] = acc;
}

__global__ void relu_fwd(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = fmaxf(in[i], 0.0f);
}

// out[n][c][h][w] = in[n][c][h][w] + bias[c]
__global__ void add_channel_bias(const float* __restrict__ in, const float* __restrict__ bias,
                                 float* __restrict__ out, int C, int HW, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = (i / HW) % C;
  out[i] = in[i] + bias[c];
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  conv_w float[CO][CI][3][3]
// kfuse: in  conv_b float[CO]
// kfuse: in  bias   float[CO]
// kfuse: out y      float[N][CO][H - 2][W - 2]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.04,0.04)
// kfuse: init conv_b uniform(-0.04,0.04)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume H >= 3 && W >= 3
// kfuse: tune  N=128 CI=64 H=128 W=128 CO=128
// kfuse: check N=2 CI=3 H=9 W=11 CO=5
extern "C" void conv2d_relu_bias_add(const float* x, const float* conv_w, const float* conv_b,
                                     const float* bias, float* y, int N, int CI, int H, int W,
                                     int CO, cudaStream_t stream) {
  const int OH = H - KS + 1, OW = W - KS + 1;
  const int total = N * CO * OH * OW;
  const int blocks = (total + THREADS - 1) / THREADS;
  float *conv_out, *relu_out;
  cudaMallocAsync(&conv_out, sizeof(float) * total, stream);
  cudaMallocAsync(&relu_out, sizeof(float) * total, stream);
  conv2d_fwd<<<blocks, THREADS, 0, stream>>>(x, conv_w, conv_b, conv_out, N, CI, H, W, CO);
  relu_fwd<<<blocks, THREADS, 0, stream>>>(conv_out, relu_out, total);
  add_channel_bias<<<blocks, THREADS, 0, stream>>>(relu_out, bias, y, CO, OH * OW, total);
  cudaFreeAsync(conv_out, stream);
  cudaFreeAsync(relu_out, stream);
}
