// Launch-bound slice, problem 6: KernelBench level 3, problem 39 (GRU) at small shapes.
// Derived from benchmarks/corpus/level3/039_gru.cu, the same program:
// L-layer unidirectional GRU, seq-first (batch_first=False), explicit h0 -> returns the
// output sequence of the top layer, out[T][B][H].
// PyTorch layout and gate order (r, z, n):
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
//   h' = (1 - z) * n + z * h
// Packed weights: w_ih0 [3H][I], w_ih [L-1][3H][H], w_hh [L][3H][H], b_ih [L][3H], b_hh [L][3H].
// Matrix products are cuBLAS sgemm calls (bias broadcast first, beta = 1, as addmm does):
// one for the input gates of all T steps of a layer, one per step for the hidden gates.
// The gate arithmetic is one pointwise kernel per step. Because the sequence is seq-first,
// h_{t-1} of a layer is simply row block t-1 of that layer's output sequence.
// Why these shapes: T = 16 steps of batch 1, 32 inputs, 64 hidden units, 2 layers: each
// kernel or sgemm is a few microseconds of GPU work (a 64 x 192 matrix-vector product at
// most), so a call's time is its 100 launches (34 sgemm, 34 bias broadcasts, 32 gate kernels).
// Weights are uniform(-1/sqrt(H), 1/sqrt(H)), nn.GRU's default.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdint>

namespace {
cublasHandle_t g_blas = nullptr;

__global__ void bias_rows(const float* __restrict__ bias, float* __restrict__ y, int64_t rows,
                          int cols) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] = bias[i % cols];
}

__device__ float sigm(float v) { return 1.0f / (1.0f + expf(-v)); }

// gx: [B][3H] slice for this step, gh: [B][3H], hp: h_{t-1} [B][H], hn: h_t [B][H]
__global__ void gru_gates(const float* __restrict__ gx, const float* __restrict__ gh,
                          const float* __restrict__ hp, float* __restrict__ hn, int B, int H) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)B * H) return;
  const int64_t b = idx / H;
  const int j = idx % H;
  const float* xr = gx + b * 3 * H;
  const float* hr = gh + b * 3 * H;
  const float r = sigm(xr[j] + hr[j]);
  const float z = sigm(xr[H + j] + hr[H + j]);
  const float n = tanhf(xr[2 * H + j] + r * hr[2 * H + j]);
  hn[idx] = (1.0f - z) * n + z * hp[idx];
}

// y[M][N] = bias + x[M][K] w[N][K]^T, row-major, through the column-major transposes
void addmm(const float* x, const float* w, const float* bias, float* y, int M, int K, int N,
           cudaStream_t s) {
  const int64_t n = (int64_t)M * N;
  bias_rows<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(bias, y, M, N);
  const float one = 1.0f;
  cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
}
}  // namespace

// kfuse: in  x     float[T][B][I]
// kfuse: in  h0    float[L][B][H]
// kfuse: in  w_ih0 float[3*H][I]
// kfuse: in  w_ih  float[L-1][3*H][H]
// kfuse: in  w_hh  float[L][3*H][H]
// kfuse: in  b_ih  float[L][3*H]
// kfuse: in  b_hh  float[L][3*H]
// kfuse: out out   float[T][B][H]
// kfuse: init x     uniform(0,1)
// kfuse: init h0    uniform(0,1)
// kfuse: init w_ih0 uniform(-0.125,0.125)
// kfuse: init w_ih  uniform(-0.125,0.125)
// kfuse: init w_hh  uniform(-0.125,0.125)
// kfuse: init b_ih  uniform(-0.125,0.125)
// kfuse: init b_hh  uniform(-0.125,0.125)
// kfuse: assume L >= 2
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  T=16 B=1 I=32 H=64 L=2
// kfuse: check T=6 B=3 I=7 H=13 L=2
// kfuse: check T=3 B=1 I=20 H=8 L=3
extern "C" void gru_small(const float* x, const float* h0, const float* w_ih0, const float* w_ih,
                          const float* w_hh, const float* b_ih, const float* b_hh, float* out,
                          int T, int B, int I, int H, int L, cudaStream_t stream) {
  if (g_blas == nullptr) cublasCreate(&g_blas);
  cublasSetStream(g_blas, stream);

  const int G = 3 * H;
  const int64_t step = (int64_t)B * H;  // elements of one time step of a sequence
  float *gx, *gh, *scratch_seq[2];
  cudaMallocAsync(&gx, sizeof(float) * T * B * G, stream);
  cudaMallocAsync(&gh, sizeof(float) * B * G, stream);
  cudaMallocAsync(&scratch_seq[0], sizeof(float) * T * step, stream);
  cudaMallocAsync(&scratch_seq[1], sizeof(float) * T * step, stream);

  const float* in_seq = x;
  int in_dim = I;
  for (int l = 0; l < L; ++l) {
    const float* Wi = l == 0 ? w_ih0 : w_ih + (int64_t)(l - 1) * G * H;
    const float* Wh = w_hh + (int64_t)l * G * H;
    const float* bi = b_ih + (int64_t)l * G;
    const float* bh = b_hh + (int64_t)l * G;
    float* out_seq = (l == L - 1) ? out : scratch_seq[l & 1];

    addmm(in_seq, Wi, bi, gx, T * B, in_dim, G, stream);
    for (int t = 0; t < T; ++t) {
      const float* h_prev = t == 0 ? h0 + (int64_t)l * step : out_seq + (int64_t)(t - 1) * step;
      addmm(h_prev, Wh, bh, gh, B, H, G, stream);
      gru_gates<<<(unsigned)((step + 127) / 128), 128, 0, stream>>>(
          gx + (int64_t)t * B * G, gh, h_prev, out_seq + (int64_t)t * step, B, H);
    }
    in_seq = out_seq;
    in_dim = H;
  }

  cudaFreeAsync(gx, stream);
  cudaFreeAsync(gh, stream);
  cudaFreeAsync(scratch_seq[0], stream);
  cudaFreeAsync(scratch_seq[1], stream);
}
