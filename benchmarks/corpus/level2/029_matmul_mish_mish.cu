// KernelBench level 2, problem 29: Matmul_Mish_Mish
//   y = mish(mish(linear(x, W, b)))
// The matmul is the textbook shared-memory tiled kernel (x @ W^T), then a bias kernel.
#include <cuda_runtime.h>

#define TILE 16

__global__ void matmul_tiled_nt(const float* __restrict__ A, const float* __restrict__ Bm,
                                float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;  // row of A / C
  const int col = blockIdx.x * TILE + threadIdx.x;  // row of Bm / column of C
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int ka = k0 + threadIdx.x;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
    const int brow = blockIdx.x * TILE + threadIdx.y;
    Bs[threadIdx.y][threadIdx.x] = (brow < N && ka < K) ? Bm[(size_t)brow * K + ka] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) acc += As[threadIdx.y][kk] * Bs[threadIdx.x][kk];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int N, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) out[i] = in[i] + bias[i % N];
}

__device__ __forceinline__ float softplus(float v) { return log1pf(expf(v)); }

__global__ void mish(const float* __restrict__ in, float* __restrict__ out, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    const float v = in[i];
    out[i] = v * tanhf(softplus(v));
  }
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.03,0.03)
// kfuse: init b uniform(-0.03,0.03)
// kfuse: tune  M=1024 K=8192 N=8192
// kfuse: check M=3 K=77 N=129
// kfuse: check M=19 K=8 N=31
extern "C" void matmul_mish_mish(const float* x, const float* w, const float* b, float* y, int M,
                                 int K, int N, cudaStream_t stream) {
  const int total = M * N;
  float *mm, *lin, *m1;
  cudaMallocAsync(&mm, sizeof(float) * total, stream);
  cudaMallocAsync(&lin, sizeof(float) * total, stream);
  cudaMallocAsync(&m1, sizeof(float) * total, stream);
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled_nt<<<grid, block, 0, stream>>>(x, w, mm, M, N, K);
  const int nb = (total + 255) / 256;
  add_bias<<<nb, 256, 0, stream>>>(mm, b, lin, N, total);
  mish<<<nb, 256, 0, stream>>>(lin, m1, total);
  mish<<<nb, 256, 0, stream>>>(m1, y, total);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(m1, stream);
}
