// The second kernel sums exp(f - max) for another f than the one the first takes the max
// of (here |x| against x): no online softmax, and a remark says why.
// RUN: %kfuse %s --passes=fuse-row-stats --emit=transformed -R -o - 2>&1 | FileCheck %s
// CHECK: remark: not fused: 'row_max_kernel' and 'row_sumexp_kernel': the second sums exp(f - max) for another f than the first's [-Rpass-missed=fuse-row-stats]
// CHECK-NOT: {{^// kfuse variant}}
// CHECK-LABEL: {{^}}extern "C" void softmax
// CHECK: row_max_kernel<<<rows, 256, 0, stream>>>(x, row_max, D);
// CHECK-NEXT: row_sumexp_kernel<<<rows, 256, 0, stream>>>(x, row_max, row_sum, D);
#include <cuda_runtime.h>
#include <math.h>

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, int D) {
  __shared__ float smem[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, fabsf(xr[j]));
  smem[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) row_max[blockIdx.x] = smem[0];
}

__global__ void row_sumexp_kernel(const float* __restrict__ x, const float* __restrict__ row_max,
                                  float* __restrict__ row_sum, int D) {
  __shared__ float smem[256];
  const float* xr = x + (size_t)blockIdx.x * D;
  const float m = row_max[blockIdx.x];
  float acc = 0.0f;
  for (int j = threadIdx.x; j < D; j += blockDim.x) acc += expf(xr[j] - m);
  smem[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) row_sum[blockIdx.x] = smem[0];
}

__global__ void out_kernel(const float* x, const float* row_max, const float* row_sum, float* y, int D) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= D) return;
  y[(size_t)row * D + col] = expf(x[(size_t)row * D + col] - row_max[row]) / row_sum[row];
}

// kfuse: in  x float[rows][D]
// kfuse: out y float[rows][D]
// kfuse: tune rows=64 D=4096
extern "C" void softmax(const float* x, float* y, int rows, int D, cudaStream_t stream) {
  float *row_max, *row_sum;
  cudaMallocAsync(&row_max, rows * sizeof(float), stream);
  cudaMallocAsync(&row_sum, rows * sizeof(float), stream);
  row_max_kernel<<<rows, 256, 0, stream>>>(x, row_max, D);
  row_sumexp_kernel<<<rows, 256, 0, stream>>>(x, row_max, row_sum, D);
  dim3 grid((D + 255) / 256, rows);
  out_kernel<<<grid, 256, 0, stream>>>(x, row_max, row_sum, y, D);
  cudaFreeAsync(row_max, stream);
  cudaFreeAsync(row_sum, stream);
}
