// Launch-bound slice, problem 3: KernelBench level 3, problem 3 (DeepNarrowMLP) at batch 1.
// Derived from benchmarks/corpus/level3/003_deep_narrow_mlp.cu, the same program at batch 1
// with its layer widths: x[B][IN] -> L x (Linear -> ReLU) with H units each -> Linear(H, OUT),
// L = 16 hidden layers of 1024 units, input 8192, output 8192.
// The L-1 square hidden layers are packed in one buffer (w_hid[L-1][H][H], b_hid[L][H] holds
// the biases of all L hidden layers) and the host walks it with pointer offsets.
// GEMMs go through cuBLAS (sgemm, beta = 0); the bias add and the ReLU are elementwise
// kernels, one per operator. Unlike level3/003, the bias add and the ReLU are plain kernels
// (not a template over functors: a functor holding the bias pointer is not inlined by
// kfuse) and each hidden layer's activations have their own slice of one scratch buffer
// (not a ping-pong pair picked by index), so that kfuse models every read and write.
// Why these shapes: at batch 1 every GEMM is a matrix-vector product (4 MB of weights for a
// hidden layer, 32 MB for the input and output layers: about 30 us of memory traffic in
// all), and a call makes 50 launches (17 sgemm, 17 bias adds, 16 ReLU), most of them a few
// microseconds of GPU work.
// Weights are He-uniform (1024 units: +-0.0765, input 8192: +-0.0271) so that the signal
// neither vanishes nor explodes through 17 layers.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdint>

namespace {
cublasHandle_t handle = nullptr;
}  // namespace

// y[i] += bias[i % cols]
__global__ void add_row_bias_inplace(float* __restrict__ y, const float* __restrict__ bias,
                                     int64_t n, int64_t cols) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] + bias[i % cols];
}

__global__ void relu_inplace(float* __restrict__ y, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}

static unsigned blocks_for(int64_t n) { return (unsigned)((n + 511) / 512); }

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
// kfuse: tune  B=1 IN=8192 H=1024 L=16 OUT=8192
// kfuse: check B=7 IN=45 H=31 L=3 OUT=23
// kfuse: check B=1 IN=33 H=17 L=5 OUT=9
extern "C" void deep_narrow_mlp_small(const float* x, const float* w_in, const float* w_hid,
                                      const float* b_hid, const float* w_out,
                                      const float* b_out, float* y, int B, int IN, int H,
                                      int L, int OUT, cudaStream_t stream) {
  if (handle == nullptr) cublasCreate(&handle);
  cublasSetStream(handle, stream);

  // One activation buffer per hidden layer (eager mode allocates a new tensor for each).
  const int64_t act_elems = (int64_t)B * H;
  float* acts;
  cudaMallocAsync(&acts, (int64_t)L * act_elems * sizeof(float), stream);

  // hidden layer 0: IN -> H
  gemm_xwT(x, w_in, acts, B, IN, H);
  add_row_bias_inplace<<<blocks_for(act_elems), 512, 0, stream>>>(acts, b_hid, act_elems, H);
  relu_inplace<<<blocks_for(act_elems), 512, 0, stream>>>(acts, act_elems);

  // hidden layers 1 .. L-1: H -> H
  for (int l = 1; l < L; ++l) {
    gemm_xwT(acts + (int64_t)(l - 1) * act_elems, w_hid + (int64_t)(l - 1) * H * H,
             acts + (int64_t)l * act_elems, B, H, H);
    add_row_bias_inplace<<<blocks_for(act_elems), 512, 0, stream>>>(
        acts + (int64_t)l * act_elems, b_hid + (int64_t)l * H, act_elems, H);
    relu_inplace<<<blocks_for(act_elems), 512, 0, stream>>>(acts + (int64_t)l * act_elems,
                                                            act_elems);
  }

  // output layer: H -> OUT
  gemm_xwT(acts + (int64_t)(L - 1) * act_elems, w_out, y, B, H, OUT);
  add_row_bias_inplace<<<blocks_for((int64_t)B * OUT), 512, 0, stream>>>(y, b_out,
                                                                          (int64_t)B * OUT, OUT);

  cudaFreeAsync(acts, stream);
}
