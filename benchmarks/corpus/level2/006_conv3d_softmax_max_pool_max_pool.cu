// KernelBench level 2, problem 6: Conv3d_Softmax_MaxPool_MaxPool
//   y = maxpool3d(maxpool3d(softmax_c(conv3d(x)), 2), 2)
#include <cuda_runtime.h>

#define K 3
#define POOL 2

// grid: x over the (oh, ow) plane, y over od, z over (n, co).
__global__ void conv3d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int CI, int D, int H, int W, int CO) {
  const int OD = D - K + 1, OH = H - K + 1, OW = W - K + 1;
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= OH * OW) return;
  const int od = blockIdx.y;
  const int n = blockIdx.z / CO, co = blockIdx.z % CO;
  const int oh = p / OW, ow = p % OW;
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci)
    for (int kd = 0; kd < K; ++kd)
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw)
          acc += x[(((n * CI + ci) * D + od + kd) * H + oh + kh) * W + ow + kw] *
                 w[(((co * CI + ci) * K + kd) * K + kh) * K + kw];
  y[((blockIdx.z * OD + od) * OH + oh) * OW + ow] = acc;
}

__global__ void softmax_dim1(const float* __restrict__ in, float* __restrict__ out, int N, int C,
                             int S) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= N * S) return;
  const int n = t / S, s = t % S;
  const float* src = in + n * C * S + s;
  float* dst = out + n * C * S + s;
  float mx = src[0];
  for (int c = 1; c < C; ++c) mx = fmaxf(mx, src[c * S]);
  float sum = 0.f;
  for (int c = 0; c < C; ++c) sum += expf(src[c * S] - mx);
  for (int c = 0; c < C; ++c) dst[c * S] = expf(src[c * S] - mx) / sum;
}

// MaxPool3d(kernel=POOL, stride=POOL), floor mode.
__global__ void maxpool3d_kernel(const float* __restrict__ in, float* __restrict__ out, int NC,
                                 int D, int H, int W) {
  const int PD = D / POOL, PH = H / POOL, PW = W / POOL;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NC * PD * PH * PW) return;
  const int pw = t % PW;
  const int ph = (t / PW) % PH;
  const int pd = (t / (PW * PH)) % PD;
  const int nc = t / (PW * PH * PD);
  float m = -3.402823466e38f;
  for (int a = 0; a < POOL; ++a)
    for (int bb = 0; bb < POOL; ++bb)
      for (int c = 0; c < POOL; ++c)
        m = fmaxf(m, in[((nc * D + pd * POOL + a) * H + ph * POOL + bb) * W + pw * POOL + c]);
  out[t] = m;
}

// kfuse: in  x float[N][CI][D][H][W]
// kfuse: in  w float[CO][CI][3][3][3]
// kfuse: in  b float[CO]
// kfuse: out y float[N][CO][(D - 2) / 2 / 2][(H - 2) / 2 / 2][(W - 2) / 2 / 2]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.2,0.2)
// kfuse: init b uniform(-0.2,0.2)
// kfuse: assume D >= 6 && H >= 6 && W >= 6
// kfuse: assume N * CO <= 65535 && D - 2 <= 65535
// kfuse: tune  N=128 CI=3 D=16 H=32 W=32 CO=16
// kfuse: check N=3 CI=2 D=11 H=12 W=13 CO=5
extern "C" void conv3d_softmax_max_pool_max_pool(const float* x, const float* w, const float* b,
                                                 float* y, int N, int CI, int D, int H, int W,
                                                 int CO, cudaStream_t stream) {
  const int OD = D - K + 1, OH = H - K + 1, OW = W - K + 1;
  const int n0 = N * CO * OD * OH * OW;
  const int D1 = OD / POOL, H1 = OH / POOL, W1 = OW / POOL;
  const int n1 = N * CO * D1 * H1 * W1;
  const int n2 = N * CO * (D1 / POOL) * (H1 / POOL) * (W1 / POOL);
  float *conv, *sm, *p1;
  cudaMallocAsync(&conv, sizeof(float) * n0, stream);
  cudaMallocAsync(&sm, sizeof(float) * n0, stream);
  cudaMallocAsync(&p1, sizeof(float) * n1, stream);
  dim3 grid((OH * OW + 127) / 128, OD, N * CO);
  conv3d_kernel<<<grid, 128, 0, stream>>>(x, w, b, conv, CI, D, H, W, CO);
  const int S = OD * OH * OW;
  softmax_dim1<<<(N * S + 255) / 256, 256, 0, stream>>>(conv, sm, N, CO, S);
  maxpool3d_kernel<<<(n1 + 255) / 256, 256, 0, stream>>>(sm, p1, N * CO, OD, OH, OW);
  maxpool3d_kernel<<<(n2 + 255) / 256, 256, 0, stream>>>(p1, y, N * CO, D1, H1, W1);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(sm, stream);
  cudaFreeAsync(p1, stream);
}
