// serial: deriche: Deriche recursive Gaussian smoothing of an image, causal and anti-causal passes along rows, then along columns
// kind: medley
// expect: parallel
// port: ports/deriche.cu
#include <cuda_runtime.h>
#include <math.h>

// Second-order IIR filters with the double pole exp(-alpha); each line's recurrence runs in
// scalars, and the lines are independent. y1 and y2 hold the causal and anti-causal parts.
__global__ void deriche_serial(const float *img, float *out, float *y1, float *y2, int w, int h,
                               float alpha) {
  float e1 = expf(-alpha), e2 = expf(-2.0f * alpha);
  float k = (1.0f - e1) * (1.0f - e1) / (1.0f + 2.0f * alpha * e1 - e2);
  float a0 = k, a1 = k * e1 * (alpha - 1.0f), a2 = k * e1 * (alpha + 1.0f), a3 = -k * e2;
  float b1 = 2.0f * e1, b2 = -e2;
  for (int i = 0; i < w; ++i) {
    float xm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
    for (int j = 0; j < h; ++j) {
      float v = a0 * img[i * h + j] + a1 * xm1 + b1 * ym1 + b2 * ym2;
      y1[i * h + j] = v;
      xm1 = img[i * h + j];
      ym2 = ym1;
      ym1 = v;
    }
  }
  for (int i = 0; i < w; ++i) {
    float xp1 = 0.0f, xp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
    for (int jj = 0; jj < h; ++jj) {
      int j = h - 1 - jj;
      float v = a2 * xp1 + a3 * xp2 + b1 * yp1 + b2 * yp2;
      y2[i * h + j] = v;
      xp2 = xp1;
      xp1 = img[i * h + j];
      yp2 = yp1;
      yp1 = v;
    }
  }
  for (int i = 0; i < w; ++i)
    for (int j = 0; j < h; ++j)
      out[i * h + j] = y1[i * h + j] + y2[i * h + j];
  for (int j = 0; j < h; ++j) {
    float xm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
    for (int i = 0; i < w; ++i) {
      float v = a0 * out[i * h + j] + a1 * xm1 + b1 * ym1 + b2 * ym2;
      y1[i * h + j] = v;
      xm1 = out[i * h + j];
      ym2 = ym1;
      ym1 = v;
    }
  }
  for (int j = 0; j < h; ++j) {
    float xp1 = 0.0f, xp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
    for (int ii = 0; ii < w; ++ii) {
      int i = w - 1 - ii;
      float v = a2 * xp1 + a3 * xp2 + b1 * yp1 + b2 * yp2;
      y2[i * h + j] = v;
      xp2 = xp1;
      xp1 = out[i * h + j];
      yp2 = yp1;
      yp1 = v;
    }
  }
  for (int i = 0; i < w; ++i)
    for (int j = 0; j < h; ++j)
      out[i * h + j] = y1[i * h + j] + y2[i * h + j];
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
  deriche_serial<<<1, 1, 0, stream>>>(img, out, y1, y2, w, h, alpha);
}
