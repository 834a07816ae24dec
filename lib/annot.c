/*
 * annot.c: the `// kfuse:` directives. PCRE2 finds the lines and splits each directive
 * into its parts; expr.c parses and evaluates the expressions in them. The checks, in
 * the order they run:
 *   1. each directive is well formed and names parameters of the entry;
 *   2. every pointer has exactly one role, no scalar has one, the annotated element
 *      type agrees with the pointer's C type;
 *   3. every `tune`/`check` line binds every scalar exactly once, with a value of its kind
 *      that its C type can hold;
 *   4. on every binding, every extent and `init` bound evaluates (extents >= 0, lo < hi)
 *      and every `assume` holds.
 * Each mistake is reported once, where it was made: a role line that was rejected does not
 * also leave its pointer reported as having no role.
 *
 * Every pattern matches in time linear in the line: a pattern that backtracks over a long
 * run of blanks reaches PCRE2's match limit, and a directive must never be lost to that.
 * Quantifiers whose giving back can never help are possessive (`*+`, `++`), and trailing
 * blanks are trimmed in C rather than by a lazy capture.
 */
#include "annot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cx.h"

struct annot_set {
  kmodel *m;
  annot_line *lines;
  int n, cap;
};

/* Compiles a pattern once; the patterns are constants, so a failure is kfuse's bug. They
 * are ASCII and match bytes, not UTF-8: a comment in Latin-1 is no UTF-8, and PCRE2_UTF
 * would make matching such a line an error. */
static pcre2_code *rx(const char *pattern) {
  int errcode;
  PCRE2_SIZE erroff;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, NULL);
  if (!re)
    KFUSE_BUG("bad pattern %s at %zu", pattern, (size_t)erroff);
  return re;
}

/* Matches re against s[0..len) from start; fills ov (pairs of offsets, PCRE2_UNSET for
 * a group that took no part) and returns the number of pairs, 0 when it does not match,
 * or PCRE2's negative error code when matching failed (match limit, memory). A failure
 * is not "no match": callers report it. */
typedef struct match {
  int n;
  size_t ov[2 * 8];
} match;

static int rx_match(pcre2_code *re, const char *s, size_t len, size_t start, match *mt) {
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  if (!md)
    return PCRE2_ERROR_NOMEMORY;
  int rc = pcre2_match(re, (PCRE2_SPTR)s, len, start, 0, md, NULL);
  mt->n = 0;
  if (rc > 0) {
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    mt->n = rc > 8 ? 8 : rc;
    for (int i = 0; i < 2 * mt->n; i++)
      mt->ov[i] = ov[i];
  }
  pcre2_match_data_free(md);
  if (rc < PCRE2_ERROR_NOMATCH)
    return rc;
  return mt->n;
}

/* PCRE2's text for a matching error, in a. */
static const char *rx_error(arena *a, int rc) {
  PCRE2_UCHAR buf[256];
  if (pcre2_get_error_message(rc, buf, sizeof buf) < 0)
    return arena_printf(a, "PCRE2 error %d", rc);
  return arena_strdup(a, (const char *)buf);
}

/* A group that took part in the match. */
static int has_group(const match *mt, int g) { return mt->n > g && mt->ov[2 * g] != PCRE2_UNSET; }

static pcre2_code *re_line, *re_word, *re_buffer, *re_dim, *re_bind, *re_init, *re_tol;

static void compile_patterns(void) {
  if (re_line)
    return;
  /* A directive line: optional blanks, `//`, blanks, `kfuse:` (the "kfuse" and ":" may be
   * separated by blanks), the directive. The directive is the greedy rest of the line;
   * annot_scan trims its trailing blanks (a lazy `(.*?)[ \t\r]*$` is quadratic in a blank
   * run). */
  re_line = rx("^[ \\t]*+//[ \\t]*+kfuse[ \\t]*+:[ \\t]*+(.*)$");
  re_word = rx("^([A-Za-z_][A-Za-z0-9_]*+)(?:[ \\t]++|$)");
  re_buffer = rx("^([A-Za-z_][A-Za-z0-9_]*+)[ \\t]++([A-Za-z_][A-Za-z0-9_]*+)[ \\t]*+"
                 "((?:\\[[^\\]]*+\\][ \\t]*+)*+)$");
  re_dim = rx("\\[([^\\]]*+)\\]");
  /* NAME=VALUE, blanks allowed around '='. The value is the next blank-free word unless
   * that word starts the next binding (`N= alpha=1`): then group 2 is unset and the
   * binding has no value, which is reported at its '='. */
  re_bind = rx("\\G[ \\t]*+([A-Za-z_][A-Za-z0-9_]*+)[ \\t]*+=(?:[ \\t]*+"
               "(?![A-Za-z_][A-Za-z0-9_]*+[ \\t]*+=)([^ \\t]++))?");
  re_init = rx("^([A-Za-z_][A-Za-z0-9_]*+)[ \\t]++([A-Za-z_]++)[ \\t]*+(?:\\((.*)\\)[ \\t]*+)?$");
  re_tol = rx("\\G[ \\t]*+(rtol|atol)[ \\t]*+=(?:[ \\t]*+"
              "(?![A-Za-z_][A-Za-z0-9_]*+[ \\t]*+=)([^ \\t]++))?");
}

/* ---------------------------------------------------------------- finding the lines */

/* Where the lexer stands at the start of a line. A `// kfuse:` line is a directive only
 * when its `//` is code's: the same text inside a block comment, a string literal (one
 * continued with backslash-newline, or a raw string) or a line comment continued onto it
 * is not a comment line of its own. */
typedef enum lex_state { LX_CODE, LX_LINE_COMMENT, LX_BLOCK_COMMENT, LX_STRING, LX_CHAR, LX_RAW } lex_state;

typedef struct lexer {
  lex_state st;
  const char *delim;    /* LX_RAW: the d-char-sequence between `"` and `(` */
  unsigned dlen;
} lexer;

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A raw string's prefix: R after an optional encoding prefix (L, u, U, u8). */
static int is_raw_prefix(const char *s, unsigned n) {
  if (!n || s[n - 1] != 'R')
    return 0;
  n--;
  return n == 0 || (n == 1 && (s[0] == 'L' || s[0] == 'u' || s[0] == 'U')) ||
         (n == 2 && s[0] == 'u' && s[1] == '8');
}

/* Advances lx over the line s[0..len) (its '\n' excluded). C's line splices are followed
 * where they matter: a backslash ending a line continues a line comment or a string. */
static void lex_line(lexer *lx, const char *s, unsigned len) {
  unsigned end = len;
  if (end && s[end - 1] == '\r')
    end--;
  int spliced = end && s[end - 1] == '\\';
  unsigned i = 0;
  while (i < end) {
    char c = s[i];
    switch (lx->st) {
    case LX_LINE_COMMENT:
      i = end;
      break;
    case LX_BLOCK_COMMENT:
      if (c == '*' && i + 1 < end && s[i + 1] == '/') {
        lx->st = LX_CODE;
        i += 2;
      } else {
        i++;
      }
      break;
    case LX_STRING:
    case LX_CHAR:
      if (c == '\\')
        i += 2;
      else {
        if (c == (lx->st == LX_STRING ? '"' : '\''))
          lx->st = LX_CODE;
        i++;
      }
      break;
    case LX_RAW:
      if (c == ')' && i + 1 + lx->dlen < end && !memcmp(s + i + 1, lx->delim, lx->dlen) && s[i + 1 + lx->dlen] == '"') {
        lx->st = LX_CODE;
        i += lx->dlen + 2;
      } else {
        i++;
      }
      break;
    case LX_CODE:
      if (c == '/' && i + 1 < end && s[i + 1] == '/') {
        lx->st = LX_LINE_COMMENT;
        i = end;
      } else if (c == '/' && i + 1 < end && s[i + 1] == '*') {
        lx->st = LX_BLOCK_COMMENT;
        i += 2;
      } else if (c == '"') {
        lx->st = LX_STRING;
        i++;
      } else if (c == '\'') {
        lx->st = LX_CHAR;
        i++;
      } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < end && s[i + 1] >= '0' && s[i + 1] <= '9')) {
        /* A pp-number, whose `'` digit separators (1'000) open no character literal. */
        i++;
        while (i < end) {
          if (is_ident(s[i]) || s[i] == '.')
            i++;
          else if ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))
            i++;
          else if (s[i] == '\'' && i + 1 < end && is_ident(s[i + 1]))
            i += 2;
          else
            break;
        }
      } else if (is_ident(c)) {
        /* An identifier. An encoding prefix (u8"", L'') leaves its quote to the cases
         * above; R"delim( opens a raw string, whose text has no escapes and may span
         * lines. */
        unsigned st = i;
        while (i < end && is_ident(s[i]))
          i++;
        if (i < end && s[i] == '"' && is_raw_prefix(s + st, i - st)) {
          unsigned d = i + 1;
          while (d < end && d - (i + 1) <= 16 && s[d] != '(' && s[d] != ')' && s[d] != '\\' &&
                 s[d] != ' ' && s[d] != '\t' && s[d] != '"')
            d++;
          if (d < end && s[d] == '(' && d - (i + 1) <= 16) {
            lx->st = LX_RAW;
            lx->delim = s + i + 1;
            lx->dlen = d - (i + 1);
            i = d + 1;
          }
          /* else not a raw string clang accepts; the quote opens a plain string */
        }
      } else {
        i++;
      }
      break;
    }
  }
  /* The end of the line ends line comments and (unterminated) literals, unless spliced. */
  if (!spliced && (lx->st == LX_LINE_COMMENT || lx->st == LX_STRING || lx->st == LX_CHAR))
    lx->st = LX_CODE;
}

/* The byte ranges the preprocessor skipped (#if 0 and other false branches): directives
 * there annotate code that is not compiled. libclang keeps them only in a detailed
 * preprocessing record; without one the list is empty. */
typedef struct span {
  unsigned begin, end;
} span;

typedef struct skipped {
  span *v;
  int n, cap;
} skipped;

static skipped skipped_ranges(cxctx *c) {
  skipped sk = {0};
  CXSourceRangeList *l = clang_getSkippedRanges(c->tu, c->file);
  if (!l)
    return sk;
  for (unsigned i = 0; i < l->count; i++) {
    span *r = ARENA_PUSH(c->a, sk.v, sk.n, sk.cap);
    clang_getFileLocation(clang_getRangeStart(l->ranges[i]), NULL, NULL, NULL, &r->begin);
    clang_getFileLocation(clang_getRangeEnd(l->ranges[i]), NULL, NULL, NULL, &r->end);
  }
  clang_disposeSourceRangeList(l);
  return sk;
}

static int in_skipped(const skipped *sk, unsigned off) {
  for (int i = 0; i < sk->n; i++)
    if (off >= sk->v[i].begin && off < sk->v[i].end)
      return 1;
  return 0;
}

annot_set *annot_scan(cxctx *c) {
  kmodel *m = c->m;
  compile_patterns();
  annot_set *as = arena_alloc(m->arena, sizeof *as);
  as->m = m;
  skipped sk = skipped_ranges(c);
  lexer lx = {LX_CODE, NULL, 0};
  unsigned line = 1;
  for (unsigned off = 0; off <= m->size;) {
    const char *eol = memchr(m->text + off, '\n', m->size - off);
    unsigned end = eol ? (unsigned)(eol - m->text) : m->size;
    lex_state at_start = lx.st;
    lex_line(&lx, m->text + off, end - off);
    match mt;
    int rc;
    if (at_start == LX_CODE && memchr(m->text + off, 'k', end - off) &&
        (rc = rx_match(re_line, m->text + off, end - off, 0, &mt)) != 0) {
      if (rc < 0) {
        diag_report(c->d, DIAG_ERROR, m->path, line, 1, "cannot tell whether this line is a kfuse "
                    "directive: %s", rx_error(m->arena, rc));
      } else if (!in_skipped(&sk, off)) {
        annot_line *l = ARENA_PUSH(m->arena, as->lines, as->n, as->cap);
        unsigned dend = (unsigned)mt.ov[3];
        while (dend > mt.ov[2] && (m->text[off + dend - 1] == ' ' || m->text[off + dend - 1] == '\t' ||
                                   m->text[off + dend - 1] == '\r'))
          dend--;
        l->line = line;
        l->line_off = off;
        l->dir_off = off + (unsigned)mt.ov[2];
        l->dir_len = dend - (unsigned)mt.ov[2];
      }
    }
    if (!eol)
      break;
    off = end + 1;
    line++;
  }
  return as;
}

/* A line that is a `//` comment from its first non-blank character. */
static int is_comment_line(const char *s, unsigned len) {
  unsigned i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\t'))
    i++;
  return i + 1 < len && s[i] == '/' && s[i + 1] == '/';
}

unsigned annot_comment_top(const char *text, unsigned at, unsigned *line) {
  unsigned ls = at;
  while (ls > 0 && text[ls - 1] != '\n')
    ls--;
  unsigned top = ls;
  while (top > 0) {
    unsigned prev = top - 1; /* the '\n' ending the line above */
    unsigned ps = prev;
    while (ps > 0 && text[ps - 1] != '\n')
      ps--;
    if (!is_comment_line(text + ps, prev - ps))
      break;
    top = ps;
  }
  if (line)
    *line = ls;
  return top;
}

annot_lines annot_above(annot_set *as, unsigned decl_off) {
  kmodel *m = as->m;
  annot_lines r = {0};
  unsigned ls, top = annot_comment_top(m->text, decl_off, &ls);
  int cap = 0;
  for (int i = 0; i < as->n; i++)
    if (as->lines[i].line_off >= top && as->lines[i].line_off < ls) {
      as->lines[i].used = 1;
      *ARENA_PUSH(m->arena, r.v, r.n, cap) = &as->lines[i];
    }
  return r;
}

void annot_check_unused(annot_set *as, diag *d) {
  for (int i = 0; i < as->n; i++)
    if (!as->lines[i].used) {
      unsigned col = as->lines[i].dir_off - as->lines[i].line_off + 1;
      diag_report(d, DIAG_ERROR, as->m->path, as->lines[i].line, col,
                  "kfuse directive is not attached to an entry: directives go in the comment "
                  "lines directly above an extern \"C\" function definition");
    }
}

/* ---------------------------------------------------------------- one entry */

/* What annot.c keeps of a parameter's directives beyond the model's fields, for
 * diagnostics only. */
typedef struct param_notes {
  int role_reported;    /* a role line naming it was rejected (its "no role" would cascade) */
  kloc init_loc;        /* the name in its `init` line */
  kloc *extent_loc;     /* where each extent's text starts (expression positions count from it) */
  int nextent, cap_extent;
  kloc lo_loc, hi_loc;  /* where the `init` bounds start */
} param_notes;

typedef struct parse_ctx {
  annot_set *as;
  kentry *e;
  diag *d;
  param_notes *notes;   /* one per parameter of e */
  annot_line *l;        /* the directive being parsed */
  const char *s;        /* its text */
  unsigned len;
} parse_ctx;

static void err_at(parse_ctx *p, unsigned off_in_dir, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void err_at(parse_ctx *p, unsigned off_in_dir, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = arena_vprintf(p->as->m->arena, fmt, ap);
  va_end(ap);
  unsigned col = p->l->dir_off + off_in_dir - p->l->line_off + 1;
  diag_report(p->d, DIAG_ERROR, p->as->m->path, p->l->line, col, "%s", msg);
}

static kloc here(parse_ctx *p, unsigned off_in_dir) {
  kloc k;
  k.begin = p->l->dir_off + off_in_dir;
  k.end = p->l->dir_off + p->len;
  k.line = p->l->line;
  k.col = k.begin - p->l->line_off + 1;
  return k;
}

/* Matches re against s[0..len) from start, within the directive being parsed. A PCRE2
 * failure is reported at the directive and returns a negative value: it must not read as
 * "no match", which would misreport the directive or drop part of it. */
static int dir_match(parse_ctx *p, pcre2_code *re, const char *s, size_t len, size_t start, match *mt) {
  int rc = rx_match(re, s, len, start, mt);
  if (rc < 0)
    err_at(p, 0, "cannot match this directive: %s", rx_error(p->as->m->arena, rc));
  return rc;
}

static kparam *find_param(kentry *e, const char *name, size_t n) {
  for (int i = 0; i < e->nparams; i++)
    if (strlen(e->params[i].name) == n && !strncmp(e->params[i].name, name, n))
      return &e->params[i];
  return NULL;
}

static param_notes *notes_of(parse_ctx *p, const kparam *kp) { return &p->notes[kp - p->e->params]; }

static const char *const type_names[] = {"float", "double", "half", "bfloat16", "int8",
                                          "uint8", "int32", "int64", "bool"};
static const ktype type_kinds[] = {KT_F32, KT_F64, KT_F16, KT_BF16, KT_I8, KT_U8, KT_I32, KT_I64, KT_BOOL};

/* Checks that every name in x is a scalar parameter (integer ones only when
 * int_only). */
typedef struct names_ctx {
  parse_ctx *p;
  unsigned base;        /* offset of the expression in the directive */
  int int_only;
  int bad;
} names_ctx;

static void check_name(void *ctx, const char *name, int pos) {
  names_ctx *nc = ctx;
  kparam *kp = find_param(nc->p->e, name, strlen(name));
  if (!kp) {
    err_at(nc->p, nc->base + (unsigned)pos, "unknown name '%s': not a parameter of '%s'", name,
           nc->p->e->name);
    nc->bad = 1;
  } else if (kp->scalar_index < 0) {
    err_at(nc->p, nc->base + (unsigned)pos,
           "'%s' is not a scalar parameter; expressions are over the entry's scalars", name);
    nc->bad = 1;
  } else if (nc->int_only && ktype_is_float(kp->type)) {
    /* Only a floating scalar: one of neither kind (a struct, a reference) was reported at
     * the parameter by add_entry, and naming it here is no second mistake. */
    err_at(nc->p, nc->base + (unsigned)pos, "'%s' is a floating parameter; an extent is an integer expression", name);
    nc->bad = 1;
  }
}

/* The first floating literal in x, or NULL. Recursive: expr.c bounds a tree's size
 * (MAX_NODES), hence its depth, so the recursion is shallow whatever the annotation. */
static const xexpr *find_float(const xexpr *x) {
  if (!x)
    return NULL;
  if (x->kind == XE_FLT)
    return x;
  const xexpr *f = find_float(x->a);
  if (!f)
    f = find_float(x->b);
  if (!f)
    f = find_float(x->c);
  return f;
}

/* Parses text at off (length len) of the directive as an expression. */
static xexpr *parse_expr_at(parse_ctx *p, unsigned off, unsigned len, int int_only) {
  const char *err;
  int errpos;
  while (len && (p->s[off + len - 1] == ' ' || p->s[off + len - 1] == '\t'))
    len--;
  if (!len) {
    err_at(p, off, "expected an expression");
    return NULL;
  }
  xexpr *x = xexpr_parse(p->as->m->arena, p->s + off, (int)len, &err, &errpos);
  if (!x) {
    err_at(p, off + (unsigned)errpos, "%s", err);
    return NULL;
  }
  names_ctx nc = {p, off, int_only, 0};
  xexpr_names(x, check_name, &nc);
  if (nc.bad)
    return NULL;
  /* Floating literals have no place in an extent. */
  const xexpr *f = int_only ? find_float(x) : NULL;
  if (f) {
    err_at(p, off + (unsigned)f->pos, "floating literal in an integer expression");
    return NULL;
  }
  return x;
}

/* After a role line is rejected, notes that its pointer was named in one, so that the
 * pointer is not also reported as having no role. The name is the line's first word,
 * which a malformed line may still have. */
static void role_rejected(parse_ctx *p, unsigned roff) {
  unsigned n = 0;
  while (roff + n < p->len && (p->s[roff + n] == '_' || (p->s[roff + n] >= 'a' && p->s[roff + n] <= 'z') ||
                               (p->s[roff + n] >= 'A' && p->s[roff + n] <= 'Z') ||
                               (n && p->s[roff + n] >= '0' && p->s[roff + n] <= '9')))
    n++;
  kparam *kp = n ? find_param(p->e, p->s + roff, n) : NULL;
  if (kp && kp->is_pointer)
    notes_of(p, kp)->role_reported = 1;
}

static void parse_role(parse_ctx *p, krole role, unsigned roff) {
  match mt;
  int rc = dir_match(p, re_buffer, p->s + roff, p->len - roff, 0, &mt);
  if (rc <= 0) {
    if (rc == 0)
      err_at(p, roff, "expected '%s NAME TYPE[EXTENT]...'", krole_name(role));
    role_rejected(p, roff);
    return;
  }
  unsigned noff = roff + (unsigned)mt.ov[2], nlen = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned toff = roff + (unsigned)mt.ov[4], tlen = (unsigned)(mt.ov[5] - mt.ov[4]);
  kparam *kp = find_param(p->e, p->s + noff, nlen);
  if (!kp) {
    err_at(p, noff, "unknown name '%.*s': not a parameter of '%s'", (int)nlen, p->s + noff, p->e->name);
    return;
  }
  if (!kp->is_pointer) {
    err_at(p, noff, "'%s' is not a pointer; only pointer parameters take in, out or inout", kp->name);
    return;
  }
  if (kp->role != KR_NONE) {
    err_at(p, noff, "'%s' already has a role ('%s' at line %u)", kp->name, krole_name(kp->role),
           kp->role_loc.line);
    return;
  }
  ktype elem = KT_UNKNOWN;
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (strlen(type_names[i]) == tlen && !strncmp(type_names[i], p->s + toff, tlen))
      elem = type_kinds[i];
  if (elem == KT_UNKNOWN) {
    err_at(p, toff, "unknown type '%.*s'; expected float, double, half, bfloat16, int8, uint8, "
           "int32, int64 or bool", (int)tlen, p->s + toff);
    notes_of(p, kp)->role_reported = 1;
    return;
  }
  /* The pointer's own element type must agree: void pointers take any, integers of one
   * size and either signedness agree. A pointee with no scalar type (a pointer, a
   * struct), which add_entry reports at the parameter, agrees with none. */
  if (kp->type != KT_VOID && kp->type != elem &&
      !(ktype_size(kp->type) == ktype_size(elem) && ktype_is_int(kp->type) && ktype_is_int(elem) &&
        kp->type != KT_BOOL && elem != KT_BOOL)) {
    err_at(p, toff, "'%s' is declared '%s' but annotated %s", kp->name, kp->type_spelling, ktype_name(elem));
    notes_of(p, kp)->role_reported = 1;
    return;
  }
  kp->role = role;
  kp->elem = elem;
  kp->role_loc = here(p, roff);
  /* Extents. */
  param_notes *pn = notes_of(p, kp);
  unsigned dims_off = roff + (unsigned)mt.ov[6], dims_end = roff + (unsigned)mt.ov[7];
  int cap = 0, capt = 0;
  size_t at = dims_off;
  match dm;
  while (at < dims_end && (rc = dir_match(p, re_dim, p->s, dims_end, at, &dm)) > 0) {
    unsigned eo = (unsigned)dm.ov[2], el = (unsigned)(dm.ov[3] - dm.ov[2]);
    xexpr *x = parse_expr_at(p, eo, el, 1);
    if (!x)
      return;
    *ARENA_PUSH(p->as->m->arena, kp->extents, kp->ndim, cap) = x;
    kp->ndim--;
    *ARENA_PUSH(p->as->m->arena, kp->extent_text, kp->ndim, capt) =
        arena_strndup(p->as->m->arena, p->s + eo, el);
    *ARENA_PUSH(p->as->m->arena, pn->extent_loc, pn->nextent, pn->cap_extent) = here(p, eo);
    at = dm.ov[1];
  }
}

/* The range of values a C integer type holds; 0 for types that are not integers (bool
 * takes any value: C converts it to true or false). */
static int int_range(ktype t, int64_t *lo, int64_t *hi) {
  switch (t) {
  case KT_I8: *lo = INT8_MIN; *hi = INT8_MAX; return 1;
  case KT_U8: *lo = 0; *hi = UINT8_MAX; return 1;
  case KT_I16: *lo = INT16_MIN; *hi = INT16_MAX; return 1;
  case KT_U16: *lo = 0; *hi = UINT16_MAX; return 1;
  case KT_I32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
  case KT_U32: *lo = 0; *hi = UINT32_MAX; return 1;
  case KT_I64: *lo = INT64_MIN; *hi = INT64_MAX; return 1;
  case KT_U64: *lo = 0; *hi = INT64_MAX; return 1; /* literals beyond are out of range anyway */
  default: return 0;
  }
}

/* Parses a literal value at vo (length vl), reporting a malformed or out-of-range one
 * with what (the kind of value expected). Returns 0 after an error. */
static int parse_value(parse_ctx *p, unsigned vo, unsigned vl, xvalue *v, const char *what) {
  errno = 0;
  if (xexpr_parse_literal(p->s + vo, (int)vl, v))
    return 1;
  if (errno == ERANGE)
    err_at(p, vo, "'%.*s' is out of range: %s", (int)vl, p->s + vo,
           v->is_float ? "too large for a double" : "too large for a 64-bit integer");
  else
    err_at(p, vo, "'%.*s' is not %s", (int)vl, p->s + vo, what);
  return 0;
}

static void parse_binding(parse_ctx *p, int is_tune, unsigned off) {
  kentry *e = p->e;
  arena *a = p->as->m->arena;
  kbinding *b = ARENA_PUSH(a, e->annot.bindings, e->annot.nbinding, e->annot.cap_binding);
  b->is_tune = is_tune;
  b->values = arena_alloc(a, sizeof *b->values * (size_t)(e->nscalar + 1));
  b->text = arena_strndup(a, p->s + off, p->len - off);
  b->loc = here(p, 0);
  char *seen = arena_alloc(a, (size_t)e->nscalar + 1);
  size_t at = off;
  match mt;
  int ok = 1;
  while (at < p->len) {
    int rc = dir_match(p, re_bind, p->s, p->len, at, &mt);
    if (rc < 0) {
      e->annot.nbinding--;
      return;
    }
    if (!rc) {
      size_t skip = at;
      while (skip < p->len && (p->s[skip] == ' ' || p->s[skip] == '\t'))
        skip++;
      if (skip == p->len)
        break;
      err_at(p, (unsigned)skip, "expected NAME=VALUE");
      e->annot.nbinding--;
      return;
    }
    unsigned no = (unsigned)mt.ov[2], nl = (unsigned)(mt.ov[3] - mt.ov[2]);
    at = mt.ov[1];
    kparam *kp = find_param(e, p->s + no, nl);
    if (!kp) {
      err_at(p, no, "unknown name '%.*s': not a parameter of '%s'", (int)nl, p->s + no, e->name);
      ok = 0;
      continue;
    }
    if (kp->scalar_index < 0) {
      err_at(p, no, "'%s' is not a scalar parameter; %s lines bind scalars", kp->name, is_tune ? "tune" : "check");
      ok = 0;
      continue;
    }
    if (seen[kp->scalar_index]) {
      err_at(p, no, "'%s' is bound twice on this line", kp->name);
      ok = 0;
      continue;
    }
    seen[kp->scalar_index] = 1;
    if (!has_group(&mt, 2)) {
      err_at(p, (unsigned)mt.ov[1] - 1, "'%s' has no value after '='", kp->name);
      ok = 0;
      continue;
    }
    unsigned vo = (unsigned)mt.ov[4], vl = (unsigned)(mt.ov[5] - mt.ov[4]);
    xvalue v;
    if (!parse_value(p, vo, vl, &v, "a C numeric literal")) {
      ok = 0;
      continue;
    }
    if (ktype_is_int(kp->type) && v.is_float) {
      err_at(p, vo, "'%s' is an integer parameter but is bound to '%.*s'", kp->name, (int)vl, p->s + vo);
      ok = 0;
      continue;
    }
    /* C would convert a value its type cannot hold (-4 to an unsigned) without a word;
     * the kernel would then run on a shape the binding does not say. */
    int64_t lo, hi;
    if (!v.is_float && int_range(kp->type, &lo, &hi) && (v.i < lo || v.i > hi)) {
      err_at(p, vo, "'%s' has type '%s', which cannot hold %.*s", kp->name, kp->type_spelling, (int)vl,
             p->s + vo);
      ok = 0;
      continue;
    }
    if (ktype_is_float(kp->type) && !v.is_float)
      v = (xvalue){1, 0, (double)v.i};
    b->values[kp->scalar_index] = v;
  }
  if (!ok) {
    e->annot.nbinding--;
    return;
  }
  for (int i = 0; i < e->nparams; i++)
    if (e->params[i].scalar_index >= 0 && !seen[e->params[i].scalar_index]) {
      err_at(p, 0, "scalar parameter '%s' is not bound on this %s line", e->params[i].name,
             is_tune ? "tune" : "check");
      ok = 0;
    }
  if (ok && is_tune)
    e->annot.ntune++;
  if (!ok)
    e->annot.nbinding--;
}

static void parse_init(parse_ctx *p, unsigned off) {
  match mt;
  int rc = dir_match(p, re_init, p->s + off, p->len - off, 0, &mt);
  if (rc < 0)
    return;
  if (!rc) {
    err_at(p, off, "expected 'init NAME DIST' with DIST normal, positive, uniform(LO,HI) or int(LO,HI)");
    return;
  }
  unsigned no = off + (unsigned)mt.ov[2], nl = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned dO = off + (unsigned)mt.ov[4], dl = (unsigned)(mt.ov[5] - mt.ov[4]);
  int has_args = has_group(&mt, 3);
  kparam *kp = find_param(p->e, p->s + no, nl);
  if (!kp) {
    err_at(p, no, "unknown name '%.*s': not a parameter of '%s'", (int)nl, p->s + no, p->e->name);
    return;
  }
  if (!kp->is_pointer) {
    err_at(p, no, "'%s' is not a buffer; init describes how a buffer's elements are drawn", kp->name);
    return;
  }
  if (kp->dist != KD_DEFAULT) {
    err_at(p, no, "'%s' already has an init line", kp->name);
    return;
  }
  static const struct {
    const char *name;
    kdist dist;
    int nargs;
  } dists[] = {{"normal", KD_NORMAL, 0}, {"positive", KD_POSITIVE, 0}, {"uniform", KD_UNIFORM, 2}, {"int", KD_INT, 2}};
  int which = -1;
  for (int i = 0; i < 4; i++)
    if (strlen(dists[i].name) == dl && !strncmp(dists[i].name, p->s + dO, dl))
      which = i;
  if (which < 0) {
    err_at(p, dO, "unknown distribution '%.*s'; expected normal, positive, uniform(LO,HI) or int(LO,HI)", (int)dl, p->s + dO);
    return;
  }
  param_notes *pn = notes_of(p, kp);
  if (!dists[which].nargs) {
    if (has_args) {
      err_at(p, dO, "'%s' takes no arguments", dists[which].name);
      return;
    }
    kp->dist = dists[which].dist;
    pn->init_loc = here(p, no);
    return;
  }
  if (!has_args) {
    err_at(p, dO, "'%s' needs bounds: %s(LO,HI)", dists[which].name, dists[which].name);
    return;
  }
  unsigned ao = off + (unsigned)mt.ov[6], ae = off + (unsigned)mt.ov[7];
  /* Split at the top-level comma. */
  int depth = 0;
  unsigned comma = 0;
  for (unsigned i = ao; i < ae; i++) {
    if (p->s[i] == '(')
      depth++;
    else if (p->s[i] == ')')
      depth--;
    else if (p->s[i] == ',' && depth == 0) {
      if (comma) {
        err_at(p, i, "'%s' takes two bounds", dists[which].name);
        return;
      }
      comma = i;
    }
  }
  if (!comma) {
    err_at(p, ao, "'%s' takes two bounds separated by a comma", dists[which].name);
    return;
  }
  while (ao < comma && (p->s[ao] == ' ' || p->s[ao] == '\t'))
    ao++;
  unsigned ho = comma + 1;
  while (ho < ae && (p->s[ho] == ' ' || p->s[ho] == '\t'))
    ho++;
  xexpr *lo = parse_expr_at(p, ao, comma - ao, 0);
  xexpr *hi = lo ? parse_expr_at(p, ho, ae - ho, 0) : NULL;
  if (!lo || !hi)
    return;
  kp->dist = dists[which].dist;
  kp->lo = lo;
  kp->hi = hi;
  pn->init_loc = here(p, no);
  pn->lo_loc = here(p, ao);
  pn->hi_loc = here(p, ho);
}

static void parse_tol(parse_ctx *p, unsigned off) {
  kannot *an = &p->e->annot;
  if (an->tol_loc.line) {
    err_at(p, 0, "a second tol line (the first is at line %u)", an->tol_loc.line);
    return;
  }
  size_t at = off;
  match mt;
  int any = 0, rc;
  double rtol = -1, atol = -1;
  while (at < p->len && (rc = dir_match(p, re_tol, p->s, p->len, at, &mt)) != 0) {
    if (rc < 0)
      return;
    unsigned ko = (unsigned)mt.ov[2];
    if (!has_group(&mt, 2)) {
      err_at(p, (unsigned)mt.ov[1] - 1, "'%.4s' has no value after '='", p->s + ko);
      return;
    }
    unsigned vo = (unsigned)mt.ov[4], vl = (unsigned)(mt.ov[5] - mt.ov[4]);
    xvalue v;
    if (!parse_value(p, vo, vl, &v, "a number"))
      return;
    double x = v.is_float ? v.f : (double)v.i;
    if (!(x >= 0)) {
      err_at(p, vo, "a tolerance is a non-negative number");
      return;
    }
    if (p->s[ko] == 'r')
      rtol = x;
    else
      atol = x;
    any = 1;
    at = mt.ov[1];
  }
  while (at < p->len && (p->s[at] == ' ' || p->s[at] == '\t'))
    at++;
  if (!any || at < p->len) {
    err_at(p, (unsigned)(any ? at : off), "expected 'tol rtol=R atol=A'");
    return;
  }
  an->rtol = rtol;
  an->atol = atol;
  an->tol_loc = here(p, 0);
}

/* `deterministic`: a flag with no arguments. */
static void parse_deterministic(parse_ctx *p, unsigned off) {
  kannot *an = &p->e->annot;
  size_t at = off;
  while (at < p->len && (p->s[at] == ' ' || p->s[at] == '\t'))
    at++;
  if (at < p->len) {
    err_at(p, (unsigned)at, "'deterministic' takes no arguments");
    return;
  }
  if (an->deterministic) {
    err_at(p, 0, "a second deterministic line (the first is at line %u)", an->deterministic_loc.line);
    return;
  }
  an->deterministic = 1;
  an->deterministic_loc = here(p, 0);
}

static void parse_directive(parse_ctx *p) {
  match mt;
  int rc = dir_match(p, re_word, p->s, p->len, 0, &mt);
  if (rc < 0)
    return;
  if (!rc) {
    err_at(p, 0, "expected a directive: in, out, inout, tune, check, assume, init, tol or deterministic");
    return;
  }
  unsigned kl = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned rest = (unsigned)mt.ov[1];
  const char *k = p->s;
#define IS(w) (kl == sizeof(w) - 1 && !strncmp(k, w, kl))
  if (IS("in"))
    parse_role(p, KR_IN, rest);
  else if (IS("out"))
    parse_role(p, KR_OUT, rest);
  else if (IS("inout"))
    parse_role(p, KR_INOUT, rest);
  else if (IS("tune") || IS("check"))
    parse_binding(p, IS("tune"), rest);
  else if (IS("assume")) {
    xexpr *x = parse_expr_at(p, rest, p->len - rest, 0);
    if (x) {
      kassume *as = ARENA_PUSH(p->as->m->arena, p->e->annot.assumes, p->e->annot.nassume, p->e->annot.cap_assume);
      as->expr = x;
      as->text = arena_strndup(p->as->m->arena, p->s + rest, p->len - rest);
      as->loc = here(p, rest);
    }
  } else if (IS("init"))
    parse_init(p, rest);
  else if (IS("tol"))
    parse_tol(p, rest);
  else if (IS("deterministic"))
    parse_deterministic(p, rest);
  else
    err_at(p, 0, "unknown directive '%.*s'; expected in, out, inout, tune, check, assume, init, tol or "
           "deterministic", (int)kl, k);
#undef IS
}

/* Binding evaluation. */

typedef struct eval_ctx {
  const kentry *e;
  const kbinding *b;
} eval_ctx;

static int lookup(void *ctx, const char *name, xvalue *v) {
  eval_ctx *ec = ctx;
  for (int i = 0; i < ec->e->nparams; i++)
    if (ec->e->params[i].scalar_index >= 0 && !strcmp(ec->e->params[i].name, name)) {
      *v = ec->b->values[ec->e->params[i].scalar_index];
      return 1;
    }
  return 0;
}

int annot_eval(const kentry *e, const kbinding *b, const xexpr *x, xvalue *out, arena *a,
               const char **err, int *errpos) {
  eval_ctx ec = {e, b};
  return xexpr_eval(x, lookup, &ec, out, a, err, errpos);
}

/* Reports at a directive's location, pos bytes into it. */
static void err_loc(kmodel *m, diag *d, kloc l, int pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void err_loc(kmodel *m, diag *d, kloc l, int pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = arena_vprintf(m->arena, fmt, ap);
  va_end(ap);
  diag_report(d, DIAG_ERROR, m->path, l.line, l.col + (unsigned)pos, "%s", msg);
}

/* Evaluation errors point at the operator that failed (pos counts from the start of the
 * expression's text), as a compiler's would. */
static void check_bindings(kmodel *m, kentry *e, const param_notes *notes, diag *d) {
  kannot *an = &e->annot;
  for (int bi = 0; bi < an->nbinding; bi++) {
    kbinding *b = &an->bindings[bi];
    const char *kw = b->is_tune ? "tune" : "check";
    const char *err;
    int pos;
    xvalue v;
    for (int i = 0; i < an->nassume; i++) {
      kassume *as = &an->assumes[i];
      if (!annot_eval(e, b, as->expr, &v, m->arena, &err, &pos))
        err_loc(m, d, as->loc, pos, "on the %s binding at line %u: %s", kw, b->loc.line, err);
      else if (v.is_float ? v.f == 0 : v.i == 0)
        err_loc(m, d, b->loc, 0, "this %s binding violates 'assume %s' (line %u)", kw, as->text, as->loc.line);
    }
    for (int i = 0; i < e->nparams; i++) {
      kparam *kp = &e->params[i];
      const param_notes *pn = &notes[i];
      for (int j = 0; j < kp->ndim; j++) {
        if (!annot_eval(e, b, kp->extents[j], &v, m->arena, &err, &pos))
          err_loc(m, d, pn->extent_loc[j], pos, "extent %d of '%s' on the %s binding at line %u: %s",
                  j + 1, kp->name, kw, b->loc.line, err);
        else if (v.is_float || v.i < 0)
          err_loc(m, d, kp->role_loc, 0, "extent %d of '%s' ('%s') is negative on the %s binding at line %u",
                  j + 1, kp->name, kp->extent_text[j], kw, b->loc.line);
      }
      if (kp->lo && kp->hi) {
        xvalue lo, hi;
        if (!annot_eval(e, b, kp->lo, &lo, m->arena, &err, &pos))
          err_loc(m, d, pn->lo_loc, pos, "init bound of '%s' on the %s binding at line %u: %s", kp->name,
                  kw, b->loc.line, err);
        else if (!annot_eval(e, b, kp->hi, &hi, m->arena, &err, &pos))
          err_loc(m, d, pn->hi_loc, pos, "init bound of '%s' on the %s binding at line %u: %s", kp->name,
                  kw, b->loc.line, err);
        else if ((lo.is_float ? lo.f : (double)lo.i) >= (hi.is_float ? hi.f : (double)hi.i))
          err_loc(m, d, b->loc, 0, "init bounds of '%s' are empty on this %s binding (LO >= HI)", kp->name, kw);
      }
    }
  }
}

void annot_entry(annot_set *as, annot_lines lines, kentry *e, diag *d) {
  kmodel *m = as->m;
  int before = diag_errors(d);
  e->annot.rtol = e->annot.atol = -1;
  e->annot.ndirective = lines.n;
  param_notes *notes = arena_alloc(m->arena, sizeof *notes * (size_t)(e->nparams + 1));
  for (int i = 0; i < lines.n; i++) {
    parse_ctx p = {as, e, d, notes, lines.v[i], m->text + lines.v[i]->dir_off, lines.v[i]->dir_len};
    parse_directive(&p);
  }
  /* Tune lines first: stable partition. */
  kbinding *sorted = arena_alloc(m->arena, sizeof *sorted * (size_t)(e->annot.nbinding + 1));
  int n = 0;
  for (int pass = 1; pass >= 0; pass--)
    for (int i = 0; i < e->annot.nbinding; i++)
      if (e->annot.bindings[i].is_tune == pass)
        sorted[n++] = e->annot.bindings[i];
  e->annot.bindings = sorted;
  e->annot.cap_binding = n;
  kannot *an = &e->annot;
  annot_line *first = lines.v[0];
  unsigned fcol = first->dir_off - first->line_off + 1;
  for (int i = 0; i < e->nparams; i++) {
    kparam *kp = &e->params[i];
    /* A pointer to what no buffer holds (pointers, structs) was reported at the
     * parameter by add_entry; its missing role would be the same mistake again. */
    int bad_pointee = kp->type != KT_VOID && !ktype_is_int(kp->type) && !ktype_is_float(kp->type);
    if (kp->is_pointer && kp->role == KR_NONE && !notes[i].role_reported && !bad_pointee)
      diag_report(d, DIAG_ERROR, m->path, kp->role_loc.line ? kp->role_loc.line : e->name_loc.line,
                  kp->role_loc.line ? kp->role_loc.col : e->name_loc.col,
                  "pointer parameter '%s' of '%s' has no in, out or inout directive", kp->name, e->name);
    if (kp->role == KR_OUT && kp->dist != KD_DEFAULT)
      diag_report(d, DIAG_ERROR, m->path, notes[i].init_loc.line, notes[i].init_loc.col,
                  "'%s' is an out buffer; init applies to in and inout buffers", kp->name);
  }
  if (an->ntune == 0 && diag_errors(d) == before)
    diag_report(d, DIAG_ERROR, m->path, first->line, fcol,
                "entry '%s' has no tune line; kfuse needs at least one binding to optimize for", e->name);
  if (diag_errors(d) == before)
    check_bindings(m, e, notes, d);
}
