/*
 * records.c: tuning records in SQLite (records.h; docs/records.md has the schema).
 *
 * An import reads the bundle's manifest, its variants' sources and the runner's two result
 * files, checks every line against the format (docs/bundle-format.md), and only then
 * writes, in one IMMEDIATE transaction, so that a malformed bundle writes nothing and
 * concurrent imports queue behind the busy timeout instead of failing. A run is identified
 * by the SHA-256 of those files: importing the same files again finds the run and stops.
 * Measurements are unique per key; where a key was measured before, the row of the run
 * measured later (results.tsv's time) is kept.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "records.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "bundle.h"

/* How long a writer waits for another's transaction before giving up (milliseconds). */
#define BUSY_TIMEOUT_MS 60000

struct rec_db {
  sqlite3 *sql;
  char *path;     /* as given to rec_open, for messages */
  diag *d;        /* rec_open's, for rec_dump */
  arena *strings; /* the strings of rec_choice results */
};

/* Re-verifications of recorded variants (docs/records.md, "Verifier versions and
 * quarantine"): the latest check of a recipe on a GPU model, by which verifier. A
 * quarantined recipe is kept and never chosen again; an ok row never replaces it. */
#define VERIFICATION_SQL                                                                     \
  "CREATE TABLE verification (\n"                                                           \
  "  source_hash TEXT NOT NULL,\n"                                                          \
  "  recipe TEXT NOT NULL,\n"                                                               \
  "  gpu TEXT NOT NULL,\n"                                                                  \
  "  verifier_version INTEGER NOT NULL,\n"                                                  \
  "  status TEXT NOT NULL CHECK (status IN ('ok', 'quarantined')),\n"                      \
  "  reason TEXT NOT NULL,\n"                                                               \
  "  checked_at TEXT NOT NULL,\n"                                                           \
  "  PRIMARY KEY (source_hash, recipe, gpu)\n"                                              \
  ");\n"

/* The schema, version 2 (version 1 lacked run.verifier_version and the verification
 * table; rec_open migrates it). Key columns hold '' rather than NULL for a missing value, so that
 * the UNIQUE key also matches rows with missing values. */
static const char schema_sql[] =
    "CREATE TABLE run (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  digest TEXT NOT NULL UNIQUE,\n"         /* SHA-256 of the files imported */
    "  measured_at TEXT NOT NULL,\n"           /* device.tsv's measured_at, else results.tsv's mtime, ISO 8601 UTC */
    "  imported_at TEXT NOT NULL,\n"
    "  bundle TEXT NOT NULL,\n"
    "  source_name TEXT NOT NULL,\n"
    "  source_hash TEXT NOT NULL,\n"
    "  libs TEXT NOT NULL,\n"
    "  gpu TEXT NOT NULL,\n"
    "  sm_count INTEGER NOT NULL,\n"
    "  compute_capability TEXT NOT NULL,\n"
    "  driver_version TEXT NOT NULL,\n"
    "  cuda_driver_version TEXT NOT NULL,\n"
    "  runtime_version TEXT NOT NULL,\n"
    "  nvcc_version TEXT NOT NULL,\n"
    "  nvcc_flags TEXT NOT NULL,\n"
    "  l2_bytes INTEGER,\n"
    "  memory_bytes INTEGER,\n"
    "  verifier_version INTEGER NOT NULL DEFAULT 0\n" /* device.tsv's; 0: a runner before versions */
    ");\n"
    "CREATE TABLE measurement (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
    "  source_hash TEXT NOT NULL,\n"
    "  entry TEXT NOT NULL,\n"
    "  recipe TEXT NOT NULL,\n"
    "  binding TEXT NOT NULL,\n"
    "  gpu TEXT NOT NULL,\n"
    "  sm_count INTEGER NOT NULL,\n"
    "  driver_version TEXT NOT NULL,\n"
    "  nvcc_version TEXT NOT NULL,\n"
    "  nvcc_flags TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  variant_file TEXT NOT NULL,\n"
    "  kind TEXT NOT NULL CHECK (kind IN ('tune', 'check')),\n"
    "  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'slower', 'faster')),\n"
    "  reason TEXT NOT NULL,\n"
    "  median_ms REAL, p10_ms REAL, p90_ms REAL, mad_ms REAL, reps INTEGER,\n"
    "  speedup REAL, ci_lo REAL, ci_hi REAL,\n"
    "  UNIQUE (source_hash, entry, recipe, binding, gpu, sm_count, driver_version,\n"
    "          nvcc_version, nvcc_flags)\n"
    ");\n"
    "CREATE INDEX measurement_lookup ON measurement (source_hash, entry, gpu, sm_count);\n"
    "CREATE INDEX measurement_run ON measurement (run_id);\n"
    "CREATE TABLE source_text (\n"
    "  sha256 TEXT PRIMARY KEY,\n"
    "  text BLOB NOT NULL\n"
    ");\n"
    "CREATE TABLE run_variant (\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
    "  name TEXT NOT NULL,\n"
    "  file TEXT NOT NULL,\n"
    "  recipe TEXT NOT NULL,\n"
    "  text_sha256 TEXT NOT NULL REFERENCES source_text(sha256),\n"
    "  PRIMARY KEY (run_id, name)\n"
    ");\n"
    "CREATE INDEX run_variant_recipe ON run_variant (recipe);\n" VERIFICATION_SQL;

/* ------------------------------------------------------------------ SQLite helpers */

/* Reports SQLite's last error on db as `what`; returns 0. */
static int sql_fail(const rec_db *db, diag *d, const char *what) {
  diag_report(d, DIAG_ERROR, db->path, 0, 0, "%s: %s", what, sqlite3_errmsg(db->sql));
  return 0;
}

static int exec(rec_db *db, diag *d, const char *sql) {
  if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
    return sql_fail(db, d, "records database");
  return 1;
}

static sqlite3_stmt *prepare(rec_db *db, diag *d, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
    sql_fail(db, d, "records database");
    return NULL;
  }
  return st;
}

/* Binds s, or NULL when s is NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s)
    sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, i);
}

/* Binds x, or NULL when null. */
static void bind_real(sqlite3_stmt *st, int i, double x, int null) {
  if (null)
    sqlite3_bind_null(st, i);
  else
    sqlite3_bind_double(st, i, x);
}

static void bind_int(sqlite3_stmt *st, int i, long long x, int null) {
  if (null)
    sqlite3_bind_null(st, i);
  else
    sqlite3_bind_int64(st, i, x);
}

/* Column i as text ("" for NULL), copied into a. */
static const char *col_text(arena *a, sqlite3_stmt *st, int i) {
  const unsigned char *s = sqlite3_column_text(st, i);
  return arena_strdup(a, s ? (const char *)s : "");
}

/* ------------------------------------------------------------------ open and close */

/* Switches db to WAL mode. The switch takes an exclusive lock and, when another process
 * holds one (two processes creating one new database at once), fails at once with
 * SQLITE_BUSY instead of waiting in the busy handler: so wait here, as long as that. */
static int set_wal(rec_db *db, diag *d) {
  const struct timespec pause = {0, 10 * 1000 * 1000};
  for (int waited = 0;; waited += 10) {
    int rc = sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
      return 1;
    if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
      return sql_fail(db, d, "records database");
    nanosleep(&pause, NULL);
  }
}

/* Creates the missing directories above path (the default records live in ~/.cache/kfuse/,
 * which may not exist yet). A failure shows when SQLite opens the file. */
static void make_parents(const char *path) {
  char *p = xmalloc(strlen(path) + 1);
  strcpy(p, path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      mkdir(p, 0777);
      *s = '/';
    }
  free(p);
}

/* The database's PRAGMA user_version (0 for a new database), or INT_MIN after reporting. */
static int schema_version(rec_db *db, diag *d) {
  sqlite3_stmt *st = prepare(db, d, "PRAGMA user_version");
  int version = INT_MIN;
  if (st && sqlite3_step(st) == SQLITE_ROW)
    version = sqlite3_column_int(st, 0);
  else if (st)
    sql_fail(db, d, "records database");
  sqlite3_finalize(st);
  return version;
}

rec_db *rec_open(const char *path, diag *d) {
  rec_db *db = xmalloc(sizeof *db);
  db->sql = NULL;
  db->path = xmalloc(strlen(path) + 1);
  strcpy(db->path, path);
  db->d = d;
  db->strings = arena_new();
  make_parents(path);
  if (sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
      SQLITE_OK) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open records database: %s",
                db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
    goto fail;
  }
  sqlite3_extended_result_codes(db->sql, 1);
  sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
  /* foreign_keys is per connection; WAL (stored in the file) lets readers go on while one
   * process writes, and makes a commit cheap (synchronous = NORMAL). */
  if (!exec(db, d, "PRAGMA foreign_keys = ON") || !set_wal(db, d) ||
      !exec(db, d, "PRAGMA synchronous = NORMAL"))
    goto fail;
  int version = schema_version(db, d);
  if (version == 0) {
    /* A new database. Create the schema under the write lock, reading the version again
     * there, so that of two processes opening a new database at once, one creates it and
     * the other finds it. */
    if (!exec(db, d, "BEGIN IMMEDIATE"))
      goto fail;
    version = schema_version(db, d);
    int ok = version != INT_MIN;
    if (version == 0) {
      char sql[64];
      snprintf(sql, sizeof sql, "PRAGMA user_version = %d", REC_SCHEMA_VERSION);
      ok = exec(db, d, schema_sql) && exec(db, d, sql);
      version = REC_SCHEMA_VERSION;
    }
    if (!ok || !exec(db, d, "COMMIT")) {
      sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
      goto fail;
    }
  }
  if (version == 1) {
    /* Schema 1 to 2, under the write lock, reading the version again there. */
    if (!exec(db, d, "BEGIN IMMEDIATE"))
      goto fail;
    version = schema_version(db, d);
    int ok = version != INT_MIN;
    if (version == 1) {
      char sql[64];
      snprintf(sql, sizeof sql, "PRAGMA user_version = %d", REC_SCHEMA_VERSION);
      ok = exec(db, d, "ALTER TABLE run ADD COLUMN verifier_version INTEGER NOT NULL DEFAULT 0") &&
           exec(db, d, VERIFICATION_SQL) && exec(db, d, sql);
      version = REC_SCHEMA_VERSION;
    }
    if (!ok || !exec(db, d, "COMMIT")) {
      sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
      goto fail;
    }
  }
  if (version == INT_MIN)
    goto fail;
  if (version != REC_SCHEMA_VERSION) {
    diag_report(d, DIAG_ERROR, path, 0, 0,
                "records database has schema version %d; this kfuse reads version %d", version,
                REC_SCHEMA_VERSION);
    goto fail;
  }
  return db;
fail:
  rec_close(db);
  return NULL;
}

void rec_close(rec_db *db) {
  if (!db)
    return;
  sqlite3_close_v2(db->sql);
  arena_free(db->strings);
  free(db->path);
  free(db);
}

/* ------------------------------------------------------------------ reading the bundle */

/* A file of the bundle, read whole, NUL-terminated. */
typedef struct text_file {
  char *path; /* DIR/NAME, for messages */
  char *text;
  size_t len;
} text_file;

static int read_text(arena *a, const char *dir, const char *name, text_file *f, diag *d) {
  size_t n = strlen(dir);
  f->path = arena_printf(a, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
  FILE *in = fopen(f->path, "rb");
  if (!in) {
    int missing = errno == ENOENT && (!strcmp(name, "results.tsv") || !strcmp(name, "device.tsv"));
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "cannot read: %s%s", strerror(errno),
                missing ? " (has kfuse-runner run on this bundle?)" : "");
    return 0;
  }
  strbuf b = {0};
  char chunk[8192];
  for (;;) {
    size_t got = fread(chunk, 1, sizeof chunk, in);
    sb_putn(&b, chunk, got);
    if (got < sizeof chunk)
      break;
  }
  int bad = ferror(in);
  fclose(in);
  f->len = b.len;
  f->text = arena_strndup(a, b.s ? b.s : "", b.len);
  sb_free(&b);
  if (bad) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "cannot read: read error");
    return 0;
  }
  if (memchr(f->text, '\0', f->len)) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "not a text file (it holds a NUL byte)");
    return 0;
  }
  return 1;
}

/* Cuts the next line off *p (in place), without its newline or a trailing CR; NULL at the
 * end. A final line without a newline counts; the empty rest after the last newline does
 * not. */
static char *next_line(char **p) {
  char *s = *p;
  if (!*s)
    return NULL;
  char *nl = strchr(s, '\n');
  if (nl) {
    *nl = '\0';
    *p = nl + 1;
  } else {
    *p = s + strlen(s);
  }
  size_t n = strlen(s);
  if (n && s[n - 1] == '\r')
    s[n - 1] = '\0';
  return s;
}

static char *skip_space(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

static void trim_end(char *s) {
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1]))
    s[--n] = '\0';
}

/* Cuts the first word off *p: returns it, leaves *p at the rest (spaces skipped). */
static char *cut_word(char **p) {
  char *s = skip_space(*p), *e = s;
  while (*e && *e != ' ' && *e != '\t')
    e++;
  if (*e)
    *e++ = '\0';
  *p = skip_space(e);
  return s;
}

/* ---- manifest.txt */

typedef struct mvariant {
  const char *name, *file, *recipe;
  unsigned line;
  text_file src;   /* the file, read by read_sources */
  char sha256[65]; /* its hash */
} mvariant;

typedef struct mbinding {
  const char *text;
  int is_tune;
} mbinding;

typedef struct mentry {
  const char *name;
  mbinding *bindings;
  int nbinding, capbinding;
} mentry;

/* The lines of manifest.txt that records need (the others are for people). */
typedef struct manifest {
  const char *source_name, *source_hash; /* `source NAME HASH` */
  const char *libs;                      /* `libs ...`, "" when absent */
  const char *nvcc_flags;                /* `nvcc_flags ...`, NULL when absent */
  mvariant *variants;
  int nvariant, capvariant;
  mentry *entries;
  int nentry, capentry;
} manifest;

static const mvariant *find_variant(const manifest *m, const char *name) {
  for (int i = 0; i < m->nvariant; i++)
    if (!strcmp(m->variants[i].name, name))
      return &m->variants[i];
  return NULL;
}

static const mentry *find_entry(const manifest *m, const char *name) {
  for (int i = 0; i < m->nentry; i++)
    if (!strcmp(m->entries[i].name, name))
      return &m->entries[i];
  return NULL;
}

static int is_hex64(const char *s) {
  int n = 0;
  for (; isxdigit((unsigned char)*s); s++)
    n++;
  return n == 64 && !*s;
}

static char *lower(char *s) {
  for (char *p = s; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  return s;
}

/* Parses manifest.txt: `kfuse-bundle 1` first, then (in any order) `source NAME HASH`,
 * `libs FLAGS...`, `nvcc_flags FLAGS...`, `variant NAME FILE RECIPE...` and `entry NAME`,
 * the entry followed by indented `tune TEXT` and `check TEXT` lines. Other lines are
 * ignored. */
static int parse_manifest(arena *a, text_file *f, manifest *m, diag *d) {
  memset(m, 0, sizeof *m);
  m->libs = "";
  char *p = f->text, *s;
  unsigned line = 0, source_line = 0;
  int seen_version = 0, seen_libs = 0;
  mentry *cur = NULL;
  while ((s = next_line(&p))) {
    line++;
    trim_end(s);
    if (!*s)
      continue;
    if (*s == ' ' || *s == '\t') {
      /* A detail line: entries' bindings matter, the rest is for people. */
      char *rest = s;
      char *word = cut_word(&rest);
      if (cur && (!strcmp(word, "tune") || !strcmp(word, "check"))) {
        if (!*rest) {
          diag_report(d, DIAG_ERROR, f->path, line, 0, "'%s' without a binding", word);
          return 0;
        }
        mbinding *b = ARENA_PUSH(a, cur->bindings, cur->nbinding, cur->capbinding);
        b->text = rest;
        b->is_tune = word[0] == 't';
      }
      continue;
    }
    const char *whole = seen_version ? s : arena_strdup(a, s);
    char *rest = s;
    char *word = cut_word(&rest);
    cur = NULL;
    if (!seen_version) {
      if (strcmp(word, "kfuse-bundle") != 0) {
        diag_report(d, DIAG_ERROR, f->path, line, 0,
                    "not a manifest written by kfuse: expected 'kfuse-bundle 1', found '%s'",
                    whole);
        return 0;
      }
      if (strcmp(rest, "1") != 0) {
        diag_report(d, DIAG_ERROR, f->path, line, 0,
                    "bundle format version '%s'; this kfuse reads version 1", rest);
        return 0;
      }
      seen_version = 1;
    } else if (!strcmp(word, "kfuse-bundle")) {
      diag_report(d, DIAG_ERROR, f->path, line, 0, "a second 'kfuse-bundle' line");
      return 0;
    } else if (!strcmp(word, "source")) {
      char *hash = strrchr(rest, ' ');
      char *tab = strrchr(rest, '\t');
      if (tab > hash)
        hash = tab;
      if (source_line) {
        diag_report(d, DIAG_ERROR, f->path, line, 0,
                    "a second 'source' line (the first is line %u)", source_line);
        return 0;
      }
      if (!hash || !is_hex64(hash + 1)) {
        diag_report(d, DIAG_ERROR, f->path, line, 0,
                    "expected 'source NAME SHA256', the hash as 64 hex digits");
        return 0;
      }
      *hash = '\0';
      trim_end(rest);
      m->source_name = rest;
      m->source_hash = lower(hash + 1);
      source_line = line;
    } else if (!strcmp(word, "libs")) {
      if (seen_libs++) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "a second 'libs' line");
        return 0;
      }
      m->libs = rest;
    } else if (!strcmp(word, "nvcc_flags")) {
      if (m->nvcc_flags) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "a second 'nvcc_flags' line");
        return 0;
      }
      m->nvcc_flags = rest;
    } else if (!strcmp(word, "variant")) {
      char *name = cut_word(&rest);
      char *file = cut_word(&rest);
      if (!*name || !*file || !*rest) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "expected 'variant NAME FILE RECIPE'");
        return 0;
      }
      const mvariant *old = find_variant(m, name);
      if (old) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "variant '%s' again (line %u)", name,
                    old->line);
        return 0;
      }
      for (int i = 0; i < m->nvariant; i++)
        if (!strcmp(m->variants[i].recipe, rest)) {
          diag_report(d, DIAG_ERROR, f->path, line, 0,
                      "variant '%s' has the recipe of variant '%s' (line %u); records are keyed "
                      "by recipe",
                      name, m->variants[i].name, m->variants[i].line);
          return 0;
        }
      mvariant *v = ARENA_PUSH(a, m->variants, m->nvariant, m->capvariant);
      v->name = name;
      v->file = file;
      v->recipe = rest;
      v->line = line;
    } else if (!strcmp(word, "entry")) {
      /* `entry NAME`, possibly followed by more (a parameter list). */
      char *e = rest;
      while (isalnum((unsigned char)*e) || *e == '_')
        e++;
      if (e == rest) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "expected 'entry NAME'");
        return 0;
      }
      *e = '\0';
      if (find_entry(m, rest)) {
        diag_report(d, DIAG_ERROR, f->path, line, 0, "entry '%s' again", rest);
        return 0;
      }
      cur = ARENA_PUSH(a, m->entries, m->nentry, m->capentry);
      cur->name = rest;
    }
  }
  if (!seen_version) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "empty manifest: expected 'kfuse-bundle 1'");
    return 0;
  }
  if (!source_line) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "no 'source NAME SHA256' line");
    return 0;
  }
  if (!m->nvariant) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "no 'variant' line");
    return 0;
  }
  return 1;
}

/* Reads every variant's source: a plain file of the bundle directory. */
static int read_sources(arena *a, const char *dir, text_file *man, manifest *m, diag *d) {
  for (int i = 0; i < m->nvariant; i++) {
    mvariant *v = &m->variants[i];
    if (strchr(v->file, '/') || !strcmp(v->file, ".") || !strcmp(v->file, "..")) {
      diag_report(d, DIAG_ERROR, man->path, v->line, 0,
                  "variant '%s': '%s' is not a file name of the bundle directory", v->name,
                  v->file);
      return 0;
    }
    if (!read_text(a, dir, v->file, &v->src, d))
      return 0;
    bundle_sha256(v->src.text, v->src.len, v->sha256);
  }
  return 1;
}

/* ---- the .tsv files */

/* A tab-separated file: the header's column names and the rows, fields unescaped. */
typedef struct tsv {
  const char *path;
  char **names;
  int ncol;
  char ***rows;
  unsigned *lines; /* each row's line in the file */
  int nrow, caprow, nline, capline;
} tsv;

/* Undoes the runner's escapes (\t \n \r \\) in place. */
static void unescape(char *s) {
  char *o = s;
  for (; *s; s++) {
    if (*s == '\\' && s[1]) {
      s++;
      *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
    } else {
      *o++ = *s;
    }
  }
  *o = '\0';
}

/* Splits line at tabs into a new array of fields; returns their count. */
static int split_tabs(arena *a, char *line, char ***out) {
  int n = 1;
  for (char *c = line; *c; c++)
    n += *c == '\t';
  char **f = arena_alloc(a, sizeof *f * (size_t)n);
  int i = 0;
  f[i++] = line;
  for (char *c = line; *c; c++)
    if (*c == '\t') {
      *c = '\0';
      f[i++] = c + 1;
    }
  *out = f;
  return n;
}

/* The index of column name, or -1 after reporting that the header lacks it. */
static int column(const tsv *t, const char *name, diag *d) {
  for (int i = 0; i < t->ncol; i++)
    if (!strcmp(t->names[i], name))
      return i;
  diag_report(d, DIAG_ERROR, t->path, 1, 0, "no column '%s' in the header", name);
  return -1;
}

/* Parses f, whose header must name every column of names (NULL-terminated; others are
 * allowed, in any order): idx[i] is names[i]'s column. */
static int parse_tsv(arena *a, text_file *f, const char *const *names, int *idx, tsv *t,
                     diag *d) {
  memset(t, 0, sizeof *t);
  t->path = f->path;
  char *p = f->text, *s;
  unsigned line = 0;
  while ((s = next_line(&p))) {
    line++;
    char **fields;
    int n = split_tabs(a, s, &fields);
    if (line == 1) {
      t->names = fields;
      t->ncol = n;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
          if (!strcmp(fields[i], fields[j])) {
            diag_report(d, DIAG_ERROR, f->path, 1, 0, "column '%s' twice in the header", fields[i]);
            return 0;
          }
      for (int i = 0; names[i]; i++)
        if ((idx[i] = column(t, names[i], d)) < 0)
          return 0;
      continue;
    }
    if (n != t->ncol) {
      diag_report(d, DIAG_ERROR, f->path, line, 0, "%d field%s where the header has %d", n,
                  n == 1 ? "" : "s", t->ncol);
      return 0;
    }
    for (int i = 0; i < n; i++)
      unescape(fields[i]);
    *ARENA_PUSH(a, t->rows, t->nrow, t->caprow) = fields;
    *ARENA_PUSH(a, t->lines, t->nline, t->capline) = line;
  }
  if (!line) {
    diag_report(d, DIAG_ERROR, f->path, 0, 0, "empty file: expected a header line");
    return 0;
  }
  return 1;
}

/* A number field: empty is missing (*null = 1); otherwise a finite decimal >= min (or
 * > min when strict). */
static int parse_real(const tsv *t, int row, const char *name, const char *s, double min,
                      int strict, double *x, int *null, diag *d) {
  *x = 0;
  *null = !*s;
  if (*null)
    return 1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v)) {
    diag_report(d, DIAG_ERROR, t->path, t->lines[row], 0, "%s '%s' is not a number", name, s);
    return 0;
  }
  if (v < min || (strict && v == min)) {
    diag_report(d, DIAG_ERROR, t->path, t->lines[row], 0, "%s %s is not %s %g", name, s,
                strict ? "above" : "at least", min);
    return 0;
  }
  *x = v;
  return 1;
}

/* An integer field: empty is missing; otherwise a decimal >= min. */
static int parse_int(const tsv *t, int row, const char *name, const char *s, long long min,
                     long long *x, int *null, diag *d) {
  *x = 0;
  *null = !*s;
  if (*null)
    return 1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno == ERANGE || v < min) {
    diag_report(d, DIAG_ERROR, t->path, t->lines[row], 0, "%s '%s' is not an integer%s", name,
                s, min > 0 ? " above 0" : " at least 0");
    return 0;
  }
  *x = v;
  return 1;
}

/* ---- device.tsv */

/* The machine of the run. Text fields are never NULL ("" when missing). */
typedef struct device {
  const char *gpu, *cc, *driver, *cuda_driver, *runtime, *nvcc, *nvcc_flags;
  const char *measured_at; /* the runner's own timestamp ("" when it wrote none) */
  long long sm_count, l2_bytes, memory_bytes;
  long long verifier_version; /* 0 when the runner wrote none */
  int l2_null, memory_null;
} device;

static const char *const device_columns[] = {
    "gpu", "sm_count", "compute_capability", "driver_version", "cuda_driver_version",
    "runtime_version", "nvcc_version", "nvcc_flags", "l2_bytes", "memory_bytes", NULL};

static int parse_device(arena *a, text_file *f, device *dv, diag *d) {
  tsv t;
  int c[10];
  if (!parse_tsv(a, f, device_columns, c, &t, d))
    return 0;
  if (t.nrow != 1) {
    diag_report(d, DIAG_ERROR, f->path, t.nrow ? t.lines[1] : 0, 0,
                "expected one row after the header, found %d", t.nrow);
    return 0;
  }
  char **r = t.rows[0];
  int null;
  dv->gpu = r[c[0]];
  if (!*dv->gpu) {
    diag_report(d, DIAG_ERROR, f->path, t.lines[0], 0, "gpu is empty");
    return 0;
  }
  if (!parse_int(&t, 0, "sm_count", r[c[1]], 1, &dv->sm_count, &null, d))
    return 0;
  if (null || dv->sm_count > INT_MAX) {
    diag_report(d, DIAG_ERROR, f->path, t.lines[0], 0, "sm_count '%s' is not a count",
                r[c[1]]);
    return 0;
  }
  dv->cc = r[c[2]];
  dv->driver = r[c[3]];
  dv->cuda_driver = r[c[4]];
  dv->runtime = r[c[5]];
  dv->nvcc = r[c[6]];
  dv->nvcc_flags = r[c[7]];
  /* Optional: runners since 2026-11-30 write when they measured. */
  dv->measured_at = "";
  dv->verifier_version = 0;
  const char *verifier = NULL;
  for (int i = 0; i < t.ncol; i++) {
    if (!strcmp(t.names[i], "measured_at"))
      dv->measured_at = r[i];
    if (!strcmp(t.names[i], "verifier_version"))
      verifier = r[i];
  }
  /* Optional: runners since session 18 name their verifier's version. */
  if (verifier && !parse_int(&t, 0, "verifier_version", verifier, 0, &dv->verifier_version, &null, d))
    return 0;
  if (dv->verifier_version > INT_MAX) {
    diag_report(d, DIAG_ERROR, f->path, t.lines[0], 0, "verifier_version '%s' is not a version", verifier);
    return 0;
  }
  return parse_int(&t, 0, "l2_bytes", r[c[8]], 0, &dv->l2_bytes, &dv->l2_null, d) &&
         parse_int(&t, 0, "memory_bytes", r[c[9]], 0, &dv->memory_bytes, &dv->memory_null, d);
}

/* ---- results.tsv */

/* One row of results.tsv, checked against the manifest. */
typedef struct result {
  const mvariant *variant;
  const char *entry, *binding, *status, *reason, *kind;
  double median, p10, p90, mad, speedup, ci_lo, ci_hi;
  int median_null, p10_null, p90_null, mad_null, speedup_null, ci_lo_null, ci_hi_null;
  long long reps;
  int reps_null;
} result;

static const char *const result_columns[] = {
    "variant", "entry",  "binding", "status", "reason", "median_ms", "p10_ms",
    "p90_ms",  "reps",   "speedup", "ci_lo",  "ci_hi",  "mad_ms",    "kind", NULL};

static int one_of(const char *s, const char *a, const char *b, const char *c, const char *e) {
  return !strcmp(s, a) || !strcmp(s, b) || (c && !strcmp(s, c)) || (e && !strcmp(s, e));
}

/* Checks row i of t and fills *r. */
static int check_result(const tsv *t, int i, const int *c, const manifest *m, result *r,
                        diag *d) {
  char **f = t->rows[i];
  unsigned line = t->lines[i];
  const char *variant = f[c[0]];
  r->entry = f[c[1]];
  r->binding = f[c[2]];
  r->status = f[c[3]];
  r->reason = f[c[4]];
  r->kind = f[c[13]];
  if (!(r->variant = find_variant(m, variant))) {
    diag_report(d, DIAG_ERROR, t->path, line, 0, "variant '%s' is not in manifest.txt", variant);
    return 0;
  }
  const mentry *e = find_entry(m, r->entry);
  if (!e) {
    diag_report(d, DIAG_ERROR, t->path, line, 0, "entry '%s' is not in manifest.txt", r->entry);
    return 0;
  }
  if (!*r->binding) {
    diag_report(d, DIAG_ERROR, t->path, line, 0, "binding is empty");
    return 0;
  }
  if (!one_of(r->kind, "tune", "check", NULL, NULL)) {
    diag_report(d, DIAG_ERROR, t->path, line, 0, "kind '%s' is neither 'tune' nor 'check'",
                r->kind);
    return 0;
  }
  int is_tune = r->kind[0] == 't';
  if (e->nbinding) {
    int k = 0;
    while (k < e->nbinding && strcmp(e->bindings[k].text, r->binding) != 0)
      k++;
    if (k == e->nbinding) {
      diag_report(d, DIAG_ERROR, t->path, line, 0,
                  "binding '%s' is not a binding of entry '%s' in manifest.txt", r->binding,
                  r->entry);
      return 0;
    }
    if (e->bindings[k].is_tune != is_tune) {
      diag_report(d, DIAG_ERROR, t->path, line, 0,
                  "binding '%s' is a %s binding in manifest.txt, but its kind here is '%s'",
                  r->binding, e->bindings[k].is_tune ? "tune" : "check", r->kind);
      return 0;
    }
  }
  if (!one_of(r->status, "ok", "failed", "slower", "faster")) {
    diag_report(d, DIAG_ERROR, t->path, line, 0,
                "status '%s' is not one of ok, failed, slower, faster", r->status);
    return 0;
  }
  if (!parse_real(t, i, "median_ms", f[c[5]], 0, 0, &r->median, &r->median_null, d) ||
      !parse_real(t, i, "p10_ms", f[c[6]], 0, 0, &r->p10, &r->p10_null, d) ||
      !parse_real(t, i, "p90_ms", f[c[7]], 0, 0, &r->p90, &r->p90_null, d) ||
      !parse_int(t, i, "reps", f[c[8]], 0, &r->reps, &r->reps_null, d) ||
      !parse_real(t, i, "speedup", f[c[9]], 0, 1, &r->speedup, &r->speedup_null, d) ||
      !parse_real(t, i, "ci_lo", f[c[10]], 0, 1, &r->ci_lo, &r->ci_lo_null, d) ||
      !parse_real(t, i, "ci_hi", f[c[11]], 0, 1, &r->ci_hi, &r->ci_hi_null, d) ||
      !parse_real(t, i, "mad_ms", f[c[12]], 0, 0, &r->mad, &r->mad_null, d))
    return 0;
  /* Only the final candidate's tune rows are faster or slower, and they carry the
   * interleaved speedup and its interval. */
  if (one_of(r->status, "faster", "slower", NULL, NULL)) {
    if (!is_tune) {
      diag_report(d, DIAG_ERROR, t->path, line, 0, "status '%s' on a check binding", r->status);
      return 0;
    }
    if (r->speedup_null || r->ci_lo_null || r->ci_hi_null) {
      diag_report(d, DIAG_ERROR, t->path, line, 0,
                  "status '%s' without speedup, ci_lo and ci_hi", r->status);
      return 0;
    }
  }
  for (int j = 0; j < i; j++) {
    char **g = t->rows[j];
    if (!strcmp(g[c[0]], variant) && !strcmp(g[c[1]], r->entry) && !strcmp(g[c[2]], r->binding)) {
      diag_report(d, DIAG_ERROR, t->path, line, 0,
                  "variant '%s', entry '%s', binding '%s' again (line %u)", variant, r->entry,
                  r->binding, t->lines[j]);
      return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------------ import */

static void format_time(time_t t, char out[32]) {
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Appends f to the bytes that make a run's digest, preceded by its length. */
static void digest_add(strbuf *b, const text_file *f) {
  sb_printf(b, "%zu:", f->len);
  sb_putn(b, f->text, f->len);
}

/* Records the run's variants and their sources (each text once). A recipe recorded for the
 * same reference with another text earns a warning: records are keyed by recipe, so two
 * texts under one recipe would share their measurements. */
static int write_variants(rec_db *db, sqlite3_int64 run_id, const manifest *m, diag *d) {
  sqlite3_stmt *other = prepare(
      db, d,
      "SELECT v.run_id FROM run_variant v JOIN run r ON r.id = v.run_id"
      " WHERE r.source_hash = ?1 AND v.recipe = ?2 AND v.text_sha256 != ?3"
      " ORDER BY v.run_id LIMIT 1");
  sqlite3_stmt *text =
      prepare(db, d, "INSERT OR IGNORE INTO source_text (sha256, text) VALUES (?1, ?2)");
  sqlite3_stmt *var = prepare(db, d,
                              "INSERT INTO run_variant (run_id, name, file, recipe, text_sha256)"
                              " VALUES (?1, ?2, ?3, ?4, ?5)");
  int ok = other && text && var;
  for (int i = 0; ok && i < m->nvariant; i++) {
    const mvariant *v = &m->variants[i];
    sqlite3_reset(other);
    bind_text(other, 1, m->source_hash);
    bind_text(other, 2, v->recipe);
    bind_text(other, 3, v->sha256);
    int rc = sqlite3_step(other);
    if (rc == SQLITE_ROW)
      diag_report(d, DIAG_WARNING, NULL, 0, 0,
                  "variant '%s' (%s) differs from the source recorded for recipe '%s' in run "
                  "%lld; the records key measurements by recipe, so give each text a recipe of "
                  "its own",
                  v->name, v->file, v->recipe, (long long)sqlite3_column_int64(other, 0));
    else if (rc != SQLITE_DONE)
      ok = sql_fail(db, d, "records database");
    sqlite3_reset(text);
    bind_text(text, 1, v->sha256);
    sqlite3_bind_blob(text, 2, v->src.text, (int)v->src.len, SQLITE_STATIC);
    sqlite3_reset(var);
    sqlite3_bind_int64(var, 1, run_id);
    bind_text(var, 2, v->name);
    bind_text(var, 3, v->file);
    bind_text(var, 4, v->recipe);
    bind_text(var, 5, v->sha256);
    if (ok && (sqlite3_step(text) != SQLITE_DONE || sqlite3_step(var) != SQLITE_DONE))
      ok = sql_fail(db, d, "records database");
  }
  sqlite3_finalize(other);
  sqlite3_finalize(text);
  sqlite3_finalize(var);
  return ok;
}

/* The database half of an import, inside the transaction: returns 0 after reporting. */
static int write_run(rec_db *db, const char *bundle, const manifest *m, const device *dv,
                     const char *flags, const char *digest, const char *measured_at,
                     const result *rows, int nrow, diag *d) {
  int ok = 0;
  sqlite3_stmt *st = prepare(db, d, "SELECT id FROM run WHERE digest = ?1");
  sqlite3_stmt *ins = NULL;
  if (!st)
    return 0;
  bind_text(st, 1, digest);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW)
    return 1; /* imported before: nothing to do */
  if (rc != SQLITE_DONE)
    return sql_fail(db, d, "records database");

  char now[32];
  format_time(time(NULL), now);
  st = prepare(db, d,
               "INSERT INTO run (digest, measured_at, imported_at, bundle, source_name,"
               " source_hash, libs, gpu, sm_count, compute_capability, driver_version,"
               " cuda_driver_version, runtime_version, nvcc_version, nvcc_flags, l2_bytes,"
               " memory_bytes, verifier_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
               " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
  if (!st)
    return 0;
  const char *text[] = {digest,         measured_at, now,    bundle, m->source_name,
                        m->source_hash, m->libs,     dv->gpu};
  for (int i = 0; i < 8; i++)
    bind_text(st, i + 1, text[i]);
  sqlite3_bind_int64(st, 9, dv->sm_count);
  const char *text2[] = {dv->cc, dv->driver, dv->cuda_driver, dv->runtime, dv->nvcc, flags};
  for (int i = 0; i < 6; i++)
    bind_text(st, i + 10, text2[i]);
  bind_int(st, 16, dv->l2_bytes, dv->l2_null);
  bind_int(st, 17, dv->memory_bytes, dv->memory_null);
  sqlite3_bind_int64(st, 18, dv->verifier_version);
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return sql_fail(db, d, "records database");
  sqlite3_int64 run_id = sqlite3_last_insert_rowid(db->sql);
  if (!write_variants(db, run_id, m, d))
    return 0;

  /* One row per key. Where the key has a row already, it is replaced unless it comes from
   * a run measured later than this one. */
  ins = prepare(
      db, d,
      "INSERT INTO measurement (run_id, source_hash, entry, recipe, binding, gpu, sm_count,"
      " driver_version, nvcc_version, nvcc_flags, variant, variant_file, kind, status, reason,"
      " median_ms, p10_ms, p90_ms, mad_ms, reps, speedup, ci_lo, ci_hi)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
      " ?18, ?19, ?20, ?21, ?22, ?23)"
      " ON CONFLICT (source_hash, entry, recipe, binding, gpu, sm_count, driver_version,"
      " nvcc_version, nvcc_flags) DO UPDATE SET run_id = excluded.run_id,"
      " variant = excluded.variant, variant_file = excluded.variant_file,"
      " kind = excluded.kind, status = excluded.status, reason = excluded.reason,"
      " median_ms = excluded.median_ms, p10_ms = excluded.p10_ms, p90_ms = excluded.p90_ms,"
      " mad_ms = excluded.mad_ms, reps = excluded.reps, speedup = excluded.speedup,"
      " ci_lo = excluded.ci_lo, ci_hi = excluded.ci_hi"
      " WHERE (SELECT measured_at FROM run WHERE id = excluded.run_id)"
      " >= (SELECT measured_at FROM run WHERE id = measurement.run_id)");
  if (!ins)
    return 0;
  for (int i = 0; i < nrow; i++) {
    const result *r = &rows[i];
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    sqlite3_bind_int64(ins, 1, run_id);
    const char *key[] = {m->source_hash, r->entry, r->variant->recipe, r->binding, dv->gpu};
    for (int k = 0; k < 5; k++)
      bind_text(ins, k + 2, key[k]);
    sqlite3_bind_int64(ins, 7, dv->sm_count);
    const char *more[] = {dv->driver,       dv->nvcc, flags,     r->variant->name,
                          r->variant->file, r->kind,  r->status, r->reason};
    for (int k = 0; k < 8; k++)
      bind_text(ins, k + 8, more[k]);
    bind_real(ins, 16, r->median, r->median_null);
    bind_real(ins, 17, r->p10, r->p10_null);
    bind_real(ins, 18, r->p90, r->p90_null);
    bind_real(ins, 19, r->mad, r->mad_null);
    bind_int(ins, 20, r->reps, r->reps_null);
    bind_real(ins, 21, r->speedup, r->speedup_null);
    bind_real(ins, 22, r->ci_lo, r->ci_lo_null);
    bind_real(ins, 23, r->ci_hi, r->ci_hi_null);
    if (sqlite3_step(ins) != SQLITE_DONE) {
      sql_fail(db, d, "records database");
      goto out;
    }
  }
  /* Runs whose every measurement was replaced by a later run's carry nothing, and sources
   * no run has any more go with them. */
  ok = exec(db, d,
            "DELETE FROM run WHERE id NOT IN (SELECT run_id FROM measurement);"
            " DELETE FROM source_text WHERE sha256 NOT IN (SELECT text_sha256 FROM run_variant)");
out:
  sqlite3_finalize(ins);
  return ok;
}

int rec_import(rec_db *db, const char *bundle_dir, diag *d) {
  arena *a = arena_new();
  int ok = 0;
  text_file man, dev, res;
  strbuf all = {0};
  manifest m;
  device dv;
  tsv t;
  int c[14];
  if (!read_text(a, bundle_dir, "manifest.txt", &man, d) ||
      !read_text(a, bundle_dir, "device.tsv", &dev, d) ||
      !read_text(a, bundle_dir, "results.tsv", &res, d))
    goto out;
  /* The run's identity: the three files and the variants' sources. (Before parsing,
   * which cuts the text in place.) */
  digest_add(&all, &man);
  digest_add(&all, &dev);
  digest_add(&all, &res);
  if (!parse_manifest(a, &man, &m, d) || !read_sources(a, bundle_dir, &man, &m, d) ||
      !parse_device(a, &dev, &dv, d) || !parse_tsv(a, &res, result_columns, c, &t, d))
    goto out;
  for (int i = 0; i < m.nvariant; i++)
    digest_add(&all, &m.variants[i].src);
  char digest[65];
  bundle_sha256(all.s, all.len, digest);
  result *rows = arena_alloc(a, sizeof *rows * (size_t)(t.nrow + 1));
  for (int i = 0; i < t.nrow; i++)
    if (!check_result(&t, i, c, &m, &rows[i], d))
      goto out;

  /* When: the runner's timestamp in device.tsv; for older runners, results.tsv's mtime
   * (the runner writes it last, at the end of the run; a copy or a checkout loses it). */
  struct stat sb;
  if (stat(res.path, &sb) != 0) {
    diag_report(d, DIAG_ERROR, res.path, 0, 0, "cannot read: %s", strerror(errno));
    goto out;
  }
  char measured_at[32];
  format_time(sb.st_mtime, measured_at);
  if (*dv.measured_at)
    snprintf(measured_at, sizeof measured_at, "%s", dv.measured_at);
  /* The flags the runner reports win over the ones kfuse asked for. */
  const char *flags = *dv.nvcc_flags ? dv.nvcc_flags : m.nvcc_flags ? m.nvcc_flags : "";
  char *real = realpath(bundle_dir, NULL);
  const char *bundle = arena_strdup(a, real ? real : bundle_dir);
  free(real);

  if (!exec(db, d, "BEGIN IMMEDIATE"))
    goto out;
  ok = write_run(db, bundle, &m, &dv, flags, digest, measured_at, rows, t.nrow, d) &&
       exec(db, d, "COMMIT");
  if (!ok)
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
out:
  sb_free(&all);
  arena_free(a);
  return ok;
}

/* ------------------------------------------------------------------ best choice */

/* A candidate of rec_best: one recipe's rows measured under one configuration. */
enum { K_RECIPE, K_SMS, K_DRIVER, K_NVCC, K_FLAGS, NKEY };
typedef struct candidate {
  const char *key[NKEY];   /* recipe, SM count, driver, nvcc version, flags (as text) */
  int qualifies;           /* every tune row `faster`, every check row `ok` (so far) */
  int ntune, ncheck;       /* rows of each kind */
  double logsum, loglo, loghi; /* sums of the tune rows' log speedup and log bounds */
  long long run_id;        /* the newest run among the rows ... */
  const char *measured_at; /* ... and when it was measured */
} candidate;

/* The columns of rec_best's query, after the NKEY key columns. */
enum { C_KIND = NKEY, C_STATUS, C_SPEEDUP, C_CI_LO, C_CI_HI, C_RUN, C_MEASURED };

static int same_candidate(const candidate *c, sqlite3_stmt *st) {
  for (int k = 0; k < NKEY; k++)
    if (strcmp(c->key[k], (const char *)sqlite3_column_text(st, k)) != 0)
      return 0;
  return 1;
}

static void start_candidate(candidate *c, sqlite3_stmt *st, arena *a) {
  memset(c, 0, sizeof *c);
  for (int k = 0; k < NKEY; k++)
    c->key[k] = col_text(a, st, k);
  c->qualifies = 1;
  c->measured_at = "";
}

static void add_row(candidate *c, sqlite3_stmt *st, arena *a) {
  const char *kind = (const char *)sqlite3_column_text(st, C_KIND);
  const char *status = (const char *)sqlite3_column_text(st, C_STATUS);
  if (strcmp((const char *)sqlite3_column_text(st, C_MEASURED), c->measured_at) > 0) {
    c->measured_at = col_text(a, st, C_MEASURED);
    c->run_id = sqlite3_column_int64(st, C_RUN);
  }
  if (strcmp(kind, "tune") != 0) {
    c->ncheck++;
    c->qualifies &= !strcmp(status, "ok");
    return;
  }
  double x = sqlite3_column_double(st, C_SPEEDUP), lo = sqlite3_column_double(st, C_CI_LO),
         hi = sqlite3_column_double(st, C_CI_HI);
  c->ntune++;
  if (strcmp(status, "faster") != 0 || !(x > 0 && lo > 0 && hi > 0)) {
    c->qualifies = 0;
    return;
  }
  c->logsum += log(x);
  c->loglo += log(lo);
  c->loghi += log(hi);
}

/* Makes c the best when it qualifies and beats *best (when *have_best): a higher geometric
 * mean, or the same from a newer run. Of equals, the first in recipe order stays. */
static void keep_better(const candidate *c, candidate *best, int *have_best) {
  if (!c->qualifies || c->ntune == 0)
    return;
  if (*have_best) {
    double g = c->logsum / c->ntune, b = best->logsum / best->ntune;
    if (g < b || (g == b && strcmp(c->measured_at, best->measured_at) <= 0))
      return;
  }
  *best = *c;
  *have_best = 1;
}

int rec_merge(rec_db *db, const char *from_path, int *added, diag *d) {
  *added = 0;
  sqlite3_stmt *st0 = NULL;
  if (access(from_path, R_OK) != 0) {
    diag_report(d, DIAG_ERROR, from_path, 0, 0, "cannot read records database: %s", strerror(errno));
    return 0;
  }
  /* Read only, its schema version first: a database of another kfuse is refused. */
  sqlite3 *from = NULL;
  int version = -1;
  if (sqlite3_open_v2(from_path, &from, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(from, "PRAGMA user_version", -1, &st0, NULL) == SQLITE_OK &&
      sqlite3_step(st0) == SQLITE_ROW)
    version = sqlite3_column_int(st0, 0);
  if (version < 0)
    diag_report(d, DIAG_ERROR, from_path, 0, 0, "not a records database: %s",
                from ? sqlite3_errmsg(from) : "out of memory");
  else if (version == 0)
    diag_report(d, DIAG_ERROR, from_path, 0, 0, "not a kfuse records database (it has no schema version)");
  else if (version != REC_SCHEMA_VERSION && version != 1)
    diag_report(d, DIAG_ERROR, from_path, 0, 0, "records database has schema version %d; this kfuse reads "
                "versions 1 to %d", version, REC_SCHEMA_VERSION);
  sqlite3_finalize(st0);
  sqlite3_close_v2(from);
  if (version != REC_SCHEMA_VERSION && version != 1)
    return 0;
  int v1 = version == 1; /* no verifier versions, no verification table: read as 0 and none */
  sqlite3_stmt *st = prepare(db, d, "ATTACH DATABASE ?1 AS src");
  if (!st)
    return 0;
  bind_text(st, 1, from_path);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return sql_fail(db, d, "records database");
  static const char *const steps[] = {
      /* the runs db lacks, whole */
      NULL, /* the runs: below, by schema */
      "INSERT OR IGNORE INTO source_text (sha256, text) SELECT sha256, text FROM src.source_text",
      "INSERT INTO run_variant (run_id, name, file, recipe, text_sha256)"
      " SELECT m.id, v.name, v.file, v.recipe, v.text_sha256 FROM src.run_variant v"
      " JOIN src.run s ON s.id = v.run_id JOIN main.run m ON m.digest = s.digest"
      " WHERE NOT EXISTS (SELECT 1 FROM main.run_variant x WHERE x.run_id = m.id AND x.name = v.name)",
      /* every measurement, under the import's rule: the later measured stays */
      "INSERT INTO measurement (run_id, source_hash, entry, recipe, binding, gpu, sm_count,"
      " driver_version, nvcc_version, nvcc_flags, variant, variant_file, kind, status, reason,"
      " median_ms, p10_ms, p90_ms, mad_ms, reps, speedup, ci_lo, ci_hi)"
      " SELECT m.id, x.source_hash, x.entry, x.recipe, x.binding, x.gpu, x.sm_count, x.driver_version,"
      " x.nvcc_version, x.nvcc_flags, x.variant, x.variant_file, x.kind, x.status, x.reason, x.median_ms,"
      " x.p10_ms, x.p90_ms, x.mad_ms, x.reps, x.speedup, x.ci_lo, x.ci_hi FROM src.measurement x"
      " JOIN src.run s ON s.id = x.run_id JOIN main.run m ON m.digest = s.digest WHERE 1"
      " ON CONFLICT (source_hash, entry, recipe, binding, gpu, sm_count, driver_version,"
      " nvcc_version, nvcc_flags) DO UPDATE SET run_id = excluded.run_id,"
      " variant = excluded.variant, variant_file = excluded.variant_file,"
      " kind = excluded.kind, status = excluded.status, reason = excluded.reason,"
      " median_ms = excluded.median_ms, p10_ms = excluded.p10_ms, p90_ms = excluded.p90_ms,"
      " mad_ms = excluded.mad_ms, reps = excluded.reps, speedup = excluded.speedup,"
      " ci_lo = excluded.ci_lo, ci_hi = excluded.ci_hi"
      " WHERE (SELECT measured_at FROM main.run WHERE id = excluded.run_id)"
      " > (SELECT measured_at FROM main.run WHERE id = measurement.run_id)",
      "DELETE FROM run WHERE id NOT IN (SELECT run_id FROM measurement)",
      "DELETE FROM source_text WHERE sha256 NOT IN (SELECT text_sha256 FROM run_variant)",
      /* the re-verifications: a quarantine stays; otherwise the newer verifier's check */
      "INSERT INTO verification (source_hash, recipe, gpu, verifier_version, status, reason, checked_at)"
      " SELECT source_hash, recipe, gpu, verifier_version, status, reason, checked_at FROM src.verification"
      " WHERE 1 ON CONFLICT (source_hash, recipe, gpu) DO UPDATE SET"
      " verifier_version = excluded.verifier_version, status = excluded.status, reason = excluded.reason,"
      " checked_at = excluded.checked_at WHERE verification.status != 'quarantined'"
      " AND (excluded.status = 'quarantined' OR excluded.verifier_version > verification.verifier_version)",
  };
  char runs[1024];
  snprintf(runs, sizeof runs,
           "INSERT INTO run (digest, measured_at, imported_at, bundle, source_name, source_hash, libs, gpu,"
           " sm_count, compute_capability, driver_version, cuda_driver_version, runtime_version, nvcc_version,"
           " nvcc_flags, l2_bytes, memory_bytes, verifier_version)"
           " SELECT digest, measured_at, imported_at, bundle, source_name, source_hash, libs, gpu, sm_count,"
           " compute_capability, driver_version, cuda_driver_version, runtime_version, nvcc_version, nvcc_flags,"
           " l2_bytes, memory_bytes, %s FROM src.run WHERE digest NOT IN (SELECT digest FROM main.run) ORDER BY id",
           v1 ? "0" : "verifier_version");
  int fresh = 0, ok = exec(db, d, "BEGIN IMMEDIATE");
  if (ok && (st = prepare(db, d, "SELECT count(*) FROM src.run WHERE digest NOT IN (SELECT digest FROM main.run)"))) {
    if (sqlite3_step(st) == SQLITE_ROW)
      fresh = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  size_t nsteps = sizeof steps / sizeof *steps - (size_t)v1; /* schema 1 has no verification table */
  for (size_t i = 0; ok && i < nsteps; i++)
    ok = exec(db, d, steps[i] ? steps[i] : runs);
  if (ok)
    ok = exec(db, d, "COMMIT");
  if (!ok)
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec(db->sql, "DETACH DATABASE src", NULL, NULL, NULL);
  *added = ok ? fresh : 0;
  return ok;
}

static double col_num(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The columns read_rows reads, in its order. */
#define ROW_COLUMNS                                                                             \
  "m.recipe, m.binding, m.kind, m.status, m.reason, r.measured_at, m.median_ms, m.speedup,"  \
  " m.ci_lo, m.ci_hi, m.source_hash, m.entry, m.gpu, r.source_name, m.variant, m.p10_ms,"  \
  " m.p90_ms"                                                                               \
  " FROM measurement m JOIN run r ON r.id = m.run_id"

/* Steps st (selecting ROW_COLUMNS) into *rows, in db's strings; finalizes it. Returns the
 * count, or -1 after a database error. */
static int read_rows(rec_db *db, sqlite3_stmt *st, rec_row **rows, diag *d) {
  int n = 0, cap = 0, rc;
  arena *s = db->strings;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    rec_row *r = ARENA_PUSH(s, *rows, n, cap);
    r->recipe = col_text(s, st, 0);
    r->binding = col_text(s, st, 1);
    r->kind = col_text(s, st, 2);
    r->status = col_text(s, st, 3);
    r->reason = col_text(s, st, 4);
    r->measured_at = col_text(s, st, 5);
    r->median_ms = col_num(st, 6);
    r->speedup = col_num(st, 7);
    r->ci_lo = col_num(st, 8);
    r->ci_hi = col_num(st, 9);
    r->source_hash = col_text(s, st, 10);
    r->entry = col_text(s, st, 11);
    r->gpu = col_text(s, st, 12);
    r->source_name = col_text(s, st, 13);
    r->variant = col_text(s, st, 14);
    r->p10_ms = col_num(st, 15);
    r->p90_ms = col_num(st, 16);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    sql_fail(db, d, "records database");
    return -1;
  }
  return n;
}

int rec_rows(rec_db *db, const char *source_hash, const char *entry, const char *gpu_name, rec_row **rows,
             diag *d) {
  *rows = NULL;
  sqlite3_stmt *st = prepare(
      db, d,
      "SELECT " ROW_COLUMNS
      " WHERE m.source_hash = lower(?1) AND m.entry = ?2 AND m.gpu = ?3"
      " AND r.measured_at = (SELECT max(r2.measured_at) FROM measurement m2 JOIN run r2 ON r2.id = m2.run_id"
      "   WHERE m2.source_hash = m.source_hash AND m2.entry = m.entry AND m2.gpu = m.gpu"
      "   AND m2.recipe = m.recipe)"
      " ORDER BY m.recipe, m.kind DESC, m.binding, m.sm_count, m.driver_version, m.nvcc_version, m.nvcc_flags");
  if (!st)
    return -1;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, entry);
  bind_text(st, 3, gpu_name);
  return read_rows(db, st, rows, d);
}

int rec_tune_rows(rec_db *db, rec_row **rows, diag *d) {
  *rows = NULL;
  sqlite3_stmt *st = prepare(db, d,
                             "SELECT " ROW_COLUMNS " WHERE m.kind = 'tune' AND m.recipe != 'reference'"
                             " ORDER BY m.source_hash, m.entry, m.gpu, m.binding, m.recipe, m.sm_count,"
                             " m.driver_version, m.nvcc_version, m.nvcc_flags");
  return st ? read_rows(db, st, rows, d) : -1;
}

int rec_best(rec_db *db, const char *source_hash, const char *entry, const char *gpu_name,
             int sm_count, rec_choice *out, diag *d) {
  memset(out, 0, sizeof *out);
  /* Ordered so that each candidate's rows come together, in the order of their keys. */
  sqlite3_stmt *st = prepare(
      db, d,
      "SELECT m.recipe, m.sm_count, m.driver_version, m.nvcc_version, m.nvcc_flags, m.kind,"
      " m.status, m.speedup, m.ci_lo, m.ci_hi, m.run_id, r.measured_at"
      " FROM measurement m JOIN run r ON r.id = m.run_id"
      " WHERE m.source_hash = lower(?1) AND m.entry = ?2 AND m.gpu = ?3"
      " AND (?4 <= 0 OR m.sm_count = ?4)"
      " AND NOT EXISTS (SELECT 1 FROM verification v WHERE v.source_hash = m.source_hash"
      "   AND v.recipe = m.recipe AND v.gpu = m.gpu AND v.status = 'quarantined')"
      " ORDER BY m.recipe, m.sm_count, m.driver_version, m.nvcc_version, m.nvcc_flags");
  if (!st)
    return 0;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, entry);
  bind_text(st, 3, gpu_name);
  sqlite3_bind_int(st, 4, sm_count);
  arena *a = arena_new();
  candidate cur, best;
  int have = 0, have_best = 0, ok = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (!have || !same_candidate(&cur, st)) {
      if (have)
        keep_better(&cur, &best, &have_best);
      start_candidate(&cur, st, a);
      have = 1;
    }
    add_row(&cur, st, a);
  }
  if (have)
    keep_better(&cur, &best, &have_best);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    sql_fail(db, d, "records database");
    goto done;
  }
  if (!have_best)
    goto done;

  /* The provenance: the run, and the variant's name and file in it. */
  st = prepare(db, d,
               "SELECT m.variant, m.variant_file, r.measured_at, r.bundle, r.gpu, r.sm_count,"
               " r.compute_capability, r.driver_version, r.runtime_version, r.nvcc_version,"
               " r.nvcc_flags, r.libs FROM measurement m JOIN run r ON r.id = m.run_id"
               " WHERE m.run_id = ?1 AND m.source_hash = lower(?2) AND m.entry = ?3"
               " AND m.recipe = ?4 LIMIT 1");
  if (!st)
    goto done;
  sqlite3_bind_int64(st, 1, best.run_id);
  bind_text(st, 2, source_hash);
  bind_text(st, 3, entry);
  bind_text(st, 4, best.key[K_RECIPE]);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    arena *s = db->strings;
    out->found = 1;
    out->recipe = arena_strdup(s, best.key[K_RECIPE]);
    out->variant = col_text(s, st, 0);
    out->variant_file = col_text(s, st, 1);
    out->speedup = exp(best.logsum / best.ntune);
    out->ci_lo = exp(best.loglo / best.ntune);
    out->ci_hi = exp(best.loghi / best.ntune);
    out->ntune = best.ntune;
    out->ncheck = best.ncheck;
    out->run_id = best.run_id;
    out->measured_at = col_text(s, st, 2);
    out->bundle = col_text(s, st, 3);
    out->gpu = col_text(s, st, 4);
    out->sm_count = sqlite3_column_int(st, 5);
    out->compute_capability = col_text(s, st, 6);
    out->driver_version = col_text(s, st, 7);
    out->runtime_version = col_text(s, st, 8);
    out->nvcc_version = col_text(s, st, 9);
    out->nvcc_flags = col_text(s, st, 10);
    out->libs = col_text(s, st, 11);
    ok = 1;
  } else {
    sql_fail(db, d, "records database");
  }
  sqlite3_finalize(st);
done:
  arena_free(a);
  return ok;
}

/* ------------------------------------------------------------------ what applying needs */

int rec_gpus(rec_db *db, const char *source_hash, const char **out, int max, diag *d) {
  sqlite3_stmt *st = prepare(db, d,
                             "SELECT DISTINCT gpu FROM measurement WHERE source_hash = lower(?1)"
                             " ORDER BY gpu LIMIT ?2");
  if (!st)
    return -1;
  bind_text(st, 1, source_hash);
  sqlite3_bind_int(st, 2, max);
  int n = 0, rc = SQLITE_DONE;
  while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
    out[n++] = col_text(db->strings, st, 0);
  if (rc == SQLITE_ROW)
    rc = SQLITE_DONE; /* max reached */
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    sql_fail(db, d, "records database");
    return -1;
  }
  return n;
}

const char *rec_only_gpu(rec_db *db, const char *source_hash, diag *d) {
  const char *gpu[2];
  return rec_gpus(db, source_hash, gpu, 2, d) == 1 ? gpu[0] : NULL;
}

/* A statement stepped to its one row, (libs, text): the newest run of source_hash that still
 * has measurements of recipe, and recipe's source in it. NULL when there is none (nothing
 * reported) or on a database error (reported to d). */
static sqlite3_stmt *newest_variant(rec_db *db, const char *source_hash, const char *recipe,
                                    diag *d) {
  sqlite3_stmt *st = prepare(
      db, d,
      "SELECT r.libs, t.text FROM run r JOIN run_variant v ON v.run_id = r.id"
      " JOIN source_text t ON t.sha256 = v.text_sha256"
      " WHERE r.source_hash = lower(?1) AND v.recipe = ?2 AND EXISTS (SELECT 1 FROM"
      " measurement m WHERE m.run_id = r.id AND m.recipe = ?2)"
      " ORDER BY r.measured_at DESC, r.id DESC LIMIT 1");
  if (!st)
    return NULL;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, recipe);
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    if (rc != SQLITE_DONE)
      sql_fail(db, d, "records database");
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

char *rec_variant_source(rec_db *db, const char *source_hash, const char *recipe, size_t *n,
                         diag *d) {
  *n = 0;
  sqlite3_stmt *st = newest_variant(db, source_hash, recipe, d);
  if (!st)
    return NULL;
  const void *blob = sqlite3_column_blob(st, 1);
  size_t len = (size_t)sqlite3_column_bytes(st, 1);
  char *text = xmalloc(len + 1);
  if (len)
    memcpy(text, blob, len);
  text[len] = '\0';
  *n = len;
  sqlite3_finalize(st);
  return text;
}

const char *rec_variant_libs(rec_db *db, const char *source_hash, const char *recipe) {
  sqlite3_stmt *st = newest_variant(db, source_hash, recipe, db->d);
  if (!st)
    return NULL;
  const char *libs = col_text(db->strings, st, 0);
  sqlite3_finalize(st);
  return libs;
}

/* ------------------------------------------------------------------ dump */

/* Formats column i as a number with fmt, or "-" when NULL. */
static const char *num(arena *a, sqlite3_stmt *st, int i, const char *fmt) {
  if (sqlite3_column_type(st, i) == SQLITE_NULL)
    return "-";
  return arena_printf(a, fmt, sqlite3_column_double(st, i));
}

enum { DUMP_COLS = 10 };

/* Column i as text with tabs, newlines, CRs and backslashes escaped as results.tsv does, so
 * that each measurement stays on one line. */
static const char *cell(arena *a, sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  strbuf b = {0};
  for (; s && *s; s++) {
    char c = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\r' ? 'r' : *s == '\\' ? '\\' : 0;
    if (c) {
      sb_putc(&b, '\\');
      sb_putc(&b, c);
    } else {
      sb_putc(&b, *s);
    }
  }
  const char *out = arena_strndup(a, b.s ? b.s : "", b.len);
  sb_free(&b);
  return out;
}

/* The measurements of one run as a table with aligned columns (the reason last, unpadded). */
static int dump_measurements(rec_db *db, sqlite3_int64 run, FILE *out) {
  static const char *const head[DUMP_COLS] = {
      "entry", "variant", "recipe", "binding", "kind", "status", "median_ms", "speedup", "95% CI",
      "reason"};
  sqlite3_stmt *st = prepare(db, db->d,
                             "SELECT entry, variant, recipe, binding, kind, status, median_ms,"
                             " speedup, ci_lo, ci_hi, reason FROM measurement"
                             " WHERE run_id = ?1 ORDER BY entry, variant != 'ref', length(variant), variant,"
                             " kind DESC, binding");
  if (!st)
    return 0;
  sqlite3_bind_int64(st, 1, run);
  arena *a = arena_new();
  const char **cells = NULL;
  int ncell = 0, cap = 0, rc;
  for (int i = 0; i < DUMP_COLS; i++)
    *ARENA_PUSH(a, cells, ncell, cap) = head[i];
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < 6; i++)
      *ARENA_PUSH(a, cells, ncell, cap) = cell(a, st, i);
    *ARENA_PUSH(a, cells, ncell, cap) = num(a, st, 6, "%.6g");
    *ARENA_PUSH(a, cells, ncell, cap) = num(a, st, 7, "%.3fx");
    const char *ci = "-";
    if (sqlite3_column_type(st, 8) != SQLITE_NULL && sqlite3_column_type(st, 9) != SQLITE_NULL)
      ci = arena_printf(a, "[%.3f, %.3f]", sqlite3_column_double(st, 8),
                        sqlite3_column_double(st, 9));
    *ARENA_PUSH(a, cells, ncell, cap) = ci;
    *ARENA_PUSH(a, cells, ncell, cap) = cell(a, st, 10);
  }
  sqlite3_finalize(st);
  int ok = rc == SQLITE_DONE || sql_fail(db, db->d, "records database");
  if (ok) {
    size_t width[DUMP_COLS] = {0};
    for (int i = 0; i < ncell; i++) {
      size_t n = strlen(cells[i]);
      if (n > width[i % DUMP_COLS])
        width[i % DUMP_COLS] = n;
    }
    strbuf line = {0};
    for (int i = 0; i < ncell; i++) {
      int c = i % DUMP_COLS;
      if (c == 0) {
        line.len = 0;
        sb_puts(&line, "  ");
      }
      if (c < DUMP_COLS - 1) {
        sb_printf(&line, "%-*s  ", (int)width[c], cells[i]);
        continue;
      }
      sb_puts(&line, cells[i]);
      while (line.len && line.s[line.len - 1] == ' ')
        line.len--;
      fprintf(out, "%.*s\n", (int)line.len, line.s);
    }
    sb_free(&line);
  }
  arena_free(a);
  return ok;
}

int rec_dump(rec_db *db, FILE *out) {
  sqlite3_stmt *st =
      prepare(db, db->d, "SELECT (SELECT count(*) FROM run), (SELECT count(*) FROM measurement)");
  if (!st)
    return 0;
  if (sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return sql_fail(db, db->d, "records database");
  }
  fprintf(out, "records: %lld run%s, %lld measurement%s (schema %d)\n",
          (long long)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 0) == 1 ? "" : "s",
          (long long)sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 1) == 1 ? "" : "s",
          REC_SCHEMA_VERSION);
  sqlite3_finalize(st);

  st = prepare(db, db->d,
               "SELECT id, measured_at, gpu, sm_count, compute_capability, driver_version,"
               " cuda_driver_version, runtime_version, nvcc_version, nvcc_flags, source_name,"
               " source_hash, libs, bundle FROM run ORDER BY measured_at, id");
  if (!st)
    return 0;
  int rc, ok = 1;
  while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
#define T(i) ((const char *)sqlite3_column_text(st, (i)))
    sqlite3_int64 id = sqlite3_column_int64(st, 0);
    fprintf(out, "\nrun %lld: measured %s on %s, %d SMs, compute capability %s\n",
            (long long)id, T(1), T(2), sqlite3_column_int(st, 3), T(4));
    fprintf(out, "  driver %s (CUDA %s), runtime %s\n", T(5), T(6), T(7));
    fprintf(out, "  nvcc: %s\n", T(8));
    fprintf(out, "  flags: %s\n", T(9));
    fprintf(out, "  source %s sha256 %s%s%s\n", T(10), T(11), *T(12) ? ", libs " : "", T(12));
    fprintf(out, "  bundle %s\n", T(13));
#undef T
    ok = dump_measurements(db, id, out);
  }
  sqlite3_finalize(st);
  if (ok && rc != SQLITE_DONE)
    ok = sql_fail(db, db->d, "records database");
  if (ok && (fflush(out) != 0 || ferror(out))) {
    diag_report(db->d, DIAG_ERROR, NULL, 0, 0, "cannot write the records table");
    ok = 0;
  }
  return ok;
}

/* ------------------------------------------------------------ verification */

int rec_verifier_version(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name, diag *d) {
  sqlite3_stmt *st = prepare(
      db, d,
      "SELECT max(coalesce((SELECT max(r.verifier_version) FROM measurement m JOIN run r ON r.id = m.run_id"
      "   WHERE m.source_hash = lower(?1) AND m.recipe = ?2 AND m.gpu = ?3), 0),"
      " coalesce((SELECT verifier_version FROM verification WHERE source_hash = lower(?1) AND recipe = ?2"
      "   AND gpu = ?3 AND status = 'ok'), 0))");
  if (!st)
    return -1;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, recipe);
  bind_text(st, 3, gpu_name);
  int v = -1;
  if (sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  else
    sql_fail(db, d, "records database");
  sqlite3_finalize(st);
  return v;
}

int rec_set_verification(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name, int version,
                         int ok, const char *reason, diag *d) {
  char now[32];
  format_time(time(NULL), now);
  sqlite3_stmt *st = prepare(
      db, d,
      "INSERT INTO verification (source_hash, recipe, gpu, verifier_version, status, reason, checked_at)"
      " VALUES (lower(?1), ?2, ?3, ?4, ?5, ?6, ?7)"
      " ON CONFLICT (source_hash, recipe, gpu) DO UPDATE SET verifier_version = excluded.verifier_version,"
      " status = excluded.status, reason = excluded.reason, checked_at = excluded.checked_at"
      " WHERE verification.status != 'quarantined'");
  if (!st)
    return 0;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, recipe);
  bind_text(st, 3, gpu_name);
  sqlite3_bind_int(st, 4, version);
  bind_text(st, 5, ok ? "ok" : "quarantined");
  bind_text(st, 6, reason ? reason : "");
  bind_text(st, 7, now);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 1 : sql_fail(db, d, "records database");
}

int rec_to_verify(rec_db *db, const char *gpu_name, rec_row **rows, diag *d) {
  *rows = NULL;
  /* one row per (source, recipe), when none of its rows failed and it is not quarantined */
  sqlite3_stmt *st = prepare(
      db, d,
      "SELECT " ROW_COLUMNS
      " WHERE m.gpu = ?1 AND m.recipe != 'reference' AND m.id = (SELECT min(m2.id) FROM measurement m2"
      "   WHERE m2.source_hash = m.source_hash AND m2.recipe = m.recipe AND m2.gpu = m.gpu)"
      " AND NOT EXISTS (SELECT 1 FROM measurement m3 WHERE m3.source_hash = m.source_hash"
      "   AND m3.recipe = m.recipe AND m3.gpu = m.gpu AND m3.status = 'failed')"
      " AND NOT EXISTS (SELECT 1 FROM verification v WHERE v.source_hash = m.source_hash"
      "   AND v.recipe = m.recipe AND v.gpu = m.gpu AND v.status = 'quarantined')"
      " ORDER BY m.source_hash, m.recipe");
  if (!st)
    return -1;
  bind_text(st, 1, gpu_name);
  return read_rows(db, st, rows, d);
}

int rec_quarantine_reason(rec_db *db, const char *source_hash, const char *recipe, const char *gpu_name,
                          const char **reason) {
  *reason = NULL;
  sqlite3_stmt *st = prepare(db, db->d,
                             "SELECT reason FROM verification WHERE source_hash = lower(?1) AND recipe = ?2"
                             " AND gpu = ?3 AND status = 'quarantined'");
  if (!st)
    return 0;
  bind_text(st, 1, source_hash);
  bind_text(st, 2, recipe);
  bind_text(st, 3, gpu_name);
  if (sqlite3_step(st) == SQLITE_ROW)
    *reason = col_text(db->strings, st, 0);
  sqlite3_finalize(st);
  return *reason != NULL;
}
