// KernelBench level 2, problem 62: Matmul_GroupNorm_LeakyReLU_Sum
//   t = group_norm(linear(x, W, b), G, gamma, beta, eps); t = leaky_relu(t, slope); y = t + t
#include <cuda_runtime.h>

// Grid-stride naive GEMM: out[r][c] = b[c] + x[r] . w[c]
__global__ void fc_forward(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, float* __restrict__ out, int rows,
                           int in_f, int out_f) {
  const long long total = (long long)rows * out_f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const int r = (int)(i / out_f);
    const int c = (int)(i % out_f);
    float acc = 0.0f;
    for (int k = 0; k < in_f; ++k) acc += x[(long long)r * in_f + k] * w[(long long)c * in_f + k];
    out[i] = acc + b[c];
  }
}

__global__ void group_norm_2d(const float* __restrict__ in, const float* __restrict__ gamma,
                              const float* __restrict__ beta, float* __restrict__ out, int rows,
                              int F, int G, float eps) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < rows * G; t += gridDim.x * blockDim.x) {
    const int gs = F / G;
    const int r = t / G;
    const int f0 = (t % G) * gs;
    const float* p = in + (long long)r * F + f0;
    float m = 0.0f;
    for (int j = 0; j < gs; ++j) m += p[j];
    m /= (float)gs;
    float v = 0.0f;
    for (int j = 0; j < gs; ++j) {
      const float d = p[j] - m;
      v += d * d;
    }
    v /= (float)gs;
    const float rs = rsqrtf(v + eps);
    float* q = out + (long long)r * F + f0;
    for (int j = 0; j < gs; ++j) q[j] = (p[j] - m) * rs * gamma[f0 + j] + beta[f0 + j];
  }
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, float slope,
                           long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float v = in[i];
    out[i] = v >= 0.0f ? v : v * slope;
  }
}

__global__ void self_add(const float* __restrict__ in, float* __restrict__ out, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i] + in[i];
}

// kfuse: in  x     float[B][IN]
// kfuse: in  w     float[HID][IN]
// kfuse: in  b     float[HID]
// kfuse: in  gamma float[HID]
// kfuse: in  beta  float[HID]
// kfuse: out y     float[B][HID]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.01,0.01)
// kfuse: init b     uniform(-0.01,0.01)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.5,0.5)
// kfuse: assume HID % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 HID=8192 G=512 eps=1e-5 negative_slope=0.01
// kfuse: check B=3 IN=77 HID=129 G=43 eps=1e-5 negative_slope=0.01
// kfuse: check B=7 IN=20 HID=36 G=4 eps=1e-5 negative_slope=0.3
extern "C" void matmul_group_norm_leaky_relu_sum(const float* x, const float* w, const float* b,
                                                 const float* gamma, const float* beta, float* y,
                                                 int B, int IN, int HID, int G, float eps,
                                                 float negative_slope, cudaStream_t stream) {
  const long long n = (long long)B * HID;
  const int threads = 256;
  const int blocks = 2048;
  float *lin, *gn, *act;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&gn, sizeof(float) * n, stream);
  cudaMallocAsync(&act, sizeof(float) * n, stream);
  fc_forward<<<blocks, threads, 0, stream>>>(x, w, b, lin, B, IN, HID);
  group_norm_2d<<<(B * G + threads - 1) / threads, threads, 0, stream>>>(lin, gamma, beta, gn, B,
                                                                         HID, G, eps);
  leaky_relu<<<blocks, threads, 0, stream>>>(gn, act, negative_slope, n);
  self_add<<<blocks, threads, 0, stream>>>(act, y, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(gn, stream);
  cudaFreeAsync(act, stream);
}
