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
