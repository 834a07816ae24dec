// port of polybench/deriche.cu: one thread per row for the row passes, one per column for the
// column passes, one per pixel for the sums
#include <cuda_runtime.h>
#include <math.h>

struct DericheCoef {
  float a0, a1, a2, a3, b1, b2;
};

static DericheCoef deriche_coef(float alpha) {
  DericheCoef c;
  float e1 = expf(-alpha), e2 = expf(-2.0f * alpha);
  float k = (1.0f - e1) * (1.0f - e1) / (1.0f + 2.0f * alpha * e1 - e2);
  c.a0 = k;
  c.a1 = k * e1 * (alpha - 1.0f);
  c.a2 = k * e1 * (alpha + 1.0f);
  c.a3 = -k * e2;
  c.b1 = 2.0f * e1;
  c.b2 = -e2;
  return c;
}

// causal and anti-causal passes over the lines of src; element (line, pos) is at
// src[line * sl + pos * sp]
__global__ void deriche_lines(const float *src, float *y1, float *y2, int lines, int len, int sl,
                              int sp, DericheCoef c) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= lines) return;
  float xm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
  for (int p = 0; p < len; ++p) {
    int o = l * sl + p * sp;
    float v = c.a0 * src[o] + c.a1 * xm1 + c.b1 * ym1 + c.b2 * ym2;
    y1[o] = v;
    xm1 = src[o];
    ym2 = ym1;
    ym1 = v;
  }
  float xp1 = 0.0f, xp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
  for (int p = len - 1; p >= 0; --p) {
    int o = l * sl + p * sp;
    float v = c.a2 * xp1 + c.a3 * xp2 + c.b1 * yp1 + c.b2 * yp2;
    y2[o] = v;
    xp2 = xp1;
    xp1 = src[o];
    yp2 = yp1;
    yp1 = v;
  }
}

__global__ void deriche_sum(const float *y1, const float *y2, float *out, int total) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  out[t] = y1[t] + y2[t];
}

// kfuse: in img float[w][h]
// kfuse: out out float[w][h]
// kfuse: out y1 float[w][h]
// kfuse: out y2 float[w][h]
// kfuse: assume alpha >= 0.1 && alpha <= 4.0
// kfuse: tune w=384 h=320 alpha=0.25
// kfuse: check w=37 h=29 alpha=0.5
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void deriche(const float *img, float *out, float *y1, float *y2, int w, int h,
                        float alpha, cudaStream_t stream) {
  DericheCoef c = deriche_coef(alpha);
  int total = w * h;
  deriche_lines<<<(w + 255) / 256, 256, 0, stream>>>(img, y1, y2, w, h, h, 1, c);
  deriche_sum<<<(total + 255) / 256, 256, 0, stream>>>(y1, y2, out, total);
  deriche_lines<<<(h + 255) / 256, 256, 0, stream>>>(out, y1, y2, h, w, 1, h, c);
  deriche_sum<<<(total + 255) / 256, 256, 0, stream>>>(y1, y2, out, total);
}
