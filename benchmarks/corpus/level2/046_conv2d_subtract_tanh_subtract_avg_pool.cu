// KernelBench level 2, problem 46: Conv2d_Subtract_Tanh_Subtract_AvgPool
//   y = avgpool2d(tanh(conv2d(x) - v1) - v2, kp)
// Every kernel uses a grid-stride loop over size_t indices.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void conv2d_gs(const float* __restrict__ x, const float* __restrict__ w,
                          const float* __restrict__ b, float* __restrict__ y,
                          int N, int Cin, int H, int W, int Cout, int K) {
  const int OH = H - K + 1, OW = W - K + 1;
  const size_t total = (size_t)N * Cout * OH * OW;
  const size_t step = (size_t)blockDim.x * gridDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += step) {
    size_t r = i;
    const int ow = r % OW; r /= OW;
    const int oh = r % OH; r /= OH;
    const int co = r % Cout; r /= Cout;
    const int n = (int)r;
    float acc = 0.f;
    for (int ci = 0; ci < Cin; ++ci)
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw)
          acc += x[(((size_t)n * Cin + ci) * H + oh + kh) * W + ow + kw] *
                 w[(((size_t)co * Cin + ci) * K + kh) * K + kw];
    y[i] = acc + b[co];
  }
}

__global__ void sub_scalar(const float* __restrict__ in, float* __restrict__ out, float v, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    out[i] = in[i] - v;
}

__global__ void tanh_gs(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    out[i] = tanhf(in[i]);
}

// AvgPool2d(kernel=kp, stride=kp, padding=0), floor mode.
__global__ void avgpool2d_gs(const float* __restrict__ in, float* __restrict__ out,
                             int NC, int H, int W, int kp) {
  const int PH = H / kp, PW = W / kp;
  const size_t total = (size_t)NC * PH * PW;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)blockDim.x * gridDim.x) {
    const int pw = i % PW;
    const int ph = (i / PW) % PH;
    const size_t nc = i / ((size_t)PW * PH);
    float s = 0.f;
    for (int a = 0; a < kp; ++a)
      for (int c = 0; c < kp; ++c)
        s += in[(nc * H + (size_t)ph * kp + a) * W + (size_t)pw * kp + c];
    out[i] = s / (float)(kp * kp);
  }
}

// kfuse: in  x      float[N][Cin][H][W]
// kfuse: in  w      float[Cout][Cin][K][K]
// kfuse: in  b      float[Cout]
// kfuse: out y      float[N][Cout][(H - K + 1) / kp][(W - K + 1) / kp]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.04,0.04)
// kfuse: init b uniform(-0.04,0.04)
// kfuse: assume K >= 1 && kp >= 1 && H - K + 1 >= kp && W - K + 1 >= kp
// kfuse: tune  N=128 Cin=64 H=128 W=128 Cout=128 K=3 kp=2 v1=0.5 v2=0.2
// kfuse: check N=3 Cin=5 H=12 W=11 Cout=7 K=3 kp=2 v1=0.5 v2=0.2
// kfuse: check N=1 Cin=2 H=13 W=10 Cout=3 K=2 kp=3 v1=-0.25 v2=0.5
extern "C" void conv2d_subtract_tanh_subtract_avg_pool(const float* x, const float* w,
                                                       const float* b, float* y, int N, int Cin,
                                                       int H, int W, int Cout, int K, int kp,
                                                       float v1, float v2, cudaStream_t stream) {
  const int OH = H - K + 1, OW = W - K + 1;
  const size_t n = (size_t)N * Cout * OH * OW;
  const size_t npool = (size_t)N * Cout * (OH / kp) * (OW / kp);
  const int threads = 256;
  const int grid = 132 * 16;  // grid-stride: a fixed number of resident blocks
  float *t0, *t1;
  cudaMallocAsync(&t0, n * sizeof(float), stream);
  cudaMallocAsync(&t1, n * sizeof(float), stream);
  conv2d_gs<<<grid, threads, 0, stream>>>(x, w, b, t0, N, Cin, H, W, Cout, K);
  sub_scalar<<<grid, threads, 0, stream>>>(t0, t1, v1, n);
  tanh_gs<<<grid, threads, 0, stream>>>(t1, t0, n);
  sub_scalar<<<grid, threads, 0, stream>>>(t0, t1, v2, n);
  avgpool2d_gs<<<(unsigned)((npool + threads - 1) / threads), threads, 0, stream>>>(
      t1, y, N * Cout, OH, OW, kp);
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
}
