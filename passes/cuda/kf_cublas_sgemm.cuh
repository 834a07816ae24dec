// kfuse cublas-lt: the reference's cublasSgemm, same arguments and result, as one cuBLASLt
// matmul with its engine timed per shape (kf_lt_matmul) on the handle's stream. Where the
// handle asks for something else (alpha and beta on the device, a math mode other than
// FP32's) or cuBLASLt cannot take the call, cublasSgemm itself runs.
[[maybe_unused]] static cublasStatus_t kf_cublas_sgemm(cublasHandle_t handle, cublasOperation_t ta,
                                                       cublasOperation_t tb, int m, int n, int k, const float *alpha,
                                                       const float *a, int lda, const float *b, int ldb,
                                                       const float *beta, float *c, int ldc) {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t where = CUBLAS_POINTER_MODE_DEVICE;
  cublasMath_t math = CUBLAS_TF32_TENSOR_OP_MATH;
  if (cublasGetStream(handle, &stream) == CUBLAS_STATUS_SUCCESS &&
      cublasGetPointerMode(handle, &where) == CUBLAS_STATUS_SUCCESS && where == CUBLAS_POINTER_MODE_HOST &&
      cublasGetMathMode(handle, &math) == CUBLAS_STATUS_SUCCESS &&
      ((math & 15) == CUBLAS_DEFAULT_MATH || (math & 15) == CUBLAS_PEDANTIC_MATH) && alpha && beta &&
      kf_lt_matmul(ta, tb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc, nullptr, stream))
    return CUBLAS_STATUS_SUCCESS;
  return cublasSgemm(handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
