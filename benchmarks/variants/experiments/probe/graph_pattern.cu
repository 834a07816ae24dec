// The runner's call pattern against a cuda-graph variant of level3/034, outside the runner:
// two buffer sets A and B, two streams, each trial called twice (as run_variant does), in
// the order seed 0 (A, stream 0), seed 1 (B, stream 1), seed 2 (A, stream 0, new inputs),
// with guard bytes around every buffer and the inputs checked after each call. The runner
// rejected the variant at seed 2 (docs/passes/cuda-graph.md); an earlier harness with one
// buffer set did not reproduce it.
// Build and run: graph_pattern.sh VARIANT.cu (beside it). What it does (the reference and the
// variant as separate libraries, so that their kernels do not clash):
//   nvcc -shared -Xcompiler -fPIC -Xlinker -Bsymbolic -o libref.so corpus/level3/034_vanilla_rnn_hidden.cu -lcublas -lcublasLt
//   sed 's/^extern "C" void vanilla_rnn_hidden(/extern "C" void v_vanilla_rnn_hidden(/' VARIANT.cu > v.cu
//   nvcc -shared -Xcompiler -fPIC -Xlinker -Bsymbolic -o libv.so v.cu -lcublas -lcublasLt
//   nvcc -o graph_pattern graph_pattern.cu libref.so libv.so -Xlinker -rpath=.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
extern "C" void vanilla_rnn_hidden(const float*, const float*, const float*, const float*, const float*,
                                   const float*, float*, int, int, int, int, int, cudaStream_t);
extern "C" void v_vanilla_rnn_hidden(const float*, const float*, const float*, const float*, const float*,
                                     const float*, float*, int, int, int, int, int, cudaStream_t);

static const int G = 64; // guard floats on each side
struct buf {
  float* base;
  size_t n;
  float* p() const { return base + G; }
};
static buf make(size_t n) {
  buf b{nullptr, n};
  cudaMalloc(&b.base, (n + 2 * G) * 4);
  cudaMemset(b.base, 0x3c, (n + 2 * G) * 4);
  return b;
}
static void fill(const buf& b, float lo, float hi) {
  std::vector<float> h(b.n);
  for (auto& v : h) v = lo + (hi - lo) * (rand() / (float)RAND_MAX);
  cudaMemcpy(b.p(), h.data(), b.n * 4, cudaMemcpyHostToDevice);
}
static std::vector<float> get(const buf& b) {
  std::vector<float> h(b.n + 2 * G);
  cudaMemcpy(h.data(), b.base, h.size() * 4, cudaMemcpyDeviceToHost);
  return h;
}
static int guards_ok(const buf& b) {
  std::vector<float> h = get(b);
  unsigned g;
  memcpy(&g, &h[0], 4);
  for (int i = 0; i < G; i++) {
    unsigned a, c;
    memcpy(&a, &h[i], 4);
    memcpy(&c, &h[G + b.n + i], 4);
    if (a != 0x3c3c3c3cu || c != 0x3c3c3c3cu)
      return 0;
  }
  return 1;
}

int main() {
  const int T = 6, B = 11, I = 12, H = 10, O = 33;
  const size_t sizes[7] = {(size_t)T * B * I, (size_t)B * H, (size_t)H * (I + H), (size_t)H, (size_t)O * H,
                           (size_t)O, (size_t)T * B * O};
  buf set[2][7], ref = make(sizes[6]);
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 7; k++) set[s][k] = make(sizes[k]);
  cudaStream_t st[2];
  cudaStreamCreateWithFlags(&st[0], cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&st[1], cudaStreamNonBlocking);
  const int trials[][2] = {{0, 0}, {1, 1}, {0, 0}, {0, 1}, {1, 0}, {0, 0}, {0, 1}, {1, 1}};
  int bad = 0;
  for (int t = 0; t < (int)(sizeof trials / sizeof *trials); t++) {
    const int s = trials[t][0], q = trials[t][1];
    buf* b = set[s];
    fill(b[0], 0, 1), fill(b[1], 0, 1), fill(b[2], -0.03f, 0.03f), fill(b[3], -0.03f, 0.03f);
    fill(b[4], -0.06f, 0.06f), fill(b[5], -0.06f, 0.06f);
    vanilla_rnn_hidden(b[0].p(), b[1].p(), b[2].p(), b[3].p(), b[4].p(), b[5].p(), ref.p(), T, B, I, H, O, st[q]);
    cudaStreamSynchronize(st[q]);
    std::vector<float> want = get(ref), in[6];
    for (int k = 0; k < 6; k++) in[k] = get(b[k]);
    for (int run = 0; run < 2; run++) {
      cudaMemset(b[6].p(), run ? 0x7f : 0xff, sizes[6] * 4);
      v_vanilla_rnn_hidden(b[0].p(), b[1].p(), b[2].p(), b[3].p(), b[4].p(), b[5].p(), b[6].p(), T, B, I, H, O,
                           st[q]);
      cudaError_t e = cudaStreamSynchronize(st[q]);
      std::vector<float> got = get(b[6]);
      double md = 0;
      for (size_t i = 0; i < sizes[6]; i++) md = fmax(md, fabs(got[G + i] - want[G + i]));
      int guards = 1, inputs = 1;
      for (int k = 0; k < 7; k++) guards &= guards_ok(b[k]);
      for (int k = 0; k < 6; k++) inputs &= get(b[k]) == in[k];
      printf("trial %d (set %c, stream %d) run %d: max diff %g, guards %s, inputs %s, %s\n", t, "AB"[s], q, run,
             md, guards ? "ok" : "WRITTEN", inputs ? "ok" : "MODIFIED", cudaGetErrorString(e));
      bad += md > 1e-4 || !guards || !inputs || e != cudaSuccess;
    }
  }
  printf("bad %d\n", bad);
  return bad != 0;
}
