// KernelBench level 2, problem 70: Gemm_Sigmoid_Scaling_ResidualAdd
//   t = linear(x, W, b); y = sigmoid(t) * scaling_factor + t
#include <cuda_runtime.h>

constexpr int BLK = 256;

__global__ void gemm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ bias, float* __restrict__ out, int B,
                            int IN, int HID) {
  const int i = blockIdx.x * BLK + threadIdx.x;
  if (i >= B * HID) return;
  const int row = i / HID, col = i % HID;
  float acc = bias[col];
  for (int k = 0; k < IN; ++k) acc += x[row * IN + k] * w[col * IN + k];
  out[i] = acc;
}

__global__ void sigmoid_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * BLK + threadIdx.x;
  if (i >= n) return;
  out[i] = 1.0f / (1.0f + expf(-in[i]));
}

__global__ void scale_kernel(const float* __restrict__ in, float* __restrict__ out, float s,
                             int n) {
  const int i = blockIdx.x * BLK + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * s;
}

__global__ void residual_add_kernel(const float* __restrict__ a, const float* __restrict__ r,
                                    float* __restrict__ out, int n) {
  const int i = blockIdx.x * BLK + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] + r[i];
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[HID][IN]
// kfuse: in  b float[HID]
// kfuse: out y float[B][HID]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.01,0.01)
// kfuse: init b uniform(-0.01,0.01)
// kfuse: tune  B=1024 IN=8192 HID=8192 scaling_factor=2.0
// kfuse: check B=3 IN=77 HID=129 scaling_factor=2.0
// kfuse: check B=11 IN=4 HID=50 scaling_factor=-1.0
extern "C" cudaError_t gemm_sigmoid_scaling_residual_add(const float* x, const float* w,
                                                         const float* b, float* y, int B, int IN,
                                                         int HID, float scaling_factor,
                                                         cudaStream_t stream) {
  const int n = B * HID;
  const int grid = (n + BLK - 1) / BLK;
  float *lin = nullptr, *sig = nullptr, *sc = nullptr;
  cudaMalloc(&lin, sizeof(float) * n);
  cudaMalloc(&sig, sizeof(float) * n);
  cudaMalloc(&sc, sizeof(float) * n);
  gemm_kernel<<<grid, BLK, 0, stream>>>(x, w, b, lin, B, IN, HID);
  sigmoid_kernel<<<grid, BLK, 0, stream>>>(lin, sig, n);
  scale_kernel<<<grid, BLK, 0, stream>>>(sig, sc, scaling_factor, n);
  residual_add_kernel<<<grid, BLK, 0, stream>>>(sc, lin, y, n);
  cudaError_t err = cudaGetLastError();
  cudaFree(lin);
  cudaFree(sig);
  cudaFree(sc);
  return err;
}
