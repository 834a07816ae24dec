/*
 * pipeline.c: the compiler, in order. Read kfuse_compile top to bottom to see every
 * phase; each phase lives in its own module.
 */
#include "pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../passes/pass.h"
#include "bundle.h"
#include "emit.h"
#include "print.h"
#include "rewrite.h"

/* Splits a comma-separated pass list and looks each name up. Returns the count, or -1
 * after reporting an unknown name. */
static int parse_pass_list(const char *list, const pass **out, int max, diag *d) {
  int n = 0;
  const char *p = list;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char name[64];
    if (len == 0 || len >= sizeof name) {
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "--passes: empty or overlong pass name in '%s'", list);
      return -1;
    }
    memcpy(name, p, len);
    name[len] = 0;
    const pass *ps = pass_find(name);
    if (!ps) {
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "--passes: unknown pass '%s'%s", name,
                  pass_count ? "; 'kfuse --list-passes' lists them" : "; no pass is built into this kfuse yet");
      return -1;
    }
    if (n < max)
      out[n++] = ps;
    p = comma ? comma + 1 : p + len;
  }
  return n;
}

kfuse_status kfuse_check_options(const kfuse_options *o, diag *d) {
  const pass *ps[64];
  if (o->passes && parse_pass_list(o->passes, ps, 64, d) < 0)
    return KFUSE_USAGE_ERROR;
  if (o->print_after && !pass_find(o->print_after)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "--print-after: unknown pass '%s'", o->print_after);
    return KFUSE_USAGE_ERROR;
  }
  return KFUSE_OK;
}

/* Replaces the body of every lifted kernel with the printer's version of it. */
static void reprint_kernels(const kmodel *m, rewriter *rw, diag *d) {
  for (int i = 0; i < m->nkernels; i++) {
    const kkernel *k = &m->kernels[i];
    if (!k->body)
      continue;
    strbuf b = {0};
    print_body(k, &b);
    if (!rw_replace(rw, k->body_loc.begin, k->body_loc.end, b.s))
      KFUSE_BUG("overlapping rewrite of kernel %s", k->name);
    sb_free(&b);
  }
  (void)d;
}

/* Remarks for kernels kfuse cannot transform. */
static void remark_opaque(const kmodel *m, diag *d) {
  for (int i = 0; i < m->nkernels; i++) {
    const kkernel *k = &m->kernels[i];
    if (!k->body)
      diag_report(d, DIAG_REMARK, m->path, k->opaque_loc.line, k->opaque_loc.col,
                  "kernel '%s' is opaque (kept as written, never transformed): %s [-Rmodel]",
                  k->name, k->opaque_why);
  }
}

kfuse_status kfuse_compile(const kfuse_options *o, diag *d) {
  kfuse_status st = kfuse_check_options(o, d);
  if (st != KFUSE_OK)
    return st;

  /* 1. Parse: libclang, CUDA host mode. */
  tu *t = tu_parse(o->input, &o->tu, d);
  if (!t)
    return KFUSE_INPUT_ERROR;

  /* 2. Model: annotations, launch sequences, lifted kernels. */
  kmodel *m = tu_model(t, d);
  if (!m) {
    tu_free(t);
    return KFUSE_INPUT_ERROR;
  }
  if (o->remarks)
    remark_opaque(m, d);

  strbuf out = {0};
  rewriter *rw = rw_new(m->text, m->size);

  /* 3. Passes: each finds its legal sites and applies itself (none yet, step 4 on). */
  const pass *list[64];
  int npass = o->passes ? parse_pass_list(o->passes, list, 64, d) : 0;
  if (!o->passes)
    for (; npass < pass_count && npass < 64; npass++)
      list[npass] = pass_list[npass];
  for (int i = 0; i < npass; i++) {
    pass_site *sites = NULL;
    int nsites = 0;
    list[i]->find(m, &sites, &nsites, d);
    if (o->verbose)
      fprintf(stderr, "kfuse: pass %s: %d site%s\n", list[i]->name, nsites, nsites == 1 ? "" : "s");
    if (o->print_after && !strcmp(o->print_after, list[i]->name)) {
      strbuf b = {0};
      rw_apply(rw, &b);
      fprintf(stderr, "// ---- after %s ----\n%s", list[i]->name, b.s ? b.s : "");
      sb_free(&b);
    }
  }


  /* 7. Emit. */
  switch (o->emit) {
  case EMIT_MODEL:
    emit_model_text(m, &out);
    break;
  case EMIT_MODEL_JSON:
    emit_model_json(m, &out);
    break;
  case EMIT_LIFTED:
    reprint_kernels(m, rw, d);
    rw_apply(rw, &out);
    break;
  case EMIT_CUDA: {
    /* 4-6. Variants, measurement, selection: a recorded variant that was verified and
     * measured faster replaces the input whole. */
    int sel = rw_count(rw) == 0 ? kfuse_select(o, m, &out, d) : 0;
    if (sel < 0) {
      st = KFUSE_INPUT_ERROR;
      goto out;
    }
    if (sel == 0)
      rw_apply(rw, &out);
    break;
  }
  }
  if (o->verbose) {
    int lifted = 0;
    for (int i = 0; i < m->nkernels; i++)
      lifted += m->kernels[i].body != NULL;
    fprintf(stderr, "kfuse: %s: %d entr%s, %d kernel%s (%d lifted, %d opaque), %d edit%s\n", m->path,
            m->nentries, m->nentries == 1 ? "y" : "ies", m->nkernels, m->nkernels == 1 ? "" : "s",
            lifted, m->nkernels - lifted, rw_count(rw), rw_count(rw) == 1 ? "" : "s");
  }
  st = kfuse_write_file(o->output, out.s ? out.s : "", out.len, d) ? KFUSE_OK : KFUSE_OUTPUT_ERROR;
out:
  sb_free(&out);
  rw_free(rw);
  tu_free(t);
  return st;
}

kfuse_status kfuse_bundle(const kfuse_options *o, diag *d) {
  tu *t = tu_parse(o->input, &o->tu, d);
  if (!t)
    return KFUSE_INPUT_ERROR;
  kmodel *m = tu_model(t, d);
  if (!m) {
    tu_free(t);
    return KFUSE_INPUT_ERROR;
  }
  /* Until passes make variants, the variants are the user's (--variant). */
  bundle_variant *vs = arena_alloc(m->arena, sizeof *vs * (size_t)(o->nvariants + 1));
  for (int i = 0; i < o->nvariants; i++) {
    vs[i].path = o->variants[i];
    const char *base = strrchr(o->variants[i], '/');
    vs[i].recipe = arena_printf(m->arena, "user:%s", base ? base + 1 : o->variants[i]);
  }
  int ok = bundle_write(m, o->bundle_dir, vs, o->nvariants, &o->tu, d);
  if (ok && o->verbose)
    fprintf(stderr, "kfuse: wrote bundle %s: %d entr%s, %d variant%s besides the reference\n",
            o->bundle_dir, m->nentries, m->nentries == 1 ? "y" : "ies", o->nvariants,
            o->nvariants == 1 ? "" : "s");
  tu_free(t);
  return ok ? KFUSE_OK : KFUSE_INPUT_ERROR;
}
