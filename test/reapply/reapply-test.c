/*
 * reapply-test.c: a pass applied twice at the same site of one variant. The first apply
 * rewrites the site; the second must find it gone and refuse, reporting why, so that a
 * variant never carries two rewrites of one launch (passes/pass.h: steps an earlier
 * change touched are not a pass's to change).
 *
 *   reapply-test PASS FILE
 *   reapply-test --unlisted TEST
 *
 * Prints the site and what each apply did; exits 0 when the first applied and the second
 * refused, 1 otherwise, 2 on bad usage or input. Diagnostics go to stderr.
 *
 * --unlisted names every pass of the registry (passes/passes.def) that the lit file TEST
 * never runs ("%reapply-test NAME "), one a line, and exits 1 when there is one: a pass
 * added without a line in reapply.test fails the suite rather than going untested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/tu.h"
#include "../../passes/pass.h"

/* the passes TEST has no "%reapply-test NAME " line for; 2 when TEST cannot be read */
static int unlisted(const char *test) {
  diag *d = diag_new(stderr);
  unsigned size = 0;
  char *text = tu_read_file(test, &size, d);
  diag_free(d);
  if (!text)
    return 2;
  int missing = 0;
  for (int i = 0; i < pass_count; i++) {
    strbuf line = {0};
    sb_printf(&line, "%%reapply-test %s ", pass_list[i]->name);
    if (!strstr(text, line.s)) {
      printf("%s\n", pass_list[i]->name);
      missing = 1;
    }
    sb_free(&line);
  }
  free(text);
  return missing;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: reapply-test PASS FILE | --unlisted TEST\n");
    return 2;
  }
  if (!strcmp(argv[1], "--unlisted"))
    return unlisted(argv[2]);
  const pass *p = pass_find(argv[1]);
  if (!p) {
    fprintf(stderr, "reapply-test: no pass named '%s'\n", argv[1]);
    return 2;
  }
  diag *d = diag_new(stderr);
  tu_options opt = {0};
  tu *t = tu_parse(argv[2], &opt, d);
  kmodel *m = t ? tu_model(t, d) : NULL;
  if (!m) {
    diag_free(d);
    return 2;
  }
  /* the parameters' defaults; a pass whose first parameter is an on/off (REPARSE_BESIDE)
   * is turned on, since off changes nothing */
  const pass_param *params = NULL;
  int nparams = p->params ? p->params(&params) : 0, values[32] = {0};
  for (int q = 0; q < nparams && q < 32; q++)
    values[q] = params[q].values[0];
  if (p->reparse == REPARSE_BESIDE && nparams > 0)
    values[0] = 1;
  variant *v = variant_new(m);
  pass_site *sites = NULL;
  int nsites = 0, status = 1;
  p->find(v, &sites, &nsites, 0, d);
  if (nsites == 0) {
    printf("%s: no site in %s\n", p->name, argv[2]);
  } else {
    printf("%s: site %s\n", p->name, sites[0].what);
    int first = p->apply(v, &sites[0], values, d);
    printf("%s: first apply: %s\n", p->name, first ? "applied" : "refused");
    fflush(stdout);
    int again = first ? p->apply(v, &sites[0], values, d) : 0;
    if (first)
      printf("%s: second apply: %s\n", p->name, again ? "applied" : "refused");
    status = first && !again ? 0 : 1;
    if (again) {
      /* what two rewrites of one site print as, for the one who mends the pass */
      strbuf b = {0};
      if (variant_print(v, &b, d))
        fputs(b.s ? b.s : "", stdout);
      sb_free(&b);
    }
  }
  variant_free(v);
  tu_free(t);
  diag_free(d);
  return status;
}
