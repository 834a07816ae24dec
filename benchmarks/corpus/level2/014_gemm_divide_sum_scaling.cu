// KernelBench level 2, problem 14: Gemm_Divide_Sum_Scaling
//   t = x @ W^T (no bias); t = t / 2; s = sum(t, dim=1, keepdim); y = s * scaling_factor
#include <cuda_runtime.h>

constexpr int ROW_THREADS = 256;

__global__ void matmul_wt(const float* __restrict__ x, const float* __restrict__ w,
                          float* __restrict__ out, int B, int I, int Hd) {
  int h = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (h >= Hd) return;
  float s = 0.0f;
  for (int k = 0; k < I; ++k) s += x[r * I + k] * w[h * I + k];
  out[r * Hd + h] = s;
}

__global__ void div2(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] / 2.0f;
}

// sum over dim=1: one block per row with a shared-memory tree reduction.
__global__ void row_sum(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float part[ROW_THREADS];
  const float* row = in + (size_t)blockIdx.x * cols;
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += ROW_THREADS) s += row[j];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int step = ROW_THREADS / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

__global__ void scale(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * s;
}

// kfuse: in  x      float[B][I]
// kfuse: in  weight float[Hd][I]
// kfuse: out y      float[B][1]
// kfuse: init x      uniform(0,1)
// kfuse: init weight uniform(-0.01,0.01)
// kfuse: assume B <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 I=8192 Hd=8192 scaling_factor=1.5
// kfuse: check B=3 I=77 Hd=129 scaling_factor=1.5
// kfuse: check B=6 I=19 Hd=1000 scaling_factor=-0.5
extern "C" void gemm_divide_sum_scaling(const float* x, const float* weight, float* y, int B,
                                        int I, int Hd, float scaling_factor,
                                        cudaStream_t stream) {
  const int n = B * Hd;
  float *mm, *half, *sums;
  cudaMallocAsync(&mm, sizeof(float) * n, stream);
  cudaMallocAsync(&half, sizeof(float) * n, stream);
  cudaMallocAsync(&sums, sizeof(float) * B, stream);
  matmul_wt<<<dim3((Hd + 127) / 128, B), 128, 0, stream>>>(x, weight, mm, B, I, Hd);
  div2<<<(n + 255) / 256, 256, 0, stream>>>(mm, half, n);
  row_sum<<<B, ROW_THREADS, 0, stream>>>(half, sums, Hd);
  scale<<<(B + 255) / 256, 256, 0, stream>>>(sums, y, scaling_factor, B);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(half, stream);
  cudaFreeAsync(sums, stream);
}
