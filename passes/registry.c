/* registry.c: the pass list, built from passes.def. */
#include <string.h>

#include "pass.h"

#define PASS(n) extern const pass pass_##n;
#include "passes.def"
#undef PASS

const pass *const pass_list[] = {
#define PASS(n) &pass_##n,
#include "passes.def"
#undef PASS
    NULL,
};

const int pass_count = (int)(sizeof pass_list / sizeof pass_list[0]) - 1;

const pass *pass_find(const char *name) {
  for (int i = 0; i < pass_count; i++)
    if (!strcmp(pass_list[i]->name, name))
      return pass_list[i];
  return NULL;
}

void pass_print_params(const kkernel *k, strbuf *b) {
  for (int i = 0; i < k->nparams; i++) {
    size_t n = strlen(k->params[i].type_spelling);
    sb_printf(b, "%s%s%s%s", i ? ", " : "", k->params[i].type_spelling,
              n && k->params[i].type_spelling[n - 1] == '*' ? "" : " ", k->params[i].name);
  }
}

void pass_print_launch(const kstep *st, const char *name, const char *grid, const char *block, strbuf *b) {
  sb_printf(b, "%s<<<%s, %s, %s, %s>>>(", name, grid ? grid : st->grid, block ? block : st->block,
            st->smem ? st->smem : "0",
            st->stream ? st->stream : "0");
  for (int i = 0; i < st->nargs; i++)
    sb_printf(b, "%s%s", i ? ", " : "", st->args[i].text);
  sb_puts(b, ")");
}

int pass_top_position(const kentry *e, int index) {
  for (int i = 0; i < e->nsteps; i++)
    if (e->steps[i].index == index)
      return i;
  return -1;
}

typedef struct walk {
  const variant *v;
  const char *name;
  pass_launch_match match;
  pass_site **sites;
  int *nsites, cap, found, remarks, nested;
  diag *d;
} walk;

static void each_launch(walk *w, int ei, const kstep *steps, int n) {
  const kmodel *m = w->v->m;
  const kentry *e = &m->entries[ei];
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    if (w->nested && (st->kind == KS_LOOP || st->kind == KS_COND)) {
      each_launch(w, ei, st->body, st->nbody);
      if (st->orelse)
        each_launch(w, ei, st->orelse, st->norelse);
      continue;
    }
    const kkernel *k = NULL;
    int quiet;
    if (st->kind != KS_LAUNCH || variant_touched(w->v, ei, st->index))
      continue;
    const char *why = w->match(m, e, st, &k, &quiet);
    if (why) {
      if (w->remarks && !quiet)
        diag_report(w->d, DIAG_REMARK, m->path, st->loc.line, st->loc.col, "not substituted: '%s' %s [-Rpass-missed=%s]",
                    k ? k->name : "?", why, w->name);
      continue;
    }
    pass_site *ps = ARENA_PUSH(m->arena, *w->sites, *w->nsites, w->cap);
    ps->entry = ei;
    ps->first_step = ps->last_step = st->index;
    ps->what = arena_printf(m->arena, "%s: %s (line %u)", e->name, k->name, k->loc.line);
    w->found++;
  }
}

static int launches(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                    int remarks, diag *d, int nested) {
  walk w = {v, name, match, sites, nsites, *nsites, 0, remarks, nested, d};
  for (int ei = 0; ei < v->m->nentries; ei++)
    if (!v->m->entries[ei].opaque_why)
      each_launch(&w, ei, v->m->entries[ei].steps, v->m->entries[ei].nsteps);
  return w.found;
}

int pass_each_launch(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                     int remarks, diag *d) {
  return launches(v, name, match, sites, nsites, remarks, d, 0);
}

int pass_each_launch_nested(const variant *v, const char *name, pass_launch_match match, pass_site **sites,
                            int *nsites, int remarks, diag *d) {
  return launches(v, name, match, sites, nsites, remarks, d, 1);
}
