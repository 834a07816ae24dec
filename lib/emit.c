/*
 * emit.c: the model as readable text (--emit=model) and as JSON (--emit=model-json).
 * Both print the same facts in the same order: for each entry its parameters and
 * annotations, its launch sequence with what each step reads and writes, the dataflow
 * between steps; for each kernel its parameters, per-thread index, loops, reductions,
 * accesses (as written and flattened) and the lifted body, or why it is opaque.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "print.h"

static const char *const step_names[] = {"launch", "libcall", "alloc", "free", "memset",
                                         "memcpy", "loop", "if", "hostcall", "call"};
static const char *const dist_names[] = {"default", "normal", "uniform", "positive", "int"};

static void value_text(xvalue v, strbuf *b) {
  if (v.is_float)
    sb_printf(b, "%.17g", v.f);
  else
    sb_printf(b, "%lld", (long long)v.i);
}

static const char *buffer_name(const kentry *e, const kstep *all[], const karg *a, arena *ar) {
  switch (a->ref) {
  case KREF_PARAM:
    return a->offset ? arena_printf(ar, "%s+(%s)", e->params[a->buffer].name, a->offset)
                     : e->params[a->buffer].name;
  case KREF_SCRATCH: {
    const char *v = all[a->buffer] && all[a->buffer]->var ? all[a->buffer]->var : "?";
    return a->offset ? arena_printf(ar, "%s#%d+(%s)", v, a->buffer, a->offset)
                     : arena_printf(ar, "%s#%d", v, a->buffer);
  }
  case KREF_UNKNOWN:
    return arena_printf(ar, "?%s", a->text ? a->text : "");
  default:
    return NULL;
  }
}

/* Flat list of steps by index. */
static void flatten_steps(const kstep *v, int n, const kstep **all) {
  for (int i = 0; i < n; i++) {
    all[v[i].index] = &v[i];
    flatten_steps(v[i].body, v[i].nbody, all);
    flatten_steps(v[i].orelse, v[i].norelse, all);
  }
}

/* ---------------------------------------------------------------- text */

static void text_steps(const kmodel *m, const kentry *e, const kstep *v, int n, const kstep **all, int depth,
                       strbuf *b, arena *ar) {
  for (int i = 0; i < n; i++) {
    const kstep *s = &v[i];
    for (int d = 0; d < depth; d++)
      sb_puts(b, "  ");
    sb_printf(b, "    #%d %s", s->index, step_names[s->kind]);
    switch (s->kind) {
    case KS_LAUNCH:
      sb_printf(b, " %s<<<%s, %s, %s, %s>>>%s", s->callee, s->grid, s->block, s->smem, s->stream,
                s->kernel < 0 ? " (kernel not in this file)" : "");
      if (s->kernel >= 0 && m->kernels[s->kernel].instance)
        sb_printf(b, " (instance %s)", m->kernels[s->kernel].name);
      int ints = 0; /* a template's integral arguments as instantiated (types as ?) */
      for (int t = 0; t < s->ntargs; t++)
        ints += s->targ_int[t];
      for (int t = 0; ints && s->kernel >= 0 && m->kernels[s->kernel].is_template && t < s->ntargs; t++) {
        sb_puts(b, t ? ", " : " template <");
        if (s->targ_int[t])
          sb_printf(b, "%lld", s->targs[t]);
        else
          sb_puts(b, "?");
        sb_puts(b, t == s->ntargs - 1 ? ">" : "");
      }
      break;
    case KS_ALLOC:
      sb_printf(b, " %s = %s(%s)", s->var ? s->var : "?", s->callee, s->size ? s->size : "?");
      break;
    case KS_FREE:
      sb_printf(b, " %s(%s)", s->callee, s->var ? s->var : "?");
      break;
    case KS_LOOP:
      sb_printf(b, " %s", s->header);
      break;
    case KS_COND:
      sb_printf(b, " (%s)", s->header);
      break;
    default:
      sb_printf(b, " %s", s->callee);
    }
    int nr = 0, nw = 0;
    for (int j = 0; j < s->nargs; j++) {
      const char *bn = buffer_name(e, all, &s->args[j], ar);
      if (bn && s->args[j].reads)
        sb_printf(b, "%s%s", nr++ ? ", " : "  reads ", bn);
    }
    for (int j = 0; j < s->nargs; j++) {
      const char *bn = buffer_name(e, all, &s->args[j], ar);
      if (bn && s->args[j].writes)
        sb_printf(b, "%s%s", nw++ ? ", " : "  writes ", bn);
    }
    sb_putc(b, '\n');
    text_steps(m, e, s->body, s->nbody, all, depth + 1, b, ar);
    if (s->norelse) {
      for (int d = 0; d < depth; d++)
        sb_puts(b, "  ");
      sb_puts(b, "    else\n");
      text_steps(m, e, s->orelse, s->norelse, all, depth + 1, b, ar);
    }
  }
}

/* The dataflow: for each buffer, the steps that write and read it. */
static void text_dataflow(const kentry *e, const kstep **all, strbuf *b, arena *ar) {
  sb_puts(b, "  dataflow:\n");
  for (int pass = 0; pass < 2; pass++) {
    int nb = pass == 0 ? e->nparams : e->nflat;
    for (int i = 0; i < nb; i++) {
      if (pass == 0 && !e->params[i].is_pointer)
        continue;
      if (pass == 1 && (!all[i] || all[i]->kind != KS_ALLOC))
        continue;
      strbuf w = {0}, r = {0};
      for (int s = 0; s < e->nflat; s++) {
        if (!all[s])
          continue;
        int rd = 0, wr = 0;
        for (int j = 0; j < all[s]->nargs; j++) {
          const karg *a = &all[s]->args[j];
          if (a->ref == (pass == 0 ? KREF_PARAM : KREF_SCRATCH) && a->buffer == i) {
            rd |= a->reads;
            wr |= a->writes;
          }
        }
        if (wr)
          sb_printf(&w, " #%d", s);
        if (rd)
          sb_printf(&r, " #%d", s);
      }
      if (pass == 0)
        sb_printf(b, "    %s:", e->params[i].name);
      else
        sb_printf(b, "    %s#%d (scratch):", all[i]->var ? all[i]->var : "?", i);
      sb_printf(b, " written by%s; read by%s\n", w.s ? w.s : " none", r.s ? r.s : " none");
      sb_free(&w);
      sb_free(&r);
    }
  }
  (void)ar;
}

static void text_entry(const kmodel *m, const kentry *e, strbuf *b) {
  sb_printf(b, "entry %s (line %u) returns %s\n", e->name, e->name_loc.line, e->ret_spelling);
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    sb_printf(b, "  param %s: ", p->name);
    if (p->is_pointer) {
      sb_printf(b, "%s %s", krole_name(p->role), ktype_name(p->elem));
      for (int j = 0; j < p->ndim; j++)
        sb_printf(b, "[%s]", p->extent_text[j]);
      if (p->dist != KD_DEFAULT) {
        sb_printf(b, " init %s", dist_names[p->dist]);
        if (p->lo) {
          sb_putc(b, '(');
          xexpr_print(p->lo, b);
          sb_puts(b, ", ");
          xexpr_print(p->hi, b);
          sb_putc(b, ')');
        }
      }
    } else if (p->is_stream) {
      sb_puts(b, "stream");
    } else {
      sb_printf(b, "scalar %s", ktype_name(p->type));
    }
    sb_printf(b, " (%s)\n", p->type_spelling);
  }
  for (int i = 0; i < e->annot.nbinding; i++) {
    const kbinding *bd = &e->annot.bindings[i];
    sb_printf(b, "  %s", bd->is_tune ? "tune" : "check");
    for (int j = 0; j < e->nparams; j++)
      if (e->params[j].scalar_index >= 0) {
        sb_printf(b, " %s=", e->params[j].name);
        value_text(bd->values[e->params[j].scalar_index], b);
      }
    sb_putc(b, '\n');
  }
  for (int i = 0; i < e->annot.nassume; i++) {
    sb_puts(b, "  assume ");
    xexpr_print(e->annot.assumes[i].expr, b);
    sb_putc(b, '\n');
  }
  if (e->annot.rtol >= 0 || e->annot.atol >= 0)
    sb_printf(b, "  tol rtol=%g atol=%g\n", e->annot.rtol, e->annot.atol);
  if (e->annot.deterministic)
    sb_puts(b, "  deterministic\n");
  for (int i = 0; i < e->nhostvars; i++) {
    const khostvar *v = &e->hostvars[i];
    sb_printf(b, "  host %s (%s) = ", v->name, v->type_spelling);
    if (v->init)
      xexpr_print(v->init, b);
    else
      sb_puts(b, "?");
    sb_puts(b, v->assigned ? " (assigned later)\n" : "\n");
  }
  const kstep **all = arena_alloc(m->arena, sizeof *all * (size_t)(e->nflat + 1));
  flatten_steps(e->steps, e->nsteps, all);
  sb_printf(b, "  steps: %d\n", e->nflat);
  text_steps(m, e, e->steps, e->nsteps, all, 0, b, m->arena);
  text_dataflow(e, all, b, m->arena);
}

static void text_kernel(const kmodel *m, const kkernel *k, strbuf *b) {
  unsigned line = k->loc.line;
  sb_printf(b, "kernel %s (line %u)%s%s", k->name, line, k->is_template ? " template" : "",
            k->launched ? "" : " (not launched by an entry)");
  if (k->instance)
    sb_printf(b, " instance: %s, functors inlined", k->instance_of);
  sb_putc(b, '\n');
  for (int i = 0; i < k->nparams; i++) {
    const kkparam *p = &k->params[i];
    sb_printf(b, "  param %s: %s", p->name, p->type_spelling);
    if (p->is_pointer && k->body)
      sb_printf(b, " [%s%s%s]", p->reads ? "read" : "", p->reads && p->writes ? "," : "",
                p->writes ? "write" : (p->reads ? "" : "unused"));
    sb_putc(b, '\n');
  }
  if (!k->body) {
    sb_printf(b, "  opaque at %u:%u: %s\n", k->opaque_loc.line, k->opaque_loc.col, k->opaque_why);
    return;
  }
  sb_puts(b, "  lifted");
  if (k->uses_shared)
    sb_puts(b, " shared");
  if (k->uses_sync)
    sb_puts(b, " sync");
  if (k->uses_atomics)
    sb_puts(b, " atomics");
  if (k->uses_warp)
    sb_puts(b, " warp");
  sb_putc(b, '\n');
  for (int i = 0; i < k->ntindex; i++) {
    const kthread_index *t = &k->tindex[i];
    sb_printf(b, "  thread index %s = ", k->vars[t->var].name);
    print_expr(k, t->expr, b);
    sb_printf(b, " (%c%s)\n", "xyz"[t->dim], t->grid_stride ? ", grid-stride" : "");
  }
  for (int i = 0; i < k->naccesses; i++) {
    const kaccess *a = &k->accesses[i];
    const char *buf = a->param >= 0 ? k->params[a->param].name : k->vars[a->var].name;
    sb_printf(b, "  %s %s%s[", a->is_atomic ? "atomic" : a->is_store ? "store" : "load",
              a->param >= 0 ? "" : (k->vars[a->var].kind == KV_SHARED ? "shared " : "local "), buf);
    print_expr(k, a->flat_index, b);
    sb_printf(b, "]%s depth %d\n", a->affine ? " affine" : "", a->loop_depth);
  }
  (void)m;
}

/* Loops and reductions, found by walking the body. */
static void text_loops(const kkernel *k, const kstmt *s, strbuf *b) {
  if (!s)
    return;
  if (s->kind == KST_FOR || s->kind == KST_WHILE) {
    sb_puts(b, "  loop");
    if (s->loop_var >= 0) {
      sb_printf(b, " %s in [", k->vars[s->loop_var].name);
      print_expr(k, s->lo, b);
      sb_puts(b, ", ");
      print_expr(k, s->hi, b);
      sb_printf(b, "%s step ", s->hi_inclusive ? "]" : ")");
      print_expr(k, s->stride, b);
    } else {
      sb_puts(b, " (not canonical)");
    }
    for (int i = 0; i < s->nreductions; i++)
      sb_printf(b, "%s%s %s", i ? ", " : "; reduces ", k->vars[s->reductions[i].var].name,
                s->reductions[i].op);
    sb_putc(b, '\n');
  }
  for (int i = 0; i < s->nbody; i++)
    text_loops(k, s->body[i], b);
  text_loops(k, s->init, b);
  text_loops(k, s->then, b);
  text_loops(k, s->orelse, b);
}

void emit_model_text(const kmodel *m, strbuf *b) {
  sb_printf(b, "file %s: %d entr%s, %d kernel%s\n", m->path, m->nentries, m->nentries == 1 ? "y" : "ies",
            m->nkernels, m->nkernels == 1 ? "" : "s");
  for (int i = 0; i < m->nentries; i++)
    text_entry(m, &m->entries[i], b);
  for (int i = 0; i < m->nkernels; i++) {
    const kkernel *k = &m->kernels[i];
    text_kernel(m, k, b);
    if (k->body) {
      text_loops(k, k->body, b);
      sb_puts(b, "  body ");
      print_body(k, b);
      sb_putc(b, '\n');
    }
  }
}

/* ---------------------------------------------------------------- JSON */
static const char *expr_string(const kkernel *k, const kexpr *e, arena *a) {
  strbuf t = {0};
  print_expr(k, e, &t);
  const char *r = arena_strdup(a, t.s ? t.s : "");
  sb_free(&t);
  return r;
}

static void json_steps(jw *w, const char *key, const kmodel *m, const kentry *e, const kstep *v, int n,
                       const kstep **all, arena *ar) {
  jw_open(w, key, '[');
  for (int i = 0; i < n; i++) {
    const kstep *s = &v[i];
    jw_open(w, NULL, '{');
    jw_int(w, "index", s->index);
    jw_str(w, "kind", step_names[s->kind]);
    jw_int(w, "line", s->loc.line);
    jw_str(w, "callee", s->callee);
    if (s->kind == KS_LAUNCH) {
      jw_str(w, "grid", s->grid);
      jw_str(w, "block", s->block);
      jw_str(w, "smem", s->smem);
      jw_str(w, "stream", s->stream);
      if (s->kernel >= 0 && m->kernels[s->kernel].instance)
        jw_str(w, "instance", m->kernels[s->kernel].name);
    }
    if (s->kind == KS_ALLOC || s->kind == KS_FREE) {
      jw_str(w, "var", s->var);
      jw_str(w, "size", s->size);
    }
    if (s->kind == KS_LOOP || s->kind == KS_COND)
      jw_str(w, "header", s->header);
    jw_open(w, "args", '[');
    for (int j = 0; j < s->nargs; j++) {
      const karg *a = &s->args[j];
      jw_open(w, NULL, '{');
      jw_str(w, "text", a->text);
      jw_str(w, "buffer", buffer_name(e, all, a, ar));
      jw_bool(w, "reads", a->reads);
      jw_bool(w, "writes", a->writes);
      jw_close(w, '}');
    }
    jw_close(w, ']');
    if (s->nbody)
      json_steps(w, "body", m, e, s->body, s->nbody, all, ar);
    if (s->norelse)
      json_steps(w, "else", m, e, s->orelse, s->norelse, all, ar);
    jw_close(w, '}');
  }
  jw_close(w, ']');
}

static void json_entry(jw *w, const kmodel *m, const kentry *e) {
  jw_open(w, NULL, '{');
  jw_str(w, "name", e->name);
  jw_int(w, "line", e->name_loc.line);
  jw_str(w, "returns", e->ret_spelling);
  jw_open(w, "params", '[');
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    jw_open(w, NULL, '{');
    jw_str(w, "name", p->name);
    jw_str(w, "c_type", p->type_spelling);
    jw_str(w, "kind", p->is_pointer ? "buffer" : p->is_stream ? "stream" : "scalar");
    if (p->is_pointer) {
      jw_str(w, "role", krole_name(p->role));
      jw_str(w, "type", ktype_name(p->elem));
      jw_open(w, "extents", '[');
      for (int j = 0; j < p->ndim; j++)
        jw_str(w, NULL, p->extent_text[j]);
      jw_close(w, ']');
      jw_str(w, "init", dist_names[p->dist]);
    } else if (!p->is_stream) {
      jw_str(w, "type", ktype_name(p->type));
    }
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_open(w, "bindings", '[');
  for (int i = 0; i < e->annot.nbinding; i++) {
    const kbinding *bd = &e->annot.bindings[i];
    jw_open(w, NULL, '{');
    jw_str(w, "kind", bd->is_tune ? "tune" : "check");
    for (int j = 0; j < e->nparams; j++)
      if (e->params[j].scalar_index >= 0)
        value_text(bd->values[e->params[j].scalar_index], jw_value(w, e->params[j].name));
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_open(w, "assumes", '[');
  for (int i = 0; i < e->annot.nassume; i++)
    jw_str(w, NULL, e->annot.assumes[i].text);
  jw_close(w, ']');
  jw_bool(w, "deterministic", e->annot.deterministic);
  const kstep **all = arena_alloc(m->arena, sizeof *all * (size_t)(e->nflat + 1));
  flatten_steps(e->steps, e->nsteps, all);
  json_steps(w, "steps", m, e, e->steps, e->nsteps, all, m->arena);
  jw_close(w, '}');
}

static void json_kernel(jw *w, const kmodel *m, const kkernel *k) {
  jw_open(w, NULL, '{');
  jw_str(w, "name", k->name);
  jw_int(w, "line", k->loc.line);
  jw_bool(w, "template", k->is_template);
  jw_bool(w, "lifted", k->body != NULL);
  if (!k->body) {
    jw_str(w, "opaque_reason", k->opaque_why);
    jw_int(w, "opaque_line", k->opaque_loc.line);
  }
  jw_open(w, "params", '[');
  for (int i = 0; i < k->nparams; i++) {
    const kkparam *p = &k->params[i];
    jw_open(w, NULL, '{');
    jw_str(w, "name", p->name);
    jw_str(w, "c_type", p->type_spelling);
    jw_bool(w, "pointer", p->is_pointer);
    if (p->is_pointer && k->body) {
      jw_bool(w, "reads", p->reads);
      jw_bool(w, "writes", p->writes);
    }
    jw_close(w, '}');
  }
  jw_close(w, ']');
  if (k->body) {
    jw_open(w, "thread_index", '[');
    for (int i = 0; i < k->ntindex; i++) {
      char dim[2] = {"xyz"[k->tindex[i].dim], 0};
      jw_open(w, NULL, '{');
      jw_str(w, "var", k->vars[k->tindex[i].var].name);
      jw_str(w, "expr", expr_string(k, k->tindex[i].expr, m->arena));
      jw_str(w, "dim", dim);
      jw_bool(w, "grid_stride", k->tindex[i].grid_stride);
      jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_open(w, "accesses", '[');
    for (int i = 0; i < k->naccesses; i++) {
      const kaccess *a = &k->accesses[i];
      jw_open(w, NULL, '{');
      jw_str(w, "kind", a->is_atomic ? "atomic" : a->is_store ? "store" : "load");
      jw_str(w, "buffer", a->param >= 0 ? k->params[a->param].name : k->vars[a->var].name);
      jw_str(w, "space", a->param >= 0 ? "global" : k->vars[a->var].kind == KV_SHARED ? "shared" : "local");
      jw_str(w, "index", expr_string(k, a->index, m->arena));
      jw_str(w, "flat_index", expr_string(k, a->flat_index, m->arena));
      jw_bool(w, "affine", a->affine);
      jw_int(w, "loop_depth", a->loop_depth);
      jw_close(w, '}');
    }
    jw_close(w, ']');
    strbuf body = {0};
    print_body(k, &body);
    jw_str(w, "body", body.s);
    sb_free(&body);
  }
  jw_close(w, '}');
}

void emit_model_json(const kmodel *m, strbuf *b) {
  jw w = {.b = b};
  jw_open(&w, NULL, '{');
  jw_str(&w, "file", m->path);
  jw_open(&w, "entries", '[');
  for (int i = 0; i < m->nentries; i++)
    json_entry(&w, m, &m->entries[i]);
  jw_close(&w, ']');
  jw_open(&w, "kernels", '[');
  for (int i = 0; i < m->nkernels; i++)
    json_kernel(&w, m, &m->kernels[i]);
  jw_close(&w, ']');
  jw_close(&w, '}');
  sb_putc(b, '\n');
  jw_free(&w);
}
