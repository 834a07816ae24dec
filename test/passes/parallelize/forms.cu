// A one-thread kernel of the forms a port starts from becomes parallel launches: a map loop
// (a 1-D grid), a stencil's time loop (a host loop of launches, each space nest a 2-D grid,
// the step passed in), a sum and a max written as an `if` (reductions: each block's share, a
// fixed tree, then the blocks in order into the frame), an inclusive scan (three launches
// over scratch), a histogram (its additions atomic), and the serial statements between them
// (one thread, the scalars in the frame). The variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=parallelize --emit=transformed -R -o %t.cu 2> %t.remarks
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %strip-checks %t.remarks | FileCheck --check-prefix=REMARK %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void forms_serial(int n, int tsteps, const float *x, float *A, float *B, float *y,
                             const int *bin, int *hist, float *stats) {
  for (int i = 0; i < n; ++i)
    y[i] = 2.0f * x[i];
  for (int t = 0; t < tsteps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        B[i * n + j] = 0.25f * (A[(i - 1) * n + j] + A[(i + 1) * n + j] + A[i * n + j - 1] + A[i * n + j + 1]);
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        A[i * n + j] = B[i * n + j];
  }
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += x[i];
  float m = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > m)
      m = x[i];
  stats[0] = s / n;
  stats[1] = m;
  for (int i = 1; i < n; ++i)
    y[i] = y[i - 1] + x[i];
  for (int b = 0; b < 16; ++b)
    hist[b] = 0;
  for (int i = 0; i < n; ++i)
    hist[bin[i]] += 1;
}

// kfuse: in x float[n]
// kfuse: inout A float[n][n]
// kfuse: inout B float[n][n]
// kfuse: out y float[n]
// kfuse: in bin int32[n]
// kfuse: init bin int(0,16)
// kfuse: out hist int32[16]
// kfuse: out stats float[2]
// kfuse: assume n >= 3
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=512 tsteps=4
// kfuse: check n=37 tsteps=3
extern "C" void forms(const float *x, float *A, float *B, float *y, const int *bin, int *hist, float *stats,
                      int n, int tsteps, cudaStream_t stream) {
  forms_serial<<<1, 1, 0, stream>>>(n, tsteps, x, A, B, y, bin, hist, stats);
}

// CHECK: // kfuse variant parallelize@forms#0(block=256)
// CHECK-LABEL: struct forms_serial_p_frame {
// CHECK-NEXT:   float s;
// CHECK-NEXT:   float m;
// CHECK-NEXT:   float kf_part_s[1024];
// CHECK-NEXT:   float kf_part_m[1024];
// CHECK-LABEL: __global__ void forms_serial_p_par1(
// CHECK-NEXT:   for (int i = (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += gridDim.x * blockDim.x) {
// CHECK-NEXT:     y[i] = 2.0f * x[i];
// CHECK-LABEL: // kfuse parallelize of forms_serial (line {{[0-9]+}}): the loops at line 20, 2-D grid
// CHECK-NEXT: __global__ void forms_serial_p_par2({{.*}}, int t, forms_serial_p_frame *__restrict__ kf_fr) {
// CHECK-NEXT:   for (int i = 1 + (blockIdx.y * blockDim.y + threadIdx.y); i < n - 1; i += gridDim.y * blockDim.y) {
// CHECK-NEXT:     for (int j = 1 + (blockIdx.x * blockDim.x + threadIdx.x); j < n - 1; j += gridDim.x * blockDim.x) {
// CHECK-LABEL: __global__ void forms_serial_p_serial4(
// CHECK-NEXT:   float s = kf_fr->s;
// CHECK-NEXT:   s = 0.0f;
// CHECK-NEXT:   kf_fr->s = s;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void forms_serial_p_red5(
// CHECK-NEXT:   float s = 0;
// CHECK:          s += x[i];
// CHECK:        __shared__ float kf_sh_s[256];
// CHECK:        for (int kf_w = 128; kf_w > 0; kf_w >>= 1) {
// CHECK:          kf_fr->kf_part_s[blockIdx.x] = kf_sh_s[0];
// CHECK-LABEL: __global__ void forms_serial_p_red5_done(forms_serial_p_frame *__restrict__ kf_fr, int kf_blocks) {
// CHECK:          kf_fr->s = kf_fr->s + kf_sh_s[0];
// CHECK-LABEL: __global__ void forms_serial_p_red7(
// CHECK-NEXT:   float m = -INFINITY;
// CHECK:          if (x[i] > m) {
// CHECK:        kf_sh_m[threadIdx.x] = fmaxf(kf_sh_m[threadIdx.x], kf_sh_m[threadIdx.x + kf_w]);
// CHECK-LABEL: __global__ void forms_serial_p_serial8(
// CHECK-NEXT:   float s = kf_fr->s;
// CHECK-NEXT:   float m = kf_fr->m;
// CHECK-NEXT:   stats[0] = s / n;
// CHECK-NEXT:   stats[1] = m;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void forms_serial_p_scan9(
// CHECK:          const int i = (int)((1) + kf_k);
// CHECK-NEXT:     kf_v = x[i];
// CHECK:          kf_sh[threadIdx.x] = kf_w + kf_sh[threadIdx.x];
// CHECK-LABEL: __global__ void forms_serial_p_scan9_offsets(
// CHECK:          kf_carry = y[(1) - 1];
// CHECK:            kf_part[kf_b] = kf_carry + kf_before;
// CHECK-LABEL: __global__ void forms_serial_p_scan9_add(
// CHECK:          y[(1) + kf_k] = kf_part[blockIdx.x] + y[(1) + kf_k];
// CHECK-LABEL: // kfuse parallelize of forms_serial (line {{[0-9]+}}): the loop at line 40, 1-D grid, its histogram's additions atomic
// CHECK:          atomicAdd(&hist[bin[i]], (int)(1));
// CHECK-LABEL: extern "C" void forms(
// The launches are statements of the entry's own (the passes after this one see them):
// CHECK:        forms_serial_p_frame *forms_serial_p_fr = NULL;
// CHECK-NEXT:   cudaMallocAsync((void **)&forms_serial_p_fr, sizeof(forms_serial_p_frame), stream);
// CHECK-NEXT:   forms_serial_p_par1<<<kfuse_par_blocks(kfuse_par_count((long long)(0), (long long)((n)), 1), 256, 1048576), 256, 0, stream>>>(n, tsteps, x, A, B, y, bin, hist, stats, forms_serial_p_fr);
// CHECK-NEXT:   for (int kf_t = 0; kf_t < (tsteps); kf_t += 1) {
// CHECK-NEXT:     forms_serial_p_par2<<<dim3({{.*}}), dim3(32, 8, 1), 0, stream>>>(n, tsteps, x, A, B, y, bin, hist, stats, kf_t, forms_serial_p_fr);
// CHECK-NEXT:     forms_serial_p_par3<<<
// CHECK-NEXT:   }
// CHECK-NEXT:   forms_serial_p_serial4<<<1, 1, 0, stream>>>(
// CHECK:          forms_serial_p_red5_done<<<1, 256, 0, stream>>>(forms_serial_p_fr, (int)kf_blocks);
// CHECK:        cudaMallocAsync((void **)&kf_part, sizeof(float) * kf_blocks, stream);
// CHECK:          forms_serial_p_scan9_offsets<<<1, 256, 0, stream>>>({{.*}}, forms_serial_p_fr, kf_part, (int)kf_blocks);
// CHECK:        cudaFreeAsync(forms_serial_p_fr, stream);
// CHECK-NEXT: {{^}}}
// REMARK-DAG: forms.cu:19:3: remark: kept serial: the loop over 't': B[i * n + j] (line 22) and B[i * n + j] (line 22) touch one element 1 iteration of 't' apart [-Rpass-missed=parallelize]
// REMARK-DAG: forms.cu:17:3: remark: parallelized: the loop over 'i' as a 1-D grid [-Rpass=parallelize]
// REMARK-DAG: forms.cu:20:5: remark: parallelized: the loop over 'i' as a 2-D grid [-Rpass=parallelize]
// REMARK-DAG: forms.cu:28:3: remark: parallelized: the loop over 'i' as a reduction [-Rpass=parallelize]
// REMARK-DAG: forms.cu:31:3: remark: parallelized: the loop over 'i' as a reduction [-Rpass=parallelize]
// REMARK-DAG: forms.cu:36:3: remark: parallelized: the loop over 'i' as a scan [-Rpass=parallelize]
// REMARK-DAG: forms.cu:40:3: remark: parallelized: the loop over 'i' as a 1-D grid, its additions atomic [-Rpass=parallelize]
