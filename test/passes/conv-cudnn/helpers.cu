// A convolution launched from a host helper of the file (GoogLeNet's Inception module in
// the corpus): where the helper's one step is the launch, each call of the helper becomes
// `if (!site(<the call's arguments>, <its shape>)) <the call>`, the shape over the entry's
// own sizes at that call (1 x 1 and 5 x 5 windows from one helper), the helper itself
// unchanged as the fallback; its locals (the grid, the padding K / 2) are read through
// their initializers. A weight read out of one buffer of many layers' weights (VGG's) has
// the shape its loops give. Refused, with the reason at the call: a helper that changes its
// parameter before the launch (its width is then no size kfuse knows), and one that
// launches on a buffer it computes. A helper of two launches (the
// convolution, then a ReLU whose grid a function of the file computes) becomes
// `if (!site(...)) <the call>`, the ReLU folded into the site (the convolution's bias pass
// takes max(y, 0)); where the ReLU covers other elements than the convolution's (half of
// them) it is written out at the call instead, over the entry's names and in 64 bits: `if
// (!site(...)) <the call>; else do { <the ReLU> } while (0);`. One that calls something besides its
// launch (a log line) is left as it is.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=conv-cudnn --emit=transformed -R -o %t.cu 2> %t.err
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.err | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// The ReLU over exactly the convolution's outputs, in place, is folded into the bias pass
// after cuDNN (kf_cudnn_conv_act); over half of them it is not.
// CHECK: {{^}}//   y = conv2d(x, w; stride {1, 1}, padding {0, 0}, dilation {1, 1}) + bias[channel], then max(y, 0) (relu, line {{[0-9]+}}: the helper's ReLU, folded in)
// CHECK:         return kf_cudnn_conv_act(false, 2, kf_x, kf_w, kf_pad, kf_stride, kf_dilation, kf_out_pad, 1, -1, x, w, bias, y,
// CHECK-NEXT:        true, kf_stream);
// CHECK-LABEL: {{^}}extern "C" void helpers(
// CHECK:        if (!conv_same_cudnn(x, w1, b1, t,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(F), (int)(C), (int)(1), (int)(1)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv(x, w1, b1, t, N, C, F, H, W, 1, stream);
// CHECK:        if (!conv_same_cudnn_2(t, w5, b5, y,
// CHECK-NEXT:       {(int)(N), (int)(F), (int)(H), (int)(W)}, {(int)(F), (int)(F), (int)(5), (int)(5)},
// CHECK-NEXT:       {2, 2}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv(t, w5, b5, y, N, F, F, H, W, 5, stream);
// CHECK-NEXT:   if (!conv_same_cudnn_3(x, wall + F * C, b1, z,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(F), (int)(C), (int)(1), (int)(1)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv(x, wall + F * C, b1, z, N, C, F, H, W, 1, stream);
// CHECK-NEXT:   conv_changed(x, w1, b1, u, N, C, F, H, W, 1, stream);
// CHECK-NEXT:   conv_offset(x, w1, b1, v, N, C, F, H, W, 1, stream);
// CHECK-NEXT:   if (!conv_same_cudnn_4(x, w1, b1, r,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(F), (int)(C), (int)(1), (int)(1)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv_relu(x, w1, b1, r, N, C, F, H, W, 1, stream);
// CHECK-NEXT:   if (!conv_same_cudnn_5(x, w1, b1, r,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(F), (int)(C), (int)(1), (int)(1)},
// CHECK-NEXT:       {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
// CHECK-NEXT:     conv_half_relu(x, w1, b1, r, N, C, F, H, W, 1, stream);
// CHECK-NEXT:   else do { // the rest of conv_half_relu(...), written out here
// CHECK-NEXT:     relu<<<{{.*}}>>>(r, ((((((long long)N * (long long)F) * (long long)H) * (long long)W) / 2)));
// CHECK-NEXT:   } while (0);
// CHECK-NEXT:   conv_logged(x, w1, b1, r, N, C, F, H, W, 1, stream);
// REMARK-DAG: helpers.cu:[[@LINE+98]]:3: remark: not substituted: 'conv_same' reads its input at a spatial index that is no window of the output's [-Rpass-missed=conv-cudnn]
// REMARK-DAG: helpers.cu:[[@LINE+98]]:3: remark: not substituted: 'conv_same' is launched by helper 'conv_offset' with argument 4 ('y + 0'), which is none of its parameters and no value kfuse reads [-Rpass-missed=conv-cudnn]
#include <cstdio>

#include <cuda_runtime.h>

// stride 1, padding K / 2; grid: x over the plane, y over output channels, z over the batch
__global__ void conv_same(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
                          float* __restrict__ y, int C, int OC, int H, int W, int K) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int oc = blockIdx.y;
  const int n = blockIdx.z;
  if (p >= H * W) return;
  const int oh = p / W, ow = p % W;
  const int pad = K / 2;
  float acc = bias[oc];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < K; ++kh) {
      const int ih = oh + kh - pad;
      if (ih < 0 || ih >= H) continue;
      for (int kw = 0; kw < K; ++kw) {
        const int iw = ow + kw - pad;
        if (iw < 0 || iw >= W) continue;
        acc += x[((n * C + c) * H + ih) * W + iw] * w[((oc * C + c) * K + kh) * K + kw];
      }
    }
  y[(n * OC + oc) * H * W + p] = acc;
}

__global__ void relu(float* t, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = fmaxf(t[i], 0.0f);
}

static void conv(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H, int W,
                 int K, cudaStream_t s) {
  const int threads = 256;
  dim3 grid((H * W + threads - 1) / threads, OC, N);
  conv_same<<<grid, threads, 0, s>>>(x, w, b, y, C, OC, H, W, K);
}

static void conv_changed(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H,
                         int W, int K, cudaStream_t s) {
  W = W > 0 ? W : 1;
  dim3 grid((H * W + 255) / 256, OC, N);
  conv_same<<<grid, 256, 0, s>>>(x, w, b, y, C, OC, H, W, K);
}

static void conv_offset(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H,
                        int W, int K, cudaStream_t s) {
  dim3 grid((H * W + 255) / 256, OC, N);
  conv_same<<<grid, 256, 0, s>>>(x, w, b, y + 0, C, OC, H, W, K);
}

static unsigned grid1d(long long n) { return (unsigned)((n + 255) / 256); }

static void conv_relu(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H,
                      int W, int K, cudaStream_t s) {
  dim3 grid((H * W + 255) / 256, OC, N);
  conv_same<<<grid, 256, 0, s>>>(x, w, b, y, C, OC, H, W, K);
  relu<<<grid1d(N * OC * H * W), 256, 0, s>>>(y, N * OC * H * W);
}

static void conv_half_relu(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H,
                           int W, int K, cudaStream_t s) {
  dim3 grid((H * W + 255) / 256, OC, N);
  conv_same<<<grid, 256, 0, s>>>(x, w, b, y, C, OC, H, W, K);
  relu<<<grid1d(N * OC * H * W / 2), 256, 0, s>>>(y, N * OC * H * W / 2);
}

static void conv_logged(const float* x, const float* w, const float* b, float* y, int N, int C, int OC, int H,
                        int W, int K, cudaStream_t s) {
  dim3 grid((H * W + 255) / 256, OC, N);
  conv_same<<<grid, 256, 0, s>>>(x, w, b, y, C, OC, H, W, K);
  printf("conv %d x %d\n", H, W);
}

// kfuse: in  x  float[N][C][H][W]
// kfuse: in  w1 float[F][C][1][1]
// kfuse: in  b1 float[F]
// kfuse: in  w5 float[F][F][5][5]
// kfuse: in  b5 float[F]
// kfuse: in  wall float[2][F][C]
// kfuse: out y  float[N][F][H][W]
// kfuse: out z  float[N][F][H][W]
// kfuse: out u  float[N][F][H][W]
// kfuse: out v  float[N][F][H][W]
// kfuse: out r  float[N][F][H][W]
// kfuse: tune  N=2 C=16 F=8 H=32 W=32
// kfuse: check N=1 C=3 F=2 H=7 W=5
extern "C" void helpers(const float* x, const float* w1, const float* b1, const float* w5, const float* b5,
                        const float* wall, float* y, float* z, float* u, float* v, float* r, int N, int C, int F, int H, int W,
                        cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, sizeof(float) * N * F * H * W, stream);
  conv(x, w1, b1, t, N, C, F, H, W, 1, stream);
  conv(t, w5, b5, y, N, F, F, H, W, 5, stream);
  conv(x, wall + F * C, b1, z, N, C, F, H, W, 1, stream);
  conv_changed(x, w1, b1, u, N, C, F, H, W, 1, stream);
  conv_offset(x, w1, b1, v, N, C, F, H, W, 1, stream);
  conv_relu(x, w1, b1, r, N, C, F, H, W, 1, stream);
  conv_half_relu(x, w1, b1, r, N, C, F, H, W, 1, stream);
  conv_logged(x, w1, b1, r, N, C, F, H, W, 1, stream);
  cudaFreeAsync(t, stream);
}
