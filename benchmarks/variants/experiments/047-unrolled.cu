// Hand-written experiment (not kfuse output): level1/047 with the reference's mapping and
// four independent accumulators per thread.
#include <cuda_runtime.h>

__global__ void sum_dim1_keepdim(const float* __restrict__ x, float* __restrict__ out, int D1,
                                 int D2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (j < D2) {
    const float* base = x + (size_t)b * D1 * D2 + j;
    float s = 0.0f;
    float s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int i = 0;
    for (; i + 3 < D1; i += 4) {
      s += base[(size_t)i * D2];
      s1 += base[(size_t)(i + 1) * D2];
      s2 += base[(size_t)(i + 2) * D2];
      s3 += base[(size_t)(i + 3) * D2];
    }
    for (; i < D1; ++i) s += base[(size_t)i * D2];
    s = (s + s1) + (s2 + s3);
    out[(size_t)b * D2 + j] = s;
  }
}

extern "C" void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size,
                                               int dim1, int dim2, cudaStream_t stream) {
  dim3 block(128);
  dim3 grid((dim2 + 127) / 128, batch_size);
  sum_dim1_keepdim<<<grid, block, 0, stream>>>(x, out, dim1, dim2);
}
