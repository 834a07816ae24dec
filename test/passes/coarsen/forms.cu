// Kernels that give each thread one output and a window loop take `blocks` (4 here) blocks'
// threads a thread: a max pool whose guard returns (the flat index decoded with / and %,
// the row through a pointer local), an average pool with a two-dimensional grid whose guard
// is a block around the rest (the row from blockIdx.y, the same for every u, declared once),
// and a kernel with a loop whose bounds differ per thread (run once for each u, not jammed),
// a return inside an if, and blockIdx.x and gridDim.x read outside the thread index. Every
// top-level local that differs per u becomes an array of 4; the jammed loop runs once with
// its body for each u; blockIdx.x reads as the block a u stands for, gridDim.x as the
// reference's grid, which the launch passes as kf_grid_x; the grid has a quarter of the
// blocks. With hoist (the default), the pools' window conditions (an if's, a select's: a
// position affine in k, through a local of the body) are checked once, at the loop's first
// and last step for every u, and the loop runs without them when they hold; the third
// kernel's loop has none. With divide, the divisions by a parameter are the fast-divide
// helper's (passes/fast_divide.h). The variants compile.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=coarsen --pin coarsen.divide=0 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: grep -c '^static inline dim3 kf_coarsen_grid' %t.cu | FileCheck --check-prefix=ONCE %s
// ONCE: {{^}}1{{$}}
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// RUN: %kfuse %s --passes=coarsen --pin coarsen.hoist=0 --pin coarsen.divide=0 --emit=transformed -o %t-0.cu
// RUN: %strip-checks %t-0.cu | FileCheck --check-prefix=NOHOIST %s
// NOHOIST: // kfuse variant coarsen(blocks=4)@pools#0+coarsen(blocks=4)@pools#1+coarsen(blocks=4)@pools#2
// NOHOIST-NOT: kf_inside
// With divide (the default), the divisions by a parameter in the two kernels that have them
// are the fast-divide helper's calls, the multiplier passed after kf_grid_x:
// RUN: %kfuse %s --passes=coarsen --emit=transformed -o %t-d.cu
// RUN: %strip-checks %t-d.cu | FileCheck --check-prefix=DIVIDE %s
// RUN: %nvcc -Werror all-warnings -c -o %t-d.o %t-d.cu
// DIVIDE: // kfuse variant coarsen(blocks=4,hoist,divide)@pools#0+coarsen(blocks=4,hoist)@pools#1+coarsen(blocks=4,divide)@pools#2
// DIVIDE: // 1 loop jammed, the window's bounds checked once, 2 divisions by the launch's values as multiplies (fast-divide)
// DIVIDE-NEXT: __global__ void max_window_x4({{.*}}, int dil, unsigned int kf_grid_x, kf_divmagic kf_dm0) {
// DIVIDE:     o[kf_u] = kf_mod_i32(idx[kf_u], Lout, kf_dm0);
// DIVIDE-NEXT:     nc[kf_u] = kf_div_i32(idx[kf_u], Lout, kf_dm0);
// DIVIDE: s[kf_u] += x[kf_mod_i32(i[kf_u] + k, L, kf_dm0)];
// DIVIDE: max_window_x4<<<{{.*}}, dim3((total + 255) / 256).x, kf_divmagic_of((int)L));
// DIVIDE: avg_window_x4<<<kf_coarsen_grid(grid, 4u), 128, 0, stream>>>(x, z, L, L, K, dim3(grid).x);
// DIVIDE: mixed_x4<<<{{.*}}, dim3((total + 127) / 128).x, kf_divmagic_of((int)L));
// CHECK: // kfuse variant coarsen(blocks=4,hoist)@pools#0+coarsen(blocks=4,hoist)@pools#1+coarsen(blocks=4)@pools#2
// CHECK-LABEL: static inline dim3 kf_coarsen_grid(dim3 g, unsigned int u) {
// CHECK-NEXT:    g.x = (g.x + u - 1) / u;
// CHECK-LABEL: // kfuse coarsen of max_window (line {{[0-9]+}}): a thread for the threads at its place in 4 consecutive blocks,
// CHECK-NEXT: // 1 loop jammed, the window's bounds checked once
// CHECK-NEXT: __global__ void max_window_x4(const float *__restrict x, float *__restrict y, int total, int L, int Lout, int K, int dil, unsigned int kf_grid_x) {
// CHECK-NEXT:   int idx[4];
// CHECK-NEXT:   int o[4];
// CHECK-NEXT:   int nc[4];
// CHECK-NEXT:   const float *row[4];
// CHECK-NEXT:   float m[4];
// CHECK-NEXT:   bool kf_live[4];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:   for (int kf_u = 0; kf_u < 4; kf_u++) // the blocks past the reference's grid do nothing
// CHECK-NEXT:     kf_live[kf_u] = blockIdx.x * 4u + kf_u < kf_grid_x;
// CHECK:          idx[kf_u] = (blockIdx.x * 4u + kf_u) * blockDim.x + threadIdx.x;
// CHECK-NEXT:     if (idx[kf_u] >= total) {
// CHECK-NEXT:       { kf_live[kf_u] = false; continue; } // the reference's thread returns
// CHECK:          row[kf_u] = x + (size_t)nc[kf_u] * L;
// CHECK:        { // the window's bounds checked once, at the loop's first and last step
// CHECK-NEXT:     bool kf_inside = (0) < (K);
// CHECK:              kf_inside = kf_inside && ((o[kf_u] - 1 + (0) * dil) >= 0 && (o[kf_u] - 1 + (0) * dil) < L) && ((o[kf_u] - 1 + ((K) - 1) * dil) >= 0 && (o[kf_u] - 1 + ((K) - 1) * dil) < L);
// CHECK-NEXT:     if (kf_inside) {
// CHECK-NEXT:       for (int k = 0; k < K; k += 1) { // jammed: the step of every u at once, inside the bounds
// CHECK-NEXT:         #pragma unroll
// CHECK-NEXT:         for (int kf_u = 0; kf_u < 4; kf_u++) {
// CHECK-NEXT:           if (!kf_live[kf_u]) continue;
// CHECK-NEXT:           int pos = o[kf_u] - 1 + k * dil;
// CHECK-NEXT:           { // inside the bounds
// CHECK-NEXT:             m[kf_u] = fmaxf(m[kf_u], row[kf_u][pos]);
// CHECK:            } else {
// CHECK-NEXT:       for (int k = 0; k < K; k += 1) { // jammed: the step of every u at once
// CHECK-NEXT:         #pragma unroll
// CHECK-NEXT:         for (int kf_u = 0; kf_u < 4; kf_u++) {
// CHECK-NEXT:           if (!kf_live[kf_u]) continue;
// CHECK-NEXT:           int pos = o[kf_u] - 1 + k * dil;
// CHECK-NEXT:           if (pos >= 0 && pos < L) {
// CHECK-NEXT:             m[kf_u] = fmaxf(m[kf_u], row[kf_u][pos]);
// CHECK:          y[idx[kf_u]] = m[kf_u];
// CHECK-LABEL: __global__ void avg_window_x4(
// CHECK-NEXT:   const int nc = blockIdx.y;
// CHECK-NEXT:   const float *row = x + (size_t)nc * L;
// CHECK-NEXT:   int o[4];
// CHECK-NEXT:   float sum[4];
// CHECK:          o[kf_u] = (blockIdx.x * 4u + kf_u) * blockDim.x + threadIdx.x;
// CHECK-NEXT:     if (!(o[kf_u] < Lout)) { kf_live[kf_u] = false; continue; } // the reference's guard
// CHECK:              kf_inside = kf_inside && ((o[kf_u] - 1 + (0)) >= 0 && (o[kf_u] - 1 + (0)) < L) && ((o[kf_u] - 1 + ((K) - 1)) >= 0 && (o[kf_u] - 1 + ((K) - 1)) < L);
// CHECK:                sum[kf_u] += (row[p]);
// CHECK:                sum[kf_u] += p >= 0 && p < L ? row[p] : 0.0f;
// CHECK:          y[(size_t)nc * Lout + o[kf_u]] = sum[kf_u] / K;
// CHECK-LABEL: __global__ void mixed_x4(
// CHECK-NOT:    kf_inside
// CHECK:          for (int j = 0; j < i[kf_u] % 3; j += 1) {
// CHECK:          if (i[kf_u] == 7) {
// CHECK-NEXT:       y[i[kf_u]] = -1.0f;
// CHECK-NEXT:       { kf_live[kf_u] = false; continue; } // the reference's thread returns
// CHECK:        for (int k = 0; k < K; k += 1) { // jammed: the step of every u at once
// CHECK:          y[i[kf_u]] = s[kf_u] + (float)((blockIdx.x * 4u + kf_u) % kf_grid_x);
// CHECK-LABEL: extern "C" void pools(
// CHECK:        max_window_x4<<<kf_coarsen_grid((total + 255) / 256, 4u), 256, 0, stream>>>(x, y, total, L, L, K, 2, dim3((total + 255) / 256).x);
// CHECK:        avg_window_x4<<<kf_coarsen_grid(grid, 4u), 128, 0, stream>>>(x, z, L, L, K, dim3(grid).x);
// CHECK:        mixed_x4<<<kf_coarsen_grid((total + 127) / 128, 4u), 128, 0, stream>>>(x, w, total, L, K, dim3((total + 127) / 128).x);
#include <cuda_runtime.h>
#include <math.h>

__global__ void max_window(const float* __restrict__ x, float* __restrict__ y, int total, int L, int Lout, int K,
                           int dil) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int o = idx % Lout;
  int nc = idx / Lout;
  const float* row = x + (size_t)nc * L;
  float m = -INFINITY;
  for (int k = 0; k < K; ++k) {
    int pos = o - 1 + k * dil;
    if (pos >= 0 && pos < L) m = fmaxf(m, row[pos]);
  }
  y[idx] = m;
}

__global__ void avg_window(const float* x, float* y, int L, int Lout, int K) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int nc = blockIdx.y;
  if (o < Lout) {
    const float* row = x + (size_t)nc * L;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      const int p = o - 1 + k;
      sum += (p >= 0 && p < L) ? row[p] : 0.0f;
    }
    y[(size_t)nc * Lout + o] = sum / K;
  }
}

__global__ void mixed(const float* x, float* y, int total, int L, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  float s = 0.0f;
  for (int j = 0; j < i % 3; ++j) s += 1.0f;
  if (i == 7) {
    y[i] = -1.0f;
    return;
  }
  for (int k = 0; k < K; ++k) s += x[(i + k) % L];
  y[i] = s + (float)(blockIdx.x % gridDim.x);
}

// kfuse: in  x float[R][L]
// kfuse: out y float[R][L]
// kfuse: out z float[R][L]
// kfuse: out w float[R][L]
// kfuse: init x int(0,8)
// kfuse: assume K >= 1 && K <= L && R >= 1
// kfuse: tune  R=256 L=4096 K=5
// kfuse: check R=3 L=33 K=5
// kfuse: check R=5 L=700 K=2
// kfuse: check R=1 L=1 K=1
extern "C" void pools(const float* x, float* y, float* z, float* w, int R, int L, int K, cudaStream_t stream) {
  const int total = R * L;
  max_window<<<(total + 255) / 256, 256, 0, stream>>>(x, y, total, L, L, K, 2);
  dim3 grid((L + 127) / 128, R);
  avg_window<<<grid, 128, 0, stream>>>(x, z, L, L, K);
  mixed<<<(total + 127) / 128, 128, 0, stream>>>(x, w, total, L, K);
}
