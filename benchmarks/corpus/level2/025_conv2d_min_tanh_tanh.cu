// KernelBench level 2, problem 25: Conv2d_Min_Tanh_Tanh
//   y = tanh(tanh(min_c conv2d(x)))      (min over channels, keepdim)
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void conv2d_k3(const float* __restrict__ x, const float* __restrict__ w,
                          const float* __restrict__ b, float* __restrict__ y,
                          int64_t N, int64_t CI, int64_t H, int64_t W, int64_t CO) {
  const int64_t OH = H - 2, OW = W - 2;
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * CO * OH * OW) {
    const int64_t ow = idx % OW;
    const int64_t oh = (idx / OW) % OH;
    const int64_t co = (idx / (OW * OH)) % CO;
    const int64_t n = idx / (OW * OH * CO);
    float acc = b[co];
    for (int64_t ci = 0; ci < CI; ++ci)
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw)
          acc += x[((n * CI + ci) * H + (oh + kh)) * W + (ow + kw)] *
                 w[((co * CI + ci) * 3 + kh) * 3 + kw];
    y[idx] = acc;
  }
}

// One thread per (n, h, w): minimum over the channel dimension.
__global__ void min_over_channels(const float* __restrict__ in, float* __restrict__ out,
                                  int64_t N, int64_t C, int64_t HW) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * HW) {
    const int64_t n = idx / HW, p = idx % HW;
    const float* src = in + n * C * HW + p;
    float m = src[0];
    for (int64_t c = 1; c < C; ++c) m = fminf(m, src[c * HW]);
    out[idx] = m;
  }
}

__global__ void tanh_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) out[idx] = tanhf(in[idx]);
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  conv_w float[CO][CI][3][3]
// kfuse: in  conv_b float[CO]
// kfuse: out y      float[N][1][H - 2][W - 2]
// kfuse: init x      uniform(0,1)
// kfuse: init conv_w uniform(-0.08,0.08)
// kfuse: init conv_b uniform(-0.08,0.08)
// kfuse: assume H >= 3 && W >= 3
// kfuse: tune  N=128 CI=16 H=256 W=256 CO=64
// kfuse: check N=3 CI=5 H=9 W=12 CO=7
extern "C" void conv2d_min_tanh_tanh(const float* x, const float* conv_w, const float* conv_b,
                                     float* y, int64_t N, int64_t CI, int64_t H, int64_t W,
                                     int64_t CO, cudaStream_t stream) {
  const int64_t HW = (H - 2) * (W - 2);
  const int64_t conv_elems = N * CO * HW;
  const int64_t out_elems = N * HW;
  float *conv, *mn, *t1;
  cudaMallocAsync(&conv, conv_elems * sizeof(float), stream);
  cudaMallocAsync(&mn, out_elems * sizeof(float), stream);
  cudaMallocAsync(&t1, out_elems * sizeof(float), stream);
  const int bs = 256;
  conv2d_k3<<<(unsigned)((conv_elems + bs - 1) / bs), bs, 0, stream>>>(x, conv_w, conv_b, conv,
                                                                      N, CI, H, W, CO);
  const unsigned ob = (unsigned)((out_elems + bs - 1) / bs);
  min_over_channels<<<ob, bs, 0, stream>>>(conv, mn, N, CO, HW);
  tanh_kernel<<<ob, bs, 0, stream>>>(mn, t1, out_elems);
  tanh_kernel<<<ob, bs, 0, stream>>>(t1, y, out_elems);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(mn, stream);
  cudaFreeAsync(t1, stream);
}
