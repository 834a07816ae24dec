// What sink-apply refuses, and why (-R): a block value assigned after its declaration, a
// value read from a thread's own slot of shared memory, one read with no barrier after the
// stores, a row read by two kernels, a consumer that writes the buffer the element reads,
// an element computed from another place of the row than its own (the row reversed), a
// value from a function kfuse does not know to be one of its arguments alone (it reads the
// thread index), a value passed by reference to a function, a host value changed between
// the two launches (the consumer's launch would pass it again), a pointer kfuse cannot trace
// (a file-scope buffer the caller sets), and an element function whose names would clash (a value named as
// an input). The output is the input.
// RUN: %kfuse %s --passes=sink-apply --pin sink-apply.on=1 -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not sunk: 'reassigned' stores an element that 'm' is not declared once at the kernel's top level, with a value, and never assigned [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'per_thread' stores an element that 'mine' may differ between the block's threads: its value has a thread index [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'no_barrier' stores an element that 'mx' may differ between the block's threads: its value has a load of a shared array that no barrier separates from its stores [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: a step other than 'settled' and 'gather' uses 'p' [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'gather_into' writes 'x', which the element reads [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'shifted' stores an element that loads a buffer at another place than the element's [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'calls_helper' stores an element that 'mx' may differ between the block's threads: its value has a call of lane_bias, which kfuse does not know to compute a value alone [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'by_reference' stores an element that 'mx' is passed to a function that may change it [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: the entry runs other code between 'settled' and 'gather' [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: the entry passes a pointer kfuse cannot trace (it may be 'p' or an input) [-Rpass-missed=sink-apply]
// CHECK: remark: not sunk: 'x' names two things the element's function needs [-Rpass-missed=sink-apply]
// CHECK-NOT: remark
#include <cuda_runtime.h>
#include <math.h>

__global__ void reassigned(const float* x, float* p, int C) {
  __shared__ float red[128];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 128) m = fmaxf(m, x[blockIdx.x * C + j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - m;
}

__global__ void per_thread(const float* x, float* p, int C) {
  __shared__ float red[128];
  red[threadIdx.x] = x[blockIdx.x * C];
  __syncthreads();
  const float mine = red[threadIdx.x];
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - mine;
}

__global__ void no_barrier(const float* x, float* p, int C) {
  __shared__ float red[128];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 128) m = fmaxf(m, x[blockIdx.x * C + j]);
  red[threadIdx.x] = m;
  const float mx = red[0];
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - mx;
}

__global__ void settled(const float* x, float* p, int C) {
  __shared__ float red[128];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 128) m = fmaxf(m, x[blockIdx.x * C + j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = red[0];
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - mx;
}

__global__ void shifted(const float* x, float* p, int C) {
  __shared__ float red[128];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 128) m = fmaxf(m, x[blockIdx.x * C + j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = red[0];
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + (C - 1 - j)] - mx;
}

__device__ __forceinline__ float lane_bias() { return 0.001f * (float)(threadIdx.x % 32); }
__device__ __forceinline__ void bump(float& v) { v += 0.001f * (float)threadIdx.x; }

__global__ void calls_helper(const float* x, float* p, int C) {
  __shared__ float red[128];
  red[threadIdx.x] = x[blockIdx.x * C];
  __syncthreads();
  const float mx = red[0] + lane_bias();
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - mx;
}

__global__ void by_reference(const float* x, float* p, int C) {
  __shared__ float red[128];
  red[threadIdx.x] = x[blockIdx.x * C];
  __syncthreads();
  float mx = red[0];
  bump(mx);
  for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = x[blockIdx.x * C + j] - mx;
}

__global__ void clash(const float* x, float* p, int C) {
  __shared__ float red[128];
  const float* row = x + blockIdx.x * C;
  red[threadIdx.x] = row[0];
  __syncthreads();
  {
    const float x = red[0];
    for (int j = threadIdx.x; j < C; j += 128) p[blockIdx.x * C + j] = row[j] - x;
  }
}

static float* g_work; // set by the caller through set_work

void set_work(float* w) { g_work = w; }

__global__ void copy_row(const float* x, float* w, int C) {
  for (int j = threadIdx.x; j < C; j += 128) w[blockIdx.x * C + j] = x[blockIdx.x * C + j];
}

__global__ void gather(const float* p, const int* idx, float* y, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < R) y[r] = p[r * C + idx[r]];
}

__global__ void gather_into(const float* p, const int* idx, float* x, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < R) x[r * C] = p[r * C + idx[r]];
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_reassigned(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  reassigned<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_per_thread(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  per_thread<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_no_barrier(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  no_barrier<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: out z   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void two_readers(const float* x, const int* idx, float* y, float* z, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  settled<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, z, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: inout x float[R][C]
// kfuse: in    idx int32[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void writes_input(float* x, const int* idx, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  settled<<<R, 128, 0, stream>>>(x, p, C);
  gather_into<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, x, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_shifted(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  shifted<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_helper(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  calls_helper<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_reference(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  by_reference<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C - 1)
// kfuse: tune  R=64 C=300
extern "C" void changed_between(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  settled<<<R, 128, 0, stream>>>(x, p, C);
  C = C - 1;
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void untraced(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  copy_row<<<R, 128, 0, stream>>>(x, g_work, C);
  settled<<<R, 128, 0, stream>>>(g_work, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}

// kfuse: in  x   float[R][C]
// kfuse: in  idx int32[R]
// kfuse: out y   float[R]
// kfuse: init idx int(0,C)
// kfuse: tune  R=64 C=300
extern "C" void with_clash(const float* x, const int* idx, float* y, int R, int C, cudaStream_t stream) {
  float* p;
  cudaMallocAsync(&p, sizeof(float) * R * C, stream);
  clash<<<R, 128, 0, stream>>>(x, p, C);
  gather<<<(R + 127) / 128, 128, 0, stream>>>(p, idx, y, R, C);
  cudaFreeAsync(p, stream);
}
