// The forms of a naive direct convolution that become one cuDNN forward convolution: the
// output's coordinates from a flat index by `%` and `/` (template stride and padding, the
// window guarded by `continue`, a bias as the sum's start), by `r /= ...` in a grid-stride
// loop (3-D, the bias in the store), from a 2-D grid with the batch and channel in
// blockIdx.z (dilation, the window guarded by an `if` around the update), one per grid
// dimension (1-D, the channel count as gridDim.y), a depthwise one through pointer
// locals, the first again on a scratch input, its shape read from its index, and a 3 x 3
// window written out by hand (its products in any order), rows from the grid's x, and
// padding as a choice between the product and 0. Each launch becomes `if (!site(...)) <the launch>`, the reference kept as the
// fallback; the shared helper is emitted once, with FP32 (FMA) math and deterministic
// algorithms only.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=conv-cudnn --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: #include <cudnn.h>
// CHECK: struct kf_cudnn_fwd_plan {
// CHECK: take = note[j] != CUDNN_NUMERICAL_NOTE_TENSOR_CORE && note[j] != CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS &&
// CHECK: note[j] != CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: conv_flat (line {{[0-9]+}}) as cuDNN convolution, FP32 (no TF32), the fastest engine as timed:
// CHECK-NEXT: //   y = conv2d(x, w; stride {2, 2}, padding {1, 1}, dilation {1, 1}) + b[channel]
// CHECK:        return kf_cudnn_conv(false, 2, kf_x, kf_w, kf_pad, kf_stride, kf_dilation, kf_out_pad, 1, -1, x, w, b, y,
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: conv3d_gs (line {{[0-9]+}}) as cuDNN convolution
// CHECK-NEXT: //   y = conv3d(x, w; stride {1, 1, 1}, padding {0, 0, 0}, dilation {1, 1, 1}) + b[channel]
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: conv_grid (line {{[0-9]+}}) as cuDNN convolution
// CHECK-NEXT: //   y = conv2d(x, w; stride {1, 1}, padding {2, 4}, dilation {2, 3})
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: conv1d (line {{[0-9]+}}) as cuDNN convolution
// CHECK-NEXT: //   y = conv1d(x, w; stride {1}, padding {0}, dilation {1})
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: depthwise (line {{[0-9]+}}) as cuDNN convolution
// CHECK-NEXT: //   y = conv2d depthwise(x, w; stride {1, 1}, padding {0, 0}, dilation {1, 1})
// CHECK:        return kf_cudnn_conv(false, 2, kf_x, kf_w, kf_pad, kf_stride, kf_dilation, kf_out_pad, kf_x[1], -1, x, w,
// CHECK-LABEL: {{^}}extern "C" void convs(
// CHECK:        if (!conv_flat_cudnn(x, w2, b, y2,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(K), (int)(C), (int)(3), (int)(3)},
// CHECK-NEXT:       {1, 1}, {2, 2}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv_flat<2, 1><<<(n2 + 255) / 256, 256, 0, stream>>>(x, w2, b, y2, N, C, H, W, K, Ho, Wo);
// CHECK:        if (!conv3d_gs_cudnn(v, w3, b, y3,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(D), (int)(H), (int)(W)}, {(int)(K), (int)(C), (int)(3), (int)(3), (int)(3)},
// CHECK:        if (!conv_grid_cudnn(x, w5, nullptr, y5,
// CHECK:            {2, 4}, {1, 1}, {2, 3}, {0, 0}, stream))
// CHECK:        if (!conv1d_cudnn(s, w1, nullptr, y1,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(L)}, {(int)(K), (int)(C), (int)(5)},
// CHECK:        if (!depthwise_cudnn(x, wd, nullptr, yd,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(C), (int)(1), (int)(3), (int)(3)},
// CHECK:        if (!conv_flat_cudnn_2(t, w2, b, ys,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H - 2), (int)(W - 2)}, {(int)(K), (int)(C), (int)(3), (int)(3)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK:        if (!by_hand_cudnn(x, w2, nullptr, yh,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(K), (int)(C), (int)(3), (int)(3)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK:        if (!chosen_cudnn(x, w2, nullptr, yc,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(K), (int)(C), (int)(3), (int)(3)},
// CHECK-NEXT:       {1, 1}, {1, 1}, {1, 1}, {0, 0}, stream))
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

template <int STRIDE, int PAD>
__global__ void conv_flat(const float* x, const float* w, const float* b, float* y, int N, int C, int H, int W,
                          int K, int Ho, int Wo) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * Ho * Wo) return;
  const int ow = idx % Wo;
  const int oh = (idx / Wo) % Ho;
  const int k = (idx / (Wo * Ho)) % K;
  const int n = idx / (Wo * Ho * K);
  float acc = b[k];
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i) {
      const int ih = oh * STRIDE - PAD + i;
      if (ih < 0 || ih >= H) continue;
      for (int j = 0; j < 3; ++j) {
        const int iw = ow * STRIDE - PAD + j;
        if (iw < 0 || iw >= W) continue;
        acc += x[((n * C + c) * H + ih) * W + iw] * w[((k * C + c) * 3 + i) * 3 + j];
      }
    }
  y[idx] = acc;
}

__global__ void conv3d_gs(const float* x, const float* w, const float* b, float* y, int N, int C, int D, int H,
                          int W, int K) {
  const int OD = D - 2, OH = H - 2, OW = W - 2;
  const size_t total = (size_t)N * K * OD * OH * OW;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    size_t r = i;
    const int ow = r % OW; r /= OW;
    const int oh = r % OH; r /= OH;
    const int od = r % OD; r /= OD;
    const int k = r % K;
    const int n = (int)(r / K);
    float acc = 0.f;
    for (int c = 0; c < C; ++c) {
      const float* xc = x + ((size_t)n * C + c) * D * H * W;
      for (int a = 0; a < 3; ++a)
        for (int p = 0; p < 3; ++p)
          for (int q = 0; q < 3; ++q)
            acc += xc[((od + a) * H + oh + p) * W + ow + q] * w[(((k * C + c) * 3 + a) * 3 + p) * 3 + q];
    }
    y[i] = acc + b[k];
  }
}

__global__ void conv_grid(const float* x, const float* w, float* y, int C, int K, int H, int W, int Ho, int Wo) {
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y * blockDim.y + threadIdx.y;
  const int nk = blockIdx.z;
  if (ow < Wo && oh < Ho) {
    const int n = nk / K;
    const int k = nk - n * K;
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
      for (int i = 0; i < 5; i++) {
        const int ih = oh - 2 + i * 2;
        if (ih < 0 || ih >= H) continue;
        for (int j = 0; j < 7; j++) {
          const int iw = ow - 4 + j * 3;
          if (iw >= 0 && iw < W) sum += x[((n * C + c) * H + ih) * W + iw] * w[((k * C + c) * 5 + i) * 7 + j];
        }
      }
    y[((size_t)nk * Ho + oh) * Wo + ow] = sum;
  }
}

__global__ void conv1d(const float* x, const float* w, float* y, int C, int L) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = blockIdx.y, n = blockIdx.z, K = gridDim.y;
  if (o >= L - 4) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) {
    const float* xr = x + ((size_t)n * C + c) * L + o;
    const float* wr = w + ((size_t)k * C + c) * 5;
    for (int t = 0; t < 5; ++t) acc += xr[t] * wr[t];
  }
  y[((size_t)n * K + k) * (L - 4) + o] = acc;
}

__global__ void depthwise(const float* x, const float* w, float* y, int C, int H, int W, long total) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int Wo = W - 2, Ho = H - 2;
  const int ow = idx % Wo, oh = (idx / Wo) % Ho;
  const long nc = idx / ((long)Wo * Ho);
  const int c = nc % C;
  const float* xp = &x[nc * H * W];
  const float* wp = w + c * 9;
  float acc = 0.f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) acc += xp[(oh + i) * W + ow + j] * wp[i * 3 + j];
  y[idx] = acc;
}

// A 3 x 3 window written out: rows of the grid's x over (n, k, oh), columns over y.
__global__ void by_hand(const float* x, const float* w, float* y, int C, int H, int W, int K) {
  const int Ho = H - 2, Wo = W - 2;
  const int row = blockIdx.x;
  const int ow = blockIdx.y * blockDim.x + threadIdx.x;
  if (ow >= Wo) return;
  const int oh = row % Ho, k = (row / Ho) % K, n = row / (Ho * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c) {
    const float* xr = x + ((size_t)(n * C + c) * H + oh) * W + ow;
    const float* wr = w + (k * C + c) * 9;
    acc += xr[0] * wr[0] + xr[1] * wr[1] + xr[2] * wr[2];
    acc += xr[W] * wr[3] + xr[W + 1] * wr[4] + xr[W + 2] * wr[5];
    acc += xr[2 * W + 2] * wr[8] + xr[2 * W] * wr[6] + xr[2 * W + 1] * wr[7];
  }
  y[(size_t)row * Wo + ow] = acc;
}

// Padding 1 as a choice: the window's bounds in a bool, the product or 0.
__global__ void chosen(const float* x, const float* w, float* y, int C, int H, int W, int K) {
  const int ow = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = blockIdx.y;
  const int nk = blockIdx.z;
  if (ow >= W) return;
  const int n = nk / K, k = nk % K;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int ih = oh - 1 + i, iw = ow - 1 + j;
        const bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
        acc += inside ? x[((n * C + c) * H + ih) * W + iw] * w[((k * C + c) * 3 + i) * 3 + j] : 0.0f;
      }
  y[((size_t)nk * H + oh) * W + ow] = acc;
}

// kfuse: in  x  float[N][C][H][W]
// kfuse: in  v  float[N][C][D][H][W]
// kfuse: in  s  float[N][C][L]
// kfuse: in  w2 float[K][C][3][3]
// kfuse: in  w3 float[K][C][3][3][3]
// kfuse: in  w5 float[K][C][5][7]
// kfuse: in  w1 float[K][C][5]
// kfuse: in  wd float[C][1][3][3]
// kfuse: in  b  float[K]
// kfuse: out y2 float[N][K][(H + 2 - 3) / 2 + 1][(W + 2 - 3) / 2 + 1]
// kfuse: out y3 float[N][K][D - 2][H - 2][W - 2]
// kfuse: out y5 float[N][K][H + 4 - 8][W + 8 - 18]
// kfuse: out y1 float[N][K][L - 4]
// kfuse: out yd float[N][C][H - 2][W - 2]
// kfuse: out ys float[N][K][H - 4][W - 4]
// kfuse: out yh float[N][K][H - 2][W - 2]
// kfuse: out yc float[N][K][H][W]
// kfuse: assume H >= 10 && W >= 19 && D >= 3 && L >= 5
// kfuse: tune N=2 C=3 K=4 D=5 H=12 W=21 L=9
extern "C" void convs(const float* x, const float* v, const float* s, const float* w2, const float* w3,
                      const float* w5, const float* w1, const float* wd, const float* b, float* y2, float* y3,
                      float* y5, float* y1, float* yd, float* ys, float* yh, float* yc, int N, int C, int K, int D, int H, int W, int L,
                      cudaStream_t stream) {
  const int Ho = (H + 2 - 3) / 2 + 1, Wo = (W + 2 - 3) / 2 + 1;
  const int n2 = N * K * Ho * Wo;
  conv_flat<2, 1><<<(n2 + 255) / 256, 256, 0, stream>>>(x, w2, b, y2, N, C, H, W, K, Ho, Wo);
  conv3d_gs<<<64, 256, 0, stream>>>(v, w3, b, y3, N, C, D, H, W, K);
  const int H5 = H + 4 - 8, W5 = W + 8 - 18;
  dim3 grid5((W5 + 15) / 16, (H5 + 15) / 16, N * K);
  conv_grid<<<grid5, dim3(16, 16), 0, stream>>>(x, w5, y5, C, K, H, W, H5, W5);
  dim3 grid1((L - 4 + 127) / 128, K, N);
  conv1d<<<grid1, 128, 0, stream>>>(s, w1, y1, C, L);
  const long nd = (long)N * C * (H - 2) * (W - 2);
  depthwise<<<(unsigned)((nd + 255) / 256), 256, 0, stream>>>(x, wd, yd, C, H, W, nd);
  float* t;
  cudaMallocAsync(&t, sizeof(float) * nd, stream);
  depthwise<<<(unsigned)((nd + 255) / 256), 256, 0, stream>>>(x, wd, t, C, H, W, nd);
  const int ns = N * K * (H - 4) * (W - 4);
  conv_flat<1, 0><<<(ns + 255) / 256, 256, 0, stream>>>(t, w2, b, ys, N, C, H - 2, W - 2, K, H - 4, W - 4);
  cudaFreeAsync(t, stream);
  dim3 gridh(N * K * (H - 2), (W - 2 + 63) / 64);
  by_hand<<<gridh, 64, 0, stream>>>(x, w2, yh, C, H, W, K);
  dim3 gridc((W + 63) / 64, H, N * K);
  chosen<<<gridc, 64, 0, stream>>>(x, w2, yc, C, H, W, K);
}
