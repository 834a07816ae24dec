// kf_graph_call's bookkeeping (passes/cuda/kf_graph.cuh) against a mock of the CUDA graph
// API: a "launch" is a record of the arguments it was made with, captured into a graph when
// its stream is being captured and run when the graph is launched. After every call, the
// work that ran must be the call's own, whether eager, captured or replayed. Needs no GPU:
// linked without the CUDA runtime (nvcc -cudart none), the functions below stand in for it.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

struct CUgraph_st {
  std::vector<std::string> work;
};
struct CUgraphExec_st {
  std::vector<std::string> work;
};

static cudaStream_t capturing = nullptr;  // the stream being captured
static CUgraph_st *recording = nullptr;   // what it captured so far
static std::vector<std::string> ran;      // the work run on the device, in order
static int captures, instantiations, updates, launches, live_execs;
static bool fail_capture = false;         // the next capture fails, as a library call that cannot be captured

extern "C" {
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status) {
  *status = s == capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (capturing)
    return cudaErrorIllegalState;
  capturing = s;
  recording = new CUgraph_st;
  captures++;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph) {
  if (s != capturing)
    return cudaErrorIllegalState;
  capturing = nullptr;
  if (fail_capture) {
    fail_capture = false;
    delete recording;
    recording = nullptr;
    *graph = nullptr;
    return cudaErrorStreamCaptureInvalidated;
  }
  *graph = recording;
  recording = nullptr;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long) {
  *exec = new CUgraphExec_st{graph->work};
  instantiations++;
  live_execs++;
  return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *) {
  if (exec->work.size() != graph->work.size()) // the topology changed
    return cudaErrorGraphExecUpdateFailure;
  exec->work = graph->work;
  updates++;
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t) {
  ran.insert(ran.end(), exec->work.begin(), exec->work.end());
  launches++;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  live_execs--;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
}

#include "kf_graph.cuh"

// The entry's work: `steps` launches naming the call's arguments, on stream s.
static void launch(cudaStream_t s, const std::string &what) {
  if (s == capturing)
    recording->work.push_back(what);
  else
    ran.push_back(what);
}

static kf_graph state;
static int bad;

// One call of an entry over (buffer set, scalar n) on stream s; `steps` launches.
static void call(int set, int n, cudaStream_t s, int steps) {
  const void *x = reinterpret_cast<const void *>(0x10000 + 0x1000 * set);
  const std::string what = std::to_string(set) + "/" + std::to_string(n) + "/" +
                           std::to_string(reinterpret_cast<unsigned long long>(s));
  const size_t before = ran.size();
  kf_graph_call(state, s, kf_graph_key(x, n), [&](cudaStream_t ks) {
    for (int i = 0; i < steps; i++)
      launch(ks, what + "#" + std::to_string(i));
  });
  bool right = ran.size() == before + steps;
  for (int i = 0; right && i < steps; i++)
    right = ran[before + i] == what + "#" + std::to_string(i);
  if (!right) {
    if (bad++ < 5)
      printf("wrong work for call %s: ran %s\n", what.c_str(),
             ran.size() > before ? ran[before].c_str() : "(nothing)");
  }
}

int main() {
  cudaStream_t s0 = reinterpret_cast<cudaStream_t>(0x100), s1 = reinterpret_cast<cudaStream_t>(0x200);
  // The runner's verifier: per shape (n, and T steps), seeds in buffers A (set 2n) on
  // stream 0, B (2n + 1) on stream 1, A on 0, A on 1, B on 0, A on 0; each trial called twice.
  const int trials[][2] = {{0, 0}, {1, 1}, {0, 0}, {0, 1}, {1, 0}, {0, 0}};
  for (int n = 1; n <= 12; n++)
    for (const auto &t : trials)
      for (int run = 0; run < 2; run++)
        call(2 * n + t[0], n, t[1] ? s1 : s0, 3 + n % 3);
  printf("runner pattern: bad %d, captures %d\n", bad, captures);

  // Random tuples and streams, some steps counts equal (updates) and some not.
  srand(7);
  for (int i = 0; i < 5000; i++) {
    const int set = rand() % 5, n = rand() % 3;
    call(set, n, rand() % 2 ? s1 : s0, 2 + n);
  }
  printf("random: bad %d\n", bad);

  // One tuple called again and again is replayed: one launch per call, no new capture.
  const int c0 = captures, l0 = launches;
  for (int i = 0; i < 100; i++)
    call(9, 9, s0, 4);
  printf("steady: bad %d, new captures %d, launches %d\n", bad, captures - c0, launches - l0);

  // A call on a stream the caller is capturing joins the caller's graph (no capture of ours).
  capturing = s1;
  recording = new CUgraph_st;
  const size_t before = ran.size();
  kf_graph_call(state, s1, kf_graph_key(1, 2), [&](cudaStream_t ks) { launch(ks, "joined"); });
  printf("caller capturing: %zu in its graph, %zu run\n", recording->work.size(), ran.size() - before);
  delete recording;
  recording = nullptr;
  capturing = nullptr;

  // A capture that fails leaves the entry eager for good, its work still done once.
  kf_graph fails;
  const void *y = reinterpret_cast<const void *>(0x9000);
  const size_t start = ran.size();
  for (int i = 0; i < 4; i++) {
    fail_capture = i == 1;
    kf_graph_call(fails, s0, kf_graph_key(y), [&](cudaStream_t ks) { launch(ks, "once"); });
  }
  printf("capture failed: %s; the work ran %zu times in 4 calls\n", fails.off ? fails.off : "(on)",
         ran.size() - start);
  printf("executables alive: %d (of %d instantiated)\n", live_execs, instantiations);
  return bad != 0;
}
