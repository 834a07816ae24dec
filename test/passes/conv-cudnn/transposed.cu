// Transposed convolutions in the gather form: each output element sums x[.][ci][th / S]
// times w[ci][co][k] over the window positions where th = o + P - D * k is a non-negative
// multiple of S below the input's extent. They become kf_cudnn_conv's transposed
// convolution (one forward convolution per output phase): with the stride, padding,
// dilation and output padding the entry's scalars (printed at the call), with constants and
// the remainder and quotient written as `& 1` and `>> 1` (3-D), with a stride of 1, where
// the index is o + P - k itself (1-D), and with phase loops (2-D, kernel 4: the taps from
// (o + P) % 2 by 2, one start a local, the other in the loop).
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=conv-cudnn --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: gather2d (line {{[0-9]+}}) as cuDNN transposed convolution, FP32 (no TF32), the fastest engine as timed:
// CHECK-NEXT: //   y = conv_transpose2d(x, w; stride {S, S}, padding {P, P}, dilation {dil, dil}, output padding {OP, OP}) + b[channel]
// CHECK:        return kf_cudnn_conv(true, 2, kf_x, kf_w,
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: shifts3d (line {{[0-9]+}}) as cuDNN transposed convolution
// CHECK-NEXT: //   y = conv_transpose3d(x, w; stride {2, 2, 2}, padding {1, 1, 1}, dilation {1, 1, 1}, output padding {0, 0, 0})
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: unit1d (line {{[0-9]+}}) as cuDNN transposed convolution
// CHECK-NEXT: //   y = conv_transpose1d(x, w; stride {1}, padding {1}, dilation {1}, output padding {0})
// CHECK-LABEL: {{^}}// kfuse conv-cudnn: phases2d (line {{[0-9]+}}) as cuDNN transposed convolution
// CHECK-NEXT: //   y = conv_transpose2d(x, w; stride {2, 2}, padding {1, 1}, dilation {1, 1}, output padding {0, 0}) + b[channel]
// CHECK-LABEL: {{^}}extern "C" void transposed(
// CHECK:        if (!gather2d_cudnn(x, w2, b, y2,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(C), (int)(K), (int)(3), (int)(3)},
// CHECK-NEXT:       {P, P}, {S, S}, {dil, dil}, {OP, OP}, stream))
// CHECK-NEXT:     gather2d<<<
// CHECK:        if (!shifts3d_cudnn(v, w3, nullptr, y3,
// CHECK:        if (!unit1d_cudnn(s, w1, nullptr, y1,
// CHECK:        if (!phases2d_cudnn(x, w4, b, y4,
// CHECK-NEXT:       {(int)(N), (int)(C), (int)(H), (int)(W)}, {(int)(C), (int)(K), (int)(4), (int)(4)},
// CHECK-NEXT:       {1, 1}, {2, 2}, {1, 1}, {0, 0}, stream))
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void gather2d(const float* x, const float* w, const float* b, float* y, int N, int C, int K, int H,
                         int W, int Ho, int Wo, int S, int P, int dil) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)N * K * Ho * Wo) return;
  const int ow = idx % Wo, oh = idx / Wo % Ho, k = idx / ((long long)Wo * Ho) % K;
  const int n = idx / ((long long)Wo * Ho * K);
  float acc = b[k];
  for (int i = 0; i < 3; ++i) {
    const int th = oh + P - i * dil;
    if (th < 0 || th % S) continue;
    const int ih = th / S;
    if (ih >= H) continue;
    for (int j = 0; j < 3; ++j) {
      const int tw = ow + P - j * dil;
      if (tw < 0 || tw % S != 0) continue;
      const int iw = tw / S;
      if (iw >= W) continue;
      for (int c = 0; c < C; ++c) {
        const float xv = x[(((long long)n * C + c) * H + ih) * W + iw];
        const float wv = w[((c * K + k) * 3 + i) * 3 + j];
        acc += xv * wv;
      }
    }
  }
  y[idx] = acc;
}

__global__ void shifts3d(const float* x, const float* w, float* y, int N, int C, int K, int D, int H, int W) {
  const int OD = (D - 1) * 2 - 2 + 3, OH = (H - 1) * 2 - 2 + 3, OW = (W - 1) * 2 - 2 + 3;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N * K * OD * OH * OW) return;
  const int ow = i % OW, oh = i / OW % OH, od = i / (OW * OH) % OD, k = i / (OW * OH * OD) % K;
  const int n = i / (OW * OH * OD * K);
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int a = 0; a < 3; ++a) {
      const int td = od + 1 - a;
      if (td < 0 || (td & 1) || (td >> 1) >= D) continue;
      for (int p = 0; p < 3; ++p) {
        const int th = oh + 1 - p;
        if (th < 0 || (th & 1) || (th >> 1) >= H) continue;
        for (int q = 0; q < 3; ++q) {
          const int tw = ow + 1 - q;
          if (tw < 0 || (tw & 1) || (tw >> 1) >= W) continue;
          acc += x[(((n * C + c) * D + (td >> 1)) * H + (th >> 1)) * W + (tw >> 1)] *
                 w[(((c * K + k) * 3 + a) * 3 + p) * 3 + q];
        }
      }
    }
  y[i] = acc;
}

__global__ void unit1d(const float* x, const float* w, float* y, int N, int C, int K, int L) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = blockIdx.y, n = blockIdx.z;
  if (o >= L) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c)
    for (int t = 0; t < 3; ++t) {
      const int il = o + 1 - t;
      if (il < 0 || il >= L) continue;
      acc += x[((size_t)n * C + c) * L + il] * w[(c * K + k) * 3 + t];
    }
  y[((size_t)n * K + k) * L + o] = acc;
}

__global__ void phases2d(const float* x, const float* w, const float* b, float* y, int N, int C, int K, int H,
                         int W) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int Ho = 2 * H, Wo = 2 * W;
  if (i >= N * K * Ho * Wo) return;
  const int ow = i % Wo, oh = i / Wo % Ho, k = i / (Wo * Ho) % K, n = i / (Wo * Ho * K);
  const int kh0 = (oh + 1) % 2;
  float acc = b[k];
  for (int c = 0; c < C; ++c)
    for (int kh = kh0; kh < 4; kh += 2) {
      const int ih = (oh + 1 - kh) / 2;
      if (oh + 1 - kh < 0 || ih >= H) continue;
      for (int kw = (ow + 1) % 2; kw < 4; kw += 2) {
        const int iw = (ow + 1 - kw) / 2;
        if (ow + 1 - kw < 0 || iw >= W) continue;
        acc += x[((n * C + c) * H + ih) * W + iw] * w[((c * K + k) * 4 + kh) * 4 + kw];
      }
    }
  y[i] = acc;
}

// kfuse: in  x  float[N][C][H][W]
// kfuse: in  v  float[N][C][D][H][W]
// kfuse: in  s  float[N][C][L]
// kfuse: in  w2 float[C][K][3][3]
// kfuse: in  w3 float[C][K][3][3][3]
// kfuse: in  w1 float[C][K][3]
// kfuse: in  w4 float[C][K][4][4]
// kfuse: in  b  float[K]
// kfuse: out y2 float[N][K][(H - 1) * S - 2 * P + dil * 2 + 1 + OP][(W - 1) * S - 2 * P + dil * 2 + 1 + OP]
// kfuse: out y3 float[N][K][2 * D - 1][2 * H - 1][2 * W - 1]
// kfuse: out y1 float[N][K][L]
// kfuse: out y4 float[N][K][2 * H][2 * W]
// kfuse: assume S >= 1 && P >= 0 && dil >= 1 && OP >= 0 && OP < S && D >= 1
// kfuse: tune N=2 C=3 K=4 D=3 H=5 W=7 L=9 S=2 P=1 dil=2 OP=1
extern "C" void transposed(const float* x, const float* v, const float* s, const float* w2, const float* w3,
                           const float* w1, const float* w4, const float* b, float* y2, float* y3, float* y1,
                           float* y4, int N, int C, int K,
                           int D, int H, int W, int L, int S, int P, int dil, int OP, cudaStream_t stream) {
  const int Ho = (H - 1) * S - 2 * P + dil * 2 + 1 + OP, Wo = (W - 1) * S - 2 * P + dil * 2 + 1 + OP;
  gather2d<<<(N * K * Ho * Wo + 255) / 256, 256, 0, stream>>>(x, w2, b, y2, N, C, K, H, W, Ho, Wo, S, P, dil);
  shifts3d<<<(N * K * (2 * D - 1) * (2 * H - 1) * (2 * W - 1) + 255) / 256, 256, 0, stream>>>(v, w3, y3, N, C, K,
                                                                                             D, H, W);
  dim3 grid1((L + 127) / 128, K, N);
  unit1d<<<grid1, 128, 0, stream>>>(s, w1, y1, N, C, K, L);
  phases2d<<<(N * K * 4 * H * W + 255) / 256, 256, 0, stream>>>(x, w4, b, y4, N, C, K, H, W);
}
