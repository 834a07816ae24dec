// Launch-bound slice, problem 4: KernelBench level 3, problem 34 (VanillaRNNHidden) at
// small shapes. Derived from benchmarks/corpus/level3/034_vanilla_rnn_hidden.cu, the same
// program: a vanilla RNN unrolled over T steps; x[T][B][I], h0[B][H]:
//   for t: combined = cat(x[t], h); h = tanh(i2h(combined)); out[t] = h2o(h)
// Output out[T][B][O] (torch.stack of the per-step outputs).
// The host loops over the time steps, four naive kernels per step.
// Why these shapes: T = 16 steps of batch 1 with 32 inputs, hidden units and outputs: each
// kernel is 1-4 microseconds of GPU work (at most 32 threads of 64 multiply-adds), about
// 0.14 ms in all, so a call's time is its 64 launches. (At T = 32 and 64 units the naive
// per-thread dot products took 0.42 ms of GPU time on an H200.)
// Weights are uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), nn.Linear's default.
#include <cuda_runtime.h>

__device__ inline float dot_rows(const float* a, const float* b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// comb[b][0:I] = xt[b][:], comb[b][I:I+H] = h[b][:]
__global__ void cat_step(const float* xt, const float* h, float* comb, int B, int I, int H) {
  int n = B * (I + H);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int b = i / (I + H), c = i % (I + H);
    comb[i] = (c < I) ? xt[b * I + c] : h[b * H + c - I];
  }
}

// y[b][o] = a[b][:] . w[o][:] + bias[o]
__global__ void linear_naive(const float* a, const float* w, const float* bias, float* y, int B,
                             int K, int N) {
  int n = B * N;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int b = i / N, o = i % N;
    y[i] = dot_rows(a + b * K, w + o * K, K) + bias[o];
  }
}

__global__ void tanh_step(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = tanhf(in[i]);
}

static int grid_for(int n) {
  int g = (n + 127) / 128;
  return g < 4096 ? g : 4096;
}

// kfuse: in  x     float[T][B][I]
// kfuse: in  h0    float[B][H]
// kfuse: in  i2h_w float[H][I+H]
// kfuse: in  i2h_b float[H]
// kfuse: in  h2o_w float[O][H]
// kfuse: in  h2o_b float[O]
// kfuse: out out   float[T][B][O]
// kfuse: init x     uniform(0,1)
// kfuse: init h0    uniform(0,1)
// kfuse: init i2h_w uniform(-0.125,0.125)
// kfuse: init i2h_b uniform(-0.125,0.125)
// kfuse: init h2o_w uniform(-0.177,0.177)
// kfuse: init h2o_b uniform(-0.177,0.177)
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune  T=16 B=1 I=32 H=32 O=32
// kfuse: check T=5 B=3 I=11 H=7 O=5
// kfuse: check T=3 B=1 I=9 H=13 O=3
extern "C" void vanilla_rnn_hidden_small(const float* x, const float* h0, const float* i2h_w,
                                         const float* i2h_b, const float* h2o_w,
                                         const float* h2o_b, float* out, int T, int B, int I,
                                         int H, int O, cudaStream_t stream) {
  float *comb, *pre, *hbuf;
  cudaMallocAsync(&comb, sizeof(float) * B * (I + H), stream);
  cudaMallocAsync(&pre, sizeof(float) * B * H, stream);
  cudaMallocAsync(&hbuf, sizeof(float) * 2 * B * H, stream);

  const float* h = h0;
  for (int t = 0; t < T; ++t) {
    float* h_next = hbuf + (t & 1) * B * H;
    cat_step<<<grid_for(B * (I + H)), 128, 0, stream>>>(x + (size_t)t * B * I, h, comb, B, I, H);
    linear_naive<<<grid_for(B * H), 128, 0, stream>>>(comb, i2h_w, i2h_b, pre, B, I + H, H);
    tanh_step<<<grid_for(B * H), 128, 0, stream>>>(pre, h_next, B * H);
    linear_naive<<<grid_for(B * O), 128, 0, stream>>>(h_next, h2o_w, h2o_b,
                                                      out + (size_t)t * B * O, B, H, O);
    h = h_next;
  }

  cudaFreeAsync(comb, stream);
  cudaFreeAsync(pre, stream);
  cudaFreeAsync(hbuf, stream);
}
