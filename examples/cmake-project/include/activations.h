// activations: the example library's API. pointwise_chain and mlp_small are annotated
// reference CUDA (src/chain.cu, src/mlp.cu); scale_add is plain CUDA (src/scale.cu).
#pragma once
#include <cuda_runtime.h>

extern "C" {
void pointwise_chain(const float* x, float* y, int N, int D, cudaStream_t stream);
void mlp_small(const float* x, const float* w0, const float* b0, const float* w1, const float* b1,
               const float* w2, const float* b2, float* out, int B, int IN, int H, int OUT,
               cudaStream_t stream);
void scale_add(const float* x, float* y, float a, float b, int n, cudaStream_t stream);
}
