// serial: fdtd_2d: 2-D finite-difference time-domain (Yee) update of the fields ex, ey, hz, driven by fict[t] on the first row
// kind: stencil
// expect: parallel
// port: ports/fdtd_2d.cu
#include <cuda_runtime.h>

__global__ void fdtd_2d_serial(float *ex, float *ey, float *hz, const float *fict, int nx, int ny,
                               int tmax) {
  for (int t = 0; t < tmax; ++t) {
    for (int j = 0; j < ny; ++j)
      ey[j] = fict[t];
    for (int i = 1; i < nx; ++i)
      for (int j = 0; j < ny; ++j)
        ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    for (int i = 0; i < nx; ++i)
      for (int j = 1; j < ny; ++j)
        ex[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
    for (int i = 0; i < nx - 1; ++i)
      for (int j = 0; j < ny - 1; ++j)
        hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] -
                                  ey[i * ny + j]);
  }
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
  fdtd_2d_serial<<<1, 1, 0, stream>>>(ex, ey, hz, fict, nx, ny, tmax);
}
