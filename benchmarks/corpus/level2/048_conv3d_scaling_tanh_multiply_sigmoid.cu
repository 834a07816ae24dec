// KernelBench level 2, problem 48: Conv3d_Scaling_Tanh_Multiply_Sigmoid
//   y = sigmoid(tanh(conv3d(x) * scaling[C,1,1,1]) * bias[C,1,1,1])
#include <cuda_runtime.h>

constexpr int KD = 3, KH = 3, KW = 3;

__global__ void conv3d(const float* __restrict__ x, const float* __restrict__ w,
                       const float* __restrict__ b, float* __restrict__ y,
                       int N, int CI, int D, int H, int W, int CO) {
  const int OD = D - KD + 1, OH = H - KH + 1, OW = W - KW + 1;
  const size_t total = (size_t)N * CO * OD * OH * OW;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    const int ow = i % OW;
    const int oh = i / OW % OH;
    const int od = i / ((size_t)OW * OH) % OD;
    const int co = i / ((size_t)OW * OH * OD) % CO;
    const int n = i / ((size_t)OW * OH * OD * CO);
    float acc = b[co];
    for (int ci = 0; ci < CI; ++ci)
      for (int a = 0; a < KD; ++a)
        for (int c = 0; c < KH; ++c)
          for (int e = 0; e < KW; ++e)
            acc += x[((((size_t)n * CI + ci) * D + od + a) * H + oh + c) * W + ow + e] *
                   w[(((co * CI + ci) * KD + a) * KH + c) * KW + e];
    y[i] = acc;
  }
}

__global__ void mul_per_channel(const float* __restrict__ in, const float* __restrict__ m,
                                float* __restrict__ out, int C, int S, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] * m[i / S % C];
}

__global__ void tanh_map(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = tanhf(in[i]);
}

__global__ void sigmoid_map(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = 1.0f / (1.0f + expf(-in[i]));
}

// kfuse: in  x       float[N][CI][D][H][W]
// kfuse: in  w       float[CO][CI][3][3][3]
// kfuse: in  b       float[CO]
// kfuse: in  scaling float[CO][1][1][1]
// kfuse: in  bias    float[CO][1][1][1]
// kfuse: out y       float[N][CO][D - 2][H - 2][W - 2]
// kfuse: init x       uniform(0,1)
// kfuse: init w       uniform(-0.2,0.2)
// kfuse: init b       uniform(-0.2,0.2)
// kfuse: init scaling normal
// kfuse: init bias    normal
// Tolerance: KernelBench's own (1e-2), with a tighter atol. A sum of CI * 27 products that
// cuDNN (eager's own path) adds in another order differs from this loop's, and the chain
// after it (a scale of either sign, tanh, a multiplier of either sign, sigmoid) carries the
// difference to the output: under the verifier's stress inputs (normal x100) a cuDNN
// variant differs by 1.2e-3 at outputs near 0.5 (session 12), beyond rtol=1e-3.
// kfuse: tol rtol=1e-2 atol=1e-3
// kfuse: assume D >= 3 && H >= 3 && W >= 3
// kfuse: tune  N=128 CI=3 D=16 H=64 W=64 CO=16
// kfuse: check N=3 CI=2 D=5 H=7 W=9 CO=5
extern "C" void conv3d_scaling_tanh_multiply_sigmoid(const float* x, const float* w,
                                                     const float* b, const float* scaling,
                                                     const float* bias, float* y, int N, int CI,
                                                     int D, int H, int W, int CO,
                                                     cudaStream_t stream) {
  const int S = (D - KD + 1) * (H - KH + 1) * (W - KW + 1);
  const size_t n = (size_t)N * CO * S;
  const int threads = 256, blocks = 4096;  // grid-stride launches
  float *t0, *t1;
  cudaMallocAsync(&t0, n * sizeof(float), stream);
  cudaMallocAsync(&t1, n * sizeof(float), stream);
  conv3d<<<blocks, threads, 0, stream>>>(x, w, b, t0, N, CI, D, H, W, CO);
  mul_per_channel<<<blocks, threads, 0, stream>>>(t0, scaling, t1, CO, S, n);
  tanh_map<<<blocks, threads, 0, stream>>>(t1, t0, n);
  mul_per_channel<<<blocks, threads, 0, stream>>>(t0, bias, t1, CO, S, n);
  sigmoid_map<<<blocks, threads, 0, stream>>>(t1, y, n);
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
}
