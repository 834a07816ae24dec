// KernelBench level 3, problem 33: VanillaRNN (HEAD forward(x, initial_hidden)).
//   combined = cat(x, hidden)                    [B][I+H]
//   hidden   = tanh(i2h(combined))               [B][H]   (stored back in the module)
//   out      = h2o(hidden)                       [B][O]
// The module keeps its hidden state between calls, so here the state is an inout buffer:
// it holds initial_hidden on entry and the new hidden state on exit. KernelBench's forward
// returns only `out`; the twin returns (hidden, out).
// Linear layers go through cuBLAS like nn.Linear (bias broadcast, sgemm with beta = 1).
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t s_handle;
static bool s_handle_ready = false;

__global__ void concat_cols(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int rows, int ca, int cb) {
  const int cols = ca + cb;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  const int r = i / cols, c = i % cols;
  out[i] = c < ca ? a[r * ca + c] : b[r * cb + (c - ca)];
}

__global__ void fill_bias(const float* __restrict__ bias, float* __restrict__ y, int rows,
                          int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] = bias[i % cols];
}

__global__ void tanh_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tanhf(in[i]);
}

static cublasStatus_t addmm(const float* x, const float* w, const float* b, float* y, int M,
                            int K, int N, cudaStream_t stream) {
  fill_bias<<<(M * N + 255) / 256, 256, 0, stream>>>(b, y, M, N);
  const float one = 1.0f;
  // row-major y[M][N] += x[M][K] w[N][K]^T   <=>   col-major y^T = w^T(op T) x^T
  return cublasSgemm(s_handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
}

// kfuse: in    x      float[B][I]
// kfuse: inout hidden float[B][H]
// kfuse: in    i2h_w  float[H][I+H]
// kfuse: in    i2h_b  float[H]
// kfuse: in    h2o_w  float[O][H]
// kfuse: in    h2o_b  float[O]
// kfuse: out   out    float[B][O]
// kfuse: init x      uniform(0,1)
// kfuse: init hidden uniform(0,1)
// kfuse: init i2h_w  uniform(-0.0055,0.0055)
// kfuse: init i2h_b  uniform(-0.0055,0.0055)
// kfuse: init h2o_w  uniform(-0.0078,0.0078)
// kfuse: init h2o_b  uniform(-0.0078,0.0078)
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune  B=256 I=16384 H=16384 O=8192
// kfuse: check B=3 I=29 H=37 O=11
extern "C" cudaError_t vanilla_rnn(const float* x, float* hidden, const float* i2h_w,
                                   const float* i2h_b, const float* h2o_w, const float* h2o_b,
                                   float* out, int B, int I, int H, int O,
                                   cudaStream_t stream) {
  if (!s_handle_ready) {
    if (cublasCreate(&s_handle) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    s_handle_ready = true;
  }
  cublasSetStream(s_handle, stream);

  float *combined, *pre;
  cudaError_t err = cudaMallocAsync(&combined, sizeof(float) * B * (I + H), stream);
  if (err != cudaSuccess) return err;
  err = cudaMallocAsync(&pre, sizeof(float) * B * H, stream);
  if (err != cudaSuccess) return err;

  const int n_comb = B * (I + H);
  concat_cols<<<(n_comb + 255) / 256, 256, 0, stream>>>(x, hidden, combined, B, I, H);
  addmm(combined, i2h_w, i2h_b, pre, B, I + H, H, stream);
  tanh_kernel<<<(B * H + 255) / 256, 256, 0, stream>>>(pre, hidden, B * H);
  addmm(hidden, h2o_w, h2o_b, out, B, H, O, stream);

  cudaFreeAsync(combined, stream);
  cudaFreeAsync(pre, stream);
  return cudaGetLastError();
}
