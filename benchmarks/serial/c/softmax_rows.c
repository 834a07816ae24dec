// serial: softmax_rows: row-wise softmax of a rows x cols matrix, max-subtracted (plain C)
// kind: reduction
// expect: parallel
#include <math.h>

// kfuse: in x float[rows][cols]
// kfuse: out y float[rows][cols]
// kfuse: assume cols >= 1
// kfuse: tol rtol=1e-3 atol=1e-5
// kfuse: tune rows=512 cols=640
// kfuse: check rows=37 cols=53
void softmax_rows(int rows, int cols, const float *x, float *y) {
  for (int i = 0; i < rows; ++i) {
    const float *xr = x + i * cols;
    float *yr = y + i * cols;
    float m = xr[0];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, xr[j]);
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      yr[j] = expf(xr[j] - m);
      s += yr[j];
    }
    float inv = 1.0f / s;
    for (int j = 0; j < cols; ++j)
      yr[j] *= inv;
  }
}
