// A __device__ function of the file that returns an integer computed from its parameters
// alone (an index, SqueezeNet's nchw(...)) is inlined where the kernel calls it: its
// return expression, each parameter the argument cast to the parameter's type and the whole
// cast to the function's, so that the index algebra reads through it. A function that
// reads memory through a pointer (`first`) is written out as statements instead
// (inline-device-function.cu); one of a float alone (`twice`) stays a call.
// RUN: %kfuse %s --emit=model -o - | FileCheck %s
// CHECK-LABEL: kernel gather (line {{[0-9]+}})
// CHECK: store y[(int64_t)(((int64_t)blockIdx.z * (int64_t)J + (int64_t)blockIdx.y) * (int64_t)K + (int64_t)(blockIdx.x * blockDim.x + threadIdx.x))] affine depth 0
// CHECK: int first_result = first_p[0];
// CHECK-NEXT: y[(int64_t)(((int64_t)i * (int64_t)J + (int64_t)j) * (int64_t)K + (int64_t)k)] = twice(x[(int64_t)(((int64_t)i * (int64_t)J + (int64_t)j) * (int64_t)K + (int64_t)k) + first_result]);
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ int64_t at3(int64_t i, int64_t j, int64_t k, int64_t J, int64_t K) {
  return (i * J + j) * K + k;
}
__device__ __forceinline__ int first(const int* p) { return p[0]; }
__device__ __forceinline__ float twice(float v) { return 2.0f * v; }

__global__ void gather(const float* x, const int* off, float* y, int I, int J, int K) {
  int i = blockIdx.z, j = blockIdx.y, k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= K) return;
  y[at3(i, j, k, J, K)] = twice(x[at3(i, j, k, J, K) + first(off)]);
}

static unsigned blocks(long long n) { return (unsigned)((n + 127) / 128); }

static void run(const float* x, const int* off, float* y, int I, int J, int K, cudaStream_t s) {
  const int threads = 128;
  gather<<<dim3(blocks(K), J, I), threads, 0, s>>>(x, off, y, I, J, K);
}

// kfuse: in  x   float[I][J][K]
// kfuse: in  off int32[1]
// kfuse: out y   float[I][J][K]
// kfuse: tune I=2 J=3 K=300
extern "C" void index_function(const float* x, const int* off, float* y, int I, int J, int K, cudaStream_t stream) {
  run(x, off, y, I, J, K, stream);
}
