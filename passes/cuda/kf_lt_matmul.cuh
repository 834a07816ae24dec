// kfuse cuBLASLt matmul: one FP32 product D = alpha op(A) op(B) + beta C, plus bias[i] down
// each column where a bias is given, column-major and with cublasSgemm's arguments, through a
// cuBLASLt plan made at a shape's first call and kept. A plan holds the descriptors and the
// fastest of the heuristic's first eight engines, each timed there on the call's own operands
// (one run to warm up, three timed, written to scratch so that C is left as it is; the
// heuristic's first while the stream is being captured). A later call of the shape only sets
// the bias pointer and runs. 64 plans are kept; a new shape past them takes the place of the
// one least recently used (a process that runs many shapes, such as the runner verifying a
// variant on drawn shapes, would otherwise run its own path from then on). For the small products of a recurrent network's time loop the
// heuristic's first engine can be many times slower than the best: level3/034's 8 x 128 x
// 256 product split k 264 ways (53 us a call); level3/039's 10 x 768 x 256 ran 26 us.
// FP32 stays FP32 (CUBLAS_COMPUTE_32F, no TF32). Each stream has its own 32 MiB workspace
// (two streams never share one: calls are free to overlap), at most 16 streams a process.
// Returns false, having run nothing, when cuBLASLt cannot take the call: the caller then
// runs its own path.
struct kf_lt_plan {
  long long key[13]; // ta, tb, m, n, k, lda, ldb, ldc, beta != 0, bias?, alignments (A B, C bias), workspace
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  bool usable;             // the heuristic found an engine
  unsigned long long used; // the call that last used it (the least recently used makes room)
};

// Destroys what a plan holds (a plan of a shape not run for the longest, making room).
static void kf_lt_plan_free(kf_lt_plan *p) {
  if (p->op)
    cublasLtMatmulDescDestroy(p->op);
  if (p->la)
    cublasLtMatrixLayoutDestroy(p->la);
  if (p->lb)
    cublasLtMatrixLayoutDestroy(p->lb);
  if (p->lc)
    cublasLtMatrixLayoutDestroy(p->lc);
  *p = {};
}

// The largest power of two up to 16 that divides the address: the alignment the heuristic
// is told of, so that the engine it picks runs on these pointers.
static uint32_t kf_lt_align(const void *p) {
  const unsigned long long v = (unsigned long long)p;
  return v % 16 == 0 ? 16 : v % 8 == 0 ? 8 : 4;
}

// The workspace of stream s (made at its first use), its size in *bytes; NULL when none can
// be had (then no engine that needs one is chosen).
static void *kf_lt_workspace(cudaStream_t s, uint64_t *bytes) {
  static constexpr uint64_t size = 32u << 20; // lets the library split k (few rows)
  static cudaStream_t streams[16];
  static void *spaces[16];
  static int n = 0;
  for (int i = 0; i < n; i++)
    if (streams[i] == s) {
      *bytes = spaces[i] ? size : 0;
      return spaces[i];
    }
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  void *p = nullptr;
  if (n == 16 || cudaStreamIsCapturing(s, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone ||
      cudaMalloc(&p, size) != cudaSuccess) {
    cudaGetLastError();
    *bytes = 0;
    return nullptr;
  }
  streams[n] = s;
  spaces[n++] = p;
  *bytes = size;
  return p;
}

[[maybe_unused]] static bool kf_lt_matmul(cublasOperation_t ta, cublasOperation_t tb, long long m, long long n,
                                          long long k, float alpha, const float *a, long long lda, const float *b,
                                          long long ldb, float beta, float *c, long long ldc, const float *bias,
                                          cudaStream_t stream) {
  static cublasLtHandle_t handle = [] { // made once; the stream is the call's
    cublasLtHandle_t h = nullptr;
    return cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS ? h : nullptr;
  }();
  static std::mutex lock; // the plans, the workspaces, and the bias pointer set on a plan's descriptor
  static kf_lt_plan plans[64];
  static int nplans = 0;
  static unsigned long long calls = 0;
  const long long most = 2147483647;
  const long long sizes[] = {m, n, k, lda, ldb, ldc};
  for (long long v : sizes)
    if (v < 1 || v > most)
      return false;
  const bool plain_a = ta == CUBLAS_OP_N, plain_b = tb == CUBLAS_OP_N;
  if (!handle || (!plain_a && ta != CUBLAS_OP_T) || (!plain_b && tb != CUBLAS_OP_T) || lda < (plain_a ? m : k) ||
      ldb < (plain_b ? k : n) || ldc < m)
    return false;
  std::lock_guard<std::mutex> hold(lock);
  calls++;
  uint64_t bytes = 0;
  void *workspace = kf_lt_workspace(stream, &bytes);
  const uint32_t align_a = kf_lt_align(a), align_b = kf_lt_align(b), align_c = kf_lt_align(c);
  const long long key[13] = {ta, tb, m, n, k, lda, ldb, ldc, beta != 0.0f, bias != nullptr,
                             align_a * 32 + align_b, align_c * 32 + (bias ? kf_lt_align(bias) : 0), bytes != 0};
  kf_lt_plan *plan = nullptr;
  for (int i = 0; i < nplans && !plan; i++)
    if (!memcmp(plans[i].key, key, sizeof key))
      plan = &plans[i];
  if (!plan) {
    if (nplans < 64) {
      plan = &plans[nplans++];
    } else {
      plan = &plans[0];
      for (int i = 1; i < 64; i++)
        if (plans[i].used < plan->used)
          plan = &plans[i];
      kf_lt_plan_free(plan);
    }
    *plan = {};
    memcpy(plan->key, key, sizeof key);
    const cublasLtEpilogue_t epilogue = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulHeuristicResult_t found[8] = {};
    int nfound = 0;
    plan->usable =
        cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue) ==
            CUBLAS_STATUS_SUCCESS &&
        (!bias || cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) ==
                      CUBLAS_STATUS_SUCCESS) &&
        cublasLtMatrixLayoutCreate(&plan->la, CUDA_R_32F, plain_a ? m : k, plain_a ? k : m, lda) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&plan->lb, CUDA_R_32F, plain_b ? k : n, plain_b ? n : k, ldb) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&plan->lc, CUDA_R_32F, m, n, ldc) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a,
                                             sizeof align_a) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b,
                                             sizeof align_b) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                             sizeof align_c) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                             sizeof align_c) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoGetHeuristic(handle, plan->op, plan->la, plan->lb, plan->lc, plan->lc, pref, 8, found,
                                       &nfound) == CUBLAS_STATUS_SUCCESS &&
        nfound >= 1;
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
    plan->algo = found[0].algo;
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    float *scratch = nullptr; // D of the trials: C's columns, so that C stays as it is
    if (plan->usable && nfound > 1 && cudaStreamIsCapturing(stream, &capturing) == cudaSuccess &&
        capturing == cudaStreamCaptureStatusNone && cudaMalloc(&scratch, sizeof(float) * ldc * n) == cudaSuccess) {
      cudaEvent_t t0 = nullptr, t1 = nullptr;
      float best = 0.0f;
      if (cudaEventCreate(&t0) == cudaSuccess && cudaEventCreate(&t1) == cudaSuccess)
        for (int i = 0; i < nfound; i++) {
          bool ran = found[i].state == CUBLAS_STATUS_SUCCESS;
          for (int rep = 0; rep < 4 && ran; rep++) { // one to warm up, three timed
            if (rep == 1)
              ran = cudaEventRecord(t0, stream) == cudaSuccess;
            ran = ran && cublasLtMatmul(handle, plan->op, &alpha, a, plan->la, b, plan->lb, &beta, c, plan->lc,
                                        scratch, plan->lc, &found[i].algo, workspace, bytes,
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
      cudaStreamSynchronize(stream);
      cudaFree(scratch);
    }
    cudaGetLastError(); // a failed trial or allocation leaves no error behind
  }
  plan->used = calls;
  return plan->usable &&
         (!bias || cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) ==
                       CUBLAS_STATUS_SUCCESS) &&
         cublasLtMatmul(handle, plan->op, &alpha, a, plan->la, b, plan->lb, &beta, c, plan->lc, c, plan->lc,
                        &plan->algo, workspace, bytes, stream) == CUBLAS_STATUS_SUCCESS;
}
