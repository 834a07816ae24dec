// parallelize's `oneblock` parameter: a kernel whose parallel form is a host loop of launches
// (trisolv: a pivot loop of n steps, each a one-thread statement and a 1-D grid) runs, with
// oneblock=1, in one block of 1024 threads: the host loop on the device, each launch a call
// of a __device__ function and a barrier, a one-thread launch by thread 0 alone. The host
// launches that block once. The default (oneblock=0) keeps the host loop of launches.
// RUN: %kfuse %s --passes=parallelize --pin parallelize.oneblock=1 --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s --implicit-check-not="__global__ void trisolv_serial_p_par" --implicit-check-not=kfuse_par_blocks
// RUN: %kfuse %s --passes=parallelize --emit=transformed -o %t.host.cu
// RUN: %strip-checks %t.host.cu | FileCheck %s --check-prefix=HOST
// RUN: rm -rf %t.b && mkdir -p %t.b && %kfuse bundle %s -o %t.b/b --passes=parallelize --budget=20
// RUN: FileCheck %s --check-prefix=RECIPES < %t.b/b/manifest.txt
#include <cuda_runtime.h>

__global__ void trisolv_serial(const float *L, const float *b, float *x, int n) {
  for (int i = 0; i < n; ++i)
    x[i] = b[i];
  for (int j = 0; j < n; ++j) {
    x[j] = x[j] / L[j * n + j];
    for (int i = j + 1; i < n; ++i)
      x[i] -= L[i * n + j] * x[j];
  }
}

// kfuse: in L float[n][n]
// kfuse: in b float[n]
// kfuse: out x float[n]
// kfuse: tune n=1400
// kfuse: check n=37
extern "C" void trisolv(const float *L, const float *b, float *x, int n, cudaStream_t stream) {
  trisolv_serial<<<1, 1, 0, stream>>>(L, b, x, n);
}

// CHECK: static __device__ void trisolv_serial_p_par1(const float *L, const float *b, float *x, int n) {
// CHECK-NEXT: for (int i = (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += gridDim.x * blockDim.x) {
// CHECK: static __device__ void trisolv_serial_p_serial2(const float *L, const float *b, float *x, int n, int j) {
// CHECK: static __device__ void trisolv_serial_p_par3(const float *L, const float *b, float *x, int n, int j) {
// CHECK: __global__ void __launch_bounds__(1024) trisolv_serial_p_block(const float *L, const float *b, float *x, int n) {
// CHECK-NEXT: trisolv_serial_p_par1(L, b, x, n);
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: for (int kf_j = 0; kf_j < (n); kf_j += 1) {
// CHECK-NEXT: if (threadIdx.x == 0) /* a one-thread launch */
// CHECK-NEXT: trisolv_serial_p_serial2(L, b, x, n, kf_j);
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: trisolv_serial_p_par3(L, b, x, n, kf_j);
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: extern "C" void trisolv(
// CHECK-NEXT: trisolv_serial_p_block<<<1, 1024, 0, stream>>>(L, b, x, n);
// CHECK-NEXT: }

// HOST: __global__ void trisolv_serial_p_par1(
// HOST: for (int kf_j = 0; kf_j < (n); kf_j += 1) {
// HOST-NEXT: trisolv_serial_p_serial2<<<1, 1, 0, stream>>>(L, b, x, n, kf_j);
// HOST-NEXT: trisolv_serial_p_par3<<<kfuse_par_blocks(

// RECIPES: variant v1 v1.cu parallelize@trisolv#0(block=256){{$}}
// RECIPES-NEXT: variant v2 v2.cu parallelize@trisolv#0(oneblock=1){{$}}
// RECIPES-NEXT: variant v3 v3.cu parallelize@trisolv#0(block=128){{$}}
// RECIPES-NEXT: variant v4 v4.cu parallelize@trisolv#0(block=512){{$}}
// RECIPES-NEXT: entry trisolv
