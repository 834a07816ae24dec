// The library against plain C++ on the CPU: each function on the shapes of its annotations'
// tune binding, within the annotations' tolerance. Exit status 0 when all agree. Needs a GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "activations.h"

static int failures = 0;

static void expect_close(const char* what, const std::vector<float>& got, const std::vector<double>& want,
                         double rtol, double atol) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); i++)
    if (!(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i])) && bad++ == 0)
      std::printf("%s: element %zu is %.7g, expected %.7g\n", what, i, got[i], want[i]);
  std::printf("%s: %s (%zu elements)\n", what, bad ? "FAILED" : "ok", got.size());
  failures += bad != 0;
}

static std::vector<float> uniform(size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> v(n);
  srand(seed);
  for (auto& x : v) x = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
  return v;
}

static float* to_device(const std::vector<float>& h) {
  float* d;
  cudaMalloc(&d, h.size() * sizeof(float));
  cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

static std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  return h;
}

static double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// src/chain.cu's 24 operators, in double.
static double chain(double v) {
  v = v * 0.8 + 0.5;
  v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  v = std::tanh(v);
  v = sigmoid(3 * v);
  v = 4 * (v - 0.5);
  v = v / (1 + std::fabs(v));
  v = 2 * v;
  v = v / (1 + std::exp(-v));
  v = v < -1 ? -1 : (v > 1 ? 1 : v);
  v = v + 0.2;
  v = v > 0 ? v : 0;
  v = 3 * v - 1.5;
  v = v > 0 ? v : std::expm1(v);
  v = v > 20 ? v : std::log1p(std::exp(v));
  v = 2 * v - 2;
  v = v > 0 ? v : 0.01 * v;
  return 5 * std::tanh(sigmoid(v));
}

int main() {
  cudaStream_t s;
  if (cudaStreamCreate(&s) != cudaSuccess) {
    std::printf("no usable GPU\n");
    return 77;
  }

  {  // pointwise_chain, N=4 D=1024
    const int N = 4, D = 1024, n = N * D;
    auto x = uniform(n, -3, 3, 1);
    float *dx = to_device(x), *dy;
    cudaMalloc(&dy, n * sizeof(float));
    pointwise_chain(dx, dy, N, D, s);
    for (int call = 0; call < 3; call++) pointwise_chain(dx, dy, N, D, s);  // again, as an app would
    cudaStreamSynchronize(s);
    std::vector<double> want(n);
    for (int i = 0; i < n; i++) want[i] = chain(x[i]);
    expect_close("pointwise_chain", to_host(dy, n), want, 1e-4, 1e-5);
    cudaFree(dx);
    cudaFree(dy);
  }
  {  // mlp_small, B=1 IN=1000 H=800 OUT=500
    const int B = 1, IN = 1000, H = 800, OUT = 500;
    auto x = uniform(B * IN, 0, 1, 2), w0 = uniform(H * IN, -0.0775f, 0.0775f, 3), b0 = uniform(H, -0.01f, 0.01f, 4);
    auto w1 = uniform(H * H, -0.0866f, 0.0866f, 5), b1 = uniform(H, -0.01f, 0.01f, 6);
    auto w2 = uniform(OUT * H, -0.0866f, 0.0866f, 7), b2 = uniform(OUT, -0.01f, 0.01f, 8);
    float *dx = to_device(x), *dw0 = to_device(w0), *db0 = to_device(b0), *dw1 = to_device(w1),
          *db1 = to_device(b1), *dw2 = to_device(w2), *db2 = to_device(b2), *dout;
    cudaMalloc(&dout, B * OUT * sizeof(float));
    for (int call = 0; call < 3; call++) mlp_small(dx, dw0, db0, dw1, db1, dw2, db2, dout, B, IN, H, OUT, s);
    cudaStreamSynchronize(s);
    auto layer = [](const std::vector<double>& in, const std::vector<float>& w, const std::vector<float>& b,
                    int K, int M, bool relu) {
      std::vector<double> y(M);
      for (int m = 0; m < M; m++) {
        double acc = b[m];
        for (int k = 0; k < K; k++) acc += in[k] * w[(size_t)m * K + k];
        y[m] = relu && acc < 0 ? 0 : acc;
      }
      return y;
    };
    std::vector<double> h(x.begin(), x.end());
    h = layer(h, w0, b0, IN, H, true);
    h = layer(h, w1, b1, H, H, true);
    h = layer(h, w2, b2, H, OUT, false);
    expect_close("mlp_small", to_host(dout, OUT), h, 1e-3, 1e-4);
  }
  {  // scale_add
    const int n = 1000;
    auto x = uniform(n, -1, 1, 9);
    float *dx = to_device(x), *dy;
    cudaMalloc(&dy, n * sizeof(float));
    scale_add(dx, dy, 2.0f, 0.5f, n, s);
    cudaStreamSynchronize(s);
    std::vector<double> want(n);
    for (int i = 0; i < n; i++) want[i] = 2.0 * x[i] + 0.5;
    expect_close("scale_add", to_host(dy, n), want, 1e-6, 1e-6);
  }
  return failures != 0;
}
