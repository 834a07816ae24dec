// sink-apply: a row kernel (a block a row, its values reduced in shared memory) writes its
// whole row, and the next kernel reads one element of it. The pass stores each row's
// values at the row's start instead, and the next kernel computes the element it loads.
// Two forms (on=1; the default, on=0, keeps both launches): the log-softmax before a mean
// of gathered elements (level1/095's, through pointer locals), and a scaled softmax stored
// at blockIdx.x * C + j directly, gathered by a thread per row, with a scalar parameter in
// the element (which the entry halves before the launches). Both variants compile.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=sink-apply --pin sink-apply.on=1 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// The passes after sink-apply see its kernels, parsed again: split-accumulators splits the
// new producers' reductions, named by their input kernels' lines (62, 103; pin: with sink-apply).
// RUN: %kfuse %s --passes=sink-apply,split-accumulators --pin sink-apply.on=1 --emit=transformed -o %t-staged.cu
// RUN: %strip-checks %t-staged.cu | FileCheck --check-prefix=STAGED %s
// STAGED: // kfuse variant sink-apply@log_softmax_gather#1-#2+sink-apply@scaled_softmax_pick#1-#2+split-accumulators(ways=4)@log_softmax_gather#1+split-accumulators(ways=4)@scaled_softmax_pick#1
// STAGED: // kfuse split-accumulators of log_softmax_rows_values (line 62): 2 reduction loops, 4 accumulators each
// STAGED:        log_softmax_rows_values_split<<<rows, THREADS, 0, stream>>>(x, logp, classes);
// STAGED-NEXT:   nll_sum_sunk<<<1, 1024, 0, stream>>>(logp, target, loss, rows, classes, x, classes);
// STAGED: // kfuse split-accumulators of softmax_direct_values (line 103): 2 reduction loops, 4 accumulators each
// STAGED:        softmax_direct_values_split<<<R, THREADS, 0, stream>>>(x, p, C, half);
// STAGED-NEXT:   pick_sunk<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C, x, half, C);
// CHECK: // kfuse variant sink-apply@log_softmax_gather#1-#2+sink-apply@scaled_softmax_pick#1-#2
// CHECK: // kfuse sink-apply of log_softmax_rows (line {{[0-9]+}}): each row's 2 values, not the row: nll_sum (line {{[0-9]+}}) computes the elements it loads
// CHECK-NEXT: __global__ void log_softmax_rows_values(const float *__restrict x, float *__restrict logp, int C) {
// CHECK:        const float log_sum = logf(red[0]);
// CHECK-NEXT:   if (C >= 2) { // kfuse sink-apply: the row's values at its start, not the row
// CHECK-NEXT:     if (threadIdx.x == 0) {
// CHECK-NEXT:       logp[(size_t)blockIdx.x * C + 0] = row_max;
// CHECK-NEXT:       logp[(size_t)blockIdx.x * C + 1] = log_sum;
// CHECK-NEXT:     }
// CHECK-NEXT:   } else { // too short a row: as the reference
// CHECK-NEXT:     for (int j = t; j < C; j += 256) {
// CHECK-NEXT:       out[j] = row[j] - row_max - log_sum;
// CHECK:      __device__ __forceinline__ float kf_log_softmax_rows_at(const float *__restrict__ logp, const float *__restrict__ x, int C, long long kf_i) {
// CHECK-NEXT:   if (C < 2)
// CHECK-NEXT:     return logp[kf_i]; // too short a row: stored as the reference
// CHECK-NEXT:   const long long kf_r = kf_i / C;
// CHECK-NEXT:   const int j = (int)(kf_i % C);
// CHECK-NEXT:   const float row_max = logp[kf_r * C + 0];
// CHECK-NEXT:   const float log_sum = logp[kf_r * C + 1];
// CHECK-NEXT:   return x[kf_r * C + j] - row_max - log_sum;
// CHECK:      __global__ void nll_sum_sunk(const float *__restrict logp, const int64_t *__restrict target, float *__restrict loss, int N, int C, const float *__restrict__ kf_x, int kf_C) {
// CHECK:          acc -= kf_log_softmax_rows_at(logp, kf_x, kf_C, (long long)((size_t)i * C + target[i]));
// CHECK:        log_softmax_rows_values<<<rows, THREADS, 0, stream>>>(x, logp, classes);
// CHECK-NEXT:   nll_sum_sunk<<<1, 1024, 0, stream>>>(logp, target, loss, rows, classes, x, classes);
// CHECK: // kfuse sink-apply of softmax_direct (line {{[0-9]+}}): each row's 2 values, not the row: pick (line {{[0-9]+}}) computes the elements it loads
// CHECK:            p[(size_t)blockIdx.x * C + 0] = mx;
// CHECK-NEXT:       p[(size_t)blockIdx.x * C + 1] = inv;
// CHECK:      __device__ __forceinline__ float kf_softmax_direct_at(const float *__restrict__ p, const float *__restrict__ x, float scale, int C, long long kf_i) {
// CHECK:        return expf(x[kf_r * C + j] - mx) * inv * scale;
// CHECK:      __global__ void pick_sunk(const float *__restrict p, const int *__restrict idx, float *__restrict y, int R, int C, const float *__restrict__ kf_x, float kf_scale, int kf_C) {
// CHECK:          y[r] = kf_softmax_direct_at(p, kf_x, kf_scale, kf_C, (long long)((size_t)r * C + idx[r]));
// CHECK:        pick_sunk<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C, x, half, C);
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#define THREADS 256

__global__ void log_softmax_rows(const float* __restrict__ x, float* __restrict__ logp, int C) {
  __shared__ float red[THREADS];
  const float* row = x + (size_t)blockIdx.x * C;
  float* out = logp + (size_t)blockIdx.x * C;
  const int t = threadIdx.x;
  float m = -INFINITY;
  for (int j = t; j < C; j += THREADS) m = fmaxf(m, row[j]);
  red[t] = m;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();
  float acc = 0.0f;
  for (int j = t; j < C; j += THREADS) acc += expf(row[j] - row_max);
  red[t] = acc;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  const float log_sum = logf(red[0]);
  for (int j = t; j < C; j += THREADS) out[j] = row[j] - row_max - log_sum;
}

__global__ void nll_sum(const float* __restrict__ logp, const int64_t* __restrict__ target,
                        float* __restrict__ loss, int N, int C) {
  __shared__ float red[1024];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < N; i += 1024) acc -= logp[(size_t)i * C + target[i]];
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 512; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) loss[0] = red[0];
}

__global__ void softmax_direct(const float* __restrict__ x, float* __restrict__ p, int C, float scale) {
  __shared__ float red[THREADS];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += blockDim.x) m = fmaxf(m, x[(size_t)blockIdx.x * C + j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < C; j += blockDim.x) sum += expf(x[(size_t)blockIdx.x * C + j] - mx);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int j = threadIdx.x; j < C; j += blockDim.x)
    p[(size_t)blockIdx.x * C + j] = expf(x[(size_t)blockIdx.x * C + j] - mx) * inv * scale;
}

__global__ void pick(const float* __restrict__ p, const int* __restrict__ idx, float* __restrict__ y, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < R) y[r] = p[(size_t)r * C + idx[r]];
}

// kfuse: in  x      float[rows][classes]
// kfuse: in  target int64[rows]
// kfuse: out loss   float[1]
// kfuse: init target int(0,classes)
// kfuse: tune  rows=4096 classes=1000
// kfuse: check rows=7 classes=129
// kfuse: check rows=33 classes=1
extern "C" void log_softmax_gather(const float* x, const int64_t* target, float* loss, int rows, int classes,
                                   cudaStream_t stream) {
  float* logp;
  cudaMallocAsync(&logp, sizeof(float) * (size_t)rows * classes, stream);
  log_softmax_rows<<<rows, THREADS, 0, stream>>>(x, logp, classes);
  nll_sum<<<1, 1024, 0, stream>>>(logp, target, loss, rows, classes);
  cudaFreeAsync(logp, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=4096 C=1000 scale=0.5
// kfuse: check R=5 C=300 scale=2.0
// kfuse: check R=9 C=1 scale=1.0
extern "C" void scaled_softmax_pick(const float* x, const int* idx, float* y, int R, int C, float scale,
                                    cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * (size_t)R * C, stream);
  float half = scale;
  half = half * 0.5f;
  softmax_direct<<<R, THREADS, 0, stream>>>(x, p, C, half);
  pick<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}
