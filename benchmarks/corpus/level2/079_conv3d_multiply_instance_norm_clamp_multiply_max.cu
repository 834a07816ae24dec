// KernelBench level 2, problem 79: Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max
//   t = instance_norm(conv3d(x) * m[C,1,1,1]); t = clamp(t, lo, hi) * m; y = max_c(t)
// InstanceNorm3d: no affine, eps 1e-5. Statistics: one thread per (n, c), looping.
#include <cuda_runtime.h>

#define KS 3
#define IN_EPS 1e-5f

__global__ void conv3d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y, int N, int C,
                              int D, int H, int W, int O) {
  int OD = D - KS + 1, OH = H - KS + 1, OW = W - KS + 1;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * O * OD * OH * OW) {
    int ow = i % OW;
    int oh = (i / OW) % OH;
    int od = (i / (OW * OH)) % OD;
    int o = (i / (OW * OH * OD)) % O;
    int n = i / (OW * OH * OD * O);
    float s = b[o];
    for (int c = 0; c < C; c++)
      for (int kd = 0; kd < KS; kd++)
        for (int kh = 0; kh < KS; kh++)
          for (int kw = 0; kw < KS; kw++)
            s += x[(((n * C + c) * D + od + kd) * H + oh + kh) * W + ow + kw] *
                 w[(((o * C + c) * KS + kd) * KS + kh) * KS + kw];
    y[i] = s;
  }
}

__global__ void channel_multiply(const float* __restrict__ in, const float* __restrict__ m,
                                 float* __restrict__ out, int C, int S, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * m[(i / S) % C];
}

__global__ void instance_norm3d(const float* __restrict__ in, float* __restrict__ out, int NC,
                                int S) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < NC) {
    const float* src = in + (size_t)p * S;
    float* dst = out + (size_t)p * S;
    float sum = 0.f;
    for (int i = 0; i < S; i++) sum += src[i];
    float mean = sum / S;
    float sq = 0.f;
    for (int i = 0; i < S; i++) {
      float d = src[i] - mean;
      sq += d * d;
    }
    float rstd = rsqrtf(sq / S + IN_EPS);
    for (int i = 0; i < S; i++) dst[i] = (src[i] - mean) * rstd;
  }
}

__global__ void clamp_kernel(const float* __restrict__ in, float* __restrict__ out, float lo,
                             float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

// torch.max(x, dim=1)[0]: one thread per (n, spatial).
__global__ void max_over_channels(const float* __restrict__ in, float* __restrict__ out, int N,
                                  int C, int S) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N * S) {
    int n = i / S, s = i % S;
    float m = in[(n * C) * S + s];
    for (int c = 1; c < C; c++) m = fmaxf(m, in[(n * C + c) * S + s]);
    out[i] = m;
  }
}

// kfuse: in  x          float[N][C][D][H][W]
// kfuse: in  w          float[O][C][3][3][3]
// kfuse: in  b          float[O]
// kfuse: in  multiplier float[O][1][1][1]
// kfuse: out y          float[N][D - 2][H - 2][W - 2]
// kfuse: init x          uniform(0,1)
// kfuse: init w          uniform(-0.2,0.2)
// kfuse: init b          uniform(-0.2,0.2)
// kfuse: init multiplier normal
// kfuse: assume D >= 3 && H >= 3 && W >= 3
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  N=128 C=3 D=16 H=32 W=32 O=16 clamp_min=-1.0 clamp_max=1.0
// kfuse: check N=3 C=2 D=5 H=8 W=7 O=5 clamp_min=-1.0 clamp_max=1.0
// kfuse: check N=2 C=3 D=4 H=5 W=6 O=3 clamp_min=-0.5 clamp_max=0.25
extern "C" void conv3d_multiply_instance_norm_clamp_multiply_max(
    const float* x, const float* w, const float* b, const float* multiplier, float* y, int N,
    int C, int D, int H, int W, int O, float clamp_min, float clamp_max, cudaStream_t stream) {
  int S = (D - 2) * (H - 2) * (W - 2);
  int n = N * O * S;
  int bs = 256, nb = (n + bs - 1) / bs;
  float *conv, *m1, *nrm, *cl, *m2;
  cudaMallocAsync(&conv, sizeof(float) * n, stream);
  cudaMallocAsync(&m1, sizeof(float) * n, stream);
  cudaMallocAsync(&nrm, sizeof(float) * n, stream);
  cudaMallocAsync(&cl, sizeof(float) * n, stream);
  cudaMallocAsync(&m2, sizeof(float) * n, stream);
  conv3d_kernel<<<nb, bs, 0, stream>>>(x, w, b, conv, N, C, D, H, W, O);
  channel_multiply<<<nb, bs, 0, stream>>>(conv, multiplier, m1, O, S, n);
  instance_norm3d<<<(N * O + 63) / 64, 64, 0, stream>>>(m1, nrm, N * O, S);
  clamp_kernel<<<nb, bs, 0, stream>>>(nrm, cl, clamp_min, clamp_max, n);
  channel_multiply<<<nb, bs, 0, stream>>>(cl, multiplier, m2, O, S, n);
  max_over_channels<<<(N * S + bs - 1) / bs, bs, 0, stream>>>(m2, y, N, O, S);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(m1, stream);
  cudaFreeAsync(nrm, stream);
  cudaFreeAsync(cl, stream);
  cudaFreeAsync(m2, stream);
}
