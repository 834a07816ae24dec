// Host-only stand-in for a CUDA program (benchmark tests; see ../../README.md).
// An inout buffer, an integer output and a legacy-default-stream entry (no stream).
#include <stdint.h>

// kfuse: inout acc float[R][C]
// kfuse: in    x   float[R][C]
// kfuse: out   pos int32[R]
// kfuse: tune  R=20 C=16
// kfuse: check R=1 C=3
// kfuse: tol rtol=1e-5 atol=1e-6
extern "C" void accumulate_count(float *acc, const float *x, int32_t *pos, int R, int C) {
  for (int r = 0; r < R; ++r) {
    int32_t n = 0;
    for (int c = 0; c < C; ++c) {
      acc[r * C + c] += x[r * C + c];
      n += x[r * C + c] > 0.f;
    }
    pos[r] = n;
  }
}
