// KernelBench level 2, problem 45: Gemm_Sigmoid_LogSumExp
//   h = sigmoid(linear(x, W1, b1)); z = linear(h, W2, b2); y = logsumexp(z, dim=1)
// Both GEMMs are cublasSgemm calls on a handle created on first use.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t g_handle = nullptr;

// y[r][c] = in[r][c] + bias[c]
__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int rows, int cols) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  out[i] = in[i] + bias[i % cols];
}

__global__ void sigmoid(const float* __restrict__ in, float* __restrict__ out, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = 1.0f / (1.0f + expf(-in[i]));
}

// One thread per row: max, then sum of exponentials, sequentially over the columns.
__global__ void logsumexp_row(const float* __restrict__ in, float* __restrict__ out, int rows,
                              int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* p = in + (long long)r * cols;
  float m = p[0];
  for (int j = 1; j < cols; ++j) m = fmaxf(m, p[j]);
  float s = 0.0f;
  for (int j = 0; j < cols; ++j) s += expf(p[j] - m);
  out[r] = m + logf(s);
}

// kfuse: in  x  float[B][IN]
// kfuse: in  w1 float[HID][IN]
// kfuse: in  b1 float[HID]
// kfuse: in  w2 float[OUT][HID]
// kfuse: in  b2 float[OUT]
// kfuse: out y  float[B]
// kfuse: init x  uniform(0,1)
// kfuse: init w1 uniform(-0.1,0.1)
// kfuse: init b1 uniform(-0.1,0.1)
// kfuse: init w2 uniform(-0.1,0.1)
// kfuse: init b2 uniform(-0.1,0.1)
// kfuse: tune  B=16384 IN=2048 HID=4096 OUT=1024
// kfuse: check B=9 IN=301 HID=129 OUT=33
// kfuse: check B=300 IN=257 HID=40 OUT=7
extern "C" void gemm_sigmoid_log_sum_exp(const float* x, const float* w1, const float* b1,
                                         const float* w2, const float* b2, float* y, int B,
                                         int IN, int HID, int OUT, cudaStream_t stream) {
  if (g_handle == nullptr) cublasCreate(&g_handle);
  cublasSetStream(g_handle, stream);
  const long long nh = (long long)B * HID, no = (long long)B * OUT;
  float *h0, *h1, *h2, *z0, *z1;
  cudaMallocAsync(&h0, nh * sizeof(float), stream);
  cudaMallocAsync(&h1, nh * sizeof(float), stream);
  cudaMallocAsync(&h2, nh * sizeof(float), stream);
  cudaMallocAsync(&z0, no * sizeof(float), stream);
  cudaMallocAsync(&z1, no * sizeof(float), stream);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(g_handle, CUBLAS_OP_T, CUBLAS_OP_N, HID, B, IN, &one, w1, IN, x, IN, &zero, h0, HID);
  add_bias<<<(unsigned)((nh + 255) / 256), 256, 0, stream>>>(h0, b1, h1, B, HID);
  sigmoid<<<(unsigned)((nh + 255) / 256), 256, 0, stream>>>(h1, h2, nh);
  cublasSgemm(g_handle, CUBLAS_OP_T, CUBLAS_OP_N, OUT, B, HID, &one, w2, HID, h2, HID, &zero, z0,
              OUT);
  add_bias<<<(unsigned)((no + 255) / 256), 256, 0, stream>>>(z0, b2, z1, B, OUT);
  logsumexp_row<<<(B + 127) / 128, 128, 0, stream>>>(z1, y, B, OUT);
  cudaFreeAsync(h0, stream);
  cudaFreeAsync(h1, stream);
  cudaFreeAsync(h2, stream);
  cudaFreeAsync(z0, stream);
  cudaFreeAsync(z1, stream);
}
