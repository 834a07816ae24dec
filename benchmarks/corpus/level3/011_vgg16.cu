// KernelBench level 3, problem 11: VGG16.
//   13 x (conv3x3 pad 1 + ReLU) in 5 blocks, each block ending in maxpool 2x2
//   -> flatten (512 * (S/32)^2) -> FC HID + ReLU -> FC HID + ReLU -> FC NC   (dropout p = 0)
// KernelBench uses S = 224 (FC input 25088) and HID = 4096; S and HID are parameters here so that
// the check lines can use small images.
// The conv weights of all 13 layers are packed in one buffer (conv_w, PyTorch [OC][IC][3][3]
// per layer, layer after layer), their biases likewise (conv_b); the host walks a layer table.
// Naive kernels, one per operator; at the tune shape the convolutions are ~155 GMAC (the
// naive direct convolution took ~60 ms on an H200).
#include <cuda_runtime.h>
#include <cstddef>

namespace vgg {
constexpr int kPool = -1;
constexpr int kCfg[] = {64,  64,  kPool, 128, 128, kPool, 256, 256, 256, kPool,
                        512, 512, 512,   kPool, 512, 512, 512, kPool};
constexpr int kCfgLen = sizeof(kCfg) / sizeof(kCfg[0]);
constexpr int kInChannels = 3;
constexpr int kLastChannels = 512;
}  // namespace vgg

// 3x3 convolution, stride 1, padding 1. grid: x over H*W, y over N*OC
__global__ void conv3x3_pad1(const float* __restrict__ in, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ out, int C,
                             int OC, int H, int W) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y % OC;
  int n = blockIdx.y / OC;
  if (p >= H * W) return;
  int oh = p / W, ow = p % W;
  float acc = b[oc];
  for (int c = 0; c < C; ++c) {
    const float* ip = in + ((size_t)n * C + c) * H * W;
    const float* wp = w + ((size_t)oc * C + c) * 9;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh) {
      int ih = oh + kh - 1;
      if (ih < 0 || ih >= H) continue;
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        int iw = ow + kw - 1;
        if (iw >= 0 && iw < W) acc += ip[ih * W + iw] * wp[kh * 3 + kw];
      }
    }
  }
  out[((size_t)n * OC + oc) * H * W + p] = acc;
}

__global__ void relu_(float* __restrict__ x, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.0f);
}

__global__ void maxpool2x2(const float* __restrict__ in, float* __restrict__ out, size_t planes,
                           int H, int W) {
  int OH = H / 2, OW = W / 2;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= planes * OH * OW) return;
  int ow = i % OW;
  int oh = (i / OW) % OH;
  size_t pl = i / ((size_t)OH * OW);
  const float* s = in + (pl * H + 2 * oh) * W + 2 * ow;
  out[i] = fmaxf(fmaxf(s[0], s[1]), fmaxf(s[W], s[W + 1]));
}

// y[n][o] = x[n][:] . w[o][:] + b[o]
__global__ void linear_naive(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ y, int N, int K,
                             int O) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (o >= O) return;
  const float* xr = x + (size_t)n * K;
  const float* wr = w + (size_t)o * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += xr[k] * wr[k];
  y[(size_t)n * O + o] = acc + b[o];
}

static unsigned blocks256(size_t n) { return (unsigned)((n + 255) / 256); }

static void relu_launch(float* x, size_t n, cudaStream_t s) {
  relu_<<<blocks256(n), 256, 0, s>>>(x, n);
}

// kfuse: in  x      float[B][3][S][S]
// kfuse: in  conv_w float[14710464]
// kfuse: in  conv_b float[4224]
// kfuse: in  fc1_w  float[HID][512*(S/32)*(S/32)]
// kfuse: in  fc1_b  float[HID]
// kfuse: in  fc2_w  float[HID][HID]
// kfuse: in  fc2_b  float[HID]
// kfuse: in  fc3_w  float[NC][HID]
// kfuse: in  fc3_b  float[NC]
// kfuse: out logits float[B][NC]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.06,0.06)
// kfuse: init conv_b uniform(-0.01,0.01)
// kfuse: init fc1_w  uniform(-0.0155,0.0155)
// kfuse: init fc1_b  uniform(-0.01,0.01)
// kfuse: init fc2_w  uniform(-0.0383,0.0383)
// kfuse: init fc2_b  uniform(-0.01,0.01)
// kfuse: init fc3_w  uniform(-0.0383,0.0383)
// kfuse: init fc3_b  uniform(-0.01,0.01)
// kfuse: assume S % 32 == 0
// kfuse: assume B <= 128
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune  B=10 S=224 HID=4096 NC=1000
// kfuse: check B=3 S=32 HID=37 NC=7
// kfuse: check B=1 S=64 HID=53 NC=10
extern "C" void vgg16(const float* x, const float* conv_w, const float* conv_b,
                      const float* fc1_w, const float* fc1_b, const float* fc2_w,
                      const float* fc2_b, const float* fc3_w, const float* fc3_b, float* logits,
                      int B, int S, int HID, int NC, cudaStream_t stream) {
  // the largest feature map is the output of the first conv: B x 64 x S x S
  const size_t max_elems = (size_t)B * 64 * S * S;
  float* act[2];
  cudaMallocAsync(&act[0], max_elems * sizeof(float), stream);
  cudaMallocAsync(&act[1], max_elems * sizeof(float), stream);

  const float* cur = x;
  int cur_buf = -1;  // -1: the input x
  int C = vgg::kInChannels, H = S, W = S;
  size_t w_off = 0, b_off = 0;
  for (int li = 0; li < vgg::kCfgLen; ++li) {
    float* dst = act[cur_buf == 0 ? 1 : 0];
    if (vgg::kCfg[li] == vgg::kPool) {
      size_t planes = (size_t)B * C;
      maxpool2x2<<<blocks256(planes * (H / 2) * (W / 2)), 256, 0, stream>>>(cur, dst, planes, H,
                                                                           W);
      H /= 2;
      W /= 2;
    } else {
      const int OC = vgg::kCfg[li];
      dim3 grid((H * W + 255) / 256, B * OC);
      conv3x3_pad1<<<grid, 256, 0, stream>>>(cur, conv_w + w_off, conv_b + b_off, dst, C, OC, H,
                                             W);
      relu_launch(dst, (size_t)B * OC * H * W, stream);
      w_off += (size_t)OC * C * 9;
      b_off += OC;
      C = OC;
    }
    cur = dst;
    cur_buf = (dst == act[0]) ? 0 : 1;
  }

  // classifier; flatten of [B][512][S/32][S/32] is a no-op on the layout
  const int K1 = vgg::kLastChannels * H * W;
  float *h1, *h2;
  cudaMallocAsync(&h1, sizeof(float) * B * HID, stream);
  cudaMallocAsync(&h2, sizeof(float) * B * HID, stream);
  linear_naive<<<dim3((HID + 127) / 128, B), 128, 0, stream>>>(cur, fc1_w, fc1_b, h1, B, K1, HID);
  relu_launch(h1, (size_t)B * HID, stream);
  linear_naive<<<dim3((HID + 127) / 128, B), 128, 0, stream>>>(h1, fc2_w, fc2_b, h2, B, HID, HID);
  relu_launch(h2, (size_t)B * HID, stream);
  linear_naive<<<dim3((NC + 127) / 128, B), 128, 0, stream>>>(h2, fc3_w, fc3_b, logits, B, HID,
                                                              NC);

  cudaFreeAsync(act[0], stream);
  cudaFreeAsync(act[1], stream);
  cudaFreeAsync(h1, stream);
  cudaFreeAsync(h2, stream);
}
