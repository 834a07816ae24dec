/* prune.c: ptxas's report and the pruning rule (prune.h). */
#include "prune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number just before `unit` in line (as in "48 bytes spill stores"), or -1. */
static long number_before(const char *line, const char *unit) {
  const char *at = strstr(line, unit);
  if (!at)
    return -1;
  const char *p = at;
  while (p > line && p[-1] == ' ')
    p--;
  const char *end = p;
  while (p > line && p[-1] >= '0' && p[-1] <= '9')
    p--;
  return p < end ? strtol(p, NULL, 10) : -1;
}

int ptxas_read_text(const char *text, ptxas_usage *u) {
  char current[256] = "", line[1024];
  long worst_spill = -1;
  memset(u, 0, sizeof *u);
  while (text && *text) {
    size_t n = strcspn(text, "\n");
    size_t k = n < sizeof line ? n : sizeof line - 1;
    memcpy(line, text, k);
    line[k] = '\0';
    text += n + (text[n] == '\n');

    const char *p;
    if ((p = strstr(line, "Function properties for ")) != NULL) {
      snprintf(current, sizeof current, "%s", p + strlen("Function properties for "));
      u->functions++;
    } else if (strstr(line, "bytes stack frame") && strstr(line, "bytes spill stores")) {
      long stack = number_before(line, "bytes stack frame");
      long stores = number_before(line, "bytes spill stores");
      long loads = number_before(line, "bytes spill loads");
      if (stack > u->max_stack)
        u->max_stack = stack;
      if (stores > 0)
        u->spill_stores += stores;
      if (loads > 0)
        u->spill_loads += loads;
      long spill = (stores > 0 ? stores : 0) + (loads > 0 ? loads : 0);
      if (spill > worst_spill) {
        worst_spill = spill;
        snprintf(u->worst, sizeof u->worst, "%s", current);
      }
    } else if ((p = strstr(line, "Used ")) != NULL && strstr(p, " registers")) {
      long regs = number_before(p, "registers");
      long smem = number_before(p, "bytes smem");
      if (regs > u->max_registers)
        u->max_registers = (int)regs;
      if (smem > u->max_smem)
        u->max_smem = smem;
    }
  }
  return u->functions;
}

int ptxas_read_file(const char *path, ptxas_usage *u) {
  memset(u, 0, sizeof *u);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  while (text) {
    size_t got = fread(text + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0)
      break;
    if (len + 1 == cap) {
      char *bigger = cap < (64u << 20) ? realloc(text, cap * 2) : NULL;
      if (!bigger)
        break;
      text = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (!text)
    return 0;
  text[len] = '\0';
  int found = ptxas_read_text(text, u);
  free(text);
  return found;
}

void prune_recipe_key(const char *recipe, char *key, size_t size) {
  size_t used = 0;
  int depth = 0;
  if (size == 0)
    return;
  for (const char *p = recipe; *p; p++) {
    if (*p == '(') {
      depth++;
      continue;
    }
    if (*p == ')' && depth > 0) {
      depth--;
      continue;
    }
    if (depth == 0 && used + 1 < size)
      key[used++] = *p;
  }
  key[used] = '\0';
}

static long spilled(const ptxas_usage *u) { return u->spill_stores + u->spill_loads; }

int prune_spills(const char *const *keys, const ptxas_usage *u, const int *built, int n,
                 int *by) {
  int pruned = 0;
  for (int i = 0; i < n; i++) {
    by[i] = -1;
    if (!keys[i] || !built[i] || u[i].functions == 0 || spilled(&u[i]) == 0)
      continue;
    for (int j = 0; j < n; j++) {
      if (j != i && keys[j] && built[j] && u[j].functions > 0 && spilled(&u[j]) == 0 &&
          strcmp(keys[i], keys[j]) == 0) {
        by[i] = j;
        pruned++;
        break;
      }
    }
  }
  return pruned;
}

void prune_reason(const ptxas_usage *u, const char *other, char *buf, size_t size) {
  snprintf(buf, size,
           "pruned: spills %ld bytes (stores %ld, loads %ld) in %.200s, %d registers; %.200s of the "
           "same passes does not spill",
           spilled(u), u->spill_stores, u->spill_loads, u->worst[0] ? u->worst : "a kernel",
           u->max_registers, other);
}
