// KernelBench level 2, problem 71: Conv2d_Divide_LeakyReLU
//   y = leaky_relu(conv2d(x) / divisor, 0.01)
#include <cuda_runtime.h>

#define BLOCK 256
#define NEG_SLOPE 0.01f

__global__ void conv2d(const float* __restrict__ in, const float* __restrict__ weight,
                       const float* __restrict__ bias, float* __restrict__ out,
                       int batch, int cin, int h, int w, int cout, int k) {
  int oh_n = h - k + 1, ow_n = w - k + 1;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < batch * cout * oh_n * ow_n) {
    int ow = i % ow_n;
    int oh = (i / ow_n) % oh_n;
    int oc = (i / (ow_n * oh_n)) % cout;
    int b = i / (ow_n * oh_n * cout);
    float v = bias[oc];
    for (int ic = 0; ic < cin; ++ic)
      for (int kh = 0; kh < k; ++kh)
        for (int kw = 0; kw < k; ++kw)
          v += in[((b * cin + ic) * h + oh + kh) * w + ow + kw] *
               weight[((oc * cin + ic) * k + kh) * k + kw];
    out[i] = v;
  }
}

__global__ void divide(const float* __restrict__ in, float* __restrict__ out, float d, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = in[i] / d;
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v > 0.0f ? v : v * NEG_SLOPE;
  }
}

// kfuse: in  input  float[batch][cin][h][w]
// kfuse: in  weight float[cout][cin][k][k]
// kfuse: in  bias   float[cout]
// kfuse: out output float[batch][cout][h - k + 1][w - k + 1]
// kfuse: init input  uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume k >= 1 && h >= k && w >= k
// kfuse: tune  batch=128 cin=8 h=128 w=128 cout=64 k=3 divisor=2.0
// kfuse: check batch=3 cin=3 h=9 w=10 cout=5 k=3 divisor=2.0
// kfuse: check batch=2 cin=4 h=7 w=6 cout=3 k=1 divisor=-0.5
extern "C" cudaError_t conv2d_divide_leaky_relu(const float* input, const float* weight,
                                                const float* bias, float* output, int batch,
                                                int cin, int h, int w, int cout, int k,
                                                float divisor, cudaStream_t stream) {
  int n = batch * cout * (h - k + 1) * (w - k + 1);
  int grid = (n + BLOCK - 1) / BLOCK;
  float* conv_out = nullptr;
  float* div_out = nullptr;
  cudaError_t err = cudaMallocAsync(&conv_out, sizeof(float) * n, stream);
  if (err != cudaSuccess) return err;
  err = cudaMallocAsync(&div_out, sizeof(float) * n, stream);
  if (err != cudaSuccess) return err;
  conv2d<<<grid, BLOCK, 0, stream>>>(input, weight, bias, conv_out, batch, cin, h, w, cout, k);
  divide<<<grid, BLOCK, 0, stream>>>(conv_out, div_out, divisor, n);
  leaky_relu<<<grid, BLOCK, 0, stream>>>(div_out, output, n);
  cudaFreeAsync(conv_out, stream);
  cudaFreeAsync(div_out, stream);
  return cudaGetLastError();
}
