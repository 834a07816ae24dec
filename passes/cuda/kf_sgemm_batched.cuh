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

// The largest power of two up to 16 that divides the address: the alignment cuBLASLt's
// heuristic is told of, so that the engine it picks runs on these pointers.
static uint32_t kf_lt_align(const void *p) {
  const unsigned long long v = (unsigned long long)p;
  return v % 16 == 0 ? 16 : v % 8 == 0 ? 8 : 4;
}

// A cuBLASLt matmul for one shape, alignment and bias layout, made at its first call and kept:
// the descriptors, and the fastest of the heuristic's first eight engines as timed there on the
// call's own buffers (three runs each after one to warm up; the heuristic's first while the
// stream is being captured). A call then only sets the bias pointer and runs, so that the small
// products of a recurrent network's time loop do not pay the heuristic at every step. (For
// level3/034's 8 x 128 x 256 product the heuristic's first engine split k 264 ways: 53 us a
// call, most of each time step.)
struct kf_lt_plan {
  long long key[10];            // m, n, k, lda, ldb, ldc, ta, tb, the alignments of A and B, of C and the bias
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  bool usable;                  // the heuristic found an engine
};

// C = alpha A B + bias[j] for one product (no batch): one cublasLtMatmul whose epilogue adds the bias
// down the rows of the column-major result (the columns of the row-major C), as eager's addmm
// does. FP32 (CUBLAS_COMPUTE_32F, no TF32). False when cuBLASLt cannot take it (the caller then
// fills C with the bias and adds the product).
[[maybe_unused]] static bool kf_sgemm_lt_bias(const kf_sgemm_shape &s, float alpha, const float *a, const float *b, float *c,
                                              const float *bias, cudaStream_t stream) {
  static cublasLtHandle_t handle = [] { // made once; the stream is the call's
    cublasLtHandle_t h = nullptr;
    return cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS ? h : nullptr;
  }();
  static constexpr size_t workspace_bytes = 32u << 20; // lets the library split k (few rows)
  static void *workspace = [] { // allocated once
    void *p = nullptr;
    return cudaMalloc(&p, workspace_bytes) == cudaSuccess ? p : nullptr;
  }();
  static std::mutex lock; // the plans, and the bias pointer set on a plan's descriptor
  static kf_lt_plan plans[32];
  static int nplans = 0;
  const long long most = 2147483647;
  const long long sizes[] = {s.m, s.n, s.k, s.lda, s.ldb, s.ldc};
  for (long long v : sizes)
    if (v < 1 || v > most)
      return false;
  if (!handle || s.count[0] != 1 || s.count[1] != 1 || s.lda < (s.ta ? s.m : s.k) || s.ldb < (s.tb ? s.k : s.n) ||
      s.ldc < s.n)
    return false;
  a += s.oa;
  b += s.ob;
  c += s.oc;
  const uint32_t align_a = kf_lt_align(a), align_b = kf_lt_align(b), align_c = kf_lt_align(c);
  const long long key[10] = {s.m, s.n, s.k, s.lda, s.ldb, s.ldc, s.ta, s.tb, align_a * 32 + align_b,
                             align_c * 32 + kf_lt_align(bias)};
  std::lock_guard<std::mutex> hold(lock);
  kf_lt_plan *plan = nullptr;
  for (int i = 0; i < nplans && !plan; i++)
    if (!memcmp(plans[i].key, key, sizeof key))
      plan = &plans[i];
  if (!plan) {
    if (nplans == 32)
      return false; // the caller's two-step path
    plan = &plans[nplans++];
    *plan = {};
    memcpy(plan->key, key, sizeof key);
    // column-major: C^T (n x m) = op(B^T) op(A^T); B goes first
    const cublasOperation_t opa = s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = s.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const uint64_t bytes = workspace ? workspace_bytes : 0;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulHeuristicResult_t found[8] = {};
    int nfound = 0;
    plan->usable =
        cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&plan->la, CUDA_R_32F, s.tb ? s.k : s.n, s.tb ? s.n : s.k, s.ldb) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&plan->lb, CUDA_R_32F, s.ta ? s.m : s.k, s.ta ? s.k : s.m, s.lda) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&plan->lc, CUDA_R_32F, s.n, s.m, s.ldc) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes) ==
            CUBLAS_STATUS_SUCCESS &&
        // the first operand is B, the second A (column-major C^T = B^T A^T)
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_b,
                                             sizeof align_b) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_a,
                                             sizeof align_a) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                             sizeof align_c) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                             sizeof align_c) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoGetHeuristic(handle, plan->op, plan->la, plan->lb, plan->lc, plan->lc, pref, 8, found,
                                       &nfound) == CUBLAS_STATUS_SUCCESS &&
        nfound >= 1;
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
    plan->algo = found[0].algo;
    if (plan->usable && nfound > 1) { // the fastest of the heuristic's engines, timed on this call's buffers
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      cudaEvent_t t0 = nullptr, t1 = nullptr;
      float best = 0.0f;
      const float zero = 0.0f;
      if (cudaStreamIsCapturing(stream, &capturing) == cudaSuccess && capturing == cudaStreamCaptureStatusNone &&
          cudaEventCreate(&t0) == cudaSuccess && cudaEventCreate(&t1) == cudaSuccess)
        for (int i = 0; i < nfound; i++) {
          bool ran = found[i].state == CUBLAS_STATUS_SUCCESS;
          for (int rep = 0; rep < 4 && ran; rep++) { // one to warm up, three timed
            if (rep == 1)
              ran = cudaEventRecord(t0, stream) == cudaSuccess;
            ran = ran && cublasLtMatmul(handle, plan->op, &alpha, b, plan->la, a, plan->lb, &zero, c, plan->lc, c,
                                        plan->lc, &found[i].algo, workspace, workspace ? workspace_bytes : 0,
                                        stream) == CUBLAS_STATUS_SUCCESS;
          }
          float ms = 0.0f;
          if (ran && cudaEventRecord(t1, stream) == cudaSuccess && cudaEventSynchronize(t1) == cudaSuccess &&
              cudaEventElapsedTime(&ms, t0, t1) == cudaSuccess && (best == 0.0f || ms < best)) {
            best = ms;
            plan->algo = found[i].algo;
          }
        }
      if (t0)
        cudaEventDestroy(t0);
      if (t1)
        cudaEventDestroy(t1);
      cudaGetLastError(); // a failed trial leaves no error behind
    }
  }
  const float zero = 0.0f;
  return plan->usable &&
         cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) ==
             CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmul(handle, plan->op, &alpha, b, plan->la, a, plan->lb, &zero, c, plan->lc, c, plan->lc, &plan->algo,
                        workspace, workspace ? workspace_bytes : 0, stream) == CUBLAS_STATUS_SUCCESS;
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
