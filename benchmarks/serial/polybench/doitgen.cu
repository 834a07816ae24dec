// serial: doitgen: multiresolution kernel, every row A[r][q][:] of a 3-D array multiplied by the square matrix C4 in place
// kind: linalg
// expect: parallel
// port: ports/doitgen.cu
#include <cuda_runtime.h>

__global__ void doitgen_serial(float *A, const float *C4, float *prod, int nr, int nq, int np) {
  for (int r = 0; r < nr; ++r)
    for (int q = 0; q < nq; ++q) {
      int row = (r * nq + q) * np;
      for (int p = 0; p < np; ++p) {
        float s = 0.0f;
        for (int k = 0; k < np; ++k)
          s += A[row + k] * C4[k * np + p];
        prod[row + p] = s;
      }
      for (int p = 0; p < np; ++p)
        A[row + p] = prod[row + p];
    }
}

// kfuse: inout A float[nr][nq][np]
// kfuse: in C4 float[np][np]
// kfuse: out prod float[nr][nq][np]
// kfuse: tune nr=24 nq=20 np=46
// kfuse: check nr=7 nq=9 np=13
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void doitgen(float *A, const float *C4, float *prod, int nr, int nq, int np,
                        cudaStream_t stream) {
  doitgen_serial<<<1, 1, 0, stream>>>(A, C4, prod, nr, nq, np);
}
