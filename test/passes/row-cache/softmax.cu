// A softmax with a block per row, in place, over three loops (level3/031's): the row is
// kept in shared memory (kf_row, L floats, dynamic), read from global memory at its first
// access (before the max loop's first statement that reads it), every later access kf_row's, and written to global memory by the
// last loop that stores (the normalization; a compound store reads kf_row). The launch
// becomes `if (!launch_function(...)) <the launch>`: the function checks the row's bytes
// against the device's opt-in limit (the reference runs where it does not fit). A row
// loop written with blockDim.x as its step and the row indexed without a pointer local is
// taken too, with the max written as a choice. The output compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=row-cache --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// CHECK-LABEL: // kfuse row-cache of softmax_rows (line {{[0-9]+}}): each block's row of S in shared memory across its 3
// CHECK:       __global__ void softmax_rows_rowcache(float *__restrict S, int L) {
// CHECK-NEXT:    extern __shared__ float kf_row[]; // kfuse row-cache: this block's row of S
// CHECK:         kf_row[j] = S[(size_t)blockIdx.x * L + j];
// CHECK-NEXT:    m = fmaxf(m, kf_row[j]);
// CHECK:         const float e = expf(kf_row[j] - m);
// CHECK-NEXT:    kf_row[j] = e;
// CHECK:         S[(size_t)blockIdx.x * L + j] = kf_row[j] * (inv);
// CHECK:       static bool softmax_rows_rowcache_launch(dim3 kf_grid, dim3 kf_block, cudaStream_t kf_stream, float *__restrict S, int L) {
// CHECK:         cudaDevAttrMaxSharedMemoryPerBlockOptin
// CHECK:         softmax_rows_rowcache<<<kf_grid, kf_block, kf_bytes, kf_stream>>>(S, L);
// CHECK-LABEL: // kfuse row-cache of softmax_flat (line {{[0-9]+}})
// CHECK:         kf_row[j] = S[blockIdx.x * L + j];
// CHECK-NEXT:    m = kf_row[j] > m ? kf_row[j] : m;
// CHECK:         kf_row[j] = expf(kf_row[j] - m);
// CHECK-NEXT:    sum += kf_row[j];
// CHECK:         S[blockIdx.x * L + j] = kf_row[j] / s;
// CHECK-LABEL: extern "C" void softmaxes(
// CHECK:         if (!softmax_rows_rowcache_launch(R, 256, stream, a, L))
// CHECK-NEXT:      softmax_rows<<<R, 256, 0, stream>>>(a, L);
// CHECK-NEXT:    if (!softmax_flat_rowcache_launch(R, 128, stream, b, L))
// CHECK-NEXT:      softmax_flat<<<R, 128, 0, stream>>>(b, L);
#include <cuda_runtime.h>

#define T 256

__global__ void softmax_rows(float* __restrict__ S, int L) {
  __shared__ float red[T];
  float* row = S + (size_t)blockIdx.x * L;
  const int tid = threadIdx.x;
  float m = -INFINITY;
  for (int j = tid; j < L; j += T) m = fmaxf(m, row[j]);
  red[tid] = m;
  __syncthreads();
  for (int s = T / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int j = tid; j < L; j += T) {
    const float e = expf(row[j] - m);
    row[j] = e;
    sum += e;
  }
  red[tid] = sum;
  __syncthreads();
  for (int s = T / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];
    __syncthreads();
  }
  const float inv = 1.f / red[0];
  for (int j = tid; j < L; j += T) row[j] *= inv;
}

// 128 threads, blockDim.x as the step, the row indexed from S itself
__global__ void softmax_flat(float* S, int L) {
  __shared__ float red[128];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < L; j += blockDim.x) m = S[blockIdx.x * L + j] > m ? S[blockIdx.x * L + j] : m;
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int j = threadIdx.x; j < L; j += blockDim.x) {
    S[blockIdx.x * L + j] = expf(S[blockIdx.x * L + j] - m);
    sum += S[blockIdx.x * L + j];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float s = red[0];
  for (int j = threadIdx.x; j < L; j += blockDim.x) S[blockIdx.x * L + j] = S[blockIdx.x * L + j] / s;
}

// kfuse: inout a float[R][L]
// kfuse: inout b float[R][L]
// kfuse: tune  R=4096 L=4096
// kfuse: check R=3 L=1000
extern "C" void softmaxes(float* a, float* b, int R, int L, cudaStream_t stream) {
  softmax_rows<<<R, 256, 0, stream>>>(a, L);
  softmax_flat<<<R, 128, 0, stream>>>(b, L);
}
