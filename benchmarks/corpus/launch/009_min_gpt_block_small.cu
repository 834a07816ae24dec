// Launch-bound slice, problem 9: KernelBench level 3, problem 44 (MiniGPTBlock) at small
// shapes. Derived from benchmarks/corpus/level3/044_min_gpt_block.cu, the same program
// (minGPT transformer block, dropouts p = 0):
//   x1  = x + c_proj(causal_self_attention(LN1(x)))
//   out = x1 + mlp_proj(NewGELU(mlp_fc(LN2(x1))))
// NewGELU(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))).
// Linear layers: cuBLAS (bias broadcast into the output, then sgemm with beta = 1, as addmm).
// LayerNorm and softmax: a block per row with shared-memory tree reductions.
// Attention scores: one kernel computing the scaled, causally masked q.k (a thread per score).
// Why these shapes: batch 1, 16 tokens, n_embd 64, 4 heads: the largest GEMM is 16 x 256 x 64,
// each kernel a few microseconds of GPU work, so a call's time is its 16 launches (12
// kernels, 4 sgemm).
// Weights are uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), nn.Linear's default.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdint>

constexpr int kRowThreads = 128;
constexpr float kLnEps = 1e-5f;
constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)

static cublasHandle_t blas_handle = nullptr;

// --------------------------------------------------------------------------- helpers
__device__ float block_sum(float v, float* sh) {
  const int tid = threadIdx.x;
  sh[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sh[tid] += sh[tid + s];
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

__device__ float block_max(float v, float* sh) {
  const int tid = threadIdx.x;
  sh[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sh[tid] = fmaxf(sh[tid], sh[tid + s]);
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

// --------------------------------------------------------------------------- kernels
__global__ void broadcast_bias(const float* __restrict__ b, float* __restrict__ y, int64_t rows,
                               int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * cols;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = b[i % cols];
}

// y[r][:] = LN(x[r][:]) * g + b, one block per row
__global__ void layer_norm(const float* __restrict__ x, const float* __restrict__ g,
                           const float* __restrict__ b, float* __restrict__ y, int C) {
  __shared__ float sh[kRowThreads];
  const float* xr = x + (int64_t)blockIdx.x * C;
  float* yr = y + (int64_t)blockIdx.x * C;
  float s = 0.f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c];
  const float mean = block_sum(s, sh) / C;
  float v = 0.f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float d = xr[c] - mean;
    v += d * d;
  }
  const float rstd = rsqrtf(block_sum(v, sh) / C + kLnEps);
  for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] = (xr[c] - mean) * rstd * g[c] + b[c];
}

// att[b][h][i][j] = j <= i ? scale * q.k : -inf
__global__ void causal_scores(const float* __restrict__ qkv, float* __restrict__ att, int T,
                              int C, int NH, float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  const int bh = blockIdx.z;
  if (j >= T) return;
  const int b = bh / NH, h = bh % NH, hd = C / NH;
  float s = -INFINITY;
  if (j <= i) {
    const float* q = qkv + ((int64_t)b * T + i) * 3 * C + h * hd;
    const float* k = qkv + ((int64_t)b * T + j) * 3 * C + C + h * hd;
    float acc = 0.f;
    for (int d = 0; d < hd; ++d) acc += q[d] * k[d];
    s = acc * scale;
  }
  att[((int64_t)bh * T + i) * T + j] = s;
}

// in-place softmax of each row of length T, one block per row
__global__ void softmax_block(float* __restrict__ att, int T) {
  __shared__ float sh[kRowThreads];
  float* row = att + (int64_t)blockIdx.x * T;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < T; j += blockDim.x) m = fmaxf(m, row[j]);
  m = block_max(m, sh);
  float s = 0.f;
  for (int j = threadIdx.x; j < T; j += blockDim.x) s += expf(row[j] - m);
  s = block_sum(s, sh);
  for (int j = threadIdx.x; j < T; j += blockDim.x) row[j] = expf(row[j] - m) / s;
}

// y[b][i][h*hd + d] = sum_j att[b][h][i][j] * v[b][j][h*hd + d]
__global__ void attn_values(const float* __restrict__ att, const float* __restrict__ qkv,
                            float* __restrict__ y, int B, int T, int C, int NH) {
  const int64_t total = (int64_t)B * T * C;
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int c = idx % C;
    const int64_t bi = idx / C;
    const int i = bi % T;
    const int64_t b = bi / T;
    const int h = c / (C / NH);
    const float* p = att + ((b * NH + h) * T + i) * T;
    const float* v = qkv + b * T * 3 * C + 2 * C + c;
    float acc = 0.f;
    for (int j = 0; j < T; ++j) acc += p[j] * v[(int64_t)j * 3 * C];
    y[idx] = acc;
  }
}

__global__ void add_tensors(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = a[i] + b[i];
}

__global__ void new_gelu(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(kGeluC * (v + 0.044715f * v * v * v)));
  }
}

// --------------------------------------------------------------------------- host side
static unsigned gs_blocks(int64_t n) {
  const int64_t b = (n + 255) / 256;
  return (unsigned)(b < 65536 ? b : 65536);
}

static void addmm(const float* x, const float* w, const float* bias, float* y, int M, int K,
                  int N, cudaStream_t s) {
  broadcast_bias<<<gs_blocks((int64_t)M * N), 256, 0, s>>>(bias, y, M, N);
  const float one = 1.0f;
  cublasSgemm(blas_handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &one, y, N);
}

static float* alloc(int64_t elems, cudaStream_t s) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * elems, s);
  return p;
}

// kfuse: in  x       float[B][T][C]
// kfuse: in  ln1_w   float[C]
// kfuse: in  ln1_b   float[C]
// kfuse: in  attn_w  float[3*C][C]
// kfuse: in  attn_b  float[3*C]
// kfuse: in  proj_w  float[C][C]
// kfuse: in  proj_b  float[C]
// kfuse: in  ln2_w   float[C]
// kfuse: in  ln2_b   float[C]
// kfuse: in  fc_w    float[4*C][C]
// kfuse: in  fc_b    float[4*C]
// kfuse: in  fc2_w   float[C][4*C]
// kfuse: in  fc2_b   float[C]
// kfuse: out out     float[B][T][C]
// kfuse: init x      uniform(0,1)
// kfuse: init ln1_w  uniform(0.8,1.2)
// kfuse: init ln1_b  uniform(-0.1,0.1)
// kfuse: init attn_w uniform(-0.125,0.125)
// kfuse: init attn_b uniform(-0.125,0.125)
// kfuse: init proj_w uniform(-0.125,0.125)
// kfuse: init proj_b uniform(-0.125,0.125)
// kfuse: init ln2_w  uniform(0.8,1.2)
// kfuse: init ln2_b  uniform(-0.1,0.1)
// kfuse: init fc_w   uniform(-0.125,0.125)
// kfuse: init fc_b   uniform(-0.125,0.125)
// kfuse: init fc2_w  uniform(-0.0625,0.0625)
// kfuse: init fc2_b  uniform(-0.0625,0.0625)
// kfuse: assume C % NH == 0
// kfuse: assume B * NH <= 65535
// kfuse: assume T <= 1024
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=1 T=16 C=64 NH=4
// kfuse: check B=2 T=7 C=12 NH=3
// kfuse: check B=3 T=19 C=40 NH=4
// kfuse: check B=1 T=5 C=6 NH=2
extern "C" void min_gpt_block_small(const float* x, const float* ln1_w, const float* ln1_b,
                                    const float* attn_w, const float* attn_b,
                                    const float* proj_w, const float* proj_b,
                                    const float* ln2_w, const float* ln2_b, const float* fc_w,
                                    const float* fc_b, const float* fc2_w, const float* fc2_b,
                                    float* out, int B, int T, int C, int NH,
                                    cudaStream_t stream) {
  if (!blas_handle) cublasCreate(&blas_handle);
  cublasSetStream(blas_handle, stream);

  const int M = B * T;
  const int64_t MC = (int64_t)M * C;
  const float scale = 1.0f / sqrtf((float)(C / NH));

  // attention branch
  float* ln1 = alloc(MC, stream);
  float* qkv = alloc(3 * MC, stream);
  float* att = alloc((int64_t)B * NH * T * T, stream);
  float* y = alloc(MC, stream);
  float* a = alloc(MC, stream);
  float* x1 = alloc(MC, stream);

  layer_norm<<<M, kRowThreads, 0, stream>>>(x, ln1_w, ln1_b, ln1, C);
  addmm(ln1, attn_w, attn_b, qkv, M, C, 3 * C, stream);
  causal_scores<<<dim3((T + 127) / 128, T, B * NH), 128, 0, stream>>>(qkv, att, T, C, NH, scale);
  softmax_block<<<(unsigned)((int64_t)B * NH * T), kRowThreads, 0, stream>>>(att, T);
  attn_values<<<gs_blocks(MC), 256, 0, stream>>>(att, qkv, y, B, T, C, NH);
  addmm(y, proj_w, proj_b, a, M, C, C, stream);
  add_tensors<<<gs_blocks(MC), 256, 0, stream>>>(x, a, x1, MC);

  // MLP branch
  float* ln2 = alloc(MC, stream);
  float* f = alloc(4 * MC, stream);
  float* g = alloc(4 * MC, stream);
  float* m = alloc(MC, stream);

  layer_norm<<<M, kRowThreads, 0, stream>>>(x1, ln2_w, ln2_b, ln2, C);
  addmm(ln2, fc_w, fc_b, f, M, C, 4 * C, stream);
  new_gelu<<<gs_blocks(4 * MC), 256, 0, stream>>>(f, g, 4 * MC);
  addmm(g, fc2_w, fc2_b, m, M, 4 * C, C, stream);
  add_tensors<<<gs_blocks(MC), 256, 0, stream>>>(x1, m, out, MC);

  float* scratch[] = {ln1, qkv, att, y, a, x1, ln2, f, g, m};
  for (float* p : scratch) cudaFreeAsync(p, stream);
}
