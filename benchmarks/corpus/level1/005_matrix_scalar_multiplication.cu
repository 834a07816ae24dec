// KernelBench level 1, problem 5: Matrix_scalar_multiplication
// C = A * s, elementwise, with a Python float scalar s. Grid-stride loop, size_t indices.
#include <cuda_runtime.h>

__global__ void mul_scalar(const float* __restrict__ a, float s, float* __restrict__ c, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    c[i] = a[i] * s;
  }
}

// kfuse: in  A float[M][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: tune  M=65536 N=16384 s=3.14
// kfuse: check M=7 N=129 s=-1.5
// kfuse: check M=33 N=3 s=2.5e-3
extern "C" void matrix_scalar_multiplication(const float* A, float* C, size_t M, size_t N, float s,
                                             cudaStream_t stream) {
  const size_t n = M * N;
  size_t blocks = (n + 255) / 256;
  if (blocks > 65536) blocks = 65536;
  mul_scalar<<<(unsigned int)blocks, 256, 0, stream>>>(A, s, C, n);
}
