#include <math.h>

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// Scales and clamps, in place.
// kfuse: inout y float[n]
// kfuse: tune n=4096 a=2.0
// kfuse: check n=33 a=-0.5
void scale_clamp(int n, float a, float *restrict y) {
  for (int i = 0; i < n; ++i)
    y[i] = clampf(a * y[i], -1.0f, 1.0f);
}

// kfuse: in x float[n]
// kfuse: out s float[1]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=4096
void total(int n, const float *x, float *s) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i)
    acc += x[i];
  s[0] = acc;
}
