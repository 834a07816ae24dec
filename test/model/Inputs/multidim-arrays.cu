// Multi-dimensional shared and per-thread arrays: kfuse flattens their indices row-major.
#include <cuda_runtime.h>

#define T 32

// A tiled transpose through a padded shared tile.
__global__ void transpose(const float* in, float* out, int R, int C) {
  __shared__ float tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  if (x < C && y < R) tile[threadIdx.y][threadIdx.x] = in[y * C + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
  if (x < R && y < C) out[y * R + x] = tile[threadIdx.x][threadIdx.y];
}

// The same with the tile's extents from a template parameter: kept as expressions.
template <int TT>
__global__ void transpose_t(const float* in, float* out, int R, int C) {
  __shared__ float tile[TT][TT + 1];
  int x = blockIdx.x * TT + threadIdx.x, y = blockIdx.y * TT + threadIdx.y;
  if (x < C && y < R) tile[threadIdx.y][threadIdx.x] = in[y * C + x];
  __syncthreads();
  x = blockIdx.y * TT + threadIdx.x;
  y = blockIdx.x * TT + threadIdx.y;
  if (x < R && y < C) out[y * R + x] = tile[threadIdx.x][threadIdx.y];
}

// A per-thread 2x2x2 array, subscripted with sums (the printer must keep the parentheses).
__global__ void cube(const float* out_t, float* out, int R, int C) {
  float v[2][2][2];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R * C) return;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) v[a][b][c] = out_t[i] * (a + 1) + b - c;
  out[i] = v[1 - 1][0 + 1][1] + v[1][1][0];
}

// A row of a 2-D array taken as a pointer: kfuse leaves this kernel opaque.
__global__ void row_pointer(const float* in, float* out, int R, int C) {
  __shared__ float s[4][T];
  float* row = s[threadIdx.y];
  row[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = row[threadIdx.x];
}

// kfuse: in  in  float[R][C]
// kfuse: out out float[C][R]
// kfuse: tune  R=4096 C=4096
// kfuse: check R=33 C=65
extern "C" void transpose_cube(const float* in, float* out, int R, int C, cudaStream_t stream) {
  float* t;
  cudaMallocAsync(&t, sizeof(float) * R * C, stream);
  transpose<<<dim3((C + T - 1) / T, (R + T - 1) / T), dim3(T, T), 0, stream>>>(in, t, R, C);
  constexpr int kT = T;
  transpose_t<kT><<<dim3((C + T - 1) / T, (R + T - 1) / T), dim3(T, T), 0, stream>>>(in, out, R, C);
  transpose_t<kT><<<dim3((R + T - 1) / T, (C + T - 1) / T), dim3(T, T), 0, stream>>>(out, t, C, R);
  cube<<<(R * C + 255) / 256, 256, 0, stream>>>(t, out, R, C);
  cudaFreeAsync(t, stream);
}
