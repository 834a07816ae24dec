// KernelBench level 3, problem 2: ShallowWideMLP.
// x[B][IN] -> (Linear -> ReLU) x 2 hidden layers of width H -> Linear -> out[B][OUT].
// hidden_layer_sizes = [32768, 32768]: the weights alone are 2G floats (8 GiB) at the tune
// shape. Linear layers are a plain shared-memory tiled GEMM (one thread per output
// element, bias added in the same kernel); ReLU is its own grid-stride kernel.
// At the tune shape the three GEMMs are ~0.5 TFLOP in all (this naive GEMM took ~90 ms on
// an H200).
#include <cuda_runtime.h>
#include <cstddef>

#define NUM_HIDDEN 2

// y[m][n] = sum_k x[m][k] * w[n][k] + bias[n]   (x: M x K, w: N x K, row-major)
template <int TILE>
__global__ void linear_tiled(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ bias, float* __restrict__ y,
                             int M, int K, int N) {
  __shared__ float xs[TILE][TILE + 1];
  __shared__ float ws[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * TILE + ty;   // row of y this thread writes
  const int n = blockIdx.x * TILE + tx;   // column of y this thread writes
  const int wrow = blockIdx.x * TILE + ty;  // row of w this thread loads
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int k = k0 + tx;
    xs[ty][tx] = (m < M && k < K) ? x[(size_t)m * K + k] : 0.0f;
    ws[ty][tx] = (wrow < N && k < K) ? w[(size_t)wrow * K + k] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) acc += xs[ty][kk] * ws[tx][kk];
    __syncthreads();
  }
  if (m < M && n < N) y[(size_t)m * N + n] = acc + bias[n];
}

__global__ void relu_gs(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

static void launch_linear(const float* x, const float* w, const float* b, float* y,
                          int M, int K, int N, cudaStream_t s) {
  constexpr int T = 16;
  dim3 block(T, T);
  dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  linear_tiled<T><<<grid, block, 0, s>>>(x, w, b, y, M, K, N);
}

// kfuse: in  x      float[B][IN]
// kfuse: in  w_in   float[H][IN]
// kfuse: in  b_in   float[H]
// kfuse: in  w_hid  float[H][H]
// kfuse: in  b_hid  float[H]
// kfuse: in  w_out  float[OUT][H]
// kfuse: in  b_out  float[OUT]
// kfuse: out out    float[B][OUT]
// kfuse: init x     uniform(0,1)
// kfuse: init w_in  uniform(-0.0191,0.0191)
// kfuse: init b_in  uniform(-0.01,0.01)
// kfuse: init w_hid uniform(-0.0135,0.0135)
// kfuse: init b_hid uniform(-0.01,0.01)
// kfuse: init w_out uniform(-0.0135,0.0135)
// kfuse: init b_out uniform(-0.01,0.01)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=128 IN=16384 H=32768 OUT=16384
// kfuse: check B=5 IN=33 H=47 OUT=29
extern "C" cudaError_t shallow_wide_mlp(const float* x, const float* w_in, const float* b_in,
                                        const float* w_hid, const float* b_hid,
                                        const float* w_out, const float* b_out, float* out,
                                        int B, int IN, int H, int OUT, cudaStream_t stream) {
  const float* weights[NUM_HIDDEN + 1] = {w_in, w_hid, w_out};
  const float* biases[NUM_HIDDEN + 1] = {b_in, b_hid, b_out};
  const int fan_in[NUM_HIDDEN + 1] = {IN, H, H};
  const int fan_out[NUM_HIDDEN + 1] = {H, H, OUT};

  float* lin;   // pre-activation of the current layer
  float* act;   // post-ReLU activation fed to the next layer
  cudaError_t err = cudaMallocAsync(&lin, sizeof(float) * (size_t)B * H, stream);
  if (err != cudaSuccess) return err;
  err = cudaMallocAsync(&act, sizeof(float) * (size_t)B * H, stream);
  if (err != cudaSuccess) return err;

  const float* cur = x;
  for (int l = 0; l <= NUM_HIDDEN; ++l) {
    if (l == NUM_HIDDEN) {
      launch_linear(cur, weights[l], biases[l], out, B, fan_in[l], fan_out[l], stream);
    } else {
      launch_linear(cur, weights[l], biases[l], lin, B, fan_in[l], fan_out[l], stream);
      relu_gs<<<1024, 256, 0, stream>>>(lin, act, (size_t)B * fan_out[l]);
      cur = act;
    }
  }

  cudaFreeAsync(lin, stream);
  cudaFreeAsync(act, stream);
  return cudaGetLastError();
}
