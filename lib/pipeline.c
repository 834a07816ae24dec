/*
 * pipeline.c: the compiler, in order. Read kfuse_compile top to bottom to see every
 * phase; each phase lives in its own module.
 */
#include "pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../passes/pass.h"
#include "bundle.h"
#include "emit.h"
#include "print.h"
#include "ranker.h"
#include "reference.h"
#include "rewrite.h"
#include "variant.h"

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

/*
 * Reads a pin "PASS.PARAM=VALUE": the pass, the index of its parameter and the value, which
 * must be one of the parameter's values. Returns 0 after reporting a usage error.
 */
static int parse_pin(const char *pin, const pass **ps, int *param, int *value, diag *d) {
  const char *dot = strchr(pin, '.'), *eq = dot ? strchr(dot, '=') : NULL;
  if (!dot || !eq || dot == pin || eq == dot + 1 || !eq[1]) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "--pin: '%s' is not PASS.PARAM=VALUE", pin);
    return 0;
  }
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(dot - pin), pin);
  *ps = pass_find(name);
  if (!*ps) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "--pin: unknown pass '%s'", name);
    return 0;
  }
  const pass_param *params;
  int n = (*ps)->params(&params);
  strbuf list = {0};
  for (*param = 0; *param < n; (*param)++) {
    if (strlen(params[*param].name) == (size_t)(eq - dot - 1) && !strncmp(params[*param].name, dot + 1, (size_t)(eq - dot - 1)))
      break;
    sb_printf(&list, "%s%s", *param ? ", " : "", params[*param].name);
  }
  if (*param == n) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "--pin: pass %s has no parameter '%.*s' (its parameters: %s)", name,
                (int)(eq - dot - 1), dot + 1, n ? list.s : "none");
    sb_free(&list);
    return 0;
  }
  sb_free(&list);
  char *end;
  long v = strtol(eq + 1, &end, 10);
  const pass_param *pp = &params[*param];
  for (int k = 0; !*end && k < pp->nvalues; k++)
    if (pp->values[k] == v) {
      *value = (int)v;
      return 1;
    }
  strbuf vals = {0};
  for (int k = 0; k < pp->nvalues; k++)
    sb_printf(&vals, "%s%d", k ? ", " : "", pp->values[k]);
  diag_report(d, DIAG_ERROR, NULL, 0, 0, "--pin: %s.%s takes one of %s, not '%s'", name, pp->name, vals.s, eq + 1);
  sb_free(&vals);
  return 0;
}

kfuse_status kfuse_check_options(const kfuse_options *o, diag *d) {
  const pass *ps[64];
  if (o->passes && parse_pass_list(o->passes, ps, 64, d) < 0)
    return KFUSE_USAGE_ERROR;
  for (int i = 0; i < o->npins; i++) {
    const pass *p;
    int param, value;
    if (!parse_pin(o->pins[i], &p, &param, &value, d))
      return KFUSE_USAGE_ERROR;
  }
  if (o->print_after && !pass_find(o->print_after)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "--print-after: unknown pass '%s'", o->print_after);
    return KFUSE_USAGE_ERROR;
  }
  return KFUSE_OK;
}

enum {
  MAX_VARIANTS = KFUSE_DEFAULT_BUDGET,
  MAX_COMBOS = 4096,  /* combinations tried, duplicates included */
  RANKED_POOL = 256,  /* new variants the ranker chooses the budget's from */
};

/* With a ranker: keeps the known variants of out[0..n) and `most` new ones in
 * ranker_order's order: the first new one in the rule order (the passes' defaults, the
 * likeliest single best: docs/ranker.md), the best-scored one of each novelty (a pass or a
 * parameter value the model's records never measured; ranker_slots(most) of them at most),
 * and those the ranker scores highest. The kept stay in the rule order, so that a bundle's
 * numbering (v1, v2, ...) is always the rule order, which kfuse learn and --evaluate read
 * from the records. Returns the new count. */
static int rank_variants(ranker *rk, const kmodel *m, bundle_variant *out, int n, int most, diag *d) {
  const char **recipes = arena_alloc(m->arena, sizeof *recipes * (size_t)(n + 1));
  int *fresh = arena_alloc(m->arena, sizeof *fresh * (size_t)(n + 1)), nnew = 0;
  for (int i = 0; i < n; i++)
    if (!out[i].known) {
      fresh[nnew] = i;
      recipes[nnew++] = out[i].recipe;
    }
  float *score = arena_alloc(m->arena, sizeof *score * (size_t)(nnew + 1));
  int *novelty = arena_alloc(m->arena, sizeof *novelty * (size_t)(nnew + 1));
  const char *binding = m->nentries && m->entries[0].annot.ntune ? m->entries[0].annot.bindings[0].text : "";
  int scored = ranker_score(rk, recipes, fresh, nnew, binding, score, novelty, d);
  if (!scored)
    memset(score, 0, sizeof *score * (size_t)nnew); /* reported: the rule order */
  int *order = arena_alloc(m->arena, sizeof *order * (size_t)(nnew + 1));
  ranker_order(score, scored ? novelty : NULL, nnew, ranker_slots(most), order);
  char *chosen = arena_alloc(m->arena, (size_t)(n + 1));
  memset(chosen, 0, (size_t)(n + 1));
  for (int i = 0; i < nnew && i < most; i++)
    chosen[fresh[order[i]]] = 1;
  int k = 0;
  for (int i = 0; i < n; i++)
    if (out[i].known || chosen[i])
      out[k++] = out[i];
  return k;
}

/* text without its leading `// kfuse variant ...` line, if it has one. */
static const char *after_head(const char *text) {
  static const char head[] = "// kfuse variant ";
  if (strncmp(text, head, sizeof head - 1))
    return text;
  const char *nl = strchr(text, '\n');
  return nl ? nl + 1 : text + strlen(text);
}

/*
 * The variants the passes make of m: the passes of o->passes (or the default list) applied
 * in order at every site they find, once per combination of their parameters' values (the
 * defaults first, then an odometer over the values), each a whole file, until there are
 * --budget of them not in `known`; a combination that gives the same code as an earlier one
 * (the same text after the head line that names its recipe) is dropped and does not count,
 * unless `known` holds its recipe (a parameter of a pass with no site changes nothing, and the
 * odometer leaves it at its default until the pass finds a site). An optional pass has one
 * more digit, its on/off, and those digits turn first: every combination of the parameters
 * is made with the optional passes and then without them. Remarks of missed sites are
 * reported once, with -R. Returns the count, or -1 after a usage error.
 */
/* The odometer over list[0..npass) on m: at most `pool` new variants into *out (in m's
 * arena). list[0..told) have told their sites and refusals (the ledger, -R, -v) in an
 * earlier odometer over m: they are not told again. Returns how many, or -1 after a usage
 * error. */
static int odometer(const kfuse_options *o, const kmodel *m, const pass *const *list, int npass, int told, int pool,
                    bundle_variant **out, ledger *lg, const char *const *known, int nknown, diag *d) {
  *out = NULL;
  if (!npass)
    return 0;
  /* the odometer: the on/off digit of every optional pass (0: on), then one digit per
   * parameter of every pass */
  const pass_param *params[64];
  int nparams[64], digits = 0, pos[256] = {0}, off[64] = {0}, ntoggle = 0;
  for (int p = 0; p < npass; p++) {
    nparams[p] = list[p]->params(&params[p]);
    digits += nparams[p];
    ntoggle += list[p]->optional != 0;
  }
  /* a pinned parameter (--pin) has its one value */
  pass_param pinned[64][16];
  int pin_values[64][16];
  for (int i = 0; i < o->npins; i++) {
    const pass *pp;
    int q, value;
    if (!parse_pin(o->pins[i], &pp, &q, &value, d))
      return -1;
    for (int p = 0; p < npass; p++) {
      if (list[p] != pp || nparams[p] > 16)
        continue;
      if (params[p] != pinned[p])
        memcpy(pinned[p], params[p], sizeof *params[p] * (size_t)nparams[p]);
      pin_values[p][q] = value;
      pinned[p][q].values = &pin_values[p][q];
      pinned[p][q].nvalues = 1;
      params[p] = pinned[p];
    }
  }
  digits += ntoggle;
  if (digits > 256)
    KFUSE_BUG("the passes have %d parameters; at most 256", digits);
  int n = 0, nnew = 0, cap = 0;
  /* a pass that has found no site yet has parameters that change nothing: its digits stay
   * at their defaults until it finds one, so that they do not multiply the combinations of
   * the passes that apply (conv-cudnn's four algorithms on a file with no convolution) */
  int found[64] = {0};
  /* with until_known, the walk goes on past the budget until every known recipe is made
   * (kfuse regress looks for each), adding no more new ones */
  int nknown_made = 0;
  for (int combo = 0; (nnew < pool || (o->until_known && nknown_made < nknown)) && combo < MAX_COMBOS; combo++) {
    variant *v = variant_new(m);
    int digit = ntoggle, ok = 1;
    for (int p = 0, t = 0; p < npass; p++)
      if (list[p]->optional)
        off[p] = pos[t++];
    for (int p = 0; p < npass && ok; p++) {
      int values[32];
      for (int q = 0; q < nparams[p] && q < 32; q++)
        values[q] = params[p][q].values[pos[digit + q]];
      digit += nparams[p];
      if (off[p])
        continue;
      pass_site *sites = NULL;
      int nsites = 0;
      /* the first combination tells the refusals: printed with -R, kept by the ledger */
      int first = combo == 0 && p >= told;
      int tell = first && (o->remarks || lg);
      if (tell && lg) {
        ledger_listen(lg, d);
        diag_set_remarks(d, o->remarks);
      }
      list[p]->find(v, &sites, &nsites, tell, d);
      if (tell && lg) {
        ledger_listen(NULL, d);
        diag_set_remarks(d, 1);
        for (int s = 0; s < nsites; s++)
          ledger_add_site(lg, list[p]->name, sites[s].entry, sites[s].what);
      }
      found[p] |= nsites > 0;
      for (int s = 0; s < nsites && ok; s++)
        ok = list[p]->apply(v, &sites[s], values, d);
      if (o->verbose && first)
        fprintf(stderr, "kfuse: pass %s: %d site%s\n", list[p]->name, nsites, nsites == 1 ? "" : "s");
      if (o->print_after && first && !strcmp(o->print_after, list[p]->name)) {
        strbuf b = {0};
        variant_print(v, &b, d);
        fprintf(stderr, "// ---- after %s ----\n%s", list[p]->name, b.s ? b.s : "");
        sb_free(&b);
      }
    }
    if (ok && (v->nedits || v->nkernels || v->ntexts)) {
      strbuf b = {0};
      ok = variant_print(v, &b, d);
      int is_known = 0;
      for (int k = 0; k < nknown && !is_known; k++)
        is_known = !strcmp(known[k], v->recipe.s);
      /* the same code under another recipe (a parameter that changes nothing at this site:
       * parallelize's block where one block runs a wavefront) is the same variant, unless
       * the records know the recipe */
      int dup = 0;
      const char *code = after_head(b.s);
      size_t len = b.len - (size_t)(code - b.s);
      for (int i = 0; i < n && ok && !is_known && !dup; i++) {
        const char *c = after_head((*out)[i].text);
        dup = (*out)[i].size - (size_t)(c - (*out)[i].text) == len && !memcmp(c, code, len);
      }
      /* a known recipe made before (another combination gave the same recipe) is made once:
       * the walk with until_known stops when it has made every known one */
      int again = 0;
      for (int i = 0; i < n && ok && is_known && !again; i++)
        again = !strcmp((*out)[i].recipe, v->recipe.s);
      if (ok && !dup && !again && (is_known || nnew < pool)) {
        bundle_variant *bv = ARENA_PUSH(m->arena, *out, n, cap);
        bv->text = arena_strndup(m->arena, b.s, b.len);
        bv->size = b.len;
        bv->recipe = arena_strdup(m->arena, v->recipe.s);
        bv->known = is_known;
        nnew += !is_known;
        nknown_made += is_known;
      }
      sb_free(&b);
    }
    variant_free(v);
    /* the next combination: the first digit turns fastest */
    int carry = 1, d2 = 0;
    for (int p = 0; p < npass && carry; p++) {
      if (!list[p]->optional)
        continue;
      if (found[p] && ++pos[d2] < 2)
        carry = 0;
      else
        pos[d2] = 0;
      d2++;
    }
    for (int p = 0; p < npass && carry; p++)
      for (int q = 0; q < nparams[p] && carry; q++, d2++) {
        if (!found[p])
          continue;
        if (++pos[d2] < params[p][q].nvalues)
          carry = 0;
        else
          pos[d2] = 0;
      }
    if (carry)
      break; /* every combination made */
  }
  return n;
}

static int variants_of(const kfuse_options *o, const kmodel *m, const pass *const *list, int npass, int told,
                       int pool, bundle_variant **out, ledger *lg, const char *const *known, int nknown, diag *d);

/* m2, the text of a variant of m parsed again, named by the lines of m's kernels: a kernel
 * of m keeps its line, and one a pass wrote takes the line of the longest kernel name of m
 * that begins its own (the staged passes name theirs so: log_softmax_rows_values takes
 * log_softmax_rows's). The passes after a staged one then name the input's lines in their
 * sites and comments, not lines of an intermediate text that no one sees. */
static void input_lines(kmodel *m2, const kmodel *m) {
  for (int i = 0; i < m2->nkernels; i++) {
    kkernel *k = &m2->kernels[i];
    const kkernel *from = NULL;
    size_t from_len = 0;
    for (int j = 0; j < m->nkernels; j++) {
      size_t len = strlen(m->kernels[j].name);
      if (len > from_len && !strncmp(k->name, m->kernels[j].name, len) && (!k->name[len] || k->name[len] == '_')) {
        from = &m->kernels[j];
        from_len = len;
      }
    }
    if (from) {
      k->loc.line = from->loc.line;
      k->loc.col = from->loc.col;
    }
  }
}

/* The variants the passes rest[0..nrest) make of variant `first` of m, parsed again: at most
 * `pool` new ones, appended to *out (in m's arena) with their recipes after first's and one
 * head line. A variant that does not parse or model gives none; nothing is reported (the
 * text is kfuse's own, and its lines are not the user's). */
static void reparsed(const kfuse_options *o, const kmodel *m, const bundle_variant *first, const pass *const *rest,
                     int nrest, int pool, bundle_variant **out, int *n, int *cap, const char *const *known,
                     int nknown) {
  diag_memory dm;
  diag_memory_open(&dm);
  if (!dm.d)
    return;
  tu *t = tu_parse_text(m->path, first->text, (unsigned)first->size, &o->tu, dm.d);
  kmodel *m2 = t ? tu_model(t, dm.d) : NULL;
  if (m2 && !diag_errors(dm.d)) {
    input_lines(m2, m);
    /* the records' recipes under first's, without its prefix */
    const char **sub_known = arena_alloc(m->arena, sizeof *sub_known * (size_t)(nknown + 1));
    int nsub_known = 0;
    size_t len = strlen(first->recipe);
    for (int k = 0; k < nknown; k++)
      if (!strncmp(known[k], first->recipe, len) && known[k][len] == '+')
        sub_known[nsub_known++] = known[k] + len + 1;
    kfuse_options o2 = *o;
    o2.remarks = 0;
    o2.verbose = 0;
    o2.print_after = NULL;
    bundle_variant *sub = NULL;
    int nsub = variants_of(&o2, m2, rest, nrest, 0, pool, &sub, NULL, sub_known, nsub_known, dm.d);
    for (int i = 0; i < nsub; i++) {
      const char *body = after_head(after_head(sub[i].text));
      /* the same program from another first variant (a later pass rewrote what their
       * parameters changed) is dropped, as the odometer drops its own repeats */
      int dup = 0;
      for (int k = 0; k < *n && !dup; k++)
        dup = !strcmp(after_head((*out)[k].text), body);
      if (dup && !sub[i].known)
        continue;
      const char *recipe = arena_printf(m->arena, "%s+%s", first->recipe, sub[i].recipe);
      const char *text = arena_printf(m->arena, "// kfuse variant %s\n%s", recipe, body);
      bundle_variant *bv = ARENA_PUSH(m->arena, *out, *n, *cap);
      memset(bv, 0, sizeof *bv);
      bv->text = text;
      bv->size = strlen(text);
      bv->recipe = recipe;
      bv->known = sub[i].known;
    }
  }
  tu_free(t);
  diag_memory_close(&dm);
}

/* Whether recipe names pass `name` (a part `name@...` or `name(...)@...`). */
static int recipe_names(const char *recipe, const char *name) {
  size_t len = strlen(name);
  for (const char *p = recipe; (p = strstr(p, name)) != NULL; p += len)
    if ((p == recipe || p[-1] == '+') && (p[len] == '@' || p[len] == '('))
      return 1;
  return 0;
}

static void append(const kmodel *m, bundle_variant **out, int *n, int *cap, const bundle_variant *v, int nv) {
  for (int i = 0; i < nv; i++)
    *ARENA_PUSH(m->arena, *out, *n, *cap) = v[i];
}

/* Whether a REPARSE_BESIDE pass is made without: unless --pin sets its on/off (its first
 * parameter) on. */
static int made_without(const kfuse_options *o, const pass *ps, diag *d) {
  if (ps->reparse != REPARSE_BESIDE)
    return 0;
  for (int i = 0; i < o->npins; i++) {
    const pass *pp;
    int q, value;
    if (parse_pin(o->pins[i], &pp, &q, &value, d) && pp == ps && q == 0 && value)
      return 0;
  }
  return 1;
}

/* The variants of a pass list in which list[r] writes new text (reparse): the passes up to
 * r make their variants of m, and the passes after r make theirs of each of those that
 * list[r] changed, parsed again, the new ones shared out evenly. Each first variant comes
 * after its own (the rule order: the first of all has every pass with its defaults). The
 * variants without list[r] (the other passes' of m) are made when it changed none, and
 * beside the others when it is REPARSE_BESIDE (its first parameter an on/off that --pin
 * does not set on): they come first, with an even share. */
static int staged(const kfuse_options *o, const kmodel *m, const pass *const *list, int npass, int r, int told,
                  int pool, bundle_variant **out, ledger *lg, const char *const *known, int nknown, diag *d) {
  bundle_variant *first = NULL;
  int nfirst = odometer(o, m, list, r + 1, told, pool, &first, lg, known, nknown, d);
  if (nfirst < 0)
    return -1;
  int napplied = 0;
  for (int i = 0; i < nfirst; i++)
    if (recipe_names(first[i].recipe, list[r]->name))
      first[napplied++] = first[i];
  int n = 0, cap = 0, left = pool;
  *out = NULL;
  if (!napplied || made_without(o, list[r], d)) {
    /* list[0..r] have told theirs */
    const pass *rest[64];
    int nrest = 0;
    for (int p = 0; p < npass; p++)
      if (p != r)
        rest[nrest++] = list[p];
    bundle_variant *without = NULL;
    int share = napplied ? (pool + napplied) / (napplied + 1) : pool;
    int nw = variants_of(o, m, rest, nrest, r > told ? r : told, share, &without, lg, known, nknown, d);
    if (nw < 0 || !napplied)
      return nw < 0 ? -1 : (*out = without, nw);
    append(m, out, &n, &cap, without, nw);
    for (int i = 0; i < nw; i++)
      left -= !without[i].known;
  }
  for (int i = 0; i < napplied; i++)
    left -= !first[i].known;
  for (int i = 0; i < napplied; i++) {
    int share = left > 0 ? (left + (napplied - i) - 1) / (napplied - i) : 0;
    int before = n;
    if (share > 0 || (o->until_known && nknown))
      reparsed(o, m, &first[i], list + r + 1, npass - r - 1, share, out, &n, &cap, known, nknown);
    for (int j = before; j < n; j++)
      left -= !(*out)[j].known;
    append(m, out, &n, &cap, &first[i], 1);
  }
  return n;
}

/* The variants of list[0..npass) on m: staged at the first pass that writes new text for
 * the passes after it (reparse), the odometer's where none does. */
static int variants_of(const kfuse_options *o, const kmodel *m, const pass *const *list, int npass, int told,
                       int pool, bundle_variant **out, ledger *lg, const char *const *known, int nknown, diag *d) {
  int r = 0;
  while (r < npass && !list[r]->reparse)
    r++;
  return r < npass - 1 ? staged(o, m, list, npass, r, told, pool, out, lg, known, nknown, d)
                       : odometer(o, m, list, npass, told, pool, out, lg, known, nknown, d);
}

int kfuse_variants(const kfuse_options *o, const kmodel *m, bundle_variant **out, ledger *lg,
                   const char *const *known, int nknown, diag *d) {
  const pass *list[64];
  int npass = o->passes ? parse_pass_list(o->passes, list, 64, d) : 0;
  if (npass < 0)
    return -1;
  if (!o->passes)
    for (int p = 0; p < pass_count && npass < 64; p++)
      if (!pass_list[p]->opt_in)
        list[npass++] = pass_list[p];
  *out = NULL;
  if (!npass)
    return 0;
  int most = o->max_variants > 0 ? o->max_variants : MAX_VARIANTS;
  /* with a ranker, a pool of new variants to choose the budget's from */
  int errors = diag_errors(d);
  ranker *rk = o->ranker && strcmp(o->ranker, "none") ? ranker_load(o->ranker, d) : NULL;
  if (diag_errors(d) > errors)
    return -1; /* a model that does not load (a warning when it is of other passes) */
  int pool = rk && most < RANKED_POOL ? RANKED_POOL : most;
  int n = variants_of(o, m, list, npass, 0, pool, out, lg, known, nknown, d);
  if (rk) {
    int made = n;
    if (n > 0)
      n = rank_variants(rk, m, *out, n, most, d);
    if (o->verbose)
      fprintf(stderr, "kfuse: ranker %s: %d of %d variants kept (the known ones, the rule order's first new "
              "one, the best-scored of each novelty, then the highest scores)\n", strcmp(o->ranker, RANKER_BUILTIN) ? o->ranker : "built in", n, made);
    ranker_free(rk);
  }
  return n;
}

/* Replaces the body of every lifted kernel with the printer's version of it. */
static void reprint_kernels(const kmodel *m, rewriter *rw, diag *d) {
  for (int i = 0; i < m->nkernels; i++) {
    const kkernel *k = &m->kernels[i];
    if (!k->body || k->instance)
      continue; /* an instance is not in the file: its template is reprinted */
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
  for (int i = 0; i < m->nfunctors; i++) {
    const kfunctor *f = &m->functors[i];
    if (f->why)
      diag_report(d, DIAG_REMARK, m->path, f->fn.loc.line, f->fn.loc.col,
                  "functor '%s' is not inlined into the kernels that take it: %s [-Rmodel]", f->name, f->why);
  }
}

kfuse_status kfuse_compile(const kfuse_options *o, diag *d) {
  kfuse_status st = kfuse_check_options(o, d);
  if (st != KFUSE_OK)
    return st;
  if (o->emit == EMIT_REFERENCE) { /* a C file: its serial reference, nothing else */
    strbuf ref = {0};
    if (!reference_from_c(o->input, &o->tu, &ref, d))
      st = KFUSE_INPUT_ERROR;
    else if (!kfuse_write_file(o->output, ref.s, ref.len, d))
      st = KFUSE_OUTPUT_ERROR;
    sb_free(&ref);
    return st;
  }

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

  /* 3. Passes, 4. variants: each combination of the passes' parameters makes one. */
  bundle_variant *variants = NULL;
  ledger lg;
  ledger_init(&lg, m->arena);
  const char **known = NULL;
  int nknown = o->emit == EMIT_CUDA && o->resume ? kfuse_known_recipes(o, m, &known, d) : 0;
  int nvariants = kfuse_variants(o, m, &variants, o->emit == EMIT_CUDA ? &lg : NULL, known, nknown > 0 ? nknown : 0, d);
  if (nvariants < 0) {
    st = KFUSE_USAGE_ERROR;
    goto out;
  }
  for (int i = 0; i < nvariants; i++)
    ledger_add_made(&lg, variants[i].recipe);

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
  case EMIT_REFERENCE: break; /* made above */
  case EMIT_TRANSFORMED:
    /* the first variant (every pass with its default parameters), neither verified nor
     * measured: for reading what the passes do */
    if (nvariants)
      sb_putn(&out, variants[0].text, variants[0].size);
    else
      rw_apply(rw, &out);
    break;
  case EMIT_CUDA: {
    /* 5-6. Measurement (with a GPU here), selection: a recorded variant that was verified
     * and measured faster replaces the input whole. */
    int sel = kfuse_select(o, m, nvariants, &out, &lg, d);
    if (sel < 0) {
      st = KFUSE_INPUT_ERROR;
      goto out;
    }
    if (sel == 0)
      rw_apply(rw, &out); /* the input, byte for byte: no ledger in it */
    else
      ledger_append_comment(&lg, &out);
    break;
  }
  }
  if (o->verbose) {
    int lifted = 0;
    for (int i = 0; i < m->nkernels; i++)
      lifted += m->kernels[i].body != NULL;
    fprintf(stderr, "kfuse: %s: %d entr%s, %d kernel%s (%d lifted, %d opaque), %d variant%s\n", m->path,
            m->nentries, m->nentries == 1 ? "y" : "ies", m->nkernels, m->nkernels == 1 ? "" : "s",
            lifted, m->nkernels - lifted, nvariants, nvariants == 1 ? "" : "s");
  }
  st = kfuse_write_file(o->output, out.s ? out.s : "", out.len, d) ? KFUSE_OK : KFUSE_OUTPUT_ERROR;
  if (st == KFUSE_OK && o->ledger &&
      !kfuse_write_file(o->ledger, lg.json.s ? lg.json.s : "", lg.json.len, d))
    st = KFUSE_OUTPUT_ERROR;
out:
  ledger_free(&lg);
  sb_free(&out);
  rw_free(rw);
  tu_free(t);
  return st;
}

kfuse_status kfuse_explain(const char *path, diag *d) {
  return ledger_explain(path, stdout, d) ? KFUSE_OK : KFUSE_INPUT_ERROR;
}

/* Shards: DIR/shard-1..N, each a whole bundle with the reference and every N-th variant
 * (the i-th to shard i mod N, in the order they were made: the ranker's or the rules'), and
 * DIR/shards.txt naming them. DIR is made, or must be an earlier set of shards. */
static int write_shards(const kfuse_options *o, const kmodel *m, const bundle_variant *vs, int n, diag *d) {
  const char *dir = o->bundle_dir;
  int nshard = o->shards < n ? o->shards : n > 0 ? n : 1;
  char *marker = arena_printf(m->arena, "%s/shards.txt", dir);
  struct stat st;
  if (stat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || access(marker, F_OK) != 0)) {
    diag_report(d, DIAG_ERROR, dir, 0, 0, "exists and is not a set of shards; kfuse will not overwrite it");
    return 0;
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    diag_report(d, DIAG_ERROR, dir, 0, 0, "cannot make the directory: %s", strerror(errno));
    return 0;
  }
  /* shards of an earlier, larger set go */
  for (int s = nshard + 1;; s++) {
    char *old = arena_printf(m->arena, "%s/shard-%d", dir, s);
    if (access(old, F_OK) != 0)
      break;
    bundle_remove_tree(old);
  }
  strbuf list = {0};
  sb_printf(&list, "kfuse-shards %d\n", nshard);
  bundle_variant *sub = arena_alloc(m->arena, sizeof *sub * (size_t)(n + 1));
  int ok = 1;
  for (int s = 0; s < nshard && ok; s++) {
    int k = 0;
    for (int i = s; i < n; i += nshard)
      sub[k++] = vs[i];
    ok = bundle_write(m, arena_printf(m->arena, "%s/shard-%d", dir, s + 1), sub, k, &o->tu, d);
    sb_printf(&list, "shard shard-%d %d\n", s + 1, k);
  }
  if (ok)
    ok = kfuse_write_file(marker, list.s, list.len, d);
  sb_free(&list);
  return ok;
}

kfuse_status kfuse_bundle(const kfuse_options *o, int *nmeasure, diag *d) {
  tu *t = tu_parse(o->input, &o->tu, d);
  if (!t)
    return KFUSE_INPUT_ERROR;
  kmodel *m = tu_model(t, d);
  if (!m) {
    tu_free(t);
    return KFUSE_INPUT_ERROR;
  }
  /* The user's variants (--variant), then those the passes make. */
  bundle_variant *made = NULL;
  const char **known = NULL;
  int nknown = o->resume ? kfuse_known_recipes(o, m, &known, d) : 0;
  if (nknown < 0) {
    tu_free(t);
    return KFUSE_INPUT_ERROR;
  }
  int nmade = kfuse_variants(o, m, &made, NULL, known, nknown, d);
  if (nmade < 0) {
    tu_free(t);
    return KFUSE_USAGE_ERROR;
  }
  int nskipped = 0;
  for (int i = 0; i < nmade; i++)
    nskipped += made[i].known;
  int n = o->nvariants + nmade - nskipped;
  bundle_variant *vs = arena_alloc(m->arena, sizeof *vs * (size_t)(n + 1));
  for (int i = 0; i < o->nvariants; i++) {
    vs[i].path = o->variants[i];
    const char *base = strrchr(o->variants[i], '/');
    vs[i].recipe = arena_printf(m->arena, "user:%s", base ? base + 1 : o->variants[i]);
  }
  for (int i = 0, k = o->nvariants; i < nmade; i++)
    if (!made[i].known)
      vs[k++] = made[i];
  int ok = o->shards > 1 ? write_shards(o, m, vs, n, d) : bundle_write(m, o->bundle_dir, vs, n, &o->tu, d);
  if (ok && o->verbose)
    fprintf(stderr, "kfuse: wrote bundle %s: %d entr%s, %d variant%s besides the reference (%d from "
            "passes; %d more already in the records, left out)\n", o->bundle_dir, m->nentries,
            m->nentries == 1 ? "y" : "ies", n, n == 1 ? "" : "s", nmade - nskipped, nskipped);
  if (nmeasure)
    *nmeasure = n;
  tu_free(t);
  return ok ? KFUSE_OK : KFUSE_INPUT_ERROR;
}
