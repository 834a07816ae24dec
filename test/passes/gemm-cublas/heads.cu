// Attention's two products, batched over (batch, head) as two digits of one coordinate
// (`b = bh / NH, h = bh % NH`, or digits of a flat index), with the operands read out of the
// fused qkv projection (leading dimension 3C, offsets C and 2C) and the values written with
// the heads merged (`h = c / hd`, exact as the entry assumes C % NH == 0): each becomes
// kf_sgemm_batched (cuBLAS strided-batched SGEMMs over one level, a call per index of the
// other), the reference kernel kept for shapes cuBLAS cannot take. A causal product
// (`s = -INFINITY; if (j <= i) { ...; s = acc * scale; }`) is the whole product, then the
// constant where the condition fails (i - j >= 0 as 1 * i - 1 * j + 0). So do products with a
// leading dimension other than the extent (checked at run time: below the row's length, the
// reference runs), rows that start past 0 (an offset), a bias along the rows (C filled
// with it, then the product added: beta 1), and a grid-stride loop over a flat index split
// by `t - r * N`, summing with fmaf (level1/009). A launch inside a host loop is replaced
// where it stands, its operands at the loop's offsets (an RNN's steps).
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK:        struct kf_sgemm_shape {
// CHECK:        static bool kf_sgemm_batched(
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: scores (line {{[0-9]+}}) as cuBLAS strided-batched SGEMMs, FP32: s = qkv x qkv (stored transposed) for each of NH x B
// CHECK-NEXT:  static bool scores_cublas(const float *qkv, float *s, int T, int C, int NH, float scale, const kf_sgemm_shape &kf_shape, cudaStream_t kf_stream) {
// CHECK-NEXT:    return kf_sgemm_batched(kf_shape, scale, qkv, qkv, s, kf_stream);
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: values (line {{[0-9]+}}) as cuBLAS strided-batched SGEMMs, FP32: y = p x qkv for each of NH x B
// CHECK-LABEL: {{^}}extern "C" void heads(
// CHECK:         if (!scores_cublas(qkv, s, T, C, NH, scale,
// CHECK-NEXT:        kf_sgemm_shape{(long long)T, (long long)T, (long long)((C) / (NH)), false, true, 3LL * C, 3LL * C, (long long)T,
// CHECK-NEXT:        {(long long)NH, (long long)B}, {(long long)((C) / (NH)), 3LL * C * T}, {(long long)((C) / (NH)), 3LL * C * T}, {(long long)T * T, (long long)NH * T * T}, 0, (long long)C, 0}, stream))
// CHECK-NEXT:      scores<<<
// CHECK:         if (!values_cublas(s, qkv, y, B, T, C, NH,
// CHECK-NEXT:        kf_sgemm_shape{(long long)T, (long long)((C) / (NH)), (long long)T, false, false, (long long)T, 3LL * C, (long long)C,
// CHECK-NEXT:        {(long long)NH, (long long)B}, {(long long)T * T, (long long)NH * T * T}, {(long long)((C) / (NH)), 3LL * C * T}, {(long long)((C) / (NH)), (long long)C * T}, 0, 2LL * C, 0}, stream))
// CHECK-NEXT:      values<<<
// CHECK-LABEL: {{^}}extern "C" void offsets(
// CHECK:         if (!strided_cublas(A, B, C, M, K, N, K + 1,
// CHECK-NEXT:        kf_sgemm_shape{(long long)M, (long long)N, (long long)K, false, false, (long long)K + 1LL, (long long)N, (long long)N,
// CHECK-NEXT:        {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, stream))
// CHECK:         if (!shifted_cublas(A, B, D, M, K, N,
// CHECK-NEXT:        kf_sgemm_shape{(long long)M - 1LL, (long long)N, (long long)K, false, false, (long long)K, (long long)N, (long long)N,
// CHECK-NEXT:        {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, (long long)K, 0, (long long)N}, stream))
// CHECK:         if (!biased_cublas(A, B, bias, E, M, K, N,
// CHECK-NEXT:        kf_sgemm_shape{(long long)M, (long long)N, (long long)K, false, false, (long long)K, (long long)N, (long long)N,
// CHECK-NEXT:        {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, 1LL, 0, 0, stream))
// CHECK:         if (!fma_stride_cublas(A, B, F, M, K, N,
// CHECK-NEXT:        kf_sgemm_shape{(long long)M, (long long)N, (long long)K, false, false, (long long)K, (long long)N, (long long)N,
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: causal (line {{[0-9]+}}) as cuBLAS strided-batched SGEMMs, FP32: att = qkv x qkv (stored transposed) for each of NH x B, -{{.*}} where the reference's condition fails
// CHECK:          return kf_sgemm_batched_masked(kf_shape, scale, qkv, qkv, att, kf_mask_i, kf_mask_j, kf_mask_0, -{{.*}}, kf_stream);
// CHECK-LABEL: {{^}}extern "C" void masked(
// CHECK:         {(long long)NH, (long long)B}, {{.*}}, 0, (long long)C, 0}, 1LL, -1LL, 0, stream))
// CHECK-LABEL: {{^}}extern "C" void steps(
// CHECK:         for (int t = 0; t < T; ++t)
// CHECK-NEXT:      step_mm_cublas(X + (size_t)t * M * K, W, Y + (size_t)t * M * N, M, K, N, stream);
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

// s[b][h][i][j] = scale * q(b, i, h) . k(b, j, h);  grid (T / 128, T, B * NH)
__global__ void scores(const float* qkv, float* s, int T, int C, int NH, float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  const int bh = blockIdx.z;
  if (j >= T) return;
  const int b = bh / NH, h = bh % NH, hd = C / NH;
  const float* q = qkv + ((size_t)b * T + i) * 3 * C + h * hd;
  const float* k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hd;
  float acc = 0.f;
  for (int d = 0; d < hd; ++d) acc += q[d] * k[d];
  s[((size_t)bh * T + i) * T + j] = acc * scale;
}

// y[b][i][h * hd + d] = sum_j p[b][h][i][j] v(b, j, h)[d]: a grid-stride loop, heads merged
__global__ void values(const float* p, const float* qkv, float* y, int B, int T, int C, int NH) {
  const int hd = C / NH;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < (size_t)B * T * C;
       idx += (size_t)gridDim.x * blockDim.x) {
    const int c = idx % C;
    const int i = (idx / C) % T;
    const int b = idx / ((size_t)C * T);
    const int h = c / hd;
    const float* pr = p + (((size_t)b * NH + h) * T + i) * T;
    float acc = 0.f;
    for (int j = 0; j < T; ++j) acc += pr[j] * qkv[((size_t)b * T + j) * 3 * C + 2 * C + c];
    y[idx] = acc;
  }
}

// kfuse: in  qkv float[B][T][3*C]
// kfuse: out y   float[B][T][C]
// kfuse: assume C % NH == 0
// kfuse: assume B * NH <= 65535
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  B=4 T=256 C=256 NH=4
// kfuse: check B=2 T=7 C=12 NH=3
// kfuse: check B=3 T=33 C=20 NH=2
extern "C" void heads(const float* qkv, float* y, int B, int T, int C, int NH,
                      cudaStream_t stream) {
  const float scale = 1.0f / sqrtf((float)(C / NH));
  float* s;
  cudaMallocAsync(&s, sizeof(float) * B * NH * T * T, stream);
  scores<<<dim3((T + 127) / 128, T, B * NH), 128, 0, stream>>>(qkv, s, T, C, NH, scale);
  values<<<256, 256, 0, stream>>>(s, qkv, y, B, T, C, NH);
  cudaFreeAsync(s, stream);
}

__global__ void biased(const float* A, const float* B, const float* bias, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc + bias[row];
}

__global__ void fma_stride(const float* A, const float* B, float* C, long M, long K, long N) {
  const long stride = (long)gridDim.x * blockDim.x;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < M * N; t += stride) {
    const long r = t / N;
    const long c = t - r * N;
    float acc = 0.f;
    for (long k = 0; k < K; ++k) acc = fmaf(A[r * K + k], B[k * N + c], acc);
    C[t] = acc;
  }
}

__global__ void strided(const float* A, const float* B, float* C, int M, int K, int N, int lda) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * lda + k] * B[k * N + col];
  C[row * N + col] = acc;
}

__global__ void shifted(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row + 1 >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[(row + 1) * K + k] * B[k * N + col];
  C[(row + 1) * N + col] = acc;
}

// kfuse: in  A    float[M][K+1]
// kfuse: in  B    float[K][N]
// kfuse: in  bias float[M]
// kfuse: out C    float[M][N]
// kfuse: out D    float[M][N]
// kfuse: out E    float[M][N]
// kfuse: out F    float[M][N]
// kfuse: tune  M=64 K=48 N=80
// kfuse: check M=5 K=3 N=7
extern "C" void offsets(const float* A, const float* B, const float* bias, float* C, float* D, float* E,
                        float* F, int M, int K, int N, cudaStream_t stream) {
  dim3 grid((N + 15) / 16, (M + 15) / 16), block(16, 16);
  strided<<<grid, block, 0, stream>>>(A, B, C, M, K, N, K + 1);
  cudaMemsetAsync(D, 0, sizeof(float) * M * N, stream); // the rows shifted leaves
  shifted<<<grid, block, 0, stream>>>(A, B, D, M, K, N);
  biased<<<grid, block, 0, stream>>>(A, B, bias, E, M, K, N);
  fma_stride<<<64, 128, 0, stream>>>(A, B, F, M, K, N);
}

// att[b][h][i][j] = scale * q . k where j <= i, else -INFINITY
__global__ void causal(const float* qkv, float* att, int T, int C, int NH, float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  const int bh = blockIdx.z;
  if (j >= T) return;
  const int b = bh / NH, h = bh % NH, hd = C / NH;
  float s = -INFINITY;
  if (j <= i) {
    const float* q = qkv + ((size_t)b * T + i) * 3 * C + h * hd;
    const float* k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hd;
    float acc = 0.f;
    for (int d = 0; d < hd; ++d) acc += q[d] * k[d];
    s = acc * scale;
  }
  att[((size_t)bh * T + i) * T + j] = s;
}

// kfuse: in  qkv float[B][T][3*C]
// kfuse: out att float[B*NH][T][T]
// kfuse: assume C % NH == 0
// kfuse: assume B * NH <= 65535
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  B=4 T=256 C=256 NH=4
// kfuse: check B=2 T=7 C=12 NH=3
// kfuse: check B=3 T=33 C=20 NH=2
extern "C" void masked(const float* qkv, float* att, int B, int T, int C, int NH, cudaStream_t stream) {
  causal<<<dim3((T + 127) / 128, T, B * NH), 128, 0, stream>>>(qkv, att, T, C, NH, 0.125f);
}

__global__ void step_mm(const float* x, const float* w, float* y, int M, int K, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[m * K + k] * w[n * K + k];
  y[m * N + n] = acc;
}

// kfuse: in  X float[T][M][K]
// kfuse: in  W float[N][K]
// kfuse: out Y float[T][M][N]
// kfuse: tune  T=4 M=32 K=64 N=48
// kfuse: check T=2 M=3 K=5 N=7
extern "C" void steps(const float* X, const float* W, float* Y, int T, int M, int K, int N, cudaStream_t stream) {
  for (int t = 0; t < T; ++t)
    step_mm<<<dim3((N + 63) / 64, M), 64, 0, stream>>>(X + (size_t)t * M * K, W, Y + (size_t)t * M * N, M, K, N);
}
