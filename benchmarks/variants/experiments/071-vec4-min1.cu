// Hand-written experiment (not kfuse output): kfuse's level2/071 variant
// conv-cudnn(algo=-1) + fuse-pointwise(block=256,vec=4) + pool-scratch + cuda-graph, with the fused
// kernel's launch bound __launch_bounds__(256, 1) in place of __launch_bounds__(256): a bound
// of the block size alone makes ptxas aim at 32 registers, and the division's slow path
// spills there (docs/plans/autotuner.md). Timed against the unchanged variant.
// kfuse variant conv-cudnn(algo=-1)@conv2d_divide_leaky_relu#2+fuse-pointwise(block=256,vec=4)@conv2d_divide_leaky_relu#3-#4+pool-scratch@conv2d_divide_leaky_relu+cuda-graph@conv2d_divide_leaky_relu
// KernelBench level 2, problem 71: Conv2d_Divide_LeakyReLU
//   y = leaky_relu(conv2d(x) / divisor, 0.01)
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>

#define BLOCK 256
#define NEG_SLOPE 0.01f

__global__ void conv2d(const float* __restrict__ in, const float* __restrict__ weight,
                       const float* __restrict__ bias, float* __restrict__ out,
                       int batch, int cin, int h, int w, int cout, int k) {
  int oh_n = h - k + 1, ow_n = w - k + 1;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < batch * cout * oh_n * ow_n) {
    int ow = i % ow_n;
    int oh = (i / ow_n) % oh_n;
    int oc = (i / (ow_n * oh_n)) % cout;
    int b = i / (ow_n * oh_n * cout);
    float v = bias[oc];
    for (int ic = 0; ic < cin; ++ic)
      for (int kh = 0; kh < k; ++kh)
        for (int kw = 0; kw < k; ++kw)
          v += in[((b * cin + ic) * h + oh + kh) * w + ow + kw] *
               weight[((oc * cin + ic) * k + kh) * k + kw];
    out[i] = v;
  }
}

__global__ void divide(const float* __restrict__ in, float* __restrict__ out, float d, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = in[i] / d;
}

__global__ void leaky_relu(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v > 0.0f ? v : v * NEG_SLOPE;
  }
}

// kfuse conv-cudnn: convolutions through cuDNN's graph API (layout N, C, spatial), float32
// with float accumulation; engines that use tensor cores (TF32), convert or reduce in lower
// precision, or are not deterministic are never taken. The handle is made once and bound to
// the caller's stream at each call; a plan (graph, engine, workspace size) is made once per
// shape and kept, 64 at most: a new shape past them takes the place of the one least recently
// used (a process that runs many shapes, such as the runner verifying a variant on drawn
// shapes, would otherwise run the reference kernel from then on); each stream has its own
// workspace, grown when a call needs more.
//
// A transposed convolution with stride s is computed as s^d forward convolutions, one per
// output phase (the outputs o with o mod s = r take the taps t with (r + p - t * dilation)
// mod s = 0, a forward convolution of the input with those taps, reversed), written into the
// workspace and interleaved into y with the bias: cuDNN's deterministic backward-data engines
// run 10 to 20 times slower than its forward ones on these shapes. Returns false, having run
// nothing, when cuDNN cannot run the convolution: the caller then runs the reference kernel.

struct kf_cudnn_fwd_shape { // one forward convolution; compared bytewise as the plan's key
  long long nd, rank, align;
  long long xd[5], xs[5], wd[5], yd[5], ys[5];
  long long pre[3], post[3], stride[3], dil[3];
};

struct kf_cudnn_fwd_plan {
  kf_cudnn_fwd_shape key;
  cudnnBackendDescriptor_t plan;
  long long bytes;
  unsigned long long used; // the call that last used it (the least recently used makes room)
};

static long long kf_cudnn_align(const void *p) {
  const unsigned long long a = (unsigned long long)p;
  return a % 16 == 0 ? 16 : a % 8 == 0 ? 8 : 4;
}

static void kf_cudnn_destroy(cudnnBackendDescriptor_t *d, int n) {
  for (int i = 0; i < n; i++)
    if (d[i])
      cudnnBackendDestroyDescriptor(d[i]);
}

static cudnnBackendDescriptor_t kf_cudnn_tensor(long long uid, long long nd, const long long *dim, const long long *str,
                                                long long align) {
  cudnnBackendDescriptor_t t = nullptr;
  const cudnnDataType_t f = CUDNN_DATA_FLOAT;
  const int64_t id = uid, al = align;
  int64_t d[5], s[5];
  for (int i = 0; i < nd; i++)
    d[i] = dim[i], s[i] = str[i];
  if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t) ||
      cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f) ||
      cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, d) ||
      cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, s) ||
      cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id) ||
      cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al) ||
      cudnnBackendFinalize(t)) {
    kf_cudnn_destroy(&t, 1);
    return nullptr;
  }
  return t;
}

// Runs a plan on x, w, y with the workspace ws.
static bool kf_cudnn_execute(cudnnHandle_t h, cudnnBackendDescriptor_t plan, const float *x, const float *w, float *y,
                             void *ws) {
  cudnnBackendDescriptor_t pack = nullptr;
  void *ptr[3] = {(void *)x, (void *)w, (void *)y};
  const int64_t uid[3] = {'x', 'w', 'y'};
  const bool ok = !cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack) &&
                  !cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uid) &&
                  !cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptr) &&
                  !cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) &&
                  !cudnnBackendFinalize(pack) && !cudnnBackendExecute(h, plan, pack);
  kf_cudnn_destroy(&pack, 1);
  return ok;
}

// The plan of one forward convolution: the rank-th usable engine configuration in cuDNN's
// heuristic order (mode A), else the last usable one; rank -1: the fastest usable one as
// timed here on the call's own buffers (y is written).
static bool kf_cudnn_fwd_plan_make(cudnnHandle_t h, kf_cudnn_fwd_plan *p, const float *x, const float *w, float *y,
                                   cudaStream_t stream) {
  const kf_cudnn_fwd_shape &s = p->key;
  const long long sp = s.nd - 2;
  long long ws_[5];
  for (long long i = s.nd - 1, n = 1; i >= 0; n *= s.wd[i--])
    ws_[i] = n;
  enum { X, W, Y, CONV, OP, GRAPH, HEUR, NDESC };
  cudnnBackendDescriptor_t d[NDESC] = {};
  d[X] = kf_cudnn_tensor('x', s.nd, s.xd, s.xs, s.align);
  d[W] = kf_cudnn_tensor('w', s.nd, s.wd, ws_, s.align);
  d[Y] = kf_cudnn_tensor('y', s.nd, s.yd, s.ys, s.align);
  const cudnnDataType_t f = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const cudnnBackendHeurMode_t heur = CUDNN_HEUR_MODE_A;
  const int64_t nsp = sp;
  int64_t pre[3], post[3], str[3], dil[3];
  for (int i = 0; i < sp; i++)
    pre[i] = s.pre[i], post[i] = s.post[i], str[i] = s.stride[i], dil[i] = s.dil[i];
  const float one = 1.0f, zero = 0.0f;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const cudnnBackendAttributeName_t graph_handle = CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                    plan_handle = CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
#pragma GCC diagnostic pop
  bool ok = d[X] && d[W] && d[Y] && !cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &d[CONV]) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, sp, dil) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, sp, str) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, sp, pre) &&
            !cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, sp, post) &&
            !cudnnBackendFinalize(d[CONV]) &&
            !cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &d[OP]) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &d[X]) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &d[W]) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      1, &d[Y]) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[CONV]) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one) &&
            !cudnnBackendSetAttribute(d[OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero) &&
            !cudnnBackendFinalize(d[OP]) &&
            !cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d[GRAPH]) &&
            !cudnnBackendSetAttribute(d[GRAPH], CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[OP]) &&
            !cudnnBackendSetAttribute(d[GRAPH], graph_handle, CUDNN_TYPE_HANDLE, 1, &h) &&
            !cudnnBackendFinalize(d[GRAPH]) &&
            !cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &d[HEUR]) &&
            !cudnnBackendSetAttribute(d[HEUR], CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &d[GRAPH]) &&
            !cudnnBackendSetAttribute(d[HEUR], CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur) &&
            !cudnnBackendFinalize(d[HEUR]);
  enum { MAXCFG = 32 };
  cudnnBackendDescriptor_t cfg[MAXCFG] = {};
  int64_t ncfg = 0;
  ok = ok && !cudnnBackendGetAttribute(d[HEUR], CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &ncfg,
                                       nullptr);
  ncfg = ncfg < MAXCFG ? ncfg : MAXCFG;
  for (int i = 0; ok && i < ncfg; i++)
    ok = !cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[i]);
  ok = ok && !cudnnBackendGetAttribute(d[HEUR], CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ncfg,
                                       &ncfg, cfg);
  const int want = s.rank < 0 ? 0 : (int)s.rank;
  int usable = 0;
  float best = 0;
  void *tws = nullptr; // the timing's workspace
  size_t tbytes = 0;
  p->plan = nullptr;
  for (int i = 0; ok && i < ncfg && (s.rank < 0 || usable <= want); i++) {
    cudnnBackendDescriptor_t engine = nullptr, plan = nullptr;
    cudnnBackendNumericalNote_t note[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t n = 0, nnote = 0, bytes = 0;
    bool take = !cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) &&
                !cudnnBackendGetAttribute(cfg[i], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                          &engine) &&
                !cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                          CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &nnote, note);
    for (int j = 0; take && j < nnote; j++)
      take = note[j] != CUDNN_NUMERICAL_NOTE_TENSOR_CORE && note[j] != CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS &&
             note[j] != CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION &&
             note[j] != CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
    take = take && !cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) &&
           !cudnnBackendSetAttribute(plan, plan_handle, CUDNN_TYPE_HANDLE, 1, &h) &&
           !cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &cfg[i]) &&
           !cudnnBackendFinalize(plan) &&
           !cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &bytes);
    kf_cudnn_destroy(&engine, 1);
    if (take && s.rank < 0) { // time it: the best of three runs
      take = false;
      if ((size_t)bytes > tbytes) {
        cudaFree(tws);
        tws = nullptr;
        tbytes = cudaMalloc(&tws, bytes) == cudaSuccess ? bytes : 0;
      }
      cudaEvent_t e0, e1;
      float ms = 0, fastest = -1;
      if ((size_t)bytes <= tbytes && cudaEventCreate(&e0) == cudaSuccess) {
        if (cudaEventCreate(&e1) == cudaSuccess) {
          bool ran = kf_cudnn_execute(h, plan, x, w, y, tws); // a warm-up
          for (int r = 0; ran && r < 3; r++) {
            ran = cudaEventRecord(e0, stream) == cudaSuccess && kf_cudnn_execute(h, plan, x, w, y, tws) &&
                  cudaEventRecord(e1, stream) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
                  cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess;
            fastest = ran && (fastest < 0 || ms < fastest) ? ms : fastest;
          }
          take = ran && (!p->plan || fastest < best);
          best = take ? fastest : best;
          cudaEventDestroy(e1);
        }
        cudaEventDestroy(e0);
      }
    }
    if (take) {
      kf_cudnn_destroy(&p->plan, 1);
      p->plan = plan, p->bytes = bytes, usable++;
    } else {
      kf_cudnn_destroy(&plan, 1);
    }
  }
  cudaFree(tws);
  kf_cudnn_destroy(cfg, MAXCFG);
  kf_cudnn_destroy(d, NDESC);
  return p->plan != nullptr;
}

// Phases of a transposed convolution, per spatial dimension d and residue r (o mod s = r):
// the taps t = first + m * step (m < taps), the input offset of output q's first product
// (lo + q), the forward convolution's dilation, and the number of outputs q.
struct kf_cudnn_phases {
  int sp, s[3], taps[3][8], first[3][8], step[3][8], lo[3][8], fdil[3][8];
  long long out[3], q[3][8];
  int n;               // phases: s[0] * s[1] * s[2]
  long long z[65];     // each phase's offset in the workspace's outputs (floats); z[n]: the end
  long long v[65];     // each phase's offset among the repacked weights
  int ci, cog, groups; // input channels, output channels per group, groups
  int k[3];            // the kernel's extents
};

// v[phase][co][ci / groups][taps...] = w[ci][co % cog][first + (taps - 1 - j) * step...]
__global__ void kf_cudnn_repack(kf_cudnn_phases ph, const float *__restrict__ w, float *__restrict__ v) {
  const int p = blockIdx.y, cig = ph.ci / ph.groups, co = ph.cog * ph.groups;
  int r[3], m[3] = {1, 1, 1}, n = co * cig;
  if (ph.v[p + 1] == ph.v[p]) // a phase without work
    return;
  for (int d = ph.sp - 1, rest = p; d >= 0; rest /= ph.s[d--])
    r[d] = rest % ph.s[d];
  for (int d = 0; d < ph.sp; d++)
    m[d] = ph.taps[d][r[d]], n *= m[d];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int rest = i, src = 0, place = 1;
    for (int d = ph.sp - 1; d >= 0; d--) {
      const int j = rest % m[d];
      rest /= m[d];
      src += (ph.first[d][r[d]] + (m[d] - 1 - j) * ph.step[d][r[d]]) * place;
      place *= ph.k[d];
    }
    const int c = rest % cig, o = rest / cig;
    src += ((o / ph.cog * cig + c) * ph.cog + o % ph.cog) * place;
    v[ph.v[p] + i] = w[src];
  }
}

// y[n][co][o...] = z[phase of o][n][co][o / s...] + b[co], 0 for a phase without taps. One
// block per row of y (n, co and every output coordinate but the last, decoded once per row),
// its threads along the row: one division per element, by the last dimension's stride.
__global__ void kf_cudnn_interleave(kf_cudnn_phases ph, const float *__restrict__ z, const float *__restrict__ b,
                                    float *__restrict__ y, unsigned rows) {
  const int last = ph.sp - 1;
  const unsigned co = ph.cog * ph.groups, width = (unsigned)ph.out[last], s = (unsigned)ph.s[last];
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    unsigned rest = row, o[3];
    for (int d = last - 1; d >= 0; d--) {
      o[d] = rest % (unsigned)ph.out[d];
      rest /= (unsigned)ph.out[d];
    }
    const unsigned nc = rest;
    unsigned p_row = 0, at_row = nc; // the phase and the offset over the dimensions before the last
    for (int d = 0; d < last; d++) {
      const unsigned r = o[d] % ph.s[d];
      p_row = p_row * ph.s[d] + r;
      at_row = at_row * (unsigned)ph.q[d][r] + o[d] / ph.s[d];
    }
    const float bias = b ? b[nc % co] : 0.0f;
    float *yr = y + (size_t)row * width;
    for (unsigned ol = threadIdx.x; ol < width; ol += blockDim.x) {
      const unsigned r = ol % s, p = p_row * s + r;
      const float v = ph.z[p + 1] > ph.z[p] ? z[ph.z[p] + at_row * (unsigned)ph.q[last][r] + ol / s] : 0.0f;
      yr[ol] = b ? v + bias : v;
    }
  }
}

// y[n][c][...] += b[c] (b: null for none), then max(y, 0) when relu (a ReLU the reference
// runs next over y, folded in): a block per (n, c) plane, its threads along the plane
__global__ void kf_cudnn_bias(const float *__restrict__ b, float *__restrict__ y, unsigned inner, unsigned channels,
                              unsigned planes, bool relu) {
  for (unsigned plane = blockIdx.x; plane < planes; plane += gridDim.x) {
    const float v = b ? b[plane % channels] : 0.0f;
    float *yp = y + (size_t)plane * inner;
    for (unsigned i = threadIdx.x; i < inner; i += blockDim.x) {
      const float r = yp[i] + v;
      yp[i] = relu ? (r > 0.0f ? r : 0.0f) : r;
    }
  }
}

static bool kf_cudnn_conv_act(bool transposed, int sp, const int *xdim, const int *wdim, const int *pad,
                              const int *stride, const int *dilation, const int *out_pad, int groups, int algo_rank,
                              const float *x, const float *w, const float *b, float *y, bool relu,
                              cudaStream_t stream) {
  if (relu && transposed)
    return false;
  static cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    return cudnnCreate(&h) == CUDNN_STATUS_SUCCESS ? h : nullptr;
  }();
  enum { MAXPLANS = 64, MAXSTREAMS = 8 };
  static kf_cudnn_fwd_plan plans[MAXPLANS];
  static int nplans = 0;
  static unsigned long long calls = 0;
  calls++;
  static struct {
    cudaStream_t stream;
    char *p;
    size_t bytes;
  } workspace[MAXSTREAMS];
  static int nworkspaces = 0;
  if (!handle || sp < 1 || sp > 3 || cudnnSetStream(handle, stream) != CUDNN_STATUS_SUCCESS)
    return false;
  // one dimension is two with a height of 1
  const int nsp = sp < 2 ? 2 : sp, lead = nsp - sp, nd = nsp + 2;
  long long xd[5], wd[5], pd[3], st[3], dl[3], op[3], yd[5];
  for (int i = 0; i < nd; i++) {
    xd[i] = i < 2 ? xdim[i] : i - 2 < lead ? 1 : xdim[i - lead];
    wd[i] = i < 2 ? wdim[i] : i - 2 < lead ? 1 : wdim[i - lead];
  }
  for (int i = 0; i < nsp; i++) {
    pd[i] = i < lead ? 0 : pad[i - lead];
    st[i] = i < lead ? 1 : stride[i - lead];
    dl[i] = i < lead ? 1 : dilation[i - lead];
    op[i] = i < lead ? 0 : out_pad[i - lead];
  }
  yd[0] = xd[0];
  yd[1] = transposed ? wd[1] * groups : wd[0];
  long long total = yd[0] * yd[1], inner = 1;
  for (int i = 0; i < nsp; i++) {
    yd[2 + i] = transposed ? (xd[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (wd[2 + i] - 1) + 1 + op[i]
                           : (xd[2 + i] + 2 * pd[i] - dl[i] * (wd[2 + i] - 1) - 1) / st[i] + 1;
    if (yd[2 + i] < 1)
      return false;
    total *= yd[2 + i], inner *= yd[2 + i];
  }
  if (total >= (1LL << 31))
    return false;

  // the forward convolutions to run: one, or one per phase
  kf_cudnn_fwd_shape job[64];
  const float *jx[64]; // the job's input (a view of x)
  int jp[64];          // the job's phase
  int njobs = 0;
  kf_cudnn_phases ph = {};
  long long vbytes = 0, zbytes = 0;
  if (!transposed) {
    kf_cudnn_fwd_shape &s = job[njobs];
    s = {};
    s.nd = nd, s.rank = algo_rank;
    s.align = kf_cudnn_align(x) < kf_cudnn_align(w) ? kf_cudnn_align(x) : kf_cudnn_align(w);
    s.align = kf_cudnn_align(y) < s.align ? kf_cudnn_align(y) : s.align;
    for (int i = 0; i < nd; i++)
      s.xd[i] = xd[i], s.wd[i] = wd[i], s.yd[i] = yd[i];
    for (int i = nd - 1, n = 1, m = 1; i >= 0; n *= xd[i], m *= yd[i--])
      s.xs[i] = n, s.ys[i] = m;
    for (int i = 0; i < nsp; i++)
      s.pre[i] = s.post[i] = pd[i], s.stride[i] = st[i], s.dil[i] = dl[i];
    jx[njobs++] = x;
  } else {
    ph.sp = nsp, ph.n = 1, ph.ci = (int)xd[1], ph.cog = (int)wd[1], ph.groups = groups;
    for (int d = 0; d < nsp; d++) {
      if (st[d] > 8)
        return false;
      ph.s[d] = (int)st[d], ph.n *= ph.s[d], ph.out[d] = yd[2 + d], ph.k[d] = (int)wd[2 + d];
      for (int r = 0; r < ph.s[d]; r++) {
        int taps = 0;
        for (int t = 0; t < ph.k[d]; t++) {
          const long long u = r + pd[d] - t * dl[d];
          if (((u % st[d]) + st[d]) % st[d])
            continue;
          if (taps == 0)
            ph.first[d][r] = t;
          else if (taps == 1)
            ph.step[d][r] = t - ph.first[d][r];
          taps++;
        }
        ph.taps[d][r] = taps;
        if (taps < 2)
          ph.step[d][r] = 1;
        const int last = ph.first[d][r] + (taps - 1) * ph.step[d][r];
        ph.lo[d][r] = taps ? (int)((r + pd[d] - last * dl[d]) / st[d]) : 0;
        ph.fdil[d][r] = taps < 2 ? 1 : (int)(ph.step[d][r] * dl[d] / st[d]);
        ph.q[d][r] = r < yd[2 + d] ? (yd[2 + d] - r + st[d] - 1) / st[d] : 0;
      }
    }
    if (ph.n > 64)
      return false;
    const int co = ph.cog * groups, cig = ph.ci / groups;
    for (int p = 0; p < ph.n; p++) {
      int r[3];
      for (int d = nsp - 1, rest = p; d >= 0; rest /= ph.s[d--])
        r[d] = rest % ph.s[d];
      long long taps = 1, outs = xd[0] * co;
      const float *xv = x;
      kf_cudnn_fwd_shape &s = job[njobs];
      s = {};
      s.nd = nd, s.rank = algo_rank, s.xd[0] = xd[0], s.xd[1] = xd[1];
      s.wd[0] = co, s.wd[1] = cig, s.yd[0] = xd[0], s.yd[1] = co;
      for (int i = nd - 1, n = 1; i >= 0; n *= xd[i--])
        s.xs[i] = n;
      bool empty = false;
      for (int d = 0; d < nsp; d++) {
        const int m = ph.taps[d][r[d]];
        const long long q = ph.q[d][r[d]], lo = ph.lo[d][r[d]], fd = ph.fdil[d][r[d]];
        const long long hi = lo + (q - 1) + (m - 1) * fd + 1; // the inputs [lo, hi) that outputs 0..q-1 read
        const long long vs = lo > 0 ? lo : 0, ve = hi < xd[2 + d] ? hi : xd[2 + d];
        empty = empty || m == 0 || q == 0 || ve <= vs;
        taps *= m, outs *= q;
        xv += vs * s.xs[2 + d];
        s.xd[2 + d] = ve - vs, s.wd[2 + d] = m, s.yd[2 + d] = q;
        s.pre[d] = vs - lo, s.post[d] = hi - ve, s.stride[d] = 1, s.dil[d] = fd;
      }
      ph.v[p] = vbytes / 4;
      ph.z[p] = zbytes / 4;
      if (empty) // no tap reaches an input: the phase's outputs are the bias alone
        continue;
      for (int i = nd - 1, n = 1; i >= 0; n *= s.yd[i--])
        s.ys[i] = n;
      vbytes += (co * cig * taps * 4 + 255) / 256 * 256;
      zbytes += (outs * 4 + 255) / 256 * 256;
      jp[njobs] = p;
      jx[njobs++] = xv;
    }
    ph.v[ph.n] = vbytes / 4;
    ph.z[ph.n] = zbytes / 4;
  }

  // the workspace: the phases' weights and outputs, then cuDNN's own (each 256-byte aligned)
  int ws = 0;
  while (ws < nworkspaces && workspace[ws].stream != stream)
    ws++;
  if (ws == nworkspaces) {
    if (nworkspaces == MAXSTREAMS)
      return false;
    workspace[nworkspaces++] = {stream, nullptr, 0};
  }
  auto grow = [&](size_t need) {
    void *grown = nullptr;
    if (need <= workspace[ws].bytes)
      return true;
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaMalloc(&grown, need) != cudaSuccess)
      return false;
    cudaFree(workspace[ws].p);
    workspace[ws].p = (char *)grown;
    workspace[ws].bytes = need;
    return true;
  };
  if (!grow(vbytes + zbytes))
    return false;
  float *v = (float *)workspace[ws].p, *z = v + vbytes / 4;

  // the plans: a plan timed here (rank -1) runs on the job's own buffers
  kf_cudnn_fwd_plan *plan[64];
  long long most = 0;
  for (int j = 0; j < njobs; j++) {
    kf_cudnn_fwd_shape &s = job[j];
    const float *jw = transposed ? v + ph.v[jp[j]] : w;
    float *jy = transposed ? z + ph.z[jp[j]] : y;
    if (transposed) // the phase's weights and outputs are 256-byte aligned
      s.align = kf_cudnn_align(jx[j]);
    plan[j] = nullptr;
    for (int i = 0; i < nplans && !plan[j]; i++)
      if (!memcmp(&plans[i].key, &s, sizeof s))
        plan[j] = &plans[i];
    if (!plan[j]) {
      int at = nplans; // a free place, else the least recently used plan not used by this call
      for (int i = 0; nplans == MAXPLANS && i < MAXPLANS; i++)
        if (plans[i].used != calls && (at == MAXPLANS || plans[i].used < plans[at].used))
          at = i;
      if (at == MAXPLANS)
        return false;
      kf_cudnn_fwd_plan q = {};
      q.key = s;
      if (!kf_cudnn_fwd_plan_make(handle, &q, jx[j], jw, jy, stream))
        return false;
      if (at < nplans)
        kf_cudnn_destroy(&plans[at].plan, 1);
      else
        nplans++;
      plans[at] = q;
      plan[j] = &plans[at];
    }
    plan[j]->used = calls;
    most = plan[j]->bytes > most ? plan[j]->bytes : most;
  }
  if (!grow(vbytes + zbytes + most))
    return false;
  v = (float *)workspace[ws].p, z = v + vbytes / 4;
  void *wsp = workspace[ws].p + vbytes + zbytes;

  // run
  if (!transposed) {
    if (!kf_cudnn_execute(handle, plan[0]->plan, x, w, y, wsp))
      return false;
    if (b || relu) {
      const long long planes = total / inner;
      const unsigned threads = inner >= 256 ? 256 : (unsigned)(inner + 31) / 32 * 32;
      kf_cudnn_bias<<<(unsigned)(planes < 65536 ? planes : 65536), threads, 0, stream>>>(b, y, (unsigned)inner,
                                                                                          (unsigned)yd[1],
                                                                                          (unsigned)planes, relu);
    }
    return cudaGetLastError() == cudaSuccess;
  }
  if (njobs) {
    kf_cudnn_repack<<<dim3(64, ph.n), 256, 0, stream>>>(ph, w, v);
    if (cudaGetLastError() != cudaSuccess)
      return false;
  }
  for (int j = 0; j < njobs; j++)
    if (!kf_cudnn_execute(handle, plan[j]->plan, jx[j], v + ph.v[jp[j]], z + ph.z[jp[j]], wsp))
      return false;
  const long long width = yd[1 + nsp], rows = total / width;
  const unsigned threads = width >= 256 ? 256 : (unsigned)(width + 31) / 32 * 32;
  kf_cudnn_interleave<<<(unsigned)(rows < 65536 ? rows : 65536), threads, 0, stream>>>(ph, z, b, y, (unsigned)rows);
  return cudaGetLastError() == cudaSuccess;
}

[[maybe_unused]] static bool kf_cudnn_conv(bool transposed, int sp, const int *xdim, const int *wdim, const int *pad,
                                           const int *stride, const int *dilation, const int *out_pad, int groups,
                                           int algo_rank, const float *x, const float *w, const float *b, float *y,
                                           cudaStream_t stream) {
  return kf_cudnn_conv_act(transposed, sp, xdim, wdim, pad, stride, dilation, out_pad, groups, algo_rank, x, w, b, y,
                           false, stream);
}

// kfuse conv-cudnn: conv2d (line 8) as cuDNN convolution, FP32 (no TF32), the fastest engine as timed:
//   out = conv2d(in, weight; stride {1, 1}, padding {0, 0}, dilation {1, 1}) + bias[channel]
static bool conv2d_cudnn(const float *in, const float *weight, const float *bias, float *out,
    const int (&kf_x)[4], const int (&kf_w)[4], const int (&kf_pad)[2], const int (&kf_stride)[2],
    const int (&kf_dilation)[2], const int (&kf_out_pad)[2], cudaStream_t kf_stream) {
  return kf_cudnn_conv(false, 2, kf_x, kf_w, kf_pad, kf_stride, kf_dilation, kf_out_pad, 1, -1, in, weight, bias, out,
      kf_stream);
}

// kfuse fuse-pointwise (block 256, vec 4) of divide (line 28), leaky_relu (line 33), over n elements
__global__ void __launch_bounds__(256, 1) fused_divide_leaky_relu(const float* __restrict__ conv_out, float* __restrict__ output, float divisor, int n) {
  const long long kf_stride = (long long)gridDim.x * blockDim.x;
  const long long kf_start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long kf_addresses = (unsigned long long)conv_out | (unsigned long long)output;
  const long long kf_n4 = (kf_addresses & 15) == 0 ? n / 4 : 0;
  for (long long kf_j = kf_start; kf_j < kf_n4; kf_j += kf_stride) {
    const float4 conv_out_4 = reinterpret_cast<const float4*>(conv_out)[kf_j];
    float4 output_o;
    {
      // divide (line 28)
      float div_out_v = conv_out_4.x / divisor;
      // leaky_relu (line 33)
      float m2_v = div_out_v;
      float output_v = m2_v > 0.0f ? m2_v : m2_v * 0.00999999978f;
      output_o.x = output_v;
    }
    {
      // divide (line 28)
      float div_out_v = conv_out_4.y / divisor;
      // leaky_relu (line 33)
      float m2_v = div_out_v;
      float output_v = m2_v > 0.0f ? m2_v : m2_v * 0.00999999978f;
      output_o.y = output_v;
    }
    {
      // divide (line 28)
      float div_out_v = conv_out_4.z / divisor;
      // leaky_relu (line 33)
      float m2_v = div_out_v;
      float output_v = m2_v > 0.0f ? m2_v : m2_v * 0.00999999978f;
      output_o.z = output_v;
    }
    {
      // divide (line 28)
      float div_out_v = conv_out_4.w / divisor;
      // leaky_relu (line 33)
      float m2_v = div_out_v;
      float output_v = m2_v > 0.0f ? m2_v : m2_v * 0.00999999978f;
      output_o.w = output_v;
    }
    reinterpret_cast<float4*>(output)[kf_j] = output_o;
  }
  for (long long kf_i = 4 * kf_n4 + kf_start; kf_i < n; kf_i += kf_stride) {
    const int i = (int)kf_i;
    // divide (line 28)
    float div_out_v = conv_out[i] / divisor;
    // leaky_relu (line 33)
    float m2_v = div_out_v;
    float output_v = m2_v > 0.0f ? m2_v : m2_v * 0.00999999978f;
    output[i] = output_v;
  }
}

// kfuse pool-scratch: scratch memory from a pool per device that keeps what is freed, so
// that the next call reuses it instead of mapping it anew (the default pool releases it)
#include <mutex>
static cudaMemPool_t kf_scratch_pool() {
  static std::once_flag kf_once[64];
  static cudaMemPool_t kf_pools[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
    return NULL;
  std::call_once(kf_once[dev], [dev] {
    int supported = 0;
    cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev);
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool = NULL;
    if (supported && cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      unsigned long long keep = ~0ull;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      kf_pools[dev] = pool;
    }
  });
  return kf_pools[dev];
}
template <typename T>
static cudaError_t kf_scratch_malloc(T** p, size_t bytes, cudaStream_t stream) {
  cudaMemPool_t pool = kf_scratch_pool();
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;  // a graph's memory is its own
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone)
    pool = NULL;
  return pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(p), bytes, pool, stream)
              : cudaMallocAsync(reinterpret_cast<void**>(p), bytes, stream);
}

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

static cudaError_t conv2d_divide_leaky_relu_eager(const float* input, const float* weight,
                                                const float* bias, float* output, int batch,
                                                int cin, int h, int w, int cout, int k,
                                                float divisor, cudaStream_t stream);
// kfuse: in  input  float[batch][cin][h][w]
// kfuse: in  weight float[cout][cin][k][k]
// kfuse: in  bias   float[cout]
// kfuse: out output float[batch][cout][h - k + 1][w - k + 1]
// kfuse: init input  uniform(0,1)
// kfuse: init weight uniform(-0.1,0.1)
// kfuse: init bias   uniform(-0.1,0.1)
// kfuse: assume k >= 1 && h >= k && w >= k
// kfuse: tune  batch=128 cin=8 h=128 w=128 cout=64 k=3 divisor=2.0
// kfuse: check batch=3 cin=3 h=9 w=10 cout=5 k=3 divisor=2.0
// kfuse: check batch=2 cin=4 h=7 w=6 cout=3 k=1 divisor=-0.5
extern "C" cudaError_t conv2d_divide_leaky_relu(const float* input, const float* weight,
                                                const float* bias, float* output, int batch,
                                                int cin, int h, int w, int cout, int k,
                                                float divisor, cudaStream_t stream) {
  // kfuse cuda-graph: the calls below, replayed from a CUDA graph captured at the second call
  // with the same arguments and stream (kf_graph_call)
  static kf_graph kf_graph_state;
  return kf_graph_call(kf_graph_state, stream, kf_graph_key(input, weight, bias, output, batch, cin, h, w, cout, k, divisor),
                       [&](cudaStream_t kf_stream) {
                         return conv2d_divide_leaky_relu_eager(input, weight, bias, output, batch, cin, h, w, cout, k, divisor, kf_stream);
                       });
}

// conv2d_divide_leaky_relu's work as written, run eagerly (and captured) by the wrapper above
static cudaError_t conv2d_divide_leaky_relu_eager(const float* input, const float* weight,
                                                const float* bias, float* output, int batch,
                                                int cin, int h, int w, int cout, int k,
                                                float divisor, cudaStream_t stream) {
  int n = batch * cout * (h - k + 1) * (w - k + 1);
  int grid = (n + BLOCK - 1) / BLOCK;
  float* conv_out = nullptr;
  cudaError_t err = kf_scratch_malloc(&conv_out, sizeof(float) * n, stream);
  if (err != cudaSuccess) return err;
  err = cudaSuccess;
  if (err != cudaSuccess) return err;
  if (!conv2d_cudnn(input, weight, bias, conv_out,
      {(int)(batch), (int)(cin), (int)(h), (int)(w)}, {(int)(cout), (int)(cin), (int)(k), (int)(k)},
      {0, 0}, {1, 1}, {1, 1}, {0, 0}, stream))
    conv2d<<<grid, BLOCK, 0, stream>>>(input, weight, bias, conv_out, batch, cin, h, w, cout, k);
  fused_divide_leaky_relu<<<(unsigned)(n / 1024 + 1 < 1048576 ? n / 1024 + 1 : 1048576), 256, 0, stream>>>(conv_out, output, divisor, n);
  cudaFreeAsync(conv_out, stream);
  return cudaGetLastError();
}
