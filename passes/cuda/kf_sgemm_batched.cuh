// kfuse gemm-cublas: a row-major GEMM over a batch of up to two levels (attention's heads
// inside its batch), C[i][j] = alpha * sum_k A[i][k] B[k][j] for every (b0, b1) in
// count[0] x count[1], each operand at its base + b0 * s?[0] + b1 * s?[1], as cuBLAS
// strided-batched SGEMMs: one call per index of the level with fewer, batched over the
// other. Row-major C = A B is column-major C^T = B^T A^T: B goes first, nothing is copied.
// FP32 stays FP32 (the handle's default math mode uses no TF32 tensor cores). The handle is
// made once and bound to the caller's stream at each call. Returns false when cuBLAS cannot
// take the shape (an empty or int-overflowing size, a leading dimension below its row's
// length): the caller then runs the reference kernel, which rewrites all of C.
struct kf_sgemm_shape {
  long long m, n, k;        // C is m x n; the sum runs over k
  bool ta, tb;              // A stored k x m (transposed), B stored n x k (transposed)
  long long lda, ldb, ldc;  // row-major leading dimensions, as stored
  long long count[2];       // the batch's levels (1 where there is none)
  long long sa[2], sb[2], sc[2];
  long long oa, ob, oc;     // each operand's offset from its pointer
};

// C = alpha * A B + beta * C (beta 0: C is only written).
static bool kf_sgemm_run(const kf_sgemm_shape &s, float alpha, float beta, const float *a, const float *b, float *c,
                         cudaStream_t stream) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    return cublasCreate(&h) == CUBLAS_STATUS_SUCCESS ? h : nullptr;
  }();
  const long long most = 2147483647;
  const long long sizes[] = {s.m, s.n, s.k, s.lda, s.ldb, s.ldc, s.count[0], s.count[1]};
  for (long long v : sizes)
    if (v < 1 || v > most)
      return false;
  if (!handle || s.lda < (s.ta ? s.m : s.k) || s.ldb < (s.tb ? s.k : s.n) || s.ldc < s.n)
    return false;
  if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    return false;
  const int outer = s.count[0] <= s.count[1] ? 0 : 1, inner = 1 - outer;
  a += s.oa;
  b += s.ob;
  c += s.oc;
  for (long long i = 0; i < s.count[outer]; i++)
    if (cublasSgemmStridedBatched(handle, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  (int)s.n, (int)s.m, (int)s.k, &alpha, b + i * s.sb[outer], (int)s.ldb,
                                  s.sb[inner], a + i * s.sa[outer], (int)s.lda, s.sa[inner], &beta,
                                  c + i * s.sc[outer], (int)s.ldc, s.sc[inner],
                                  (int)s.count[inner]) != CUBLAS_STATUS_SUCCESS)
      return false; // the reference kernel rewrites all of C
  return true;
}

static bool kf_sgemm_batched(const kf_sgemm_shape &s, float alpha, const float *a, const float *b, float *c,
                             cudaStream_t stream) {
  return kf_sgemm_run(s, alpha, 0.0f, a, b, c, stream);
}

// The rows of C, a block each: where a * i + b * j + k0 < 0, C[i][j] = fill (a masked product:
// attention's causal scores, `s = -INFINITY; if (j <= i) s = scale * q . k`); with a bias,
// C[i][j] = bias[bi * i + bj * j + b0] (then the product is added to it).
__global__ void kf_sgemm_rows(float *c, kf_sgemm_shape s, long long a, long long b, long long k0, float fill,
                              const float *bias, long long bi, long long bj, long long b0) {
  const long long r = blockIdx.x, i = r % s.m, batch = r / s.m;
  float *row = c + s.oc + batch / s.count[1] * s.sc[0] + batch % s.count[1] * s.sc[1] + i * s.ldc;
  for (long long j = threadIdx.x; j < s.n; j += blockDim.x)
    if (bias)
      row[j] = bias[bi * i + bj * j + b0];
    else if (a * i + b * j + k0 < 0)
      row[j] = fill;
}

static bool kf_sgemm_rows_fit(const kf_sgemm_shape &s) {
  return s.m >= 1 && s.count[0] >= 1 && s.count[1] >= 1 && s.m * s.count[0] * s.count[1] <= 2147483647;
}

// The product, then the constant where the reference's condition fails.
[[maybe_unused]] static bool kf_sgemm_batched_masked(const kf_sgemm_shape &s, float alpha, const float *a,
                                                     const float *b, float *c, long long mask_i, long long mask_j,
                                                     long long mask_0, float fill, cudaStream_t stream) {
  if (!kf_sgemm_rows_fit(s) || !kf_sgemm_batched(s, alpha, a, b, c, stream))
    return false;
  kf_sgemm_rows<<<(unsigned)(s.m * s.count[0] * s.count[1]), 256, 0, stream>>>(c, s, mask_i, mask_j, mask_0, fill,
                                                                                nullptr, 0, 0, 0);
  return cudaGetLastError() == cudaSuccess;
}

// C = alpha A B + bias[j] for one product (no batch): one cublasLtMatmul (kf_lt_matmul, its
// engine timed per shape) whose epilogue adds the bias down the rows of the column-major
// result (the columns of the row-major C), as eager's addmm does. False when cuBLASLt cannot
// take it (the caller then fills C with the bias and adds the product).
[[maybe_unused]] static bool kf_sgemm_lt_bias(const kf_sgemm_shape &s, float alpha, const float *a, const float *b, float *c,
                                              const float *bias, cudaStream_t stream) {
  if (s.count[0] != 1 || s.count[1] != 1 || s.lda < (s.ta ? s.m : s.k) || s.ldb < (s.tb ? s.k : s.n))
    return false;
  // column-major: C^T (n x m) = op(B^T) op(A^T); B goes first
  return kf_lt_matmul(s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N, s.n, s.m, s.k, alpha,
                      b + s.ob, s.ldb, a + s.oa, s.lda, 0.0f, c + s.oc, s.ldc, bias, stream);
}

// C = bias (bias[bi * i + bj * j + b0]), then C += alpha A B (beta 1).
[[maybe_unused]] static bool kf_sgemm_bias_then_product(const kf_sgemm_shape &s, float alpha, const float *a,
                                                        const float *b, float *c, const float *bias, long long bi,
                                                        long long bj, long long b0, cudaStream_t stream) {
  if (!kf_sgemm_rows_fit(s) || s.n < 1)
    return false;
  kf_sgemm_rows<<<(unsigned)(s.m * s.count[0] * s.count[1]), 256, 0, stream>>>(c, s, 0, 0, 0, 0.0f, bias, bi, bj, b0);
  return cudaGetLastError() == cudaSuccess && kf_sgemm_run(s, alpha, 1.0f, a, b, c, stream);
}

// C = alpha A B + bias[j] for one product: through cuBLASLt's epilogue, else in two steps.
[[maybe_unused]] static bool kf_sgemm_bias(const kf_sgemm_shape &s, float alpha, const float *a, const float *b,
                                           float *c, const float *bias, cudaStream_t stream) {
  return kf_sgemm_lt_bias(s, alpha, a, b, c, bias, stream) ||
         kf_sgemm_bias_then_product(s, alpha, a, b, c, bias, 0, 1, 0, stream);
}

// C = bias, then C += A B (beta 1): a bias the batch shares or not, along the rows or the columns;
// one product with a bias along the columns through cuBLASLt's epilogue instead.
[[maybe_unused]] static bool kf_sgemm_batched_bias(const kf_sgemm_shape &s, const float *a, const float *b, float *c,
                                                   const float *bias, long long bias_i, long long bias_j,
                                                   long long bias_0, cudaStream_t stream) {
  return (bias_i == 0 && bias_j == 1 && kf_sgemm_lt_bias(s, 1.0f, a, b, c, bias + bias_0, stream)) ||
         kf_sgemm_bias_then_product(s, 1.0f, a, b, c, bias, bias_i, bias_j, bias_0, stream);
}
