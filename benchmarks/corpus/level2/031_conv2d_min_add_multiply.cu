// KernelBench level 2, problem 31: Conv2d_Min_Add_Multiply
//   y = (min(conv2d(x), constant_value) + bias[C,1,1]) * scaling_factor
#include <cuda_runtime.h>

// 2D grid: blockIdx.y = n * CO + co (one output plane), x covers the plane's pixels.
__global__ void conv_plane(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ y,
                           int CI, int H, int W, int CO, int KS) {
  const int OH = H - KS + 1, OW = W - KS + 1;
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= OH * OW) return;
  const int plane = blockIdx.y;
  const int n = plane / CO, co = plane % CO;
  const int oh = p / OW, ow = p % OW;
  float sum = 0.0f;
  for (int ci = 0; ci < CI; ci++) {
    for (int i = 0; i < KS; i++) {
      for (int j = 0; j < KS; j++) {
        sum += x[((n * CI + ci) * H + oh + i) * W + ow + j] * w[((co * CI + ci) * KS + i) * KS + j];
      }
    }
  }
  y[plane * OH * OW + p] = sum + b[co];
}

__global__ void min_const(const float* __restrict__ in, float* __restrict__ out, float c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(in[i], c);
}

__global__ void bias_add(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int C, int HW, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[(i / HW) % C];
}

__global__ void scale_mul(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

// kfuse: in  x       float[N][CI][H][W]
// kfuse: in  conv_w  float[CO][CI][KS][KS]
// kfuse: in  conv_b  float[CO]
// kfuse: in  bias    float[CO][1][1]
// kfuse: out y       float[N][CO][H - KS + 1][W - KS + 1]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.04,0.04)
// kfuse: init conv_b uniform(-0.04,0.04)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume KS >= 1 && H >= KS && W >= KS
// kfuse: assume N * CO <= 65535
// kfuse: tune  N=128 CI=64 H=128 W=128 CO=128 KS=3 constant_value=0.5 scaling_factor=2.0
// kfuse: check N=3 CI=5 H=10 W=9 CO=7 KS=3 constant_value=0.05 scaling_factor=2.0
// kfuse: check N=2 CI=3 H=8 W=13 CO=4 KS=2 constant_value=0.0 scaling_factor=-1.5
extern "C" void conv2d_min_add_multiply(const float* x, const float* conv_w, const float* conv_b,
                                        const float* bias, float* y, int N, int CI, int H, int W,
                                        int CO, int KS, float constant_value,
                                        float scaling_factor, cudaStream_t stream) {
  const int OH = H - KS + 1, OW = W - KS + 1;
  const int plane = OH * OW;
  const int n = N * CO * plane;
  float *c0, *c1;
  cudaMallocAsync(&c0, sizeof(float) * n, stream);
  cudaMallocAsync(&c1, sizeof(float) * n, stream);
  dim3 grid((plane + 127) / 128, N * CO);
  conv_plane<<<grid, 128, 0, stream>>>(x, conv_w, conv_b, c0, CI, H, W, CO, KS);
  const int nb = (n + 255) / 256;
  min_const<<<nb, 256, 0, stream>>>(c0, c1, constant_value, n);
  bias_add<<<nb, 256, 0, stream>>>(c1, bias, c0, CO, plane, n);
  scale_mul<<<nb, 256, 0, stream>>>(c0, y, scaling_factor, n);
  cudaFreeAsync(c0, stream);
  cudaFreeAsync(c1, stream);
}
