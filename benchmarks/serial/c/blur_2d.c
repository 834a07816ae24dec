// serial: blur_2d: 3x3 box blur of the interior, border pixels copied unchanged (plain C)
// kind: image
// expect: parallel

// kfuse: in in float[h][w]
// kfuse: out out float[h][w]
// kfuse: assume h >= 2 && w >= 2
// kfuse: tune h=320 w=352
// kfuse: check h=37 w=53
void blur_2d(int h, int w, const float *in, float *out) {
  for (int x = 0; x < w; ++x) {
    out[x] = in[x];
    out[(h - 1) * w + x] = in[(h - 1) * w + x];
  }
  for (int y = 1; y < h - 1; ++y) {
    out[y * w] = in[y * w];
    out[y * w + w - 1] = in[y * w + w - 1];
  }
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      float s = 0.0f;
      for (int dy = -1; dy < 2; ++dy)
        for (int dx = -1; dx < 2; ++dx)
          s += in[(y + dy) * w + x + dx];
      out[y * w + x] = s * (1.0f / 9.0f);
    }
}
