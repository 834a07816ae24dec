// Launch-bound slice, problem 7: KernelBench level 3, problem 4 (LeNet5) at batch 1.
// Derived from benchmarks/corpus/level3/004_lenet5.cu, the same program:
//   conv 5x5 (1->6) + ReLU -> maxpool 2x2 -> conv 5x5 (6->16) + ReLU -> maxpool 2x2
//   -> flatten (400) -> FC 120 + ReLU -> FC 84 + ReLU -> FC NC
// Input x[B][1][32][32]. Every operator is its own naive kernel, one thread per output
// element. Unlike level3/004, scratch comes from cudaMallocAsync / cudaFreeAsync on the
// stream (cudaFree synchronizes the device, which would dwarf the work at this size).
// Why these shapes: batch 1 (KernelBench's original LeNet-5 shape; 20 classes as at HEAD):
// the largest kernel is the first convolution's 4704 outputs of 25 multiply-adds, a few
// microseconds, so a call's time is its 11 launches.
#include <cuda_runtime.h>

#define IMG 32
#define KS 5
#define C1 6
#define C2 16
#define F1 120
#define F2 84
#define FLAT (C2 * 5 * 5)

// valid convolution, stride 1: y[n][oc][oh][ow], OH = H - KS + 1
__global__ void conv2d_valid(const float* x, const float* w, const float* bias, float* y,
                             int N, int C, int H, int W, int OC) {
  int OH = H - KS + 1, OW = W - KS + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int total = N * OC * OH * OW;
  if (idx >= total) return;
  int ow = idx % OW;
  int oh = (idx / OW) % OH;
  int oc = (idx / (OW * OH)) % OC;
  int n = idx / (OW * OH * OC);
  float acc = bias[oc];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < KS; ++kh)
      for (int kw = 0; kw < KS; ++kw)
        acc += x[((n * C + c) * H + oh + kh) * W + ow + kw] *
               w[((oc * C + c) * KS + kh) * KS + kw];
  y[idx] = acc;
}

__global__ void relu(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.f);
}

// 2x2 max pool, stride 2, on [NC][H][W] planes (NC = batch * channels)
__global__ void maxpool2(const float* x, float* y, int planes, int H, int W) {
  int OH = H / 2, OW = W / 2;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= planes * OH * OW) return;
  int ow = idx % OW, oh = (idx / OW) % OH, p = idx / (OW * OH);
  const float* src = x + (p * H + 2 * oh) * W + 2 * ow;
  y[idx] = fmaxf(fmaxf(src[0], src[1]), fmaxf(src[W], src[W + 1]));
}

// y[n][o] = sum_k x[n][k] * w[o][k] + b[o]
__global__ void fc(const float* x, const float* w, const float* b, float* y, int N, int K,
                   int O) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * O) return;
  int o = idx % O, n = idx / O;
  float acc = b[o];
  for (int k = 0; k < K; ++k) acc += x[n * K + k] * w[o * K + k];
  y[idx] = acc;
}

static inline int blocks(int n) { return (n + 255) / 256; }

// kfuse: in  x       float[B][1][32][32]
// kfuse: in  conv1_w float[6][1][5][5]
// kfuse: in  conv1_b float[6]
// kfuse: in  conv2_w float[16][6][5][5]
// kfuse: in  conv2_b float[16]
// kfuse: in  fc1_w   float[120][400]
// kfuse: in  fc1_b   float[120]
// kfuse: in  fc2_w   float[84][120]
// kfuse: in  fc2_b   float[84]
// kfuse: in  fc3_w   float[NC][84]
// kfuse: in  fc3_b   float[NC]
// kfuse: out logits  float[B][NC]
// kfuse: init x       uniform(0,1)
// kfuse: init conv1_w uniform(-0.49,0.49)
// kfuse: init conv1_b uniform(-0.05,0.05)
// kfuse: init conv2_w uniform(-0.2,0.2)
// kfuse: init conv2_b uniform(-0.05,0.05)
// kfuse: init fc1_w   uniform(-0.1225,0.1225)
// kfuse: init fc1_b   uniform(-0.05,0.05)
// kfuse: init fc2_w   uniform(-0.2236,0.2236)
// kfuse: init fc2_b   uniform(-0.05,0.05)
// kfuse: init fc3_w   uniform(-0.267,0.267)
// kfuse: init fc3_b   uniform(-0.05,0.05)
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  B=1 NC=20
// kfuse: check B=3 NC=7
// kfuse: check B=1 NC=1
extern "C" void lenet5_batch1(const float* x, const float* conv1_w, const float* conv1_b,
                              const float* conv2_w, const float* conv2_b, const float* fc1_w,
                              const float* fc1_b, const float* fc2_w, const float* fc2_b,
                              const float* fc3_w, const float* fc3_b, float* logits, int B,
                              int NC, cudaStream_t stream) {
  const int n_c1 = B * C1 * 28 * 28, n_p1 = B * C1 * 14 * 14;
  const int n_c2 = B * C2 * 10 * 10, n_p2 = B * FLAT;
  float *c1, *p1, *c2, *p2, *f1, *f2;
  cudaMallocAsync(&c1, sizeof(float) * n_c1, stream);
  cudaMallocAsync(&p1, sizeof(float) * n_p1, stream);
  cudaMallocAsync(&c2, sizeof(float) * n_c2, stream);
  cudaMallocAsync(&p2, sizeof(float) * n_p2, stream);
  cudaMallocAsync(&f1, sizeof(float) * B * F1, stream);
  cudaMallocAsync(&f2, sizeof(float) * B * F2, stream);

  conv2d_valid<<<blocks(n_c1), 256, 0, stream>>>(x, conv1_w, conv1_b, c1, B, 1, IMG, IMG, C1);
  relu<<<blocks(n_c1), 256, 0, stream>>>(c1, n_c1);
  maxpool2<<<blocks(n_p1), 256, 0, stream>>>(c1, p1, B * C1, 28, 28);
  conv2d_valid<<<blocks(n_c2), 256, 0, stream>>>(p1, conv2_w, conv2_b, c2, B, C1, 14, 14, C2);
  relu<<<blocks(n_c2), 256, 0, stream>>>(c2, n_c2);
  maxpool2<<<blocks(n_p2), 256, 0, stream>>>(c2, p2, B * C2, 10, 10);
  // p2 is [B][16][5][5] == the flattened [B][400]
  fc<<<blocks(B * F1), 256, 0, stream>>>(p2, fc1_w, fc1_b, f1, B, FLAT, F1);
  relu<<<blocks(B * F1), 256, 0, stream>>>(f1, B * F1);
  fc<<<blocks(B * F2), 256, 0, stream>>>(f1, fc2_w, fc2_b, f2, B, F1, F2);
  relu<<<blocks(B * F2), 256, 0, stream>>>(f2, B * F2);
  fc<<<blocks(B * NC), 256, 0, stream>>>(f2, fc3_w, fc3_b, logits, B, F2, NC);

  cudaFreeAsync(c1, stream);
  cudaFreeAsync(p1, stream);
  cudaFreeAsync(c2, stream);
  cudaFreeAsync(p2, stream);
  cudaFreeAsync(f1, stream);
  cudaFreeAsync(f2, stream);
}
