/*
 * ledger.c: the decision ledger (ledger.h): kept while the passes run and the records are
 * read, written as JSON, and read back by `kfuse explain` through SQLite's JSON functions
 * (the records' SQLite, so no second JSON library).
 */
#include "ledger.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "json.h"

enum { LEDGER_VERSION = 1 };

void ledger_init(ledger *lg, arena *a) {
  memset(lg, 0, sizeof *lg);
  lg->a = a;
}

void ledger_free(ledger *lg) { sb_free(&lg->json); }

/* ---------------------------------------------------------------- collecting */

static void listen(void *ctx, const char *file, unsigned line, unsigned col, const char *text) {
  ledger *lg = ctx;
  (void)file;
  static const char tag[] = " [-Rpass-missed=";
  const char *at = strstr(text, tag);
  size_t n = at ? strlen(at) : 0;
  if (!at || at[n - 1] != ']')
    return; /* not a pass's refusal */
  const char *pass = arena_strndup(lg->a, at + sizeof tag - 1, n - (sizeof tag - 1) - 1);
  const char *why = arena_strndup(lg->a, text, (size_t)(at - text));
  for (int i = 0; i < lg->nrefused; i++) {
    const ledger_refusal *r = &lg->refused[i];
    if (r->line == line && r->col == col && !strcmp(r->pass, pass) && !strcmp(r->why, why))
      return; /* the same refusal from another combination of parameters */
  }
  *ARENA_PUSH(lg->a, lg->refused, lg->nrefused, lg->cap_refused) = (ledger_refusal){pass, line, col, why};
}

void ledger_listen(ledger *lg, diag *d) { diag_set_listener(d, lg ? listen : NULL, lg); }

void ledger_add_site(ledger *lg, const char *pass, int entry, const char *what) {
  *ARENA_PUSH(lg->a, lg->sites, lg->nsites, lg->cap_sites) = (ledger_site){pass, entry, what};
}

void ledger_add_made(ledger *lg, const char *recipe) {
  *ARENA_PUSH(lg->a, lg->made, lg->nmade, lg->cap_made) = recipe;
}

/* ---------------------------------------------------------------- verdicts */

typedef enum verdict { V_KEPT, V_FASTER, V_UNTIMED, V_SLOWER, V_FAILED, V_PRUNED, V_UNMEASURED, V_COUNT } verdict;
static const char *const verdict_names[] = {"kept", "faster but not the best", "verified but not re-timed",
                                            "slower", "failed", "pruned", "not measured"};

/* The verdict of one recipe from its rows (rows[0..n)), and why, in a's memory. */
static verdict judge(const rec_row *rows, int n, const char *applied, double *geomean, const char **why, arena *a) {
  double logsum = 0;
  int ntimed = 0;
  const rec_row *failed = NULL, *slower = NULL, *untimed = NULL;
  for (int i = 0; i < n; i++) {
    const rec_row *r = &rows[i];
    if (!strcmp(r->status, "failed") && !failed)
      failed = r;
    if (!strcmp(r->status, "slower") && !slower)
      slower = r;
    if (!strcmp(r->kind, "tune") && !strcmp(r->status, "ok") && !untimed)
      untimed = r;
    if (!strcmp(r->kind, "tune") && r->speedup > 0) {
      logsum += log(r->speedup);
      ntimed++;
    }
  }
  *geomean = ntimed ? exp(logsum / ntimed) : NAN;
  *why = NULL;
  if (failed && !strncmp(failed->reason, "pruned: ", 8)) {
    /* left out before running (the runner's static pruning): not a verifier's verdict */
    *why = failed->reason + 8;
    return V_PRUNED;
  }
  if (failed) {
    *why = arena_printf(a, "%s binding %s: %s", failed->kind, failed->binding, failed->reason);
    return V_FAILED;
  }
  if (slower) {
    *why = arena_printf(a, "slower on %s: %.3gx [95%% CI %.3g, %.3g]", slower->binding, slower->speedup,
                        slower->ci_lo, slower->ci_hi);
    return V_SLOWER;
  }
  if (applied && !strcmp(rows[0].recipe, applied))
    return V_KEPT;
  if (untimed) {
    *why = arena_printf(a, "verified; %s timed only in the first round (%.3gx there), not re-timed against "
                        "the reference as a final candidate", untimed->binding, untimed->speedup);
    return V_UNTIMED;
  }
  *why = "verified and faster; another variant's geometric mean was higher";
  return V_FASTER;
}

static void json_row(jw *w, const rec_row *r) {
  jw_open(w, NULL, '{');
  jw_str(w, "binding", r->binding);
  jw_str(w, "kind", r->kind);
  jw_str(w, "status", r->status);
  jw_num(w, "median_ms", r->median_ms, 6);
  jw_num(w, "speedup", r->speedup, 6);
  jw_num(w, "ci_lo", r->ci_lo, 6);
  jw_num(w, "ci_hi", r->ci_hi, 6);
  jw_str(w, "reason", r->reason);
  jw_str(w, "measured_at", r->measured_at);
  jw_close(w, '}');
}

static void json_variant(jw *w, const char *recipe, verdict v, double speedup, const char *why) {
  jw_open(w, NULL, '{');
  jw_str(w, "recipe", recipe);
  jw_str(w, "decision", verdict_names[v]);
  jw_num(w, "speedup", speedup, 4);
  jw_str(w, "why", why);
}

/* Writes the variant whose rows start at rows[at] (a run of one recipe); returns its
 * verdict. */
static verdict json_measured(jw *w, const rec_row *rows, int n, int at, const char *applied, arena *a) {
  int end = at;
  while (end < n && !strcmp(rows[end].recipe, rows[at].recipe))
    end++;
  double g;
  const char *why;
  verdict v = judge(&rows[at], end - at, applied, &g, &why, a);
  json_variant(w, rows[at].recipe, v, g, why);
  jw_open(w, "bindings", '[');
  for (int k = at; k < end; k++)
    json_row(w, &rows[k]);
  jw_close(w, ']');
  jw_close(w, '}');
  return v;
}

int ledger_build(ledger *lg, const kmodel *m, rec_db *db, const char *hash, const char *gpu,
                 const char *applied, const char *why, diag *d) {
  int ok = 1, count[V_COUNT] = {0};
  lg->json.len = 0;
  jw w = {.b = &lg->json, .pretty = 1};
  jw_open(&w, NULL, '{');
  jw_int(&w, "kfuse_ledger", LEDGER_VERSION);
  /* the file's name without its directory: the ledger, in the output, must not depend on
   * where the input was */
  const char *slash = strrchr(m->path, '/');
  jw_str(&w, "source", slash ? slash + 1 : m->path);
  jw_str(&w, "sha256", hash);
  jw_str(&w, "gpu", gpu);
  jw_str(&w, "applied", applied);
  jw_str(&w, "why_input", applied ? NULL : why);
  jw_open(&w, "entries", '[');
  for (int e = 0; e < m->nentries; e++) {
    jw_open(&w, NULL, '{');
    jw_str(&w, "entry", m->entries[e].name);
    jw_open(&w, "sites", '[');
    for (int i = 0; i < lg->nsites; i++)
      if (lg->sites[i].entry == e) {
        jw_open(&w, NULL, '{');
        jw_str(&w, "pass", lg->sites[i].pass);
        jw_str(&w, "at", lg->sites[i].what);
        jw_close(&w, '}');
      }
    jw_close(&w, ']');
    rec_row *rows = NULL;
    int n = db && gpu ? rec_rows(db, hash, m->entries[e].name, gpu, &rows, d) : 0;
    if (n < 0) {
      ok = 0;
      n = 0;
    }
    /* the passes' variants in the order they were made, then the other recipes the
     * records hold (the user's, older ones) in the records' order */
    jw_open(&w, "variants", '[');
    for (int k = 0; k < lg->nmade; k++) {
      int at = 0;
      while (at < n && strcmp(rows[at].recipe, lg->made[k]))
        at++;
      if (at < n) {
        count[json_measured(&w, rows, n, at, applied, lg->a)]++;
        continue;
      }
      count[V_UNMEASURED]++;
      json_variant(&w, lg->made[k], V_UNMEASURED, NAN,
                   gpu ? arena_printf(lg->a, "the records hold no measurement of it on %s", gpu)
                       : "no GPU model to look up in the records");
      jw_close(&w, '}');
    }
    for (int i = 0; i < n;) {
      int made = !strcmp(rows[i].recipe, "reference");
      for (int k = 0; k < lg->nmade && !made; k++)
        made = !strcmp(rows[i].recipe, lg->made[k]);
      if (!made)
        count[json_measured(&w, rows, n, i, applied, lg->a)]++;
      while (i + 1 < n && !strcmp(rows[i + 1].recipe, rows[i].recipe))
        i++;
      i++;
    }
    jw_close(&w, ']');
    jw_close(&w, '}');
  }
  jw_close(&w, ']');
  jw_open(&w, "refused", '[');
  for (int i = 0; i < lg->nrefused; i++) {
    const ledger_refusal *r = &lg->refused[i];
    jw_open(&w, NULL, '{');
    jw_str(&w, "pass", r->pass);
    jw_int(&w, "line", r->line);
    jw_int(&w, "col", r->col);
    jw_str(&w, "why", r->why);
    jw_close(&w, '}');
  }
  jw_close(&w, ']');

  strbuf s = {0};
  int nv = 0;
  for (int v = 0; v < V_COUNT; v++)
    nv += count[v];
  sb_printf(&s, "%d site%s applied, %d refused; %d variant%s", lg->nsites, lg->nsites == 1 ? "" : "s",
            lg->nrefused, nv, nv == 1 ? "" : "s");
  const char *sep = ": ";
  for (int v = 0; v < V_COUNT; v++)
    if (count[v]) {
      sb_printf(&s, "%s%d %s", sep, count[v], verdict_names[v]);
      sep = ", ";
    }
  if (m->nentries > 1)
    sb_printf(&s, " (over %d entries)", m->nentries);
  lg->summary = arena_strdup(lg->a, s.s);
  sb_free(&s);
  jw_str(&w, "summary", lg->summary);
  jw_close(&w, '}');
  sb_putc(&lg->json, '\n');
  jw_free(&w);
  return ok;
}

void ledger_append_comment(const ledger *lg, strbuf *out) {
  if (out->len && out->s[out->len - 1] != '\n')
    sb_putc(out, '\n');
  sb_puts(out, "\n// kfuse-ledger-json (kfuse explain prints it)\n");
  const char *p = lg->json.s ? lg->json.s : "";
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    sb_puts(out, "// ");
    sb_putn(out, p, n);
    sb_putc(out, '\n');
    p += n + (nl != NULL);
  }
}

/* ---------------------------------------------------------------- explain */

static char *dup_n(const char *s, size_t n) {
  char *t = xmalloc(n + 1);
  memcpy(t, s, n);
  t[n] = 0;
  return t;
}

/* The ledger's JSON in text: the whole file when it is one (starts with '{'), else the
 * comment lines under `// kfuse-ledger-json`. *line: where it starts. NULL when none. */
static char *find_document(const char *text, size_t n, unsigned *line) {
  size_t i = 0;
  while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  if (i < n && text[i] == '{') {
    *line = 1;
    return dup_n(text, n);
  }
  static const char mark[] = "// kfuse-ledger-json";
  unsigned ln = 1;
  for (size_t p = 0; p < n;) {
    const char *nl = memchr(text + p, '\n', n - p);
    size_t e = nl ? (size_t)(nl - text) : n;
    if (e - p >= sizeof mark - 1 && !memcmp(text + p, mark, sizeof mark - 1)) {
      strbuf b = {0};
      *line = ln + 1;
      for (p = e + 1; p < n;) {
        nl = memchr(text + p, '\n', n - p);
        e = nl ? (size_t)(nl - text) : n;
        if (e - p < 2 || text[p] != '/' || text[p + 1] != '/')
          break;
        size_t skip = e - p >= 3 && text[p + 2] == ' ' ? 3 : 2;
        sb_putn(&b, text + p + skip, e - p - skip);
        sb_putc(&b, '\n');
        p = e + 1;
      }
      char *s = dup_n(b.s ? b.s : "", b.len);
      sb_free(&b);
      return s;
    }
    ln++;
    p = e + 1;
  }
  return NULL;
}

typedef struct reader {
  sqlite3 *sql;
  const char *doc;
} reader;

/* Runs sql with ?1 bound to json; the caller steps and finalizes. */
static sqlite3_stmt *query(reader *r, const char *sql, const char *json) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(r->sql, sql, -1, &st, NULL) != SQLITE_OK)
    return NULL;
  sqlite3_bind_text(st, 1, json, -1, SQLITE_TRANSIENT);
  return st;
}

static const char *col(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

static void print_variants(reader *r, const char *entry_json, FILE *out) {
  sqlite3_stmt *st = query(r,
                           "SELECT json_extract(value, '$.decision'), json_extract(value, '$.recipe'),"
                           " json_extract(value, '$.speedup'), json_extract(value, '$.why')"
                           " FROM json_each(?1, '$.variants')",
                           entry_json);
  int any = 0;
  char *last_why = NULL;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    if (!any++)
      fprintf(out, "  variants (the latest measurement of each):\n");
    fprintf(out, "    %-25s %s", col(st, 0), col(st, 1));
    if (sqlite3_column_type(st, 2) != SQLITE_NULL)
      fprintf(out, "  %.3gx", sqlite3_column_double(st, 2));
    fputc('\n', out);
    /* a reason the variant before had too (every unmeasured one) is said once */
    if (sqlite3_column_type(st, 3) != SQLITE_NULL && (!last_why || strcmp(last_why, col(st, 3))))
      fprintf(out, "      %s\n", col(st, 3));
    free(last_why);
    last_why = sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL : dup_n(col(st, 3), strlen(col(st, 3)));
  }
  free(last_why);
  if (!any)
    fprintf(out, "  variants: none made or measured\n");
  sqlite3_finalize(st);
}

static void print_sites(reader *r, const char *entry_json, FILE *out) {
  sqlite3_stmt *st = query(r,
                           "SELECT json_extract(value, '$.pass'), json_extract(value, '$.at')"
                           " FROM json_each(?1, '$.sites')",
                           entry_json);
  int any = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    if (!any++)
      fprintf(out, "  sites the passes applied at (default parameters):\n");
    fprintf(out, "    %s: %s\n", col(st, 0), col(st, 1));
  }
  if (!any)
    fprintf(out, "  sites the passes applied at: none\n");
  sqlite3_finalize(st);
}

int ledger_explain(const char *path, FILE *out, diag *d) {
  size_t n = 0;
  char *text = bundle_slurp(path, &n, d);
  if (!text)
    return 0;
  unsigned line = 0;
  char *doc = find_document(text, n, &line);
  free(text);
  if (!doc) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "no kfuse ledger here: an output that applies a variant carries one "
                "(`// kfuse-ledger-json`), and `kfuse IN.cu -o OUT.cu --ledger FILE` writes one");
    return 0;
  }
  reader r = {NULL, doc};
  int ok = 0;
  if (sqlite3_open_v2(":memory:", &r.sql, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open SQLite to read the ledger");
    goto done;
  }
  sqlite3_stmt *st = query(&r,
                           "SELECT json_valid(?1), json_extract(?1, '$.kfuse_ledger'), json_type(?1, '$.entries'),"
                           " json_type(?1, '$.refused'), json_extract(?1, '$.source'), json_extract(?1, '$.sha256'),"
                           " json_extract(?1, '$.gpu'), json_extract(?1, '$.applied'),"
                           " json_extract(?1, '$.why_input'), json_extract(?1, '$.summary')",
                           doc);
  if (!st || sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_int(st, 0)) {
    diag_report(d, DIAG_ERROR, path, line, 1, "the kfuse ledger is not valid JSON");
    sqlite3_finalize(st);
    goto done;
  }
  if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || sqlite3_column_int(st, 1) != LEDGER_VERSION ||
      strcmp(col(st, 2), "array") || strcmp(col(st, 3), "array")) {
    diag_report(d, DIAG_ERROR, path, line, 1, "not a kfuse ledger of version %d (\"kfuse_ledger\": %d, with "
                "\"entries\" and \"refused\" arrays)", LEDGER_VERSION, LEDGER_VERSION);
    sqlite3_finalize(st);
    goto done;
  }
  fprintf(out, "kfuse ledger of %s (sha256 %.12s...)", col(st, 4), col(st, 5));
  if (sqlite3_column_type(st, 6) != SQLITE_NULL)
    fprintf(out, " on %s", col(st, 6));
  fputc('\n', out);
  if (sqlite3_column_type(st, 7) != SQLITE_NULL)
    fprintf(out, "applied: %s\n", col(st, 7));
  else
    fprintf(out, "applied: nothing, the output is the input: %s\n", col(st, 8));
  fprintf(out, "summary: %s\n", col(st, 9));
  const char *source = sqlite3_column_type(st, 4) == SQLITE_NULL ? path : dup_n(col(st, 4), strlen(col(st, 4)));
  sqlite3_finalize(st);

  st = query(&r, "SELECT json_extract(value, '$.entry'), value FROM json_each(?1, '$.entries')", doc);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    fprintf(out, "entry %s:\n", col(st, 0));
    char *entry_json = dup_n(col(st, 1), strlen(col(st, 1)));
    print_sites(&r, entry_json, out);
    print_variants(&r, entry_json, out);
    free(entry_json);
  }
  sqlite3_finalize(st);

  st = query(&r,
             "SELECT json_extract(value, '$.pass'), json_extract(value, '$.line'), json_extract(value, '$.col'),"
             " json_extract(value, '$.why') FROM json_each(?1, '$.refused')",
             doc);
  int any = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    if (!any++)
      fprintf(out, "refused (the passes' -Rpass-missed remarks):\n");
    fprintf(out, "  %s:%s:%s: %s: %s\n", source, col(st, 1), col(st, 2), col(st, 0), col(st, 3));
  }
  if (!any)
    fprintf(out, "refused: nothing\n");
  sqlite3_finalize(st);
  if (source != path)
    free((char *)source);
  ok = 1;
done:
  sqlite3_close(r.sql);
  free(doc);
  return ok;
}
