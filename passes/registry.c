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

int pass_each_launch(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                     int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    if (e->opaque_why)
      continue;
    for (int i = 0; i < e->nsteps; i++) {
      const kstep *st = &e->steps[i];
      const kkernel *k = NULL;
      int quiet;
      if (st->kind != KS_LAUNCH || variant_touched(v, ei, st->index))
        continue;
      const char *why = match(m, e, st, &k, &quiet);
      if (why) {
        if (remarks && !quiet)
          diag_report(d, DIAG_REMARK, m->path, st->loc.line, st->loc.col, "not substituted: '%s' %s [-Rpass-missed=%s]",
                      k ? k->name : "?", why, name);
        continue;
      }
      pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
      ps->entry = ei;
      ps->first_step = ps->last_step = st->index;
      ps->what = arena_printf(m->arena, "%s: %s (line %u)", e->name, k->name, k->loc.line);
      found++;
    }
  }
  return found;
}
