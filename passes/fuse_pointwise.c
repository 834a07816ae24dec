/*
 * fuse_pointwise.c: pointwise fusion. A run of consecutive pointwise launches (lib/
 * pointwise.h) and zero memsets over one element domain becomes one kernel: every thread
 * takes elements i in a grid-stride loop and runs, for each i, the bodies of the run in
 * their order, with the values that one body writes and a later one reads at i kept in
 * registers. Intermediate buffers that nothing else reads disappear, with their allocation
 * and their free; the buffers the entry's caller or a later step reads are written once, at
 * the end of the element's body. A single pointwise launch goes through the same emitter
 * and gains its grid-stride loop, its launch configuration and, for float buffers, 16-byte
 * loads and stores.
 *
 * Legal when, for the run (each condition is checked on the model; a run stops before the
 * first launch that breaks one, and a remark says why):
 *   - every launch is pointwise and its element count equals the run's (pw_same_size: the
 *     same expression of the entry's scalars once host variables are substituted); a memset
 *     joins when it sets exactly that many elements of a buffer to zero;
 *   - every pointer argument is an entry parameter or a scratch allocation of the entry,
 *     without pointer arithmetic, and no launch is passed one buffer twice when it writes;
 *   - a buffer read at another index than the element's (a broadcast, bias[i % N]) is
 *     written by no launch of the run, before or after: another thread's element would be
 *     read; reads at the element itself of what an earlier launch wrote become registers;
 *   - every launch of the run uses the same stream, and the host values its arguments name
 *     are not reassigned in the entry (the fused launch sits where the run's last was).
 * A scratch buffer written in the run is removed when no step outside the run reads it and
 * its allocation and free are top-level steps of the entry.
 *
 * Refuses: launches of opaque or template kernels; kernels with loops (other than the
 * grid-stride loop), shared memory, barriers, atomics or warp operations; two-dimensional
 * launches; runs inside host loops, conditions or helpers (not top-level steps).
 *
 * Parameters: vec (4: float4 loads and stores where every buffer of the fused kernel holds
 * float, with a run-time alignment check and a scalar path for the rest; or 1) and block
 * (threads per block: 256, 128, 512).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "pwrun.h"

static const int ilp_values[] = {1, 2};
static const int vec_values[] = {4, 1};
static const int block_values[] = {256, 128, 512};
static const pass_param params[] = {
    {"ilp", ilp_values, 2},
    {"vec", vec_values, 2},
    {"block", block_values, 3},
};

static int get_params(const pass_param **out) {
  *out = params;
  return 3;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kstep *st = &v->m->entries[ps->entry].steps[ps->i];
  prun *r = ctx;
  if (st->kind != KS_LAUNCH && st->kind != KS_MEMSET)
    return 0;
  int span = prun_build(v, ps->entry, ps->i, r);
  ps->why = r->why;
  ps->line = r->why_line;
  ps->col = r->why_col;
  if (span <= 0)
    return 0;
  ps->first = r->mem[0].st;
  ps->last = r->mem[r->nmem - 1].st;
  ps->span = span;
  ps->what = prun_names(r, v->m->arena);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  prun r = {0};
  return pass_each_step(v, "fuse-pointwise", "not fused", step, &r, sites, nsites, remarks, d);
}

/* Whether a member reads buffer b at its element (on the vector path: from a float4). */
static int read_at_element(const prun *r, int b) {
  for (int mi = 0; mi < r->nmem; mi++) {
    const prun_member *mb = &r->mem[mi];
    if (mb->is_memset)
      continue;
    for (int a = 0; a < mb->L.k->naccesses; a++) {
      const kaccess *ac = &mb->L.k->accesses[a];
      if (ac->param >= 0 && !ac->is_store && pw_at_element(&mb->L, a) && prun_find_arg(r, &mb->st->args[ac->param]) == b)
        return 1;
    }
  }
  return 0;
}

/* Whether every buffer of the fused kernel holds float: the vector path applies. */
static int all_float(const prun *r) {
  for (int i = 0; i < r->nbufs; i++)
    if (!r->bufs[i].removed && r->bufs[i].elem != KT_F32)
      return 0;
  return 1;
}


static const char *kernel_name(const variant *v, const prun *r) {
  strbuf b = {0};
  int launches = 0;
  for (int i = 0; i < r->nmem; i++) {
    if (r->mem[i].is_memset)
      continue;
    const char *n = r->mem[i].L.k->name;
    size_t len = strlen(n);
    if (len > 7 && !strcmp(n + len - 7, "_kernel"))
      len -= 7;
    if (b.len + len < 80) {
      sb_puts(&b, launches ? "_" : "");
      sb_putn(&b, n, len);
    }
    launches++;
  }
  const char *base = arena_printf(v->a, launches > 1 ? "fused_%s" : "%s_pointwise", b.s ? b.s : "k");
  sb_free(&b);
  return variant_fresh_name(v, base);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  int first = pass_top_position(e, site->first_step);
  static prun r;
  if (first < 0 || prun_build(v, site->entry, first, &r) <= 0 ||
      r.mem[r.nmem - 1].st->index != site->last_step)
    return pass_site_gone(v, "fuse-pointwise", site, d);
  int ilp = values ? values[0] : ilp_values[0], vec = values ? values[1] : vec_values[0],
      block = values ? values[2] : block_values[0];
  if (vec == 4 && !all_float(&r))
    vec = 1;
  if (vec == 1)
    ilp = 1; /* the scalar path is for tails and odd types: one element at a time */
  prun_emit x;
  prun_emit_init(&x, &r, NULL, NULL);
  const char *name = kernel_name(v, &r);
  strbuf t = {0};
  x.b = &t;
  strbuf dom0 = {0};
  xexpr_print(r.domain, &dom0);
  if (ilp > 1)
    sb_printf(&t, "// kfuse fuse-pointwise (block %d, vec %d, ilp %d: two float4s loaded a thread before either is\n"
                  "// computed) of %s, over %s elements\n", block, vec, ilp, prun_names(&r, v->a), dom0.s);
  else
    sb_printf(&t, "// kfuse fuse-pointwise (block %d, vec %d) of %s, over %s elements\n", block, vec,
              prun_names(&r, v->a), dom0.s);
  sb_free(&dom0);
  sb_printf(&t, "__global__ void __launch_bounds__(%d) %s(", block, name);
  int np = 0;
  for (int i = 0; i < r.nbufs; i++) {
    const prun_buf *bf = &r.bufs[i];
    if (bf->param < 0)
      continue;
    sb_printf(&t, "%s%s%s* __restrict__ %s", np++ ? ", " : "", bf->store ? "" : "const ", bf->type,
              x.fk.params[bf->param].name);
  }
  for (int s = 0; s < r.nscalars; s++) {
    const kkparam *p = &x.fk.params[r.scalars[s].param];
    sb_printf(&t, "%s%s %s", np++ ? ", " : "", p->type_spelling, p->name);
  }
  /* the loops count in 64 bits (an index near the top of int plus the stride must not wrap);
   * the element index has the type the kernels gave theirs */
  const char *it = r.wide ? "long long" : "int", *lt = "long long";
  const char *cnt = x.fk.params[x.nparams - 1].name;
  const char *iv = x.fk.vars[x.iv].name;
  sb_printf(&t, "%s%s %s) {\n", np ? ", " : "", it, cnt);
  sb_printf(&t, "  const %s kf_stride = (%s)gridDim.x * blockDim.x;\n", lt, lt);
  sb_printf(&t, "  const %s kf_start = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", lt, lt);
  if (vec == 4) {
    /* float4 loads and stores when every buffer they touch is 16-byte aligned (those read
     * only at other elements, a broadcast bias, need not be), then the rest */
    sb_puts(&t, "  const unsigned long long kf_addresses =");
    const char *sep = " ";
    for (int i = 0; i < r.nbufs; i++)
      if (r.bufs[i].param >= 0 && (r.bufs[i].store || (r.bufs[i].read_first && read_at_element(&r, i)))) {
        sb_printf(&t, "%s(unsigned long long)%s", sep, x.fk.params[r.bufs[i].param].name);
        sep = " | ";
      }
    sb_puts(&t, *sep == ' ' && sep[1] == '\0' ? " 0;\n" : ";\n");
    sb_printf(&t, "  const %s kf_n4 = (kf_addresses & 15) == 0", lt);
    prun_print_row_alignment(&x);
    sb_printf(&t, " ? %s / 4 : 0;\n", cnt);
    /* the float4 kf_j's code: its rows, the loads and staging values of its buffers, its
     * lanes and its stores; with ilp 2 the loads of two float4s a stride apart are issued
     * first, then each one's code runs on its loaded values */
    strbuf rows = {0}, loads = {0}, code = {0};
    x.b = &rows;
    prun_print_rows(&x, ilp > 1 ? 3 : 2);
    const char *pad = ilp > 1 ? "      " : "    ";
    for (int i = 0; i < r.nbufs; i++) {
      const prun_buf *bf = &r.bufs[i];
      const char *pn = bf->param >= 0 ? x.fk.params[bf->param].name : NULL;
      if (pn && read_at_element(&r, i) && bf->read_first) {
        x.vec[i] = prun_new_var(&x, arena_printf(v->a, "%s_4", pn), "float4");
        const char *vn = x.fk.vars[x.vec[i]].name;
        if (ilp > 1) {
          sb_printf(&loads, "    const float4 %s_0 = reinterpret_cast<const float4*>(%s)[kf_q];\n", vn, pn);
          /* the fallback is a constant, not the first float4: a copy of that would wait for
           * its load before the second is issued */
          sb_printf(&loads, "    const float4 %s_1 = kf_two ? reinterpret_cast<const float4*>(%s)[kf_q + kf_stride] : kf_zero4;\n",
                    vn, pn);
          sb_printf(&code, "%sconst float4 %s = kf_u ? %s_1 : %s_0;\n", pad, vn, vn, vn);
        } else {
          sb_printf(&code, "    const float4 %s = reinterpret_cast<const float4*>(%s)[kf_j];\n", vn, pn);
        }
      }
      if (pn && bf->store) {
        x.out[i] = prun_new_var(&x, arena_printf(v->a, "%s_o", pn), "float4");
        sb_printf(&code, "%sfloat4 %s;\n", pad, x.fk.vars[x.out[i]].name);
      }
    }
    for (int lane = 0; lane < 4; lane++) {
      /* the lane's element index, where its body uses it (a broadcast, index arithmetic) */
      strbuf body = {0};
      x.lane = lane;
      x.b = &body;
      int mark = prun_scope(&x);
      prun_print_element(&x, ilp > 1 ? 4 : 3);
      prun_print_stores(&x, ilp > 1 ? 4 : 3);
      prun_unscope(&x, mark);
      sb_printf(&code, "%s{\n", pad);
      if (prun_uses_token(body.s, iv))
        sb_printf(&code, "%s  const %s %s = (%s)(4 * kf_j + %d);\n", pad, it, iv, it, lane);
      sb_puts(&code, body.s ? body.s : "");
      sb_printf(&code, "%s}\n", pad);
      sb_free(&body);
    }
    for (int i = 0; i < r.nbufs; i++)
      if (r.bufs[i].param >= 0 && r.bufs[i].store)
        sb_printf(&code, "%sreinterpret_cast<float4*>(%s)[kf_j] = %s;\n", pad, x.fk.params[r.bufs[i].param].name,
                  x.fk.vars[x.out[i]].name);
    x.b = &t;
    if (ilp > 1) {
      sb_printf(&t, "  for (%s kf_q = kf_start; kf_q < kf_n4; kf_q += 2 * kf_stride) {\n", lt);
      sb_puts(&t, "    const bool kf_two = kf_q + kf_stride < kf_n4; // this thread's second float4\n");
      if (loads.s)
        sb_puts(&t, "    const float4 kf_zero4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n");
      sb_puts(&t, loads.s ? loads.s : "");
      sb_puts(&t, "#pragma unroll\n    for (int kf_u = 0; kf_u < 1 + kf_two; kf_u++) {\n");
      sb_printf(&t, "      const %s kf_j = kf_q + kf_u * kf_stride;\n", lt);
      sb_puts(&t, rows.s ? rows.s : "");
      sb_puts(&t, code.s);
      sb_puts(&t, "    }\n");
    } else {
      sb_printf(&t, "  for (%s kf_j = kf_start; kf_j < kf_n4; kf_j += kf_stride) {\n", lt);
      sb_puts(&t, rows.s ? rows.s : "");
      sb_puts(&t, code.s);
    }
    sb_puts(&t, "  }\n");
    sb_free(&rows);
    sb_free(&loads);
    sb_free(&code);
    x.lane = -1;
    x.split_rows = 0;
    sb_printf(&t, "  for (%s kf_i = 4 * kf_n4 + kf_start; kf_i < %s; kf_i += kf_stride) {\n", lt, cnt);
  } else {
    sb_printf(&t, "  for (%s kf_i = kf_start; kf_i < %s; kf_i += kf_stride) {\n", lt, cnt);
  }
  sb_printf(&t, "    const %s %s = (%s)kf_i;\n", it, iv, it);
  int mark = prun_scope(&x);
  prun_print_element(&x, 2);
  prun_print_stores(&x, 2);
  prun_unscope(&x, mark);
  sb_puts(&t, "  }\n}\n");

  /* the launch: where the run's last step was, on its stream */
  const prun_member *last = &r.mem[r.nmem - 1];
  strbuf call = {0};
  sb_puts(&call, "");
  strbuf dom = {0};
  (r.wide ? xexpr_print_wide : xexpr_print)(r.domain, &dom);
  int per_block = block * vec * ilp;
  sb_printf(&call, "%s<<<(unsigned)(%s / %d + 1 < 1048576 ? %s / %d + 1 : 1048576), %d, 0, %s>>>(", name,
            dom.s, per_block, dom.s, per_block, block, r.stream);
  np = 0;
  for (int i = 0; i < r.nbufs; i++)
    if (r.bufs[i].param >= 0)
      sb_printf(&call, "%s%s", np++ ? ", " : "", r.bufs[i].name);
  for (int s = 0; s < r.nscalars; s++)
    sb_printf(&call, "%s%s", np++ ? ", " : "", r.scalars[s].text);
  sb_printf(&call, "%s%s)", np ? ", " : "", dom.s);
  int ok = variant_replace_step(v, site->entry, last->st, call.s);
  for (int mi = 0; mi + 1 < r.nmem && ok; mi++)
    ok = variant_remove_step(v, site->entry, r.mem[mi].st);
  for (int i = 0; i < r.nbufs && ok; i++)
    if (r.bufs[i].removed) {
      const kstep *alloc = prun_lifetime_step(&r, &r.bufs[i], KS_ALLOC);
      ok = variant_remove_step(v, site->entry, alloc) &&
           variant_remove_step(v, site->entry, prun_lifetime_step(&r, &r.bufs[i], KS_FREE));
      if (ok && alloc->var_decl)
        variant_remove_decl(v, alloc->var_decl);
    }
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    const char *ilps = ilp > 1 ? arena_printf(v->a, ",ilp=%d", ilp) : "";
    variant_note(v, arena_printf(v->a, "fuse-pointwise(block=%d,vec=%d%s)@%s#%d-#%d", block, vec, ilps, e->name,
                                 site->first_step, site->last_step),
                 arena_printf(v->a, "fuse-pointwise: %s -> %s (block %d, vec %d%s)", site->what, name, block, vec,
                              ilp > 1 ? arena_printf(v->a, ", ilp %d", ilp) : ""));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "fuse-pointwise: overlapping changes at %s; the variant is dropped", site->what);
  }
  sb_free(&t);
  sb_free(&call);
  sb_free(&dom);
  return ok;
}

const pass pass_fuse_pointwise = {
    "fuse-pointwise",
    "fuse runs of pointwise launches (and zero memsets) into one grid-stride kernel",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
