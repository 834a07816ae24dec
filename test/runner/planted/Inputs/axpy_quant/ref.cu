// axpy_quant: the reference of the planted variants test/runner/planted/axpy-quant-*.cu.
// A half input, a float buffer updated in place and an int32 output compared exactly; a
// floating scalar; a stream; and a cudaError_t result.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void axpy_quant_kernel(const __half* x, float* acc, int* q, int N, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float a = acc[i] + alpha * __half2float(x[i]);
  acc[i] = a;
  q[i] = (int)floorf(a * 8.f);
}

// kfuse: in    x   half[N]
// kfuse: inout acc float[N]
// kfuse: out   q   int32[N]
// kfuse: init  x   uniform(-4,4)
// kfuse: tune  N=4194304 alpha=0.5
// kfuse: check N=1001 alpha=-1.25
// kfuse: assume N >= 1
extern "C" cudaError_t axpy_quant(const __half* x, float* acc, int* q, int N, float alpha,
                                  cudaStream_t stream) {
  axpy_quant_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, acc, q, N, alpha);
  return cudaGetLastError();
}
