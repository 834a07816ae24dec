// Launch-bound slice, problem 5: KernelBench level 3, problem 37 (LSTMCn) at small shapes.
// Derived from benchmarks/corpus/level3/037_lstm_cn.cu, the same program:
// L-layer unidirectional LSTM, batch_first, explicit (h0, c0) -> returns the final cell
// state c_n[L][B][H]. As in KernelBench, forward also applies the Linear head to the last
// time step of the top layer and throws the result away; that dead Linear is kept here
// (scratch buffer, freed unused) because eager mode runs it.
// Packed weights, PyTorch layout and gate order (i, f, g, o):
//   w_ih0 [4H][I] (layer 0), w_ih [L-1][4H][H] (layers 1..L-1), w_hh [L][4H][H],
//   b_ih [L][4H], b_hh [L][4H].
// Per layer: one GEMM for the input gates of all time steps, then per time step a GEMM for
// the hidden gates and a pointwise cell kernel. c_n doubles as the running cell state.
// Why these shapes: T = 16 steps of batch 1, 32 inputs, 16 hidden units, 2 layers: each
// kernel is 1-3 microseconds of GPU work (a 64 x 32 matrix-vector product at most, a
// thread's dot product of 32), so a call's time is its 67 kernel launches and 4
// device-to-device copies. (With 64 hidden units the naive per-thread dot products took
// 0.27 ms of GPU time on an H200, with 32 0.18 ms.)
// Weights are uniform(-1/sqrt(H), 1/sqrt(H)), nn.LSTM's default.
#include <cuda_runtime.h>

__device__ __forceinline__ float sigmoidf_(float v) { return 1.0f / (1.0f + expf(-v)); }

// Y[m][n] = sum_k A[m * lda + k] * W[n][k] + bias[n];  grid (N/128, M)
__global__ void gemm_nt_bias(const float* A, int lda, const float* W, const float* bias,
                             float* Y, int M, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y;
  if (n >= N || m >= M) return;
  const float* a = A + (size_t)m * lda;
  const float* w = W + (size_t)n * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * w[k];
  Y[(size_t)m * N + n] = acc + bias[n];
}

// One LSTM cell update at time t for every (b, j).
// gx: [B*T][4H] (row b*T+t), gh: [B][4H]; h, c: [B][H] updated in place; seq: [B][T][H].
__global__ void lstm_cell(const float* gx, const float* gh, float* h, float* c, float* seq,
                          int t, int B, int T, int H) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= H) return;
  const float* x4 = gx + ((size_t)b * T + t) * 4 * H;
  const float* h4 = gh + (size_t)b * 4 * H;
  float ig = sigmoidf_(x4[j] + h4[j]);
  float fg = sigmoidf_(x4[H + j] + h4[H + j]);
  float gg = tanhf(x4[2 * H + j] + h4[2 * H + j]);
  float og = sigmoidf_(x4[3 * H + j] + h4[3 * H + j]);
  float c_new = fg * c[b * H + j] + ig * gg;
  float h_new = og * tanhf(c_new);
  c[b * H + j] = c_new;
  h[b * H + j] = h_new;
  seq[((size_t)b * T + t) * H + j] = h_new;
}

static void gemm(const float* A, int lda, const float* W, const float* bias, float* Y, int M,
                 int K, int N, cudaStream_t s) {
  dim3 grid((N + 127) / 128, M);
  gemm_nt_bias<<<grid, 128, 0, s>>>(A, lda, W, bias, Y, M, K, N);
}

// kfuse: in  x     float[B][T][I]
// kfuse: in  h0    float[L][B][H]
// kfuse: in  c0    float[L][B][H]
// kfuse: in  w_ih0 float[4*H][I]
// kfuse: in  w_ih  float[L-1][4*H][H]
// kfuse: in  w_hh  float[L][4*H][H]
// kfuse: in  b_ih  float[L][4*H]
// kfuse: in  b_hh  float[L][4*H]
// kfuse: in  fc_w  float[O][H]
// kfuse: in  fc_b  float[O]
// kfuse: out c_n   float[L][B][H]
// kfuse: init x     uniform(0,1)
// kfuse: init h0    uniform(0,1)
// kfuse: init c0    uniform(0,1)
// kfuse: init w_ih0 uniform(-0.25,0.25)
// kfuse: init w_ih  uniform(-0.25,0.25)
// kfuse: init w_hh  uniform(-0.25,0.25)
// kfuse: init b_ih  uniform(-0.25,0.25)
// kfuse: init b_hh  uniform(-0.25,0.25)
// kfuse: init fc_w  uniform(-0.25,0.25)
// kfuse: init fc_b  uniform(-0.25,0.25)
// kfuse: assume L >= 2
// kfuse: assume B * T <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1 T=16 I=32 H=16 L=2 O=10
// kfuse: check B=3 T=7 I=5 H=9 L=2 O=4
// kfuse: check B=2 T=4 I=17 H=33 L=3 O=3
extern "C" void lstm_small(const float* x, const float* h0, const float* c0, const float* w_ih0,
                           const float* w_ih, const float* w_hh, const float* b_ih,
                           const float* b_hh, const float* fc_w, const float* fc_b, float* c_n,
                           int B, int T, int I, int H, int L, int O, cudaStream_t stream) {
  const int G = 4 * H;
  float *gx, *gh, *h, *seq[2], *fc_out;
  cudaMallocAsync(&gx, sizeof(float) * B * T * G, stream);
  cudaMallocAsync(&gh, sizeof(float) * B * G, stream);
  cudaMallocAsync(&h, sizeof(float) * B * H, stream);
  cudaMallocAsync(&seq[0], sizeof(float) * B * T * H, stream);
  cudaMallocAsync(&seq[1], sizeof(float) * B * T * H, stream);

  const float* layer_in = x;
  int in_dim = I;
  for (int l = 0; l < L; ++l) {
    const float* Wi = (l == 0) ? w_ih0 : w_ih + (size_t)(l - 1) * G * H;
    const float* Wh = w_hh + (size_t)l * G * H;
    float* out_seq = seq[l & 1];
    float* c = c_n + (size_t)l * B * H;

    cudaMemcpyAsync(h, h0 + (size_t)l * B * H, sizeof(float) * B * H, cudaMemcpyDeviceToDevice,
                    stream);
    cudaMemcpyAsync(c, c0 + (size_t)l * B * H, sizeof(float) * B * H, cudaMemcpyDeviceToDevice,
                    stream);

    // input gates for every (b, t) at once: rows b*T + t
    gemm(layer_in, in_dim, Wi, b_ih + (size_t)l * G, gx, B * T, in_dim, G, stream);
    for (int t = 0; t < T; ++t) {
      gemm(h, H, Wh, b_hh + (size_t)l * G, gh, B, H, G, stream);
      lstm_cell<<<dim3((H + 127) / 128, B), 128, 0, stream>>>(gx, gh, h, c, out_seq, t, B, T, H);
    }
    layer_in = out_seq;
    in_dim = H;
  }

  // out = fc(out[:, -1, :]) -- computed by the KernelBench model, then not returned
  cudaMallocAsync(&fc_out, sizeof(float) * B * O, stream);
  gemm(layer_in + (size_t)(T - 1) * H, T * H, fc_w, fc_b, fc_out, B, H, O, stream);

  cudaFreeAsync(fc_out, stream);
  cudaFreeAsync(gx, stream);
  cudaFreeAsync(gh, stream);
  cudaFreeAsync(h, stream);
  cudaFreeAsync(seq[0], stream);
  cudaFreeAsync(seq[1], stream);
}
