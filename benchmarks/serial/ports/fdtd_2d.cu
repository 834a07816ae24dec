// port of polybench/fdtd_2d.cu: per time step one kernel for the electric fields, one for hz
#include <cuda_runtime.h>

__global__ void fdtd_2d_e(float *ex, float *ey, const float *hz, const float *fict, int nx, int ny,
                          int t) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  if (i == 0)
    ey[j] = fict[t];
  else
    ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  if (j > 0)
    ex[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}

__global__ void fdtd_2d_h(const float *ex, const float *ey, float *hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx - 1 || j >= ny - 1) return;
  hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] -
                            ey[i * ny + j]);
}

// kfuse: inout ex float[nx][ny]
// kfuse: inout ey float[nx][ny]
// kfuse: inout hz float[nx][ny]
// kfuse: in fict float[tmax]
// kfuse: assume tmax >= 1
// kfuse: tune nx=160 ny=200 tmax=10
// kfuse: check nx=37 ny=29 tmax=3
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void fdtd_2d(float *ex, float *ey, float *hz, const float *fict, int nx, int ny,
                        int tmax, cudaStream_t stream) {
  dim3 block(16, 16), grid((ny + 15) / 16, (nx + 15) / 16);
  for (int t = 0; t < tmax; ++t) {
    fdtd_2d_e<<<grid, block, 0, stream>>>(ex, ey, hz, fict, nx, ny, t);
    fdtd_2d_h<<<grid, block, 0, stream>>>(ex, ey, hz, nx, ny);
  }
}
