// KernelBench level 2, problem 87: Conv2d_Subtract_Subtract_Mish
//   y = mish(conv2d(x) - subtract_value_1 - subtract_value_2)
#include <cuda_runtime.h>

constexpr int KH = 3, KW = 3;

__device__ __forceinline__ float softplus(float v) {
  // PyTorch's softplus with beta = 1, threshold = 20
  return v > 20.0f ? v : log1pf(expf(v));
}

__device__ __forceinline__ float mish_act(float v) { return v * tanhf(softplus(v)); }

__global__ void conv2d_naive(const float* __restrict__ input, const float* __restrict__ weight,
                             const float* __restrict__ bias, float* __restrict__ output,
                             int batch, int in_c, int in_h, int in_w, int out_c) {
  const int out_h = in_h - KH + 1;
  const int out_w = in_w - KW + 1;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int total = batch * out_c * out_h * out_w;
  if (idx < total) {
    const int x = idx % out_w;
    const int y = (idx / out_w) % out_h;
    const int oc = (idx / (out_w * out_h)) % out_c;
    const int b = idx / (out_w * out_h * out_c);
    float sum = bias[oc];
    for (int ic = 0; ic < in_c; ++ic) {
      for (int ky = 0; ky < KH; ++ky) {
        for (int kx = 0; kx < KW; ++kx) {
          const float iv = input[((b * in_c + ic) * in_h + y + ky) * in_w + x + kx];
          const float wv = weight[((oc * in_c + ic) * KH + ky) * KW + kx];
          sum += iv * wv;
        }
      }
    }
    output[idx] = sum;
  }
}

__global__ void subtract_const(const float* __restrict__ in, float* __restrict__ out,
                               const float value, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - value;
}

__global__ void mish_kernel(const float* __restrict__ in, float* __restrict__ out, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mish_act(in[i]);
}

// kfuse: in  input  float[batch][in_c][in_h][in_w]
// kfuse: in  weight float[out_c][in_c][3][3]
// kfuse: in  bias   float[out_c]
// kfuse: out output float[batch][out_c][in_h - 2][in_w - 2]
// kfuse: init input  uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume in_h >= 3 && in_w >= 3
// kfuse: tune  batch=128 in_c=8 in_h=256 in_w=256 out_c=64 subtract_value_1=0.5 subtract_value_2=0.2
// kfuse: check batch=3 in_c=3 in_h=7 in_w=11 out_c=5 subtract_value_1=0.5 subtract_value_2=0.2
extern "C" void conv2d_subtract_subtract_mish(const float* input, const float* weight,
                                              const float* bias, float* output, int batch,
                                              int in_c, int in_h, int in_w, int out_c,
                                              float subtract_value_1, float subtract_value_2,
                                              cudaStream_t stream) {
  const int n = batch * out_c * (in_h - KH + 1) * (in_w - KW + 1);
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  float *conv_out, *s1, *s2;
  cudaMallocAsync(&conv_out, sizeof(float) * n, stream);
  cudaMallocAsync(&s1, sizeof(float) * n, stream);
  cudaMallocAsync(&s2, sizeof(float) * n, stream);
  conv2d_naive<<<blocks, threads, 0, stream>>>(input, weight, bias, conv_out, batch, in_c, in_h,
                                               in_w, out_c);
  subtract_const<<<blocks, threads, 0, stream>>>(conv_out, s1, subtract_value_1, n);
  subtract_const<<<blocks, threads, 0, stream>>>(s1, s2, subtract_value_2, n);
  mish_kernel<<<blocks, threads, 0, stream>>>(s2, output, n);
  cudaFreeAsync(conv_out, stream);
  cudaFreeAsync(s1, stream);
  cudaFreeAsync(s2, stream);
}
