/*
 * emit.c: the model as readable text (--emit=model) and as JSON (--emit=model-json).
 * Both print the same facts in the same order: for each entry its parameters and
 * annotations, its launch sequence with what each step reads and writes, the dataflow
 * between steps; for each kernel its parameters, per-thread index, loops, reductions,
 * accesses (as written and flattened) and the lifted body, or why it is opaque.
 */
#include "emit.h"

#include <string.h>

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

static void text_steps(const kentry *e, const kstep *v, int n, const kstep **all, int depth,
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
    text_steps(e, s->body, s->nbody, all, depth + 1, b, ar);
    if (s->norelse) {
      for (int d = 0; d < depth; d++)
        sb_puts(b, "  ");
      sb_puts(b, "    else\n");
      text_steps(e, s->orelse, s->norelse, all, depth + 1, b, ar);
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
  const kstep **all = arena_alloc(m->arena, sizeof *all * (size_t)(e->nflat + 1));
  flatten_steps(e->steps, e->nsteps, all);
  sb_printf(b, "  steps: %d\n", e->nflat);
  text_steps(e, e->steps, e->nsteps, all, 0, b, m->arena);
  text_dataflow(e, all, b, m->arena);
}

static void text_kernel(const kmodel *m, const kkernel *k, strbuf *b) {
  unsigned line = k->loc.line;
  sb_printf(b, "kernel %s (line %u)%s%s\n", k->name, line, k->is_template ? " template" : "",
            k->launched ? "" : " (not launched by an entry)");
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

static void js_str(strbuf *b, const char *s) {
  if (!s) {
    sb_puts(b, "null");
    return;
  }
  sb_putc(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      sb_printf(b, "\\%c", c);
    else if (c == '\n')
      sb_puts(b, "\\n");
    else if (c == '\t')
      sb_puts(b, "\\t");
    else if (c < 0x20)
      sb_printf(b, "\\u%04x", c);
    else
      sb_putc(b, (char)c);
  }
  sb_putc(b, '"');
}

static void js_key(strbuf *b, const char *k, int *first) {
  if (!*first)
    sb_putc(b, ',');
  *first = 0;
  js_str(b, k);
  sb_putc(b, ':');
}

static const char *expr_string(const kkernel *k, const kexpr *e, arena *a) {
  strbuf t = {0};
  print_expr(k, e, &t);
  const char *r = arena_strdup(a, t.s ? t.s : "");
  sb_free(&t);
  return r;
}

static void json_steps(const kentry *e, const kstep *v, int n, const kstep **all, strbuf *b, arena *ar) {
  sb_putc(b, '[');
  for (int i = 0; i < n; i++) {
    const kstep *s = &v[i];
    int f = 1;
    if (i)
      sb_putc(b, ',');
    sb_putc(b, '{');
    js_key(b, "index", &f);
    sb_printf(b, "%d", s->index);
    js_key(b, "kind", &f);
    js_str(b, step_names[s->kind]);
    js_key(b, "line", &f);
    sb_printf(b, "%u", s->loc.line);
    js_key(b, "callee", &f);
    js_str(b, s->callee);
    if (s->kind == KS_LAUNCH) {
      js_key(b, "grid", &f);
      js_str(b, s->grid);
      js_key(b, "block", &f);
      js_str(b, s->block);
      js_key(b, "smem", &f);
      js_str(b, s->smem);
      js_key(b, "stream", &f);
      js_str(b, s->stream);
    }
    if (s->kind == KS_ALLOC || s->kind == KS_FREE) {
      js_key(b, "var", &f);
      js_str(b, s->var);
      js_key(b, "size", &f);
      js_str(b, s->size);
    }
    if (s->kind == KS_LOOP || s->kind == KS_COND) {
      js_key(b, "header", &f);
      js_str(b, s->header);
    }
    js_key(b, "args", &f);
    sb_putc(b, '[');
    for (int j = 0; j < s->nargs; j++) {
      const karg *a = &s->args[j];
      int g = 1;
      if (j)
        sb_putc(b, ',');
      sb_putc(b, '{');
      js_key(b, "text", &g);
      js_str(b, a->text);
      js_key(b, "buffer", &g);
      js_str(b, buffer_name(e, all, a, ar));
      js_key(b, "reads", &g);
      sb_puts(b, a->reads ? "true" : "false");
      js_key(b, "writes", &g);
      sb_puts(b, a->writes ? "true" : "false");
      sb_putc(b, '}');
    }
    sb_putc(b, ']');
    if (s->nbody) {
      js_key(b, "body", &f);
      json_steps(e, s->body, s->nbody, all, b, ar);
    }
    if (s->norelse) {
      js_key(b, "else", &f);
      json_steps(e, s->orelse, s->norelse, all, b, ar);
    }
    sb_putc(b, '}');
  }
  sb_putc(b, ']');
}

static void json_entry(const kmodel *m, const kentry *e, strbuf *b) {
  int f = 1;
  sb_putc(b, '{');
  js_key(b, "name", &f);
  js_str(b, e->name);
  js_key(b, "line", &f);
  sb_printf(b, "%u", e->name_loc.line);
  js_key(b, "returns", &f);
  js_str(b, e->ret_spelling);
  js_key(b, "params", &f);
  sb_putc(b, '[');
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    int g = 1;
    if (i)
      sb_putc(b, ',');
    sb_putc(b, '{');
    js_key(b, "name", &g);
    js_str(b, p->name);
    js_key(b, "c_type", &g);
    js_str(b, p->type_spelling);
    js_key(b, "kind", &g);
    js_str(b, p->is_pointer ? "buffer" : p->is_stream ? "stream" : "scalar");
    if (p->is_pointer) {
      js_key(b, "role", &g);
      js_str(b, krole_name(p->role));
      js_key(b, "type", &g);
      js_str(b, ktype_name(p->elem));
      js_key(b, "extents", &g);
      sb_putc(b, '[');
      for (int j = 0; j < p->ndim; j++) {
        if (j)
          sb_putc(b, ',');
        js_str(b, p->extent_text[j]);
      }
      sb_putc(b, ']');
      js_key(b, "init", &g);
      js_str(b, dist_names[p->dist]);
    } else if (!p->is_stream) {
      js_key(b, "type", &g);
      js_str(b, ktype_name(p->type));
    }
    sb_putc(b, '}');
  }
  sb_putc(b, ']');
  js_key(b, "bindings", &f);
  sb_putc(b, '[');
  for (int i = 0; i < e->annot.nbinding; i++) {
    const kbinding *bd = &e->annot.bindings[i];
    int g = 1;
    if (i)
      sb_putc(b, ',');
    sb_putc(b, '{');
    js_key(b, "kind", &g);
    js_str(b, bd->is_tune ? "tune" : "check");
    for (int j = 0; j < e->nparams; j++)
      if (e->params[j].scalar_index >= 0) {
        js_key(b, e->params[j].name, &g);
        value_text(bd->values[e->params[j].scalar_index], b);
      }
    sb_putc(b, '}');
  }
  sb_putc(b, ']');
  js_key(b, "assumes", &f);
  sb_putc(b, '[');
  for (int i = 0; i < e->annot.nassume; i++) {
    if (i)
      sb_putc(b, ',');
    js_str(b, e->annot.assumes[i].text);
  }
  sb_putc(b, ']');
  const kstep **all = arena_alloc(m->arena, sizeof *all * (size_t)(e->nflat + 1));
  flatten_steps(e->steps, e->nsteps, all);
  js_key(b, "steps", &f);
  json_steps(e, e->steps, e->nsteps, all, b, m->arena);
  sb_putc(b, '}');
}

static void json_kernel(const kmodel *m, const kkernel *k, strbuf *b) {
  int f = 1;
  sb_putc(b, '{');
  js_key(b, "name", &f);
  js_str(b, k->name);
  js_key(b, "line", &f);
  sb_printf(b, "%u", k->loc.line);
  js_key(b, "template", &f);
  sb_puts(b, k->is_template ? "true" : "false");
  js_key(b, "lifted", &f);
  sb_puts(b, k->body ? "true" : "false");
  if (!k->body) {
    js_key(b, "opaque_reason", &f);
    js_str(b, k->opaque_why);
    js_key(b, "opaque_line", &f);
    sb_printf(b, "%u", k->opaque_loc.line);
  }
  js_key(b, "params", &f);
  sb_putc(b, '[');
  for (int i = 0; i < k->nparams; i++) {
    const kkparam *p = &k->params[i];
    int g = 1;
    if (i)
      sb_putc(b, ',');
    sb_putc(b, '{');
    js_key(b, "name", &g);
    js_str(b, p->name);
    js_key(b, "c_type", &g);
    js_str(b, p->type_spelling);
    js_key(b, "pointer", &g);
    sb_puts(b, p->is_pointer ? "true" : "false");
    if (p->is_pointer && k->body) {
      js_key(b, "reads", &g);
      sb_puts(b, p->reads ? "true" : "false");
      js_key(b, "writes", &g);
      sb_puts(b, p->writes ? "true" : "false");
    }
    sb_putc(b, '}');
  }
  sb_putc(b, ']');
  if (k->body) {
    js_key(b, "thread_index", &f);
    sb_putc(b, '[');
    for (int i = 0; i < k->ntindex; i++) {
      int g = 1;
      if (i)
        sb_putc(b, ',');
      sb_putc(b, '{');
      js_key(b, "var", &g);
      js_str(b, k->vars[k->tindex[i].var].name);
      js_key(b, "expr", &g);
      js_str(b, expr_string(k, k->tindex[i].expr, m->arena));
      js_key(b, "dim", &g);
      sb_printf(b, "\"%c\"", "xyz"[k->tindex[i].dim]);
      js_key(b, "grid_stride", &g);
      sb_puts(b, k->tindex[i].grid_stride ? "true" : "false");
      sb_putc(b, '}');
    }
    sb_putc(b, ']');
    js_key(b, "accesses", &f);
    sb_putc(b, '[');
    for (int i = 0; i < k->naccesses; i++) {
      const kaccess *a = &k->accesses[i];
      int g = 1;
      if (i)
        sb_putc(b, ',');
      sb_putc(b, '{');
      js_key(b, "kind", &g);
      js_str(b, a->is_atomic ? "atomic" : a->is_store ? "store" : "load");
      js_key(b, "buffer", &g);
      js_str(b, a->param >= 0 ? k->params[a->param].name : k->vars[a->var].name);
      js_key(b, "space", &g);
      js_str(b, a->param >= 0 ? "global" : k->vars[a->var].kind == KV_SHARED ? "shared" : "local");
      js_key(b, "index", &g);
      js_str(b, expr_string(k, a->index, m->arena));
      js_key(b, "flat_index", &g);
      js_str(b, expr_string(k, a->flat_index, m->arena));
      js_key(b, "affine", &g);
      sb_puts(b, a->affine ? "true" : "false");
      js_key(b, "loop_depth", &g);
      sb_printf(b, "%d", a->loop_depth);
      sb_putc(b, '}');
    }
    sb_putc(b, ']');
    strbuf body = {0};
    print_body(k, &body);
    js_key(b, "body", &f);
    js_str(b, body.s);
    sb_free(&body);
  }
  sb_putc(b, '}');
}

void emit_model_json(const kmodel *m, strbuf *b) {
  int f = 1;
  sb_putc(b, '{');
  js_key(b, "file", &f);
  js_str(b, m->path);
  js_key(b, "entries", &f);
  sb_putc(b, '[');
  for (int i = 0; i < m->nentries; i++) {
    if (i)
      sb_putc(b, ',');
    json_entry(m, &m->entries[i], b);
  }
  sb_putc(b, ']');
  js_key(b, "kernels", &f);
  sb_putc(b, '[');
  for (int i = 0; i < m->nkernels; i++) {
    if (i)
      sb_putc(b, ',');
    json_kernel(m, &m->kernels[i], b);
  }
  sb_puts(b, "]}\n");
}
