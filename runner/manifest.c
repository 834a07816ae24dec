/* manifest.c: loading and checking a bundle's manifest (manifest.h). */
#include "manifest.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "elem.h"

int manifest_open(const char *so_path, manifest *m, char *err, size_t size) {
  m->handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  m->b = NULL;
  if (!m->handle) {
    snprintf(err, size, "cannot load %s: %s", so_path, dlerror());
    return -1;
  }
  m->b = dlsym(m->handle, "kfuse_bundle");
  if (!m->b) {
    snprintf(err, size, "%s defines no kfuse_bundle", so_path);
    manifest_close(m);
    return -1;
  }
  if (m->b->abi != KB_ABI_VERSION) {
    snprintf(err, size, "bundle ABI version %d, but this kfuse-runner reads version %d",
             m->b->abi, KB_ABI_VERSION);
    manifest_close(m);
    return -1;
  }
  if (manifest_validate(m->b, err, size) != 0) {
    manifest_close(m);
    return -1;
  }
  return 0;
}

void manifest_close(manifest *m) {
  if (m->handle)
    dlclose(m->handle);
  m->handle = NULL;
  m->b = NULL;
}

#define BAD(...)                                                                             \
  do {                                                                                       \
    snprintf(err, size, __VA_ARGS__);                                                        \
    return -1;                                                                               \
  } while (0)

static int validate_buffer(const kb_entry *e, const kb_buffer *f, char *err, size_t size) {
  if (!f->name || !f->shape || !f->elems)
    BAD("entry '%s': a buffer lacks its name, shape or element count", e->name);
  if (f->role < KB_IN || f->role > KB_INOUT)
    BAD("entry '%s': buffer '%s' has unknown role %d", e->name, f->name, f->role);
  if (ec_size(f->type) == 0)
    BAD("entry '%s': buffer '%s' has unknown type %d", e->name, f->name, f->type);
  if (f->dist < KB_DIST_DEFAULT || f->dist > KB_DIST_INT)
    BAD("entry '%s': buffer '%s' has unknown init distribution %d", e->name, f->name,
        f->dist);
  if ((f->dist == KB_DIST_UNIFORM || f->dist == KB_DIST_INT) && (!f->lo || !f->hi))
    BAD("entry '%s': buffer '%s' has a bounded init without bounds", e->name, f->name);
  return 0;
}

static int validate_binding(const kb_entry *e, const kb_binding *g, char *err, size_t size) {
  if (!g->text || (e->nscalar > 0 && !g->values))
    BAD("entry '%s': a binding lacks its text or values", e->name);
  if (e->assumes && !e->assumes(g->values))
    BAD("entry '%s': binding '%s' (line %d) breaks the entry's assumes", e->name, g->text,
        g->line);
  for (int k = 0; k < e->nbuffer; k++)
    if (e->buffers[k].elems(g->values) <= 0)
      BAD("entry '%s': binding '%s' (line %d) gives buffer '%s' no elements", e->name,
          g->text, g->line, e->buffers[k].name);
  return 0;
}

static int validate_entry(const kb_entry *e, char *err, size_t size) {
  int outputs = 0, tunes = 0;
  if (!e->name || !e->shim)
    BAD("an entry lacks its name or shim symbol");
  if (e->nscalar < 0 || (e->nscalar > 0 && !e->scalars) || e->nbuffer < 1 || !e->buffers ||
      e->nbinding < 1 || !e->bindings)
    BAD("entry '%s': its scalar, buffer or binding table is missing", e->name);
  for (int j = 0; j < e->nscalar; j++)
    if (!e->scalars[j].name)
      BAD("entry '%s': scalar %d has no name", e->name, j);
  for (int k = 0; k < e->nbuffer; k++) {
    if (validate_buffer(e, &e->buffers[k], err, size) != 0)
      return -1;
    outputs += e->buffers[k].role != KB_IN;
  }
  if (outputs == 0)
    BAD("entry '%s' has no out or inout buffer: there is nothing to verify", e->name);
  for (int g = 0; g < e->nbinding; g++) {
    if (validate_binding(e, &e->bindings[g], err, size) != 0)
      return -1;
    tunes += e->bindings[g].is_tune != 0;
  }
  if (tunes == 0)
    BAD("entry '%s' has no tune binding", e->name);
  return 0;
}

int manifest_validate(const kb_bundle *b, char *err, size_t size) {
  if (!b->source_name || !b->source_hash || !b->libs)
    BAD("the bundle lacks its source name, source hash or libs");
  if (b->nentry < 1 || !b->entries)
    BAD("the bundle has no entries");
  if (b->nvariant < 1 || !b->variants)
    BAD("the bundle has no variants (variants[0] must be the reference)");
  for (int i = 0; i < b->nentry; i++)
    if (validate_entry(&b->entries[i], err, size) != 0)
      return -1;
  for (int v = 0; v < b->nvariant; v++) {
    const kb_variant *x = &b->variants[v];
    if (!x->name || !x->source || !x->recipe)
      BAD("variant %d lacks its name, source or recipe", v);
    if (strchr(x->source, '/') || strlen(x->source) < 4 ||
        strcmp(x->source + strlen(x->source) - 3, ".cu") != 0)
      BAD("variant '%s': source '%s' is not a .cu file of the bundle directory", x->name,
          x->source);
    for (int w = 0; w < v; w++)
      if (strcmp(b->variants[w].name, x->name) == 0 ||
          strcmp(b->variants[w].source, x->source) == 0)
        BAD("variant '%s' appears twice", x->name);
  }
  return 0;
}

int64_t manifest_shape_bytes(const kb_entry *e, const kb_value *s) {
  int64_t total = 0;
  for (int k = 0; k < e->nbuffer; k++) {
    int64_t n = e->buffers[k].elems(s);
    int64_t sz = (int64_t)ec_size(e->buffers[k].type);
    if (n <= 0 || n > INT64_MAX / 16 / sz)
      return -1;
    total += n * sz;
    if (total > INT64_MAX / 16)
      return -1;
  }
  return total;
}

void manifest_shape_text(const kb_entry *e, const kb_value *s, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int j = 0; j < e->nscalar && used < size; j++) {
    const kb_scalar *c = &e->scalars[j];
    int k = c->is_float ? snprintf(buf + used, size - used, "%s%s=%.9g", j ? " " : "",
                                   c->name, s[j].f)
                        : snprintf(buf + used, size - used, "%s%s=%lld", j ? " " : "",
                                   c->name, (long long)s[j].i);
    if (k < 0)
      break;
    used += (size_t)k;
  }
}

void manifest_stem(const kb_variant *v, char *buf, size_t size) {
  size_t n = strlen(v->source);
  if (n >= 3 && strcmp(v->source + n - 3, ".cu") == 0)
    n -= 3;
  snprintf(buf, size, "%.*s", (int)n, v->source);
}

int manifest_find_variant(const kb_bundle *b, const char *name) {
  char stem[256];
  for (int v = 0; v < b->nvariant; v++) {
    manifest_stem(&b->variants[v], stem, sizeof stem);
    if (strcmp(b->variants[v].name, name) == 0 || strcmp(stem, name) == 0)
      return v;
  }
  return -1;
}

int manifest_smallest_binding(const kb_entry *e) {
  int best = 0;
  for (int g = 1; g < e->nbinding; g++)
    if (manifest_shape_bytes(e, e->bindings[g].values) <
        manifest_shape_bytes(e, e->bindings[best].values))
      best = g;
  return best;
}
