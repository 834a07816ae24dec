// kfuse cuda-graph: an entry's whole launch sequence replayed from a CUDA graph. The graph
// for an argument tuple (every argument's bytes, and the stream) is captured at the
// tuple's second call, after one eager call has done the first-call work (handles, plans,
// workspaces, the engines timed), and replayed by one cudaGraphLaunch at every later call
// with that tuple. Kept for the two tuples used last. A new tuple's graph first tries
// cudaGraphExecUpdate of the one it replaces, and is instantiated anew only where the
// update fails. After 16 captures a tuple is captured at its eighth call instead of its
// second, which bounds re-capture storms. The entry stays eager for good when a capture
// fails (the reason in kf_graph.off; said once on stderr when KFUSE_GRAPH_LOG is set). A
// call is eager, without capturing, when the caller's stream is the legacy or per-thread
// default stream or is itself being captured: then the work joins the caller's own graph.
// Work stays ordered on the caller's stream as before, and a graph is never replayed on
// another stream than its own.
struct kf_graph_slot {
  std::string key;                // the tuple: the arguments' bytes and the stream
  int calls = 0;                  // calls made with it
  cudaGraphExec_t exec = nullptr; // the graph captured last in this slot
  bool ready = false;             // exec was captured for key (else it is an older tuple's, kept to update)
  unsigned long long used = 0;    // when it was last called (for replacing the older slot)
};

struct kf_graph {
  std::mutex lock;
  kf_graph_slot slots[2];
  unsigned long long clock = 0;
  int captures = 0;
  const char *off = nullptr; // why the entry runs eagerly from now on
};

// The bytes of the arguments, in order.
template <typename... A> static std::string kf_graph_key(const A &...args) {
  std::string key;
  (key.append(reinterpret_cast<const char *>(&args), sizeof args), ...);
  return key;
}

// body(stream) runs the entry's work on stream as written (void or cudaError_t).
template <typename F>
static auto kf_graph_call(kf_graph &g, cudaStream_t stream, std::string key, F body) -> decltype(body(stream)) {
  using result = decltype(body(stream));
  key.append(reinterpret_cast<const char *>(&stream), sizeof stream);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
      cudaStreamIsCapturing(stream, &status) != cudaSuccess || status != cudaStreamCaptureStatusNone)
    return body(stream);
  std::unique_lock<std::mutex> hold(g.lock);
  if (g.off) {
    hold.unlock();
    return body(stream);
  }
  kf_graph_slot *slot = g.slots[0].key == key ? &g.slots[0] : g.slots[1].key == key ? &g.slots[1] : nullptr;
  if (!slot) { // the slot used longer ago takes the tuple; its graph is kept to be updated,
                // and is never replayed for the new tuple
    slot = g.slots[0].used <= g.slots[1].used ? &g.slots[0] : &g.slots[1];
    slot->key = key;
    slot->calls = 0;
    slot->ready = false;
  }
  slot->used = ++g.clock;
  if (slot->ready) { // captured for this tuple: replay
    const cudaError_t launched = cudaGraphLaunch(slot->exec, stream);
    if constexpr (std::is_void_v<result>)
      return;
    else
      return launched;
  }
  // A tuple's first call is eager, doing the first-call work; its second is captured, or
  // after 16 captures its eighth in a row, so that arguments that keep changing are not
  // captured again and again.
  if (++slot->calls < (g.captures < 16 ? 2 : 8)) {
    hold.unlock();
    return body(stream);
  }
  g.captures++;
  cudaGraph_t graph = nullptr;
  const char *why = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    why = "cudaStreamBeginCapture failed";
  } else {
    bool worked = true;
    if constexpr (std::is_void_v<result>)
      body(stream);
    else
      worked = body(stream) == cudaSuccess;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (ended != cudaSuccess || !graph)
      why = "the capture failed (a call in the entry cannot be captured)";
    else if (!worked)
      why = "the entry returned an error while captured";
  }
  if (!why && slot->exec) { // the graph this slot held: updated in place where it can be
    cudaGraphExecUpdateResultInfo info;
    if (cudaGraphExecUpdate(slot->exec, graph, &info) != cudaSuccess) {
      cudaGetLastError();
      cudaGraphExecDestroy(slot->exec); // a launch still running finishes first (the driver frees it then)
      slot->exec = nullptr;
    }
  }
  if (!why && !slot->exec && cudaGraphInstantiate(&slot->exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) != cudaSuccess) {
    slot->exec = nullptr;
    why = "cudaGraphInstantiate failed";
  }
  if (graph)
    cudaGraphDestroy(graph);
  slot->ready = !why;
  if (why) {
    cudaGetLastError(); // the failed capture leaves no error behind
    g.off = why;
    if (getenv("KFUSE_GRAPH_LOG"))
      fprintf(stderr, "kfuse cuda-graph: eager from now on: %s\n", why);
    hold.unlock();
    return body(stream); // nothing ran while capturing
  }
  const cudaError_t launched = cudaGraphLaunch(slot->exec, stream);
  if constexpr (std::is_void_v<result>)
    return;
  else
    return launched;
}
