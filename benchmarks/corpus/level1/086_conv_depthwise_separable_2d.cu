// KernelBench level 1, problem 86: depthwise-separable conv: depthwise Conv2d(Cin, Cin, 3,
// stride 1, padding 1, groups=Cin) then pointwise Conv2d(Cin, Cout, 1), no biases.
// Two kernels; the depthwise output lives in global memory.
#include <cuda_runtime.h>

#define DW_K 3
#define DW_PAD 1

__global__ void depthwise3x3_pad1(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ out, int C, int H, int W) {
  const int iw = blockIdx.x * blockDim.x + threadIdx.x;
  const int ih = blockIdx.y;
  const int nc = blockIdx.z;
  if (iw >= W) return;
  const int c = nc % C;
  const float* plane = x + (size_t)nc * H * W;
  float acc = 0.0f;
  for (int kh = 0; kh < DW_K; ++kh) {
    const int h = ih - DW_PAD + kh;
    for (int kw = 0; kw < DW_K; ++kw) {
      const int ww = iw - DW_PAD + kw;
      const bool inside = h >= 0 && h < H && ww >= 0 && ww < W;
      acc += inside ? plane[h * W + ww] * w[(c * DW_K + kh) * DW_K + kw] : 0.0f;
    }
  }
  out[(size_t)nc * H * W + ih * W + iw] = acc;
}

__global__ void pointwise_conv(const float* __restrict__ in, const float* __restrict__ w,
                               float* __restrict__ out, int Cin, int Cout, int HW) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  const int co = blockIdx.y;
  const int n = blockIdx.z;
  if (s >= HW) return;
  const float* ip = in + (size_t)n * Cin * HW + s;
  float acc = 0.0f;
  for (int ci = 0; ci < Cin; ++ci) acc += ip[(size_t)ci * HW] * w[co * Cin + ci];
  out[((size_t)n * Cout + co) * HW + s] = acc;
}

// kfuse: in  x         float[N][Cin][H][W]
// kfuse: in  dw_weight float[Cin][1][3][3]
// kfuse: in  pw_weight float[Cout][Cin][1][1]
// kfuse: out y         float[N][Cout][H][W]
// kfuse: init x uniform(0,1)
// kfuse: init dw_weight uniform(-0.3,0.3)
// kfuse: init pw_weight uniform(-0.1,0.1)
// kfuse: assume N * Cin <= 65535 && H <= 65535 && N <= 65535 && Cout <= 65535
// kfuse: tune  N=16 Cin=64 Cout=128 H=512 W=512
// kfuse: check N=2 Cin=3 Cout=5 H=17 W=33
// kfuse: check N=1 Cin=7 Cout=2 H=1 W=3
extern "C" void conv_depthwise_separable_2d(const float* x, const float* dw_weight,
                                            const float* pw_weight, float* y, int N, int Cin,
                                            int Cout, int H, int W, cudaStream_t stream) {
  float* dw_out = nullptr;
  cudaMallocAsync(&dw_out, sizeof(float) * (size_t)N * Cin * H * W, stream);
  dim3 g1((W + 127) / 128, H, N * Cin);
  depthwise3x3_pad1<<<g1, 128, 0, stream>>>(x, dw_weight, dw_out, Cin, H, W);
  const int HW = H * W;
  dim3 g2((HW + 255) / 256, Cout, N);
  pointwise_conv<<<g2, 256, 0, stream>>>(dw_out, pw_weight, y, Cin, Cout, HW);
  cudaFreeAsync(dw_out, stream);
}
