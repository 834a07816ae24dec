/* variant.c: variants under construction and their printing (variant.h). */
#include "variant.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"

variant *variant_new(const kmodel *m) {
  variant *v = xmalloc(sizeof *v);
  memset(v, 0, sizeof *v);
  v->m = m;
  v->a = m->arena;
  return v;
}

void variant_free(variant *v) {
  if (!v)
    return;
  sb_free(&v->recipe);
  sb_free(&v->applied);
  free(v);
}

int variant_touched(const variant *v, int entry, int step) {
  for (int i = 0; i < v->nedits; i++)
    if (v->edits[i].entry == entry && v->edits[i].step == step)
      return 1;
  return 0;
}

int variant_has_kernel(const variant *v, const char *name) {
  for (int i = 0; i < v->nkernels; i++)
    if (!strcmp(v->kernels[i].name, name))
      return 1;
  return 0;
}

static vedit *edit(variant *v, int entry, const kstep *st, const char *text) {
  if (variant_touched(v, entry, st->index))
    return NULL;
  vedit *e = ARENA_PUSH(v->a, v->edits, v->nedits, v->cap_edits);
  e->entry = entry;
  e->step = st->index;
  e->text = text ? arena_strdup(v->a, text) : NULL;
  e->whole = 0;
  return e;
}

int variant_remove_step(variant *v, int entry, const kstep *st) { return edit(v, entry, st, NULL) != NULL; }

int variant_replace_step(variant *v, int entry, const kstep *st, const char *text) {
  return edit(v, entry, st, text) != NULL;
}

int variant_replace_text(variant *v, unsigned begin, unsigned end, const char *text) {
  for (int i = 0; i < v->ntexts; i++) {
    const vtext *t = &v->texts[i];
    if (t->begin == begin && t->end == end && !strcmp(t->text, text))
      return 1;
    if (begin < t->end && t->begin < end)
      return 0;
  }
  vtext *t = ARENA_PUSH(v->a, v->texts, v->ntexts, v->cap_texts);
  t->begin = begin;
  t->end = end;
  t->text = arena_strdup(v->a, text);
  return 1;
}

void variant_remove_decl(variant *v, unsigned name) {
  for (int i = 0; i < v->ndecls; i++)
    if (v->decls[i] == name)
      return;
  *ARENA_PUSH(v->a, v->decls, v->ndecls, v->cap_decls) = name;
}

void variant_add_kernel(variant *v, int entry, const char *name, const char *text) {
  vkernel *k = ARENA_PUSH(v->a, v->kernels, v->nkernels, v->cap_kernels);
  k->entry = entry;
  k->early = 0;
  k->name = arena_strdup(v->a, name);
  k->text = arena_strdup(v->a, text);
}

void variant_add_helper(variant *v, const char *name, const char *text) {
  for (int i = 0; i < v->nkernels; i++)
    if (!strcmp(v->kernels[i].name, name))
      return;
  variant_add_kernel(v, 0, name, text);
}

void variant_add_early_helper(variant *v, const char *name, const char *text) {
  variant_add_helper(v, name, text);
  for (int i = 0; i < v->nkernels; i++)
    if (!strcmp(v->kernels[i].name, name))
      v->kernels[i].early = 1;
}

void variant_add_include(variant *v, const char *header) {
  for (int i = 0; i < v->nincludes; i++)
    if (!strcmp(v->includes[i], header))
      return;
  *ARENA_PUSH(v->a, v->includes, v->nincludes, v->cap_includes) = arena_strdup(v->a, header);
}

void variant_note(variant *v, const char *recipe_part, const char *line) {
  if (v->recipe.len)
    sb_putc(&v->recipe, '+');
  sb_puts(&v->recipe, recipe_part);
  sb_printf(&v->applied, "%s\n", line);
}

int variant_noted(const variant *v, const char *recipe_part) {
  size_t n = strlen(recipe_part);
  const char *p = v->recipe.s;
  while (p) {
    const char *plus = strchr(p, '+');
    size_t len = plus ? (size_t)(plus - p) : strlen(p);
    if (len == n && !strncmp(p, recipe_part, n))
      return 1;
    p = plus ? plus + 1 : NULL;
  }
  return 0;
}

/* Whether text uses name as an identifier outside `//` comments: a plain text search is
 * conservative. */
static int text_names(const char *t, const char *name) {
  size_t n = strlen(name);
  for (const char *p = t; (p = strstr(p, name)) != NULL; p++) {
    int before = p > t && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
                           ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    char c = p[n];
    int after = c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
    const char *line = p;
    while (line > t && line[-1] != '\n')
      line--;
    int in_comment = 0;
    for (const char *q = line; q + 1 < p && !in_comment; q++)
      in_comment = q[0] == '/' && q[1] == '/';
    if (!before && !after && !in_comment)
      return 1;
  }
  return 0;
}

static int name_used(const variant *v, const char *name) {
  for (int i = 0; i < v->m->nkernels; i++)
    if (!strcmp(v->m->kernels[i].name, name))
      return 1;
  for (int i = 0; i < v->nkernels; i++)
    if (!strcmp(v->kernels[i].name, name))
      return 1;
  /* any other identifier of the file, or of the text an earlier change put in it
   * (cuda-graph's `entry_eager`) */
  if (text_names(v->m->text, name))
    return 1;
  for (int i = 0; i < v->ntexts; i++)
    if (text_names(v->texts[i].text, name))
      return 1;
  return 0;
}

const char *variant_fresh_name(const variant *v, const char *base) {
  if (!name_used(v, base))
    return arena_strdup(v->a, base);
  for (int i = 2;; i++) {
    const char *n = arena_printf(v->a, "%s_%d", base, i);
    if (!name_used(v, n))
      return n;
  }
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The byte range of the statement whose call spans [begin, end): from the start of its
 * line when only blanks precede it there, through its semicolon and, when only blanks
 * follow on that line, the newline. 0 when no semicolon follows the call. */
static int statement_range(const kmodel *m, unsigned begin, unsigned end, unsigned *sb,
                           unsigned *se) {
  const char *t = m->text;
  unsigned p = end;
  while (p < m->size && (is_blank(t[p]) || t[p] == '\n' || t[p] == '\r'))
    p++;
  if (p >= m->size || t[p] != ';')
    return 0;
  p++;
  unsigned q = p;
  while (q < m->size && is_blank(t[q]))
    q++;
  if (q < m->size && t[q] == '\n')
    p = q + 1;
  unsigned b = begin;
  while (b > 0 && is_blank(t[b - 1]))
    b--;
  if (b == 0 || t[b - 1] == '\n')
    begin = b;
  else if (p > 0 && t[p - 1] == '\n')
    p--; /* something else on the line before: keep its newline */
  *sb = begin;
  *se = p;
  return 1;
}

/* Whether the call at begin starts its statement: only blanks and comments, or the end of
 * another statement or a brace, before it. */
static int own_statement(const kmodel *m, unsigned begin) {
  const char *t = m->text;
  unsigned p = begin;
  for (;;) {
    while (p > 0 && (is_blank(t[p - 1]) || t[p - 1] == '\n' || t[p - 1] == '\r'))
      p--;
    if (p == 0)
      return 1;
    if (p >= 2 && t[p - 1] == '/' && t[p - 2] == '*') { /* a block comment: back to its start */
      unsigned q = p - 2;
      while (q >= 2 && !(t[q - 2] == '/' && t[q - 1] == '*'))
        q--;
      if (q < 2)
        return 0;
      p = q - 2;
      continue;
    }
    unsigned ls = p - 1; /* a line comment ending here: back to its `//` */
    while (ls > 0 && t[ls - 1] != '\n')
      ls--;
    unsigned c = ls;
    while (c + 1 < p && !(t[c] == '/' && t[c + 1] == '/'))
      c++;
    if (c + 1 < p) {
      p = c;
      continue;
    }
    return t[p - 1] == ';' || t[p - 1] == '{' || t[p - 1] == '}';
  }
}

int variant_replace_statement(variant *v, int entry, const kstep *st, const char *text) {
  const kmodel *m = v->m;
  unsigned b, e;
  if (!own_statement(m, st->loc.begin) || !statement_range(m, st->loc.begin, st->loc.end, &b, &e) ||
      (b > 0 && m->text[b - 1] != '\n') || m->text[e - 1] != '\n')
    return 0; /* shares its line with something else */
  vedit *ed = edit(v, entry, st, text);
  if (ed)
    ed->whole = 1;
  return ed != NULL;
}

/* Where new kernels for entry e go: the start of the run of comment lines above it (its
 * annotations), or of its own line. */
/* Where an #include goes: after the last line of the file that starts with #include
 * (the start of the file when none does). */
static unsigned include_spot(const kmodel *m) {
  const char *t = m->text;
  unsigned at = 0;
  for (unsigned p = 0; p < m->size;) {
    unsigned f = p;
    while (f < m->size && is_blank(t[f]))
      f++;
    unsigned e = p;
    while (e < m->size && t[e] != '\n')
      e++;
    if (e - f >= 8 && !strncmp(t + f, "#include", 8))
      at = e < m->size ? e + 1 : e;
    p = e + 1;
  }
  return at;
}

/* Whether the file includes header (`#include <cublas_v2.h>`, spacing aside). */
static int file_includes(const kmodel *m, const char *header) {
  size_t n = strlen(header);
  for (const char *p = strstr(m->text, "#include"); p; p = strstr(p + 8, "#include")) {
    const char *l = p;
    while (l > m->text && is_blank(l[-1]))
      l--;
    if (l > m->text && l[-1] != '\n')
      continue; /* not a directive: in a comment or a string */
    const char *q = p + 8;
    while (*q == ' ' || *q == '\t')
      q++;
    if (!strncmp(q, header, n))
      return 1;
  }
  return 0;
}

static unsigned kernel_spot(const kmodel *m, const kentry *e) {
  const char *t = m->text;
  unsigned p = e->loc.begin;
  while (p > 0 && t[p - 1] != '\n')
    p--;
  for (;;) {
    if (p == 0)
      return 0;
    unsigned q = p - 1; /* the newline ending the line above */
    unsigned s = q;
    while (s > 0 && t[s - 1] != '\n')
      s--;
    unsigned f = s;
    while (f < q && is_blank(t[f]))
      f++;
    int comment = f + 1 < q && t[f] == '/' && t[f + 1] == '/';
    unsigned g = f + 10;
    while (g < q && is_blank(t[g]))
      g++;
    int linkage = q - f >= 10 && strncmp(t + f, "extern \"C\"", 10) == 0 && g == q;
    if (!comment && !linkage)
      return p;
    p = s;
  }
}

/* The declaration statement around offset at: from after the previous `;`, `{` or `}` to
 * its `;` (top level of parentheses and braces). 0 when there is none. */
static int declaration_range(const kmodel *m, unsigned at, unsigned *b, unsigned *e) {
  const char *t = m->text;
  unsigned p = at;
  while (p > 0 && t[p - 1] != ';' && t[p - 1] != '{' && t[p - 1] != '}')
    p--;
  while (p < at && (is_blank(t[p]) || t[p] == '\n' || t[p] == '\r'))
    p++;
  int depth = 0;
  unsigned q = at;
  for (; q < m->size; q++) {
    char c = t[q];
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if (c == ')' || c == ']' || c == '}')
      depth--;
    else if (c == ';' && depth == 0)
      break;
    if (depth < 0)
      return 0;
  }
  if (q >= m->size)
    return 0;
  *b = p;
  *e = q; /* the ';' */
  return 1;
}

/* The declarators' ranges of the declaration [b, e): pieces split at top-level commas;
 * the first piece's declarator begins after its type (at the name's stars). */
typedef struct piece {
  unsigned begin, end;   /* the declarator, stars and initializer included */
  int removed;
} piece;

static int split_declarators(const kmodel *m, unsigned b, unsigned e, piece *out, int max) {
  const char *t = m->text;
  int n = 0, depth = 0;
  unsigned start = b;
  for (unsigned q = b; q <= e && n < max; q++) {
    char c = q < e ? t[q] : ',';
    if (c == '(' || c == '[' || c == '{' || c == '<')
      depth++;
    else if (c == ')' || c == ']' || c == '}' || c == '>')
      depth--;
    else if (c == ',' && depth == 0) {
      unsigned s = start;
      while (s < q && (is_blank(t[s]) || t[s] == '\n'))
        s++;
      out[n++] = (piece){s, q, 0};
      start = q + 1;
    }
  }
  return n;
}

/* The declarator of the variable whose name is at offset name: its piece of its
 * declaration. 0 when it cannot be found. */
static int declarator_of(const kmodel *m, unsigned name, unsigned *b, unsigned *e) {
  unsigned sb, se;
  piece pc[64];
  if (!declaration_range(m, name, &sb, &se))
    return 0;
  int n = split_declarators(m, sb, se, pc, 64);
  for (int i = 0; i < n; i++)
    if (name >= pc[i].begin && name < pc[i].end) {
      *b = pc[i].begin;
      *e = pc[i].end;
      return 1;
    }
  return 0;
}

/* Rewrites one declaration without the declarators whose names v removes. */
static int edit_declaration(const variant *v, rewriter *rw, unsigned b, unsigned e) {
  const kmodel *m = v->m;
  const char *t = m->text;
  piece pc[64];
  int n = split_declarators(m, b, e, pc, 64), kept = 0;
  if (!n)
    return 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < v->ndecls; k++)
      if (v->decls[k] >= pc[i].begin && v->decls[k] < pc[i].end)
        pc[i].removed = 1;
    kept += !pc[i].removed;
  }
  if (!kept) { /* the whole statement goes, with its line when it has one of its own */
    unsigned sb, se;
    if (statement_range(m, b, e, &sb, &se))
      return rw_replace(rw, sb, se, "");
    return rw_replace(rw, b, e + 1, "");
  }
  /* the type: the first piece up to the stars before its name */
  unsigned name = pc[0].begin;
  for (int k = 0; k < v->ndecls; k++)
    if (v->decls[k] >= pc[0].begin && v->decls[k] < pc[0].end)
      name = v->decls[k];
  if (!pc[0].removed) {
    /* the first declarator's name: the last identifier before `=` or the end */
    unsigned q = pc[0].begin;
    while (q < pc[0].end && t[q] != '=')
      q++;
    while (q > pc[0].begin && (is_blank(t[q - 1]) || t[q - 1] == '\n'))
      q--;
    while (q > pc[0].begin && (t[q - 1] == '_' || (t[q - 1] >= '0' && t[q - 1] <= '9') ||
                               ((t[q - 1] | 32) >= 'a' && (t[q - 1] | 32) <= 'z')))
      q--;
    name = q;
  }
  unsigned type_end = name;
  while (type_end > pc[0].begin && (t[type_end - 1] == '*' || t[type_end - 1] == '&' ||
                                    is_blank(t[type_end - 1])))
    type_end--;
  strbuf s = {0};
  sb_putn(&s, t + pc[0].begin, type_end - pc[0].begin);
  sb_putc(&s, ' ');
  int first = 1;
  for (int i = 0; i < n; i++) {
    if (pc[i].removed)
      continue;
    unsigned from = i == 0 ? type_end : pc[i].begin;
    while (from < pc[i].end && is_blank(t[from]))
      from++;
    if (!first)
      sb_puts(&s, ", ");
    sb_putn(&s, t + from, pc[i].end - from);
    first = 0;
  }
  int ok = rw_replace(rw, b, e, s.s);
  sb_free(&s);
  return ok;
}

static int is_word(char c) {
  return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* How often the identifier name appears in text[b, e) as a whole word. */
static int count_word(const char *t, unsigned b, unsigned e, const char *name) {
  size_t n = strlen(name);
  int c = 0;
  for (unsigned p = b; p + n <= e; p++)
    if (!strncmp(t + p, name, n) && (p == b || !is_word(t[p - 1])) && (p + n == e || !is_word(t[p + n])))
      c++;
  return c;
}

/* The host variables of entry ei that the variant's edits leave unused: declared with a
 * pure integer initializer, never reassigned, and named nowhere in the body but in their
 * own declarator and in the statements the edits replace or remove (the new statements
 * count as uses). They are added to decls. */
/* Whether host variable hv is a dim3 whose declarator calls nothing but its constructor
 * (`dim3 grid((n + 255) / 256, rows)`): removing it, once unused, changes nothing. */
static int plain_dim3(const kmodel *m, const khostvar *hv) {
  unsigned b, e;
  if (!hv->type_spelling || strcmp(hv->type_spelling, "dim3") || !declarator_of(m, hv->decl, &b, &e))
    return 0;
  for (unsigned p = b; p < e; p++)
    if (m->text[p] == '(') {
      unsigned q = p;
      while (q > b && (m->text[q - 1] == ' ' || m->text[q - 1] == '\t'))
        q--;
      unsigned w = q;
      while (w > b && (isalnum((unsigned char)m->text[w - 1]) || m->text[w - 1] == '_'))
        w--;
      if (w < q && !(q - w == 4 && !strncmp(m->text + w, "dim3", 4)) &&
          !(q - w == strlen(hv->name) && !strncmp(m->text + w, hv->name, q - w)))
        return 0; /* a call */
    }
  return 1;
}

static void dead_host_vars(const variant *v, int ei, unsigned **decls, int *n, int *cap) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  int grew = 1;
  while (grew) { /* a variable only a dead one used is dead too */
    grew = 0;
  for (int h = 0; h < e->nhostvars; h++) {
    const khostvar *hv = &e->hostvars[h];
    int known = 0;
    for (int k = 0; k < *n; k++)
      known |= (*decls)[k] == hv->decl;
    if ((!hv->init && !plain_dim3(m, hv)) || hv->assigned || known)
      continue;
    int uses = count_word(m->text, e->body_loc.begin, e->body_loc.end, hv->name) - 1;
    for (int i = 0; i < v->nedits; i++) {
      const vedit *ed = &v->edits[i];
      if (ed->entry != ei)
        continue;
      const kstep *st = model_find_step(e, ed->step);
      uses -= count_word(m->text, st->loc.begin, st->loc.end, hv->name);
      if (ed->text)
        uses += count_word(ed->text, 0, (unsigned)strlen(ed->text), hv->name);
    }
    for (int k = 0; k < *n; k++) {
      unsigned db, de;
      if (declarator_of(m, (*decls)[k], &db, &de))
        uses -= count_word(m->text, db, de, hv->name);
    }
    if (uses <= 0) {
      *ARENA_PUSH(v->a, *decls, *n, *cap) = hv->decl;
      grew = 1;
    }
  }
  }
}

int variant_print(const variant *v, strbuf *out, diag *d) {
  const kmodel *m = v->m;
  rewriter *rw = rw_new(m->text, m->size);
  int ok = 1;
  for (int i = 0; i < v->nedits && ok; i++) {
    const vedit *ed = &v->edits[i];
    const kentry *e = &m->entries[ed->entry];
    const kstep *st = model_find_step(e, ed->step);
    unsigned b, en;
    if (!st)
      KFUSE_BUG("edit of step #%d of %s, which is neither a top-level step nor one in a host loop", ed->step,
                e->name);
    if (ed->whole)
      ok = statement_range(m, st->loc.begin, st->loc.end, &b, &en) && rw_replace(rw, b, en, ed->text);
    else if (ed->text)
      ok = rw_replace(rw, st->loc.begin, st->loc.end, ed->text);
    else if (own_statement(m, st->loc.begin))
      ok = statement_range(m, st->loc.begin, st->loc.end, &b, &en) && rw_replace(rw, b, en, "");
    else /* a runtime call inside an expression (`e = cudaMallocAsync(...)`): it succeeds */
      ok = st->kind != KS_LAUNCH && rw_replace(rw, st->loc.begin, st->loc.end, "cudaSuccess");
    if (!ok)
      diag_report(d, DIAG_WARNING, m->path, st->loc.line, st->loc.col,
                  "cannot rewrite step #%d of '%s' (a statement kfuse cannot delimit); the variant "
                  "is dropped", st->index, e->name);
  }
  for (int i = 0; i < v->ntexts && ok; i++) {
    ok = rw_replace(rw, v->texts[i].begin, v->texts[i].end, v->texts[i].text);
    if (!ok)
      diag_report(d, DIAG_WARNING, m->path, 0, 0, "cannot rewrite bytes %u-%u of a host helper (another change "
                  "overlaps them); the variant is dropped", v->texts[i].begin, v->texts[i].end);
  }
  /* declarations that lose declarators (the passes' and the host variables left unused),
   * each edited once */
  variant w = *v;
  w.decls = NULL;
  w.ndecls = w.cap_decls = 0;
  for (int i = 0; i < v->ndecls; i++)
    *ARENA_PUSH(v->a, w.decls, w.ndecls, w.cap_decls) = v->decls[i];
  for (int ei = 0; ei < m->nentries; ei++) {
    int edited = 0;
    for (int i = 0; i < v->nedits; i++)
      edited |= v->edits[i].entry == ei;
    if (edited)
      dead_host_vars(v, ei, &w.decls, &w.ndecls, &w.cap_decls);
  }
  for (int i = 0; i < w.ndecls && ok; i++) {
    unsigned b, e;
    int seen = 0;
    if (!declaration_range(m, w.decls[i], &b, &e))
      continue; /* left as it is: a warning at worst */
    for (int k = 0; k < i; k++) {
      unsigned b2, e2;
      seen |= declaration_range(m, w.decls[k], &b2, &e2) && b2 == b;
    }
    if (!seen)
      ok = edit_declaration(&w, rw, b, e);
  }
  for (int i = 0; i < v->nkernels && ok; i++) {
    const vkernel *k = &v->kernels[i];
    if (k->early)
      continue;
    unsigned at = kernel_spot(m, &m->entries[k->entry]);
    strbuf t = {0};
    sb_printf(&t, "%s\n", k->text);
    ok = rw_replace(rw, at, at, t.s);
    sb_free(&t);
  }
  for (int i = 0; i < v->nincludes && ok; i++)
    if (!file_includes(m, v->includes[i])) {
      unsigned at = include_spot(m);
      const char *line = arena_printf(v->a, "%s#include %s\n", at && m->text[at - 1] != '\n' ? "\n" : "",
                                      v->includes[i]);
      ok = rw_replace(rw, at, at, line);
    }
  for (int i = 0; i < v->nkernels && ok; i++) /* after the #include lines, those added too */
    if (v->kernels[i].early) {
      unsigned at = include_spot(m);
      ok = rw_replace(rw, at, at, arena_printf(v->a, "%s\n%s", at && m->text[at - 1] != '\n' ? "\n" : "",
                                               v->kernels[i].text));
    }
  if (ok) {
    if (v->applied.len)
      sb_printf(out, "// kfuse variant %s\n", v->recipe.s);
    rw_apply(rw, out);
  }
  rw_free(rw);
  return ok;
}
