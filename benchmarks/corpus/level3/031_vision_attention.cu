// KernelBench level 3, problem 31: VisionAttention.
//   x[B][C][H][W] -> tokens (L = H*W, B, C)  (seq-first, as nn.MultiheadAttention wants)
//   -> nn.MultiheadAttention(C, NH) self-attention -> + x -> LayerNorm(C) -> back to [B][C][H][W]
// Naive eager-style kernels, every intermediate in global memory:
//   in-projection, scores (Q K^T / sqrt(hd)), softmax (a block per row, shared-memory tree
//   reductions), P V, out-projection, residual add, LayerNorm (a thread per token).
// The grids put tokens (L*B) and L on gridDim.y, hence the assume below.
// At the tune shape L = 16384: the score matrix is B*NH*L*L = 2^31 floats (8 GiB), so its
// indices need 64 bits. The naive kernels took ~0.37 s on an H200.
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

#define SOFTMAX_THREADS 256
#define LN_EPS 1e-5f

// qkv[t][j] = sum_c x[b][c][l] * w[j][c] + bias[j],  token t = l * B + b,  j < 3C
__global__ void in_projection(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ bias, float* __restrict__ qkv, int B,
                              int C, int L) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = blockIdx.y;
  if (j >= 3 * C) return;
  const int l = t / B, b = t % B;
  float acc = bias[j];
  for (int c = 0; c < C; ++c) acc += x[((size_t)b * C + c) * L + l] * w[(size_t)j * C + c];
  qkv[(size_t)t * 3 * C + j] = acc;
}

// S[b][h][i][j] = scale * <q(i, b, h), k(j, b, h)>;  grid (L/256, L, B*NH)
__global__ void attention_scores(const float* __restrict__ qkv, float* __restrict__ S, int B,
                                 int C, int NH, int L, float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  const int bh = blockIdx.z;
  if (j >= L) return;
  const int b = bh / NH, h = bh % NH, hd = C / NH;
  const float* q = qkv + ((size_t)i * B + b) * 3 * C + h * hd;
  const float* k = qkv + ((size_t)j * B + b) * 3 * C + C + h * hd;
  float acc = 0.f;
  for (int d = 0; d < hd; ++d) acc += q[d] * k[d];
  S[((size_t)bh * L + i) * L + j] = acc * scale;
}

// in-place softmax over rows of length L; one block per row
__global__ void softmax_rows(float* __restrict__ S, int L) {
  __shared__ float red[SOFTMAX_THREADS];
  float* row = S + (size_t)blockIdx.x * L;
  const int tid = threadIdx.x;

  float m = -INFINITY;
  for (int j = tid; j < L; j += SOFTMAX_THREADS) m = fmaxf(m, row[j]);
  red[tid] = m;
  __syncthreads();
  for (int s = SOFTMAX_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();

  float sum = 0.f;
  for (int j = tid; j < L; j += SOFTMAX_THREADS) {
    const float e = expf(row[j] - m);
    row[j] = e;
    sum += e;
  }
  red[tid] = sum;
  __syncthreads();
  for (int s = SOFTMAX_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];
    __syncthreads();
  }
  const float inv = 1.f / red[0];
  for (int j = tid; j < L; j += SOFTMAX_THREADS) row[j] *= inv;
}

// ctx[t][c] = sum_j P[b][h][i][j] * v(j, b)[c],  t = i * B + b,  h = c / hd
__global__ void attention_values(const float* __restrict__ P, const float* __restrict__ qkv,
                                 float* __restrict__ ctx, int B, int C, int NH, int L) {
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)L * B * C) return;
  const int c = idx % C;
  const size_t t = idx / C;
  const int b = t % B;
  const size_t i = t / B;
  const int h = c / (C / NH);
  const float* p = P + (((size_t)b * NH + h) * L + i) * L;
  const float* v = qkv + (size_t)b * 3 * C + 2 * C + c;
  float acc = 0.f;
  for (int j = 0; j < L; ++j) acc += p[j] * v[(size_t)j * B * 3 * C];
  ctx[idx] = acc;
}

// y[t][n] = sum_c a[t][c] * w[n][c] + bias[n]
__global__ void linear_rows(const float* __restrict__ a, const float* __restrict__ w,
                            const float* __restrict__ bias, float* __restrict__ y, int T, int K,
                            int N) {
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)T * N) return;
  const int n = idx % N;
  const size_t t = idx / N;
  float acc = bias[n];
  for (int c = 0; c < K; ++c) acc += a[t * K + c] * w[(size_t)n * K + c];
  y[idx] = acc;
}

// r[t][c] = attn[t][c] + x[b][c][l]
__global__ void residual_add(const float* __restrict__ attn, const float* __restrict__ x,
                             float* __restrict__ r, int B, int C, int L) {
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)L * B * C) return;
  const int c = idx % C;
  const size_t t = idx / C;
  const int b = t % B;
  const size_t l = t / B;
  r[idx] = attn[idx] + x[((size_t)b * C + c) * L + l];
}

// LayerNorm over C for each token, written back in [B][C][L] layout; a thread per token
__global__ void layernorm_to_nchw(const float* __restrict__ r, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ out, int B,
                                  int C, int L) {
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)L * B) return;
  const int b = t % B;
  const size_t l = t / B;
  const float* row = r + t * C;
  float mean = 0.f;
  for (int c = 0; c < C; ++c) mean += row[c];
  mean /= C;
  float var = 0.f;
  for (int c = 0; c < C; ++c) {
    const float d = row[c] - mean;
    var += d * d;
  }
  var /= C;
  const float rstd = rsqrtf(var + LN_EPS);
  for (int c = 0; c < C; ++c)
    out[((size_t)b * C + c) * L + l] = (row[c] - mean) * rstd * gamma[c] + beta[c];
}

static unsigned blocks_for(size_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

// kfuse: in  x          float[B][C][H][W]
// kfuse: in  in_proj_w  float[3*C][C]
// kfuse: in  in_proj_b  float[3*C]
// kfuse: in  out_proj_w float[C][C]
// kfuse: in  out_proj_b float[C]
// kfuse: in  ln_w       float[C]
// kfuse: in  ln_b       float[C]
// kfuse: out out        float[B][C][H][W]
// kfuse: init x          uniform(0,1)
// kfuse: init in_proj_w  uniform(-0.108,0.108)
// kfuse: init in_proj_b  uniform(-0.02,0.02)
// kfuse: init out_proj_w uniform(-0.0884,0.0884)
// kfuse: init out_proj_b uniform(-0.02,0.02)
// kfuse: init ln_w       uniform(0.5,1.5)
// kfuse: init ln_b       uniform(-0.1,0.1)
// kfuse: assume C % NH == 0
// kfuse: assume B * NH <= 65535
// kfuse: assume H * W * B <= 65535
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=2 C=128 H=128 W=128 NH=4
// kfuse: check B=2 C=12 H=5 W=7 NH=3
// kfuse: check B=3 C=8 H=3 W=3 NH=2
extern "C" void vision_attention(const float* x, const float* in_proj_w, const float* in_proj_b,
                                 const float* out_proj_w, const float* out_proj_b,
                                 const float* ln_w, const float* ln_b, float* out, int B, int C,
                                 int H, int W, int NH, cudaStream_t stream) {
  const int L = H * W;
  const size_t tokens = (size_t)L * B;
  const float scale = 1.0f / sqrtf((float)(C / NH));

  float *qkv, *scores, *ctx, *attn, *res;
  cudaMallocAsync(&qkv, sizeof(float) * tokens * 3 * C, stream);
  cudaMallocAsync(&scores, sizeof(float) * (size_t)B * NH * L * L, stream);
  cudaMallocAsync(&ctx, sizeof(float) * tokens * C, stream);
  cudaMallocAsync(&attn, sizeof(float) * tokens * C, stream);
  cudaMallocAsync(&res, sizeof(float) * tokens * C, stream);

  in_projection<<<dim3(blocks_for(3 * C, 128), (unsigned)tokens), 128, 0, stream>>>(
      x, in_proj_w, in_proj_b, qkv, B, C, L);
  attention_scores<<<dim3(blocks_for(L, 256), L, B * NH), 256, 0, stream>>>(qkv, scores, B, C,
                                                                            NH, L, scale);
  softmax_rows<<<(unsigned)((size_t)B * NH * L), SOFTMAX_THREADS, 0, stream>>>(scores, L);
  attention_values<<<blocks_for(tokens * C, 256), 256, 0, stream>>>(scores, qkv, ctx, B, C, NH,
                                                                    L);
  linear_rows<<<blocks_for(tokens * C, 256), 256, 0, stream>>>(ctx, out_proj_w, out_proj_b,
                                                               attn, (int)tokens, C, C);
  residual_add<<<blocks_for(tokens * C, 256), 256, 0, stream>>>(attn, x, res, B, C, L);
  layernorm_to_nchw<<<blocks_for(tokens, 128), 128, 0, stream>>>(res, ln_w, ln_b, out, B, C, L);

  cudaFreeAsync(qkv, stream);
  cudaFreeAsync(scores, stream);
  cudaFreeAsync(ctx, stream);
  cudaFreeAsync(attn, stream);
  cudaFreeAsync(res, stream);
}
