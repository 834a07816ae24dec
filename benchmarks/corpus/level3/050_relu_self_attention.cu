// KernelBench level 3, problem 50: ReLUSelfAttention.
// Causal multi-head self-attention with ReLU in place of softmax and no output projection:
//   qkv = c_attn(x);  att = (q @ k^T) * (1/sqrt(HD));  att = masked_fill(j > i, -inf)
//   att = relu(att);  y = (att @ v) with heads merged back -> y[B][T][C]
// (The KernelBench module also owns a c_proj Linear that forward never uses; it is left out.)
// Everything is naive: a one-thread-per-output GEMM for c_attn, a thread per score, separate
// grid-stride kernels for the scale, the mask and the ReLU; att @ v writes the merged layout.
#include <cuda_runtime.h>
#include <math.h>

#define BLOCK 256
#define MAX_GRID 8192

// qkv[m][n] = sum_k x[m][k] * w[n][k] + b[n];  block (32, 8), grid (N/32, M/8)
__global__ void c_attn_gemm(const float* x, const float* w, const float* b, float* qkv, int M,
                            int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += x[(size_t)m * K + k] * w[(size_t)n * K + k];
  qkv[(size_t)m * N + n] = acc + b[n];
}

// s[b][h][i][j] = q(b,i,h) . k(b,j,h)
__global__ void scores_kernel(const float* qkv, float* s, int B, int T, int C, int NH) {
  int hd = C / NH;
  size_t total = (size_t)B * NH * T * T;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (size_t)gridDim.x * blockDim.x) {
    int j = idx % T;
    int i = (idx / T) % T;
    int h = (idx / ((size_t)T * T)) % NH;
    int b = idx / ((size_t)T * T * NH);
    const float* q = qkv + ((size_t)b * T + i) * 3 * C + h * hd;
    const float* k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hd;
    float acc = 0.0f;
    for (int d = 0; d < hd; ++d) acc += q[d] * k[d];
    s[idx] = acc;
  }
}

__global__ void mul_scalar(float* s, float alpha, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    s[i] = s[i] * alpha;
}

__global__ void mask_upper(float* s, int T, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t col = i % T, row = (i / T) % T;
    if (col > row) s[i] = -INFINITY;
  }
}

__global__ void relu_scores(float* s, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    s[i] = fmaxf(s[i], 0.0f);
}

// y[b][i][c] = sum_j att[b][h][i][j] * v(b,j)[c],  h = c / HD
__global__ void att_v_merged(const float* att, const float* qkv, float* y, int B, int T, int C,
                             int NH) {
  int hd = C / NH;
  size_t total = (size_t)B * T * C;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (size_t)gridDim.x * blockDim.x) {
    int c = idx % C;
    int i = (idx / C) % T;
    int b = idx / ((size_t)C * T);
    int h = c / hd;
    const float* a = att + (((size_t)b * NH + h) * T + i) * T;
    float acc = 0.0f;
    for (int j = 0; j < T; ++j) acc += a[j] * qkv[((size_t)b * T + j) * 3 * C + 2 * C + c];
    y[idx] = acc;
  }
}

static int grid_of(size_t n) {
  size_t g = (n + BLOCK - 1) / BLOCK;
  return (int)(g < MAX_GRID ? g : MAX_GRID);
}

// kfuse: in  x      float[B][T][C]
// kfuse: in  attn_w float[3*C][C]
// kfuse: in  attn_b float[3*C]
// kfuse: out y      float[B][T][C]
// kfuse: init x      uniform(0,1)
// kfuse: init attn_w uniform(-0.036,0.036)
// kfuse: init attn_b uniform(-0.036,0.036)
// kfuse: assume C % NH == 0
// kfuse: assume T <= 1024
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=16 T=1024 C=768 NH=12
// kfuse: check B=2 T=9 C=12 NH=3
// kfuse: check B=1 T=40 C=20 NH=5
extern "C" void relu_self_attention(const float* x, const float* attn_w, const float* attn_b,
                                    float* y, int B, int T, int C, int NH, cudaStream_t stream) {
  const int M = B * T;
  const size_t n_att = (size_t)B * NH * T * T;
  float *qkv, *att;
  cudaMallocAsync(&qkv, sizeof(float) * (size_t)M * 3 * C, stream);
  cudaMallocAsync(&att, sizeof(float) * n_att, stream);

  dim3 blk(32, 8);
  dim3 grd((3 * C + 31) / 32, (M + 7) / 8);
  c_attn_gemm<<<grd, blk, 0, stream>>>(x, attn_w, attn_b, qkv, M, C, 3 * C);
  scores_kernel<<<grid_of(n_att), BLOCK, 0, stream>>>(qkv, att, B, T, C, NH);
  mul_scalar<<<grid_of(n_att), BLOCK, 0, stream>>>(att, 1.0f / sqrtf((float)(C / NH)), n_att);
  mask_upper<<<grid_of(n_att), BLOCK, 0, stream>>>(att, T, n_att);
  relu_scores<<<grid_of(n_att), BLOCK, 0, stream>>>(att, n_att);
  att_v_merged<<<grid_of((size_t)M * C), BLOCK, 0, stream>>>(att, qkv, y, B, T, C, NH);

  cudaFreeAsync(qkv, stream);
  cudaFreeAsync(att, stream);
}
