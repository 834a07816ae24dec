// KernelBench level 2, problem 59: Matmul_Swish_Scaling
//   y = (t * sigmoid(t)) * scaling_factor,  t = linear(x, W, b)
#include <cuda_runtime.h>

#define BX 32
#define BY 8

// 2D launch: threadIdx.x walks output features, threadIdx.y walks batch rows.
__global__ void linear2d(const float* __restrict__ x, const float* __restrict__ w,
                         const float* __restrict__ b, float* __restrict__ y, int rows, int in_f,
                         int out_f) {
  int j = blockIdx.x * BX + threadIdx.x;
  int i = blockIdx.y * BY + threadIdx.y;
  if (i < rows && j < out_f) {
    float s = 0.f;
    for (int k = 0; k < in_f; k++) s += x[(size_t)i * in_f + k] * w[(size_t)j * in_f + k];
    y[(size_t)i * out_f + j] = s + b[j];
  }
}

__global__ void swish(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v * (1.f / (1.f + expf(-v)));
  }
}

__global__ void scaling(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

// kfuse: in  x float[rows][in_f]
// kfuse: in  w float[out_f][in_f]
// kfuse: in  b float[out_f]
// kfuse: out y float[rows][out_f]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.005,0.005)
// kfuse: init b uniform(-0.005,0.005)
// kfuse: tune  rows=128 in_f=32768 out_f=32768 scaling_factor=2.0
// kfuse: check rows=3 in_f=77 out_f=129 scaling_factor=2.0
// kfuse: check rows=13 in_f=5 out_f=40 scaling_factor=-0.75
extern "C" void matmul_swish_scaling(const float* x, const float* w, const float* b, float* y,
                                     int rows, int in_f, int out_f, float scaling_factor,
                                     cudaStream_t stream) {
  int n = rows * out_f;
  float *lin, *sw;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&sw, sizeof(float) * n, stream);
  dim3 block(BX, BY);
  dim3 grid((out_f + BX - 1) / BX, (rows + BY - 1) / BY);
  linear2d<<<grid, block, 0, stream>>>(x, w, b, lin, rows, in_f, out_f);
  swish<<<(n + 255) / 256, 256, 0, stream>>>(lin, sw, n);
  scaling<<<(n + 255) / 256, 256, 0, stream>>>(sw, y, scaling_factor, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(sw, stream);
}
