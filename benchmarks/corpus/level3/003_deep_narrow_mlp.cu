// KernelBench level 3, problem 3: DeepNarrowMLP.
// x[B][IN] -> L x (Linear -> ReLU) with H units each -> Linear(H, OUT).
// hidden_layer_sizes = [1024] * 16, so L = 16 at the tune shape.
// The L-1 square hidden layers are packed in one buffer (w_hid[L-1][H][H], b_hid[L][H] holds
// the biases of all L hidden layers) and the host walks it with pointer offsets.
// GEMMs go through cuBLAS (sgemm, beta = 0); the bias add and the ReLU are elementwise
// kernels, one per operator.
// Weights are He-uniform at the tune shapes (1024 units: +-0.0765, input 8192: +-0.0271) so
// that the signal neither vanishes nor explodes through 17 layers.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdint>

namespace {

cublasHandle_t handle = nullptr;

struct AddRowBias {
  const float* bias;
  int64_t cols;
  __device__ float operator()(float v, int64_t i) const { return v + bias[i % cols]; }
};

struct Relu {
  __device__ float operator()(float v, int64_t) const { return v > 0.0f ? v : 0.0f; }
};

}  // namespace

template <typename Op>
__global__ void map_inplace(float* __restrict__ y, int64_t n, Op op) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = op(y[i], i);
}

template <typename Op>
static void launch_map(float* y, int64_t n, Op op, cudaStream_t stream) {
  const int threads = 512;
  map_inplace<Op><<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(y, n, op);
}

// y[M][N] = x[M][K] * w[N][K]^T (row-major; cuBLAS sees the column-major transposes)
static void gemm_xwT(const float* x, const float* w, float* y, int M, int K, int N) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, x, K, &beta, y, N);
}

// kfuse: in  x     float[B][IN]
// kfuse: in  w_in  float[H][IN]
// kfuse: in  w_hid float[L-1][H][H]
// kfuse: in  b_hid float[L][H]
// kfuse: in  w_out float[OUT][H]
// kfuse: in  b_out float[OUT]
// kfuse: out y     float[B][OUT]
// kfuse: init x     uniform(0,1)
// kfuse: init w_in  uniform(-0.0271,0.0271)
// kfuse: init w_hid uniform(-0.0765,0.0765)
// kfuse: init b_hid uniform(-0.03,0.03)
// kfuse: init w_out uniform(-0.0765,0.0765)
// kfuse: init b_out uniform(-0.03,0.03)
// kfuse: assume L >= 2
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1024 IN=8192 H=1024 L=16 OUT=8192
// kfuse: check B=7 IN=45 H=31 L=3 OUT=23
extern "C" void deep_narrow_mlp(const float* x, const float* w_in, const float* w_hid,
                                const float* b_hid, const float* w_out, const float* b_out,
                                float* y, int B, int IN, int H, int L, int OUT,
                                cudaStream_t stream) {
  if (handle == nullptr) cublasCreate(&handle);
  cublasSetStream(handle, stream);

  const int64_t act_elems = (int64_t)B * H;
  float* bufs[2];
  cudaMallocAsync(&bufs[0], act_elems * sizeof(float), stream);
  cudaMallocAsync(&bufs[1], act_elems * sizeof(float), stream);

  // hidden layer 0: IN -> H
  gemm_xwT(x, w_in, bufs[0], B, IN, H);
  launch_map(bufs[0], act_elems, AddRowBias{b_hid, H}, stream);
  launch_map(bufs[0], act_elems, Relu{}, stream);

  // hidden layers 1 .. L-1: H -> H
  for (int l = 1; l < L; ++l) {
    const float* src = bufs[(l - 1) & 1];
    float* dst = bufs[l & 1];
    const float* w = w_hid + (int64_t)(l - 1) * H * H;
    const float* b = b_hid + (int64_t)l * H;
    gemm_xwT(src, w, dst, B, H, H);
    launch_map(dst, act_elems, AddRowBias{b, H}, stream);
    launch_map(dst, act_elems, Relu{}, stream);
  }

  // output layer: H -> OUT
  gemm_xwT(bufs[(L - 1) & 1], w_out, y, B, H, OUT);
  launch_map(y, (int64_t)B * OUT, AddRowBias{b_out, OUT}, stream);

  cudaFreeAsync(bufs[0], stream);
  cudaFreeAsync(bufs[1], stream);
}
