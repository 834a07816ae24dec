// What stays a kernel, and why (-R): a transposed convolution that reads x at th / 2
// without testing th % 2 (every output row reads its neighbour's input row), padding read
// without a guard (the reference reads outside its rows), a scratch input read with a
// stride of 2 (its shape is taken from its index with every spatial stride 1, which does
// not explain it), a weight read as [C][K] (no index of the output channel and the
// window), a window written out by hand that leaves out a position (two products for a
// window of three), an output smaller
// than the convolution's (cuDNN would write more than the reference does), and a phase
// loop from (oh - 1) % 2, whose dividend is negative at oh = 0 (C's remainder is then -1 and
// the loop starts at a tap no parity test keeps). The output is the input.
// RUN: %kfuse %s --passes=conv-cudnn -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'halves' reads its input at a quotient that is no transposed window [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'unguarded' reads its input at an offset that no padding explains [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'strided' reads an input that is neither an annotated buffer of the entry nor one whose shape its index gives [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'weight_ck' reads its weight at no index of its output channel and window [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'unrolled' writes out other than the whole window [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'cropped' has an output extent other than the convolution's [-Rpass-missed=conv-cudnn]
// CHECK: remark: not substituted: 'negphase' has a phase loop whose remainder's dividend may be negative [-Rpass-missed=conv-cudnn]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void halves(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int Ho,
                       int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i) {
      const int th = oh + 1 - i;
      if (th < 0 || th / 2 >= H) continue;
      for (int j = 0; j < 3; ++j) {
        const int tw = ow + 1 - j;
        if (tw < 0 || tw / 2 >= W) continue;
        acc += x[((n * C + c) * H + th / 2) * W + tw / 2] * w[((c * K + k) * 3 + i) * 3 + j];
      }
    }
  y[idx] = acc;
}

__global__ void unguarded(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int Ho,
                          int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) acc += x[((n * C + c) * H + oh - 1 + i) * W + ow - 1 + j] * w[((k * C + c) * 3 + i) * 3 + j];
  y[idx] = acc;
}

__global__ void strided(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int Ho,
                        int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) acc += x[((n * C + c) * H + 2 * oh + i) * W + 2 * ow + j] * w[((k * C + c) * 3 + i) * 3 + j];
  y[idx] = acc;
}

__global__ void weight_ck(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int Ho,
                          int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) acc += x[((n * C + c) * H + oh + i) * W + ow + j] * w[((c * K + k) * 3 + i) * 3 + j];
  y[idx] = acc;
}

__global__ void cropped(const float* x, const float* w, float* y, int N, int C, int K, int H, int W, int Ho,
                        int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) acc += x[((n * C + c) * H + oh + i) * W + ow + j] * w[((k * C + c) * 3 + i) * 3 + j];
  y[idx] = acc;
}

__global__ void unrolled(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int Ho = H, Wo = W - 1;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / (Wo * Ho) % K, n = idx / (Wo * Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c) {
    acc += x[((n * C + c) * H + oh) * W + ow] * w[(k * C + c) * 3];
    acc += x[((n * C + c) * H + oh) * W + ow + 1] * w[(k * C + c) * 3 + 1];
  }
  y[idx] = acc;
}

__global__ void negphase(const float* x, const float* w, float* y, int N, int C, int K, int H, int W) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * (2 * H - 1) * (2 * W - 1)) return;
  const int ow = i % (2 * W - 1), oh = i / (2 * W - 1) % (2 * H - 1);
  const int k = i / ((2 * W - 1) * (2 * H - 1)) % K, n = i / ((2 * W - 1) * (2 * H - 1) * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int kh = (oh - 1) % 2; kh < 3; kh += 2) {
      const int ih = (oh + 1 - kh) / 2;
      if (oh + 1 - kh < 0 || ih >= H) continue;
      for (int kw = 0; kw < 3; ++kw) {
        const int tw = ow + 1 - kw;
        if (tw < 0 || tw % 2) continue;
        const int iw = tw / 2;
        if (iw >= W) continue;
        acc += x[((n * C + c) * H + ih) * W + iw] * w[((c * K + k) * 3 + kh) * 3 + kw];
      }
    }
  y[i] = acc;
}

// kfuse: in  x  float[N][C][H][W]
// kfuse: in  w  float[K][C][3][3]
// kfuse: in  wt float[C][K][3][3]
// kfuse: in  w2 float[K][C][1][3]
// kfuse: out yt float[N][K][2 * H - 1][2 * W - 1]
// kfuse: out y1 float[N][K][H][W]
// kfuse: out y2 float[N][K][(H - 3) / 2 + 1][(W - 3) / 2 + 1]
// kfuse: out y3 float[N][K][H - 2][W - 2]
// kfuse: out y4 float[N][K][H][W - 1]
// kfuse: out y5 float[N][K][H - 3][W - 3]
// kfuse: out y6 float[N][K][2 * H - 1][2 * W - 1]
// kfuse: assume H >= 4 && W >= 4
// kfuse: tune N=2 C=3 K=4 H=9 W=11
extern "C" void refused(const float* x, const float* w, const float* wt, const float* w2, float* yt, float* y1,
                        float* y2, float* y3, float* y4, float* y5, float* y6, int N, int C, int K, int H, int W,
                        cudaStream_t stream) {
  halves<<<(N * K * (2 * H - 1) * (2 * W - 1) + 255) / 256, 256, 0, stream>>>(x, wt, yt, N, C, K, H, W, 2 * H - 1,
                                                                               2 * W - 1);
  unguarded<<<(N * K * H * W + 255) / 256, 256, 0, stream>>>(x, w, y1, N, C, K, H, W, H, W);
  float* t;
  cudaMallocAsync(&t, sizeof(float) * N * C * H * W, stream);
  cudaMemcpyAsync(t, x, sizeof(float) * N * C * H * W, cudaMemcpyDeviceToDevice, stream);
  strided<<<(N * K * ((H - 3) / 2 + 1) * ((W - 3) / 2 + 1) + 255) / 256, 256, 0, stream>>>(t, w, y2, N, C, K, H, W,
                                                                                         (H - 3) / 2 + 1,
                                                                                         (W - 3) / 2 + 1);
  cudaFreeAsync(t, stream);
  weight_ck<<<(N * K * (H - 2) * (W - 2) + 255) / 256, 256, 0, stream>>>(x, wt, y3, N, C, K, H, W, H - 2, W - 2);
  unrolled<<<(N * K * H * (W - 1) + 255) / 256, 256, 0, stream>>>(x, w2, y4, N, C, K, H, W);
  cropped<<<(N * K * (H - 3) * (W - 3) + 255) / 256, 256, 0, stream>>>(x, w, y5, N, C, K, H, W, H - 3, W - 3);
  negphase<<<(N * K * (2 * H - 1) * (2 * W - 1) + 255) / 256, 256, 0, stream>>>(x, wt, y6, N, C, K, H, W);
}
