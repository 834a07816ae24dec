// KernelBench level 2, problem 17: Conv2d_InstanceNorm_Divide
//   y = instance_norm(conv2d(x, W, b)) / divide_by      (InstanceNorm2d: no affine, eps 1e-5)
#include <cuda_runtime.h>

#define TILE 16
#define NORM_THREADS 256

// 3D grid: x/y tile the output plane, z runs over (n, co).
__global__ void conv2d_3x3(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ bias, float* __restrict__ y,
                           int CI, int H, int W, int CO) {
  const int OH = H - 2, OW = W - 2;
  const int ow = blockIdx.x * TILE + threadIdx.x;
  const int oh = blockIdx.y * TILE + threadIdx.y;
  const int nc = blockIdx.z;
  if (oh < OH && ow < OW) {
    const int n = nc / CO, co = nc % CO;
    float acc = bias[co];
    for (int ci = 0; ci < CI; ++ci) {
      for (int kh = 0; kh < 3; ++kh) {
        for (int kw = 0; kw < 3; ++kw) {
          acc += x[((size_t)(n * CI + ci) * H + oh + kh) * W + ow + kw] *
                 w[((co * CI + ci) * 3 + kh) * 3 + kw];
        }
      }
    }
    y[((size_t)nc * OH + oh) * OW + ow] = acc;
  }
}

// One block per (n, c) plane: mean, then biased variance, by shared-memory tree reductions.
__global__ void instance_norm_stats(const float* __restrict__ y, float* __restrict__ mean,
                                    float* __restrict__ rstd, int HW, float eps) {
  __shared__ float buf[NORM_THREADS];
  const float* p = y + (size_t)blockIdx.x * HW;
  float s = 0.f;
  for (int i = threadIdx.x; i < HW; i += NORM_THREADS) s += p[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int off = NORM_THREADS / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) buf[threadIdx.x] += buf[threadIdx.x + off];
    __syncthreads();
  }
  const float m = buf[0] / HW;
  __syncthreads();
  float v = 0.f;
  for (int i = threadIdx.x; i < HW; i += NORM_THREADS) {
    const float d = p[i] - m;
    v += d * d;
  }
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int off = NORM_THREADS / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) buf[threadIdx.x] += buf[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = rsqrtf(buf[0] / HW + eps);
  }
}

__global__ void instance_norm_apply(const float* __restrict__ y, const float* __restrict__ mean,
                                    const float* __restrict__ rstd, float* __restrict__ out,
                                    int HW, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    const int plane = i / HW;
    out[i] = (y[i] - mean[plane]) * rstd[plane];
  }
}

__global__ void divide_scalar(const float* __restrict__ in, float* __restrict__ out,
                              float d, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) out[i] = in[i] / d;
}

// kfuse: in  x      float[N][CI][H][W]
// kfuse: in  w      float[CO][CI][3][3]
// kfuse: in  b      float[CO]
// kfuse: out out    float[N][CO][H - 2][W - 2]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.04,0.04)
// kfuse: init b uniform(-0.04,0.04)
// kfuse: assume H >= 4 && W >= 4
// kfuse: assume N * CO <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 CI=64 H=128 W=128 CO=128 divide_by=2.0
// kfuse: check N=3 CI=5 H=13 W=11 CO=7 divide_by=2.0
extern "C" void conv2d_instance_norm_divide(const float* x, const float* w, const float* b,
                                            float* out, int N, int CI, int H, int W, int CO,
                                            float divide_by, cudaStream_t stream) {
  const int OH = H - 2, OW = W - 2;
  const int HW = OH * OW;
  const int total = N * CO * HW;
  float *conv, *normed, *mean, *rstd;
  cudaMalloc(&conv, sizeof(float) * total);
  cudaMalloc(&normed, sizeof(float) * total);
  cudaMalloc(&mean, sizeof(float) * N * CO);
  cudaMalloc(&rstd, sizeof(float) * N * CO);

  dim3 block(TILE, TILE);
  dim3 grid((OW + TILE - 1) / TILE, (OH + TILE - 1) / TILE, N * CO);
  conv2d_3x3<<<grid, block, 0, stream>>>(x, w, b, conv, CI, H, W, CO);
  instance_norm_stats<<<N * CO, NORM_THREADS, 0, stream>>>(conv, mean, rstd, HW, 1e-5f);
  instance_norm_apply<<<(total + 255) / 256, 256, 0, stream>>>(conv, mean, rstd, normed, HW, total);
  divide_scalar<<<(total + 255) / 256, 256, 0, stream>>>(normed, out, divide_by, total);

  cudaFree(conv);
  cudaFree(normed);
  cudaFree(mean);
  cudaFree(rstd);
}
