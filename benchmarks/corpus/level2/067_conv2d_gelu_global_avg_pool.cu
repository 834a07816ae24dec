// KernelBench level 2, problem 67: Conv2d_GELU_GlobalAvgPool
//   y[n][c] = mean_{h,w} gelu(conv2d(x))[n][c][h][w]
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_erf(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void conv2d_3x3_valid(const float* __restrict__ x, const float* __restrict__ w,
                                 const float* __restrict__ b, float* __restrict__ y,
                                 int N, int CI, int H, int W, int CO) {
  const int OH = H - 2;
  const int OW = W - 2;
  // 2D grid: x over (n, co, oh) rows, y over column tiles of blockDim.x outputs.
  const int row = blockIdx.x;
  const int ow = blockIdx.y * blockDim.x + threadIdx.x;
  if (ow >= OW) return;
  const int oh = row % OH;
  const int co = (row / OH) % CO;
  const int n = row / (OH * CO);
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    const float* xr = x + ((size_t)(n * CI + ci) * H + oh) * W + ow;
    const float* wr = w + (co * CI + ci) * 9;
    acc += xr[0] * wr[0] + xr[1] * wr[1] + xr[2] * wr[2];
    acc += xr[W] * wr[3] + xr[W + 1] * wr[4] + xr[W + 2] * wr[5];
    acc += xr[2 * W] * wr[6] + xr[2 * W + 1] * wr[7] + xr[2 * W + 2] * wr[8];
  }
  y[(size_t)row * OW + ow] = acc;
}

__global__ void gelu_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gelu_erf(in[i]);
}

// adaptive_avg_pool2d(., 1): one thread per (n, c), looping over the plane.
__global__ void global_avg_pool(const float* __restrict__ in, float* __restrict__ out, int NC,
                                int HW) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= NC) return;
  const float* src = in + (size_t)p * HW;
  float s = 0.0f;
  for (int i = 0; i < HW; ++i) s += src[i];
  out[p] = s / HW;
}

// kfuse: in  x float[N][CI][H][W]
// kfuse: in  w float[CO][CI][3][3]
// kfuse: in  b float[CO]
// kfuse: out y float[N][CO]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.1,0.1)
// kfuse: init b uniform(-0.1,0.1)
// kfuse: assume H >= 3 && W >= 3
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune  N=128 CI=8 H=256 W=256 CO=64
// kfuse: check N=3 CI=3 H=13 W=17 CO=5
extern "C" void conv2d_gelu_global_avg_pool(const float* x, const float* w, const float* b,
                                            float* y, int N, int CI, int H, int W, int CO,
                                            cudaStream_t stream) {
  const int OH = H - 2, OW = W - 2;
  const size_t n = (size_t)N * CO * OH * OW;
  float *conv, *act;
  cudaMallocAsync(&conv, n * sizeof(float), stream);
  cudaMallocAsync(&act, n * sizeof(float), stream);
  dim3 block(128);
  dim3 grid(N * CO * OH, (OW + 127) / 128);
  conv2d_3x3_valid<<<grid, block, 0, stream>>>(x, w, b, conv, N, CI, H, W, CO);
  gelu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(conv, act, n);
  global_avg_pool<<<(N * CO + 127) / 128, 128, 0, stream>>>(act, y, N * CO, OH * OW);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(act, stream);
}
