// KernelBench level 2, problem 20: ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd
//   c = convT3d(x); r = copy of c; t = c + bias[C,1,1,1]; t = t + r; t = t * r; y = t + r
#include <cuda_runtime.h>

constexpr int KS = 3;

// Gather-form transposed 3D convolution: one thread per output element.
__global__ void conv_transpose3d(const float* __restrict__ x, const float* __restrict__ w,
                                 const float* __restrict__ b, float* __restrict__ y,
                                 int N, int CI, int D, int H, int W, int CO,
                                 int OD, int OH, int OW, int S, int P) {
  const long long total = (long long)N * CO * OD * OH * OW;
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  long long r = idx;
  const int ow = r % OW; r /= OW;
  const int oh = r % OH; r /= OH;
  const int od = r % OD; r /= OD;
  const int co = r % CO;
  const int n = r / CO;
  float acc = b[co];
  for (int ci = 0; ci < CI; ++ci) {
    const float* xc = x + ((long long)n * CI + ci) * D * H * W;
    const float* wc = w + ((long long)ci * CO + co) * KS * KS * KS;
    for (int kd = 0; kd < KS; ++kd) {
      const int td = od + P - kd;
      if (td < 0 || td % S != 0 || td / S >= D) continue;
      const int id = td / S;
      for (int kh = 0; kh < KS; ++kh) {
        const int th = oh + P - kh;
        if (th < 0 || th % S != 0 || th / S >= H) continue;
        const int ih = th / S;
        for (int kw = 0; kw < KS; ++kw) {
          const int tw = ow + P - kw;
          if (tw < 0 || tw % S != 0 || tw / S >= W) continue;
          const int iw = tw / S;
          acc += xc[((long long)id * H + ih) * W + iw] * wc[(kd * KS + kh) * KS + kw];
        }
      }
    }
  }
  y[idx] = acc;
}

__global__ void add_bias_5d(const float* __restrict__ in, const float* __restrict__ bias,
                            float* __restrict__ out, int C, long long S, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[(i / S) % C];
}

__global__ void add_tensors(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void mul_tensors(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i];
}

// kfuse: in  x    float[N][CI][D][H][W]
// kfuse: in  w    float[CI][CO][3][3][3]
// kfuse: in  b    float[CO]
// kfuse: in  bias float[CO][1][1][1]
// kfuse: out y    float[N][CO][(D - 1) * S - 2 * P + 3 + OP][(H - 1) * S - 2 * P + 3 + OP][(W - 1) * S - 2 * P + 3 + OP]
// kfuse: init x    uniform(0,1)
// kfuse: init w    uniform(-0.1,0.1)
// kfuse: init b    uniform(-0.1,0.1)
// kfuse: init bias uniform(-0.1,0.1)
// kfuse: assume S >= 1 && P >= 0 && P <= 1 && OP >= 0 && OP < S
// kfuse: tune  N=16 CI=32 D=16 H=32 W=32 CO=64 S=2 P=1 OP=1
// kfuse: check N=3 CI=5 D=3 H=5 W=7 CO=6 S=2 P=1 OP=1
// kfuse: check N=2 CI=3 D=4 H=3 W=5 CO=5 S=1 P=0 OP=0
extern "C" void conv_transpose3d_sum_residual_add_multiply_residual_add(
    const float* x, const float* w, const float* b, const float* bias, float* y, int N, int CI,
    int D, int H, int W, int CO, int S, int P, int OP, cudaStream_t stream) {
  const int OD = (D - 1) * S - 2 * P + KS + OP;
  const int OH = (H - 1) * S - 2 * P + KS + OP;
  const int OW = (W - 1) * S - 2 * P + KS + OP;
  const long long sp = (long long)OD * OH * OW;
  const long long n = (long long)N * CO * sp;
  const unsigned nb = (unsigned)((n + 255) / 256);
  float *conv, *orig, *t0, *t1;
  cudaMallocAsync(&conv, n * sizeof(float), stream);
  cudaMallocAsync(&orig, n * sizeof(float), stream);
  cudaMallocAsync(&t0, n * sizeof(float), stream);
  cudaMallocAsync(&t1, n * sizeof(float), stream);
  conv_transpose3d<<<nb, 256, 0, stream>>>(x, w, b, conv, N, CI, D, H, W, CO, OD, OH, OW, S, P);
  // original_x = x.clone().detach()
  cudaMemcpyAsync(orig, conv, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
  add_bias_5d<<<nb, 256, 0, stream>>>(conv, bias, t0, CO, sp, n);
  add_tensors<<<nb, 256, 0, stream>>>(t0, orig, t1, n);
  mul_tensors<<<nb, 256, 0, stream>>>(t1, orig, t0, n);
  add_tensors<<<nb, 256, 0, stream>>>(t0, orig, y, n);
  cudaFreeAsync(conv, stream);
  cudaFreeAsync(orig, stream);
  cudaFreeAsync(t0, stream);
  cudaFreeAsync(t1, stream);
}
