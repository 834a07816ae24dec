// Launch-bound slice, problem 2: KernelBench level 3, problem 1 (MLP) at batch 1.
// Derived from benchmarks/corpus/level3/001_mlp.cu, the same program at other shapes:
// x -> Linear(IN,H) -> ReLU -> Linear(H,H) -> ReLU -> Linear(H,OUT).
// The Linear layers are cuBLAS calls made the way nn.Linear makes them on CUDA
// (addmm: the bias is broadcast into the output, then sgemm with beta = 1);
// ReLU is a separate elementwise kernel, as in eager mode.
// Why these shapes: batch 1 and the widths of KernelBench's original (v0) MLP (input 1000,
// hidden 800 -- the corpus program has one hidden width --, output 500): every GEMM is a
// matrix-vector product of at most 3.2 MB of weights, a few microseconds of GPU work, so a
// call's time is its 8 launches (3 bias broadcasts, 3 sgemm, 2 ReLU).
// Weights are uniform(-sqrt(6/fan_in), sqrt(6/fan_in)) so that the activations keep their
// scale through the layers.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t g_cublas = nullptr;

static cublasHandle_t cublas_for(cudaStream_t stream) {
  if (g_cublas == nullptr) cublasCreate(&g_cublas);
  cublasSetStream(g_cublas, stream);
  return g_cublas;
}

__global__ void broadcast_rows(const float* __restrict__ bias, float* __restrict__ y,
                               int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] = bias[i % cols];
}

__global__ void relu_inplace(float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.0f);
}

// y[M][N] = x[M][K] * w[N][K]^T + b[N], all row-major.
// Row-major y is column-major y^T (N x M), and y^T = w * x^T: w is column-major K x N
// (transpose it), x is column-major K x M (as it is).
static void linear(cublasHandle_t h, const float* x, const float* w, const float* b, float* y,
                   int M, int K, int N, cudaStream_t stream) {
  const int threads = 256;
  broadcast_rows<<<(M * N + threads - 1) / threads, threads, 0, stream>>>(b, y, M, N);
  const float one = 1.0f;
  cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
}

static void relu(float* y, int n, cudaStream_t stream) {
  relu_inplace<<<(n + 255) / 256, 256, 0, stream>>>(y, n);
}

// kfuse: in  x   float[B][IN]
// kfuse: in  w0  float[H][IN]
// kfuse: in  b0  float[H]
// kfuse: in  w1  float[H][H]
// kfuse: in  b1  float[H]
// kfuse: in  w2  float[OUT][H]
// kfuse: in  b2  float[OUT]
// kfuse: out out float[B][OUT]
// kfuse: init x  uniform(0,1)
// kfuse: init w0 uniform(-0.0775,0.0775)
// kfuse: init b0 uniform(-0.01,0.01)
// kfuse: init w1 uniform(-0.0866,0.0866)
// kfuse: init b1 uniform(-0.01,0.01)
// kfuse: init w2 uniform(-0.0866,0.0866)
// kfuse: init b2 uniform(-0.01,0.01)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1 IN=1000 H=800 OUT=500
// kfuse: check B=3 IN=37 H=53 OUT=19
// kfuse: check B=1 IN=9 H=5 OUT=3
extern "C" void mlp_small(const float* x, const float* w0, const float* b0, const float* w1,
                          const float* b1, const float* w2, const float* b2, float* out,
                          int B, int IN, int H, int OUT, cudaStream_t stream) {
  cublasHandle_t h = cublas_for(stream);
  float* h0;
  float* h1;
  cudaMallocAsync(&h0, sizeof(float) * B * H, stream);
  cudaMallocAsync(&h1, sizeof(float) * B * H, stream);

  linear(h, x, w0, b0, h0, B, IN, H, stream);
  relu(h0, B * H, stream);
  linear(h, h0, w1, b1, h1, B, H, H, stream);
  relu(h1, B * H, stream);
  linear(h, h1, w2, b2, out, B, H, OUT, stream);

  cudaFreeAsync(h0, stream);
  cudaFreeAsync(h1, stream);
}
