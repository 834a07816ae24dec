/*
 * sink_apply.c: a row kernel's apply computed where its one consumer loads it.
 *
 * level1/095 (cross entropy) computes a log-softmax row by row, one block a row, and
 * writes the whole row; the kernel after it reads one element of each row:
 *
 *   log_softmax_rows<<<rows, 256>>>(x, logp, C);     ... m and s reduced over the block, then
 *     for (int j = t; j < C; j += 256) out[j] = row[j] - row_max - log_sum;
 *   nll_mean<<<1, 1024>>>(logp, target, loss, N, C); ... acc -= logp[i * C + target[i]];
 *
 * so the row (512 MB a call on the tune binding) is written to be read at one place in
 * 4096. The pass stores the row's values instead (row_max and log_sum: the locals the
 * apply loop's element names, the same in every thread of the block), at the start of
 * the row's own place in P, and the consumer computes the element it loads from them:
 *
 *   if (threadIdx.x == 0) { logp[blockIdx.x * C + 0] = row_max; logp[blockIdx.x * C + 1] = log_sum; }
 *   ...
 *   __device__ float kf_log_softmax_rows_at(const float* logp, const float* x, int C, long long i) {
 *     const long long kf_r = i / C;  const int j = i % C;
 *     const float row_max = logp[kf_r * C + 0], log_sum = logp[kf_r * C + 1];
 *     return x[kf_r * C + j] - row_max - log_sum;
 *   }
 *
 * A row shorter than the number of values (C < 2 here) has no room for them: then both
 * kernels do what the reference did (a test of C, the same in every thread).
 *
 * Why it is the same computation: element (r, j) of P is E(j, U1..Uk, B[r * N + j]...) as
 * block r's threads computed it, where the U are locals every thread of block r holds
 * alike, so thread 0's are anyone's, and the buffers B are read-only and unchanged from the
 * producer's launch to the end of the consumer's; so evaluating E at the consumer's load,
 * from the stored U, gives the value the reference stored, bit for bit. Legal when (checked
 * on the model; otherwise nothing changes and -R says why):
 *   - the producer K is a lifted, non-template launch with a one-dimensional grid, no
 *     return, and P (a whole scratch buffer of the entry) written by one statement: the
 *     last statement at its top level, a canonical loop `for (j = lo; j < N; j += s)` whose
 *     body is one store `P[blockIdx.x * N + j] = E` (or `out[j] = E` through a pointer local
 *     `out = P + blockIdx.x * N` declared once), N a scalar parameter, lo threadIdx.x or a
 *     literal at least 0; K reads P nowhere and names it nowhere else;
 *   - E names only j, scalar parameters, literals, calls of functions of their arguments
 *     alone (the math functions, and the file's one-return __device__ functions that read
 *     no memory and no index), loads of buffers K only reads at `blockIdx.x * N + j` (directly or through a pointer
 *     local `row = B + blockIdx.x * N` at `row[j]`), and locals of P's element type that
 *     are uniform: declared once at K's top level, never assigned nor passed to another
 *     function (which could take it by reference), from literals, scalar
 *     parameters, blockIdx and the block and grid sizes, other uniform locals, loads of
 *     read-only buffers at uniform indices, and loads of a shared array at uniform indices
 *     that a barrier separates from every store to it: the nearest top-level statement
 *     before the declaration that holds a barrier is `__syncthreads()`, or a loop whose
 *     body ends in one and that follows one (a block reduction's halving tree), and no
 *     statement from there to the next top-level `__syncthreads()` stores to the array or
 *     uses its address;
 *   - the consumer is the next launch, with only allocations and runtime calls that touch
 *     no buffer between and no other host code (its launch passes K's arguments again: they
 *     must mean what they meant at K's); no step of the entry passes a pointer kfuse cannot
 *     trace; the element's function and the consumer's new parameters have no names in
 *     common with each other or the consumer's own; the consumer is lifted, no template, passed P once, and names it only in
 *     direct loads `P[i]`; it writes neither P nor a buffer E reads; P is read by no other
 *     step, and written by no step but K;
 *   - the host values K's arguments name are not reassigned in the entry (the consumer's
 *     launch reads them later than K's).
 * Parameter: on (0, 1): 1 applies the pass; 0, the default, keeps both launches, so that the
 * rule order's first variant is the one it was before the pass existed (the recipes the
 * records hold) and the tuner measures the program with and without it.
 */
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "pwrun.h"
#include "reduce.h"

enum { SINK_MAX_U = 8, SINK_MAX_IN = 16 };

typedef struct sink {
  const kmodel *m;
  const kstep *kst, *cst;       /* the producer's and the consumer's launches */
  const kkernel *k, *q;
  int pparam, qparam;           /* P in K, in Q */
  const kstmt *top[RED_MAX_TOP];
  int ntop;
  const kstmt *loop, *store;    /* K's last loop and its store */
  int j;                        /* the loop variable */
  int nparam;                   /* N: the row length, a scalar parameter of K */
  int row_store;                /* the loop stores P's row: worth a remark when refused */
  int u[SINK_MAX_U];            /* the uniform locals E names, in order */
  int nu;
  int in[SINK_MAX_IN];          /* the parameters of K that E names (buffers and scalars) */
  int nin;
} sink;

static const unsigned SINK_UNIFORM_BUILTINS = 1u << KB_BID_X | 1u << KB_BID_Y | 1u << KB_BID_Z | 1u << KB_BDIM_X |
                                              1u << KB_BDIM_Y | 1u << KB_BDIM_Z | 1u << KB_GDIM_X |
                                              1u << KB_GDIM_Y | 1u << KB_GDIM_Z | 1u << KB_WARPSIZE;

/* The math functions and intrinsics a value may call: functions of their arguments alone. */
static const char *const pure_math[] = {
    "abs", "acosf", "asinf", "atan2f", "atanf", "cbrtf", "ceil", "ceilf", "copysignf", "cos", "cosf", "coshf",
    "erf", "erfc", "erfcf", "erff", "exp", "exp2", "exp2f", "expf", "expm1", "expm1f", "fabs", "fabsf",
    "fdividef", "floor", "floorf", "fma", "fmaf", "fmax", "fmaxf", "fmin", "fminf", "fmod", "fmodf", "isfinite",
    "isinf", "isnan", "log", "log10", "log10f", "log1p", "log1pf", "log2", "log2f", "logf", "max", "min", "pow",
    "powf", "rint", "rintf", "round", "roundf", "rsqrt", "rsqrtf", "signbit", "sin", "sinf", "sinhf", "sqrt",
    "sqrtf", "tan", "tanf", "tanh", "tanhf", "trunc", "truncf", "__cosf", "__expf", "__fadd_rn", "__fdividef",
    "__fmaf_rn", "__fmul_rn", "__frcp_rn", "__fsqrt_rn", "__log10f", "__log2f", "__logf", "__powf", "__sinf",
    "__tanf"};

static int pure_expr(const kmodel *m, const kexpr *e, int depth);

/* Whether call e computes a value of its arguments alone: a math function, or one of the
 * file's one-return __device__ functions whose expression reads no memory and no index. */
static int pure_call(const kmodel *m, const kexpr *e, int depth) {
  for (size_t i = 0; i < sizeof pure_math / sizeof pure_math[0]; i++)
    if (!strcmp(e->text, pure_math[i]))
      return 1;
  const kexpr *body = depth < 8 ? model_function_value(m, e->text, e->nargs) : NULL;
  return body && pure_expr(m, body, depth + 1);
}

static int pure_expr(const kmodel *m, const kexpr *e, int depth) {
  if (!e)
    return 1;
  if (e->kind == KE_BUILTIN || e->kind == KE_LOAD || e->kind == KE_ADDR || (e->kind == KE_CALL && !pure_call(m, e, depth)))
    return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!pure_expr(m, e->args[i], depth))
      return 0;
  return pure_expr(m, e->a, depth) && pure_expr(m, e->b, depth) && pure_expr(m, e->c, depth);
}

/* A function that is not pure (above) and the variable it may take by reference. */
typedef struct {
  const kmodel *m;
  int var;
} passing;

/* Whether e calls a function that is not pure with the variable among its arguments: one
 * that may take it by reference and change it. */
static int passes_var(const kexpr *e, const void *ctx) {
  const passing *p = ctx;
  if (e->kind == KE_CALL && !pure_call(p->m, e, 0))
    for (int i = 0; i < e->nargs; i++)
      if (kx_names(e->args[i], p->var))
        return 1;
  return 0;
}

static int passed_out(const kexpr *e, const void *ctx) { return kx_any(e, passes_var, ctx); }

static int stmt_passes_out(const kmodel *m, const kstmt *t, int var) {
  passing p = {m, var};
  return kst_any(t, NULL, passed_out, &p);
}

/* Whether e is `blockIdx.x * N` (either order, casts aside), N scalar parameter n. */
static int row_offset(const kexpr *e, int n) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY || e->op != KO_MUL)
    return 0;
  const kexpr *a = kx_strip(e->a), *b = kx_strip(e->b);
  return (kx_is_builtin(a, KB_BID_X) && b && b->kind == KE_PARAM && b->param == n) ||
         (kx_is_builtin(b, KB_BID_X) && a && a->kind == KE_PARAM && a->param == n);
}

/* Whether e is `blockIdx.x * N + j` (either order, casts aside). */
static int row_element(const kexpr *e, int n, int j) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY || e->op != KO_ADD)
    return 0;
  return (row_offset(e->a, n) && kx_is_var(e->b, j)) || (row_offset(e->b, n) && kx_is_var(e->a, j));
}

/* Whether global access `acc` of k (a load or the store) is element (blockIdx.x, j) of its
 * buffer: directly, or through a pointer local declared once as `buffer + blockIdx.x * N`. */
static int at_row_element(arena *a, const kkernel *k, const kaccess *acc, const kexpr *index, int n, int j) {
  if (acc->var < 0)
    return row_element(index, n, j);
  const kvar *p = &k->vars[acc->var];
  const kexpr *off;
  return p->kind == KV_LOCAL && !p->nassign && p->init && prun_param_offset(a, p->init, acc->param, &off) && off &&
         row_offset(off, n) && kx_is_var(index, j);
}

static void add_in(sink *s, int p) {
  if (s->nin > SINK_MAX_IN)
    return;
  for (int i = 0; i < s->nin; i++)
    if (s->in[i] == p)
      return;
  if (s->nin < SINK_MAX_IN)
    s->in[s->nin++] = p;
  else
    s->nin = SINK_MAX_IN + 1;
}

/* The position in s->top of the declaration of var, or -1. */
static int decl_at(const sink *s, int var) {
  for (int i = 0; i < s->ntop; i++)
    if (s->top[i]->kind == KST_DECL && s->top[i]->var == var)
      return i;
  return -1;
}

static int is_addr_of(const kexpr *e, const void *sv) {
  return e->kind == KE_ADDR && e->param < 0 && e->var == *(const int *)sv;
}

/* Whether e takes the address of an element of array sv (&red[i]). */
static int addr_taken(const kexpr *e, const void *sv) { return kx_any(e, is_addr_of, sv); }

static int stores_to(const kstmt *t, const void *sv) {
  return (t->kind == KST_STORE || t->kind == KST_ATOMIC) && t->array_var == *(const int *)sv;
}

/* Whether statement t (nested ones included) stores to shared array sv or takes the
 * address of one of its elements. */
static int stores_array(const kstmt *t, int sv) { return kst_any(t, stores_to, addr_taken, &sv); }

/* Whether statement t may write shared array sv: it stores to it, or uses its address (passes
 * it to a function, takes a pointer into it). */
static int writes_array(const kstmt *t, int sv) { return stores_array(t, sv) || kst_uses_value(t, sv); }

static const unsigned SYNC = 1u << KST_SYNC;

/* Whether t is a block-wide barrier: __syncthreads() (not __syncwarp, not a fence). */
static int is_barrier(const kstmt *t) { return t->kind == KST_SYNC && t->text && !strcmp(t->text, "__syncthreads"); }

/* Whether a load of shared array sv in the declaration at top[at] reads what every thread
 * of the block reads: a barrier before it (a __syncthreads() statement, or a loop ending
 * in one right after one), and no write to sv from there to the next top-level barrier. */
static int settled(const sink *s, int at, int sv) {
  int b = at - 1;
  while (b >= 0 && !kst_holds(s->top[b], SYNC, 0))
    b--;
  if (b < 0)
    return 0;
  const kstmt *t = s->top[b];
  if (!is_barrier(t)) {
    const kstmt *body[RED_MAX_TOP];
    int nb = 0;
    kst_flatten(t->then, body, &nb, RED_MAX_TOP);
    if (t->kind != KST_FOR || nb == 0 || nb > RED_MAX_TOP || !is_barrier(body[nb - 1]) || b == 0 ||
        !is_barrier(s->top[b - 1]) ||
        kst_holds(t->then, 1u << KST_BREAK | 1u << KST_CONTINUE | 1u << KST_RETURN, 0))
      return 0;
  }
  for (int i = b + 1; i < s->ntop && !(i > at && is_barrier(s->top[i])); i++)
    if (writes_array(s->top[i], sv))
      return 0;
  return 1;
}

static const char *uniform_var(sink *s, arena *a, int var, int depth);

/* Whether e (in the declaration at top[at]) is the same in every thread of the block. */
static const char *uniform_expr(sink *s, arena *a, const kexpr *e, int at, int depth) {
  if (!e)
    return NULL;
  const char *why;
  switch (e->kind) {
  case KE_BUILTIN:
    return SINK_UNIFORM_BUILTINS & 1u << e->builtin ? NULL : "a thread index";
  case KE_VAR:
    return uniform_var(s, a, e->var, depth + 1);
  case KE_ADDR:
  case KE_MEMBER: return "an address or a field";
  case KE_LOAD:
    if (e->param >= 0 ? e->var >= 0 || s->k->params[e->param].writes
                      : s->k->vars[e->var].kind != KV_SHARED || !settled(s, at, e->var))
      return e->param >= 0 ? "a load of a buffer the kernel writes, or through a pointer local"
                           : "a load of a shared array that no barrier separates from its stores";
    return uniform_expr(s, a, e->a, at, depth);
  case KE_CALL:
    if (!pure_call(s->m, e, 0))
      return arena_printf(a, "a call of %s, which kfuse does not know to compute a value alone", e->text);
    for (int i = 0; i < e->nargs; i++)
      if ((why = uniform_expr(s, a, e->args[i], at, depth)))
        return why;
    return NULL;
  default:
    if ((why = uniform_expr(s, a, e->a, at, depth)) || (why = uniform_expr(s, a, e->b, at, depth)))
      return why;
    return uniform_expr(s, a, e->c, at, depth);
  }
}

/* Whether local var is the same in every thread of the block (NULL) or why not. */
static const char *uniform_var(sink *s, arena *a, int var, int depth) {
  const kvar *v = &s->k->vars[var];
  int at = decl_at(s, var);
  if (depth > 16)
    return "too deep a chain of definitions";
  if (v->kind != KV_LOCAL || v->nassign || at < 0 || !s->top[at]->value)
    return arena_printf(a, "'%s' is not declared once at the kernel's top level, with a value, and never assigned", v->name);
  if (stmt_passes_out(s->m, s->k->body, var))
    return arena_printf(a, "'%s' is passed to a function that may change it", v->name);
  const char *why = uniform_expr(s, a, s->top[at]->value, at, depth);
  return why ? arena_printf(a, "'%s' may differ between the block's threads: its value has %s", v->name, why) : NULL;
}

/* Whether E (the store's value, or a part of it) names only what the consumer can compute
 * it from; records the uniform locals and the parameters. */
static const char *element_expr(sink *s, arena *a, const kexpr *e) {
  if (!e)
    return NULL;
  const kkernel *k = s->k;
  const char *why;
  switch (e->kind) {
  case KE_BUILTIN: return "names a thread or block index";
  case KE_ADDR:
  case KE_MEMBER: return "takes an address or a field";
  case KE_PARAM:
    if (k->params[e->param].is_pointer)
      return "uses a buffer's address";
    add_in(s, e->param);
    return NULL;
  case KE_VAR:
    if (e->var == s->j)
      return NULL;
    if ((why = uniform_var(s, a, e->var, 0)))
      return why;
    if (k->vars[e->var].type != k->params[s->pparam].type || k->vars[e->var].type == KT_UNKNOWN ||
        !k->vars[e->var].type_spelling ||
        strchr(k->vars[e->var].type_spelling, '*'))
      return arena_printf(a, "'%s' is not of the buffer's element type", k->vars[e->var].name);
    for (int i = 0; i < s->nu; i++)
      if (s->u[i] == e->var)
        return NULL;
    if (s->nu == SINK_MAX_U)
      return "names more of the block's values than kfuse stores";
    s->u[s->nu++] = e->var;
    return NULL;
  case KE_LOAD:
    if (e->param < 0 || k->params[e->param].writes || e->param == s->pparam)
      return "loads other than a buffer the kernel only reads";
    if (!at_row_element(a, k, &k->accesses[e->access], e->a, s->nparam, s->j))
      return "loads a buffer at another place than the element's";
    add_in(s, e->param);
    return NULL;
  case KE_CALL:
    if (!pure_call(s->m, e, 0))
      return arena_printf(a, "calls %s, which kfuse does not know to compute a value alone", e->text);
    for (int i = 0; i < e->nargs; i++)
      if ((why = element_expr(s, a, e->args[i])))
        return why;
    return NULL;
  default:
    if ((why = element_expr(s, a, e->a)) || (why = element_expr(s, a, e->b)))
      return why;
    return element_expr(s, a, e->c);
  }
}

typedef struct {
  const sink *s;
  int ptr; /* the store's pointer local, or -1 */
} naming;

static int names_p_in(const kexpr *e, const void *ctx) {
  const naming *n = ctx;
  return prun_names_param(e, n->s->pparam, n->ptr);
}

static int names_p_at(const kstmt *t, const void *ctx) {
  const naming *n = ctx;
  if (t == n->s->store)
    return names_p_in(t->index, ctx) || names_p_in(t->value, ctx) ? 1 : KST_SKIP;
  if (t->kind == KST_DECL && t->var == n->ptr && n->ptr >= 0)
    return KST_SKIP;
  return (t->kind == KST_STORE || t->kind == KST_ATOMIC) && t->param == n->s->pparam;
}

/* Whether statement t of K names P (or the store's pointer local) anywhere but in the
 * store itself and the pointer local's declaration. */
static int names_p(const sink *s, const kstmt *t, int ptr) {
  naming n = {s, ptr};
  return kst_any(t, names_p_at, names_p_in, &n);
}

/* The producer: K's last loop and its element (fills s); NULL, or why not. */
static const char *producer(sink *s, arena *a) {
  const kkernel *k = s->k;
  const kstep *st = s->kst;
  if (st->grid_var || strstr(st->grid, "dim3") || (st->grid_y && !(st->grid_y->kind == XE_INT && st->grid_y->ival == 1)))
    return "has a grid of more than one dimension";
  if (kst_holds(k->body, 1u << KST_RETURN, 0))
    return "returns";
  s->ntop = 0;
  kst_flatten(k->body, s->top, &s->ntop, RED_MAX_TOP);
  if (s->ntop == 0 || s->ntop > RED_MAX_TOP)
    return "has no statement kfuse follows at its top level";
  const kstmt *l = s->top[s->ntop - 1];
  if (l->kind != KST_FOR || l->loop_var < 0 || l->hi_inclusive)
    return "does not end in a canonical loop";
  const kstmt *body[2];
  int nb = 0;
  kst_flatten(l->then, body, &nb, 2);
  if (nb != 1 || body[0]->kind != KST_STORE || body[0]->param < 0 || body[0]->op != -1)
    return "does not end in a loop whose body is one store to a buffer";
  s->loop = l;
  s->store = body[0];
  s->j = l->loop_var;
  s->pparam = s->store->param;
  const kexpr *hi = kx_strip(l->hi), *lo = kx_strip(l->lo);
  if (!hi || hi->kind != KE_PARAM || k->params[hi->param].is_pointer)
    return "ends in a loop whose bound is no scalar parameter";
  s->nparam = hi->param;
  if (!(lo && lo->kind == KE_INT && lo->ival >= 0) && !kx_is_builtin(lo, KB_TID_X) &&
      !(lo && lo->kind == KE_VAR && k->vars[lo->var].kind == KV_LOCAL && !k->vars[lo->var].nassign &&
        kx_is_builtin(k->vars[lo->var].init, KB_TID_X)))
    return "ends in a loop that does not start at threadIdx.x or a literal";
  const kaccess *acc = &k->accesses[s->store->access];
  if (!at_row_element(a, k, acc, s->store->index, s->nparam, s->j))
    return arena_printf(a, "stores '%s' at another place than blockIdx.x * %s + %s", k->params[s->pparam].name,
                        k->params[s->nparam].name, k->vars[s->j].name);
  s->row_store = 1;
  if (k->params[s->pparam].reads || names_p(s, k->body, acc->var))
    return arena_printf(a, "uses '%s' other than in its last loop's store", k->params[s->pparam].name);
  s->nu = s->nin = 0;
  const char *why = element_expr(s, a, s->store->value);
  if (why)
    return arena_printf(a, "stores an element that %s", why);
  if (!s->nu)
    return "stores an element that names none of the block's values: nothing to gain";
  if (s->nin > SINK_MAX_IN)
    return "stores an element of more inputs than kfuse follows";
  return NULL;
}

/* Whether e names consumer Q's P other than in a direct load (not through a pointer local,
 * P not in its index). */
static int names_q_but_loads(const kexpr *e, const void *ctx) {
  const sink *s = ctx;
  if (e->param != s->qparam)
    return 0;
  if (e->kind == KE_LOAD)
    return e->var >= 0 || prun_names_param(e->a, s->qparam, -1);
  return e->kind == KE_PARAM || e->kind == KE_ADDR;
}

static int named_but_loads(const kexpr *e, const void *ctx) { return kx_any(e, names_q_but_loads, ctx); }

static int stores_q(const kstmt *t, const void *ctx) {
  return (t->kind == KST_STORE || t->kind == KST_ATOMIC) && t->param == ((const sink *)ctx)->qparam;
}

/* Whether consumer Q names its P only in direct loads. */
static int stmt_loads_only(const sink *s, const kstmt *t) { return !kst_any(t, stores_q, named_but_loads, s); }

/* Whether a step among steps[0..n) (nested ones too) other than K, Q, the allocation and the
 * free names scratch buffer id. */
static int named_elsewhere(const sink *s, const kstep *steps, int n, int id) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    if (st != s->kst && st != s->cst && st->kind != KS_ALLOC && st->kind != KS_FREE)
      for (int g = 0; g < st->nargs; g++)
        if (st->args[g].ref == KREF_SCRATCH && st->args[g].buffer == id)
          return 1;
    if (named_elsewhere(s, st->body, st->nbody, id) || named_elsewhere(s, st->orelse, st->norelse, id))
      return 1;
  }
  return 0;
}

/* Whether launch argument b (of K) and g (of Q) are the same buffer. */
static int same_buffer(const karg *b, const karg *g) {
  return b->ref != KREF_NONE && b->ref != KREF_UNKNOWN && b->ref == g->ref && b->buffer == g->buffer;
}

/* Whether a step among steps[0..n) (nested ones too) passes a pointer kfuse cannot trace
 * (a file-scope buffer, a helper's result): it may be P or an input under another name. */
static int untraced(const kstep *steps, int n) {
  for (int i = 0; i < n; i++) {
    for (int g = 0; g < steps[i].nargs; g++)
      if (steps[i].args[g].ref == KREF_UNKNOWN)
        return 1;
    if (untraced(steps[i].body, steps[i].nbody) || untraced(steps[i].orelse, steps[i].norelse))
      return 1;
  }
  return 0;
}

/* Whether text names identifier w. */
static int names_word(const char *text, const char *w) {
  size_t n = strlen(w);
  for (const char *p = text; (p = strstr(p, w)); p += n) {
    int before = p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                              (p[-1] >= '0' && p[-1] <= '9'));
    char c = p[n];
    int after = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!before && !after)
      return 1;
  }
  return 0;
}

/* Whether the entry runs nothing from K's launch (top-level step at) to Q's (next) but the
 * steps between: the text there is those steps, blanks, semicolons and comments, so the host
 * values K's arguments name are the same at Q's launch, where the pass passes them again
 * (no assignment, no declaration of another variable of the same name); and no step
 * between allocates a pointer they name. */
static int nothing_between(const kmodel *m, const kentry *e, int at, int next) {
  unsigned pos = e->steps[at].loc.end, end = e->steps[next].loc.begin;
  if (pos > end || end > m->size)
    return 0;
  int k = at + 1;
  while (pos < end) {
    const char *c = m->text + pos;
    if (k < next && pos == e->steps[k].loc.begin) {
      for (int g = 0; g < e->steps[at].nargs; g++)
        if (e->steps[k].var && names_word(e->steps[at].args[g].text, e->steps[k].var))
          return 0;
      pos = e->steps[k++].loc.end;
    } else if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == ';') {
      pos++;
    } else if (c[0] == '/' && c[1] == '/') {
      while (pos < end && m->text[pos] != '\n')
        pos++;
    } else if (c[0] == '/' && c[1] == '*') {
      const char *close = strstr(c + 2, "*/");
      if (!close)
        return 0;
      pos = (unsigned)(close + 2 - m->text);
    } else {
      return 0;
    }
  }
  return k == next;
}

/* Whether the names the element's function and the consumer's new parameters use are
 * distinct: the function declares P, the inputs, N, j, the values, kf_r and kf_i; the
 * consumer gains kf_<input> beside its own names. */
static const char *names_clash(const sink *s, arena *a) {
  const char *n[SINK_MAX_IN + SINK_MAX_U + 5];
  int nn = 0;
  const kkernel *k = s->k, *q = s->q;
  n[nn++] = k->params[s->pparam].name;
  n[nn++] = k->params[s->nparam].name;
  n[nn++] = k->vars[s->j].name;
  n[nn++] = "kf_r";
  n[nn++] = "kf_i";
  for (int i = 0; i < s->nin; i++)
    if (s->in[i] != s->nparam)
      n[nn++] = k->params[s->in[i]].name;
  for (int i = 0; i < s->nu; i++)
    n[nn++] = k->vars[s->u[i]].name;
  for (int i = 0; i < nn; i++)
    for (int j = i + 1; j < nn; j++)
      if (!strcmp(n[i], n[j]))
        return arena_printf(a, "'%s' names two things the element's function needs", n[i]);
  for (int i = 0; i < s->nin + 1; i++) {
    const char *in = i < s->nin ? k->params[s->in[i]].name : k->params[s->nparam].name;
    const char *nm = arena_printf(a, "kf_%s", in);
    for (int p = 0; p < q->nparams; p++)
      if (!strcmp(q->params[p].name, nm))
        return arena_printf(a, "'%s' names a parameter of '%s' already", nm, q->name);
    for (int v = 0; v < q->nvars; v++)
      if (!strcmp(q->vars[v].name, nm))
        return arena_printf(a, "'%s' names a variable of '%s' already", nm, q->name);
  }
  return NULL;
}

/* The site whose producer is the top-level launch at position at of entry ei: 1 with *s
 * filled; 0 with *why (NULL: nothing to speak of). */
static int sink_check(const variant *v, int ei, int at, sink *s, const char **why) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  arena *a = m->arena;
  *why = NULL;
  memset(s, 0, sizeof *s);
  s->m = m;
  const kstep *st = &e->steps[at];
  if (!pass_untouched_launch(v, ei, st) || st->kernel < 0)
    return 0;
  const kkernel *k = &m->kernels[st->kernel];
  if (!k->body || k->is_template || k->instance || st->nargs != k->nparams || !k->uses_shared)
    return 0; /* a block row kernel shares values through shared memory */
  s->kst = st;
  s->k = k;
  const char *w = producer(s, a);
  if (w) {
    /* only a kernel whose last loop stores its block's row is worth a remark */
    if (s->row_store)
      *why = arena_printf(a, "'%s' %s", k->name, w);
    return 0;
  }
  const karg *pa = &st->args[s->pparam];
  if (pa->ref != KREF_SCRATCH || pa->offset) {
    *why = arena_printf(a, "'%s' is no scratch buffer of the entry, whole", pa->text);
    return 0;
  }
  /* the consumer: the next launch, only transparent steps before it */
  int next = at + 1;
  while (next < e->nsteps && e->steps[next].kind != KS_LAUNCH && prun_transparent(&e->steps[next]))
    next++;
  if (next >= e->nsteps || e->steps[next].kind != KS_LAUNCH) {
    *why = arena_printf(a, "no launch follows '%s' with nothing but allocations and runtime calls between", k->name);
    return 0;
  }
  const kstep *cst = &e->steps[next];
  s->cst = cst;
  if (variant_touched(v, ei, cst->index) || cst->kernel < 0)
    return 0;
  const kkernel *q = &m->kernels[cst->kernel];
  s->q = q;
  if (!q->body || q->is_template || q->instance || cst->nargs != q->nparams) {
    *why = arena_printf(a, "'%s' is opaque, a template, or launched with other arguments than its parameters", q->name);
    return 0;
  }
  s->qparam = -1;
  for (int g = 0; g < cst->nargs; g++) {
    if (same_buffer(pa, &cst->args[g])) {
      if (s->qparam >= 0 || cst->args[g].offset) {
        *why = arena_printf(a, "'%s' is passed '%s' twice, or a view into it", q->name, pa->text);
        return 0;
      }
      s->qparam = g;
    }
    for (int i = 0; i < s->nin; i++)
      if (k->params[s->in[i]].is_pointer && same_buffer(&st->args[s->in[i]], &cst->args[g]) && q->params[g].writes) {
        *why = arena_printf(a, "'%s' writes '%s', which the element reads", q->name, cst->args[g].text);
        return 0;
      }
  }
  if (s->qparam < 0) {
    *why = arena_printf(a, "'%s', the launch after '%s', does not read '%s'", q->name, k->name, pa->text);
    return 0;
  }
  if (q->params[s->qparam].writes || q->params[s->qparam].type != k->params[s->pparam].type ||
      !stmt_loads_only(s, q->body)) {
    *why = arena_printf(a, "'%s' uses '%s' other than by loading from it directly", q->name, pa->text);
    return 0;
  }
  if (untraced(e->steps, e->nsteps)) {
    *why = arena_printf(a, "the entry passes a pointer kfuse cannot trace (it may be '%s' or an input)", pa->text);
    return 0;
  }
  if (!nothing_between(m, e, at, next)) {
    *why = arena_printf(a, "the entry runs other code between '%s' and '%s'", k->name, q->name);
    return 0;
  }
  const char *clash = names_clash(s, a);
  if (clash) {
    *why = clash;
    return 0;
  }
  if (named_elsewhere(s, e->steps, e->nsteps, pa->buffer)) {
    *why = arena_printf(a, "a step other than '%s' and '%s' uses '%s'", k->name, q->name, pa->text);
    return 0;
  }
  /* a host variable the arguments name may be reassigned elsewhere in the entry: between
   * the launches nothing_between has seen to it, and the consumer passes them again there */
  return 1;
}

static const int on_values[] = {0, 1};
static const pass_param params[] = {{"on", on_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  sink *s = ctx;
  if (!sink_check(v, ps->entry, ps->i, s, &ps->why))
    return 0;
  ps->first = s->kst;
  ps->last = s->cst;
  ps->what = arena_printf(v->m->arena, "%s (line %u) -> %s (line %u)", s->k->name, s->k->loc.line, s->q->name,
                          s->q->loc.line);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  sink s = {0};
  return pass_each_step(v, "sink-apply", "not sunk", step, &s, sites, nsites, remarks, d);
}

/* ---- printing ---- */

typedef struct printing {
  const sink *s;
  print_hooks hooks;
  const char *fn;               /* the element's function */
  const char *args;             /* its arguments after P and before the index */
} printing;

/* K: the last loop becomes the values' store by thread 0 where the row has room for them. */
static int producer_stmt(void *ctx, const kstmt *t, strbuf *b, int depth) {
  printing *p = ctx;
  const sink *s = p->s;
  const kkernel *k = s->k;
  if (t != s->loop)
    return 0;
  const char *P = k->params[s->pparam].name, *N = k->params[s->nparam].name;
  print_indent(b, depth);
  sb_printf(b, "if (%s >= %d) { // kfuse sink-apply: the row's values at its start, not the row\n", N, s->nu);
  print_indent(b, depth + 1);
  sb_puts(b, "if (threadIdx.x == 0) {\n");
  for (int i = 0; i < s->nu; i++) {
    print_indent(b, depth + 2);
    sb_printf(b, "%s[(size_t)blockIdx.x * %s + %d] = %s;\n", P, N, i, k->vars[s->u[i]].name);
  }
  print_indent(b, depth + 1);
  sb_puts(b, "}\n");
  print_indent(b, depth);
  sb_puts(b, "} else { // too short a row: as the reference\n");
  print_stmt_with(k, &p->hooks, t, depth + 1, b);
  print_indent(b, depth);
  sb_puts(b, "}\n");
  return 1;
}

/* The element function's body: E with the row as kf_r. */
static int element_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  const sink *s = p->s;
  const kkernel *k = s->k;
  if (e->kind != KE_LOAD || e->param < 0)
    return 0;
  sb_printf(b, "%s[kf_r * %s + %s]", k->params[e->param].name, k->params[s->nparam].name, k->vars[s->j].name);
  return 1;
}

/* Q: each load of P becomes the element function's call. */
static int consumer_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  const sink *s = p->s;
  if (e->kind != KE_LOAD || e->param != s->qparam)
    return 0;
  sb_printf(b, "%s(%s%s, (long long)(", p->fn, s->q->params[s->qparam].name, p->args);
  print_expr_with(s->q, &p->hooks, e->a, b);
  sb_puts(b, "))");
  return 1;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  if (values && !values[0])
    return 1; /* on=0: both launches stay as they are */
  int at = pass_top_position(e, site->first_step);
  static sink s;
  const char *why = NULL;
  if (at < 0 || !sink_check(v, site->entry, at, &s, &why) || s.cst->index != site->last_step)
    return pass_site_gone(v, "sink-apply", site, d);
  const kkernel *k = s.k, *q = s.q;
  arena *a = v->a;
  const char *kname = variant_fresh_name(v, arena_printf(a, "%s_values", k->name));
  const char *qname = variant_fresh_name(v, arena_printf(a, "%s_sunk", q->name));
  const char *fn = variant_fresh_name(v, arena_printf(a, "kf_%s_at", k->name));
  const char *P = k->params[s.pparam].name, *N = k->params[s.nparam].name;
  strbuf t = {0}, body = {0}, x = {0}, y = {0}, fargs = {0}, fparams = {0}, qextra = {0}, lextra = {0};
  printing p = {&s, {producer_stmt, NULL, NULL}, fn, NULL};
  p.hooks.ctx = &p;
  /* K' */
  print_body_with(k, &p.hooks, &body);
  sb_printf(&t, "// kfuse sink-apply of %s (line %u): each row's %d value%s, not the row: %s (line %u) computes the "
                "elements it loads\n",
            k->name, k->loc.line, s.nu, s.nu > 1 ? "s" : "", q->name, q->loc.line);
  sb_printf(&t, "__global__ void %s(", kname);
  pass_print_params(k, &t);
  sb_printf(&t, ") %s", body.s);
  /* the element function: P, then K's inputs, then the element */
  for (int i = 0; i < s.nin; i++) {
    const kkparam *kp = &k->params[s.in[i]];
    if (kp->is_pointer)
      sb_printf(&fparams, ", const %s *__restrict__ %s", k_unconst(prun_pointee(a, kp->type_spelling)), kp->name);
    else
      sb_printf(&fparams, ", %s %s", kp->type_spelling, kp->name);
    sb_printf(&fargs, ", kf_%s", kp->name);
    sb_printf(&qextra, ", %s kf_%s", kp->is_pointer ? arena_printf(a, "const %s *__restrict__",
                                                                   k_unconst(prun_pointee(a, kp->type_spelling)))
                                                    : kp->type_spelling,
              kp->name);
    sb_printf(&lextra, ", %s", s.kst->args[s.in[i]].text);
  }
  int n_in_e = 0;
  for (int i = 0; i < s.nin; i++)
    n_in_e += s.in[i] == s.nparam;
  if (!n_in_e) { /* N itself, which the element function needs */
    const kkparam *kp = &k->params[s.nparam];
    sb_printf(&fparams, ", %s %s", kp->type_spelling, kp->name);
    sb_printf(&fargs, ", kf_%s", kp->name);
    sb_printf(&qextra, ", %s kf_%s", kp->type_spelling, kp->name);
    sb_printf(&lextra, ", %s", s.kst->args[s.nparam].text);
  }
  p.args = fargs.s ? fargs.s : "";
  const char *elem = k_unconst(prun_pointee(a, k->params[s.pparam].type_spelling));
  sb_printf(&t, "\n// kfuse sink-apply: element i of %s as %s (line %u) stored it, from its row's values\n", P,
            k->name, k->loc.line);
  sb_printf(&t, "__device__ __forceinline__ %s %s(const %s *__restrict__ %s%s, long long kf_i) {\n", elem, fn, elem,
            P, fparams.s ? fparams.s : "");
  sb_printf(&t, "  if (%s < %d)\n    return %s[kf_i]; // too short a row: stored as the reference\n", N, s.nu, P);
  sb_printf(&t, "  const long long kf_r = kf_i / %s;\n", N);
  sb_printf(&t, "  const %s %s = (%s)(kf_i %% %s);\n", k_unconst(k->vars[s.j].type_spelling), k->vars[s.j].name,
            k_unconst(k->vars[s.j].type_spelling), N);
  for (int i = 0; i < s.nu; i++)
    sb_printf(&t, "  const %s %s = %s[kf_r * %s + %d];\n", elem, k->vars[s.u[i]].name, P, N, i);
  print_hooks eh = {NULL, element_hook, &p};
  sb_puts(&t, "  return ");
  print_expr_with(k, &eh, s.store->value, &t);
  sb_puts(&t, ";\n}\n");
  /* Q' */
  p.hooks.stmt = NULL;
  p.hooks.expr = consumer_hook;
  strbuf qbody = {0};
  print_body_with(q, &p.hooks, &qbody);
  sb_printf(&t, "\n// kfuse sink-apply: %s (line %u), each load of %s computed by %s\n", q->name, q->loc.line, P, fn);
  sb_printf(&t, "__global__ void %s(", qname);
  pass_print_params(q, &t);
  sb_printf(&t, "%s) %s", qextra.s ? qextra.s : "", qbody.s);
  /* the launches */
  pass_print_launch(s.kst, kname, NULL, NULL, &x);
  pass_print_launch_extra(s.cst, qname, NULL, NULL, lextra.s ? lextra.s : "", &y);
  int ok = variant_replace_step(v, site->entry, s.kst, x.s) && variant_replace_step(v, site->entry, s.cst, y.s);
  if (ok) {
    variant_add_kernel(v, site->entry, kname, t.s);
    variant_note(v, arena_printf(a, "sink-apply@%s#%d-#%d", e->name, site->first_step, site->last_step),
                 arena_printf(a, "sink-apply: %s (each row's values stored, the elements computed where %s loads them)",
                              site->what, q->name));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "sink-apply: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&body);
  sb_free(&qbody);
  sb_free(&x);
  sb_free(&y);
  sb_free(&fargs);
  sb_free(&fparams);
  sb_free(&qextra);
  sb_free(&lextra);
  return ok;
}

const pass pass_sink_apply = {
    "sink-apply",
    "store a row kernel's block values instead of its row, and compute the elements where the next kernel loads them",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    REPARSE_BESIDE, /* the passes after it work on its kernels, parsed again, and on the program without it */
};
