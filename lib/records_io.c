/*
 * records_io.c: the records as a text file that travels (docs/records.md, "Moving records").
 * `kfuse records export` writes JSON lines: a header, then the variants' sources, then one
 * line per run with its variants and measurements, in a fixed order. `kfuse records import`
 * reads such a file into a fresh database and merges that (rec_merge), so that an import
 * follows the merge's rules. SQLite's JSON functions write and read the lines.
 *
 * A file may be xz-compressed (liblzma): export compresses when the output's name ends in
 * `.xz`, and import recognizes xz by its magic bytes, whatever the name. The variants'
 * texts differ little from one another, so the shipped H200 records shrink some 60-fold.
 */
#include <errno.h>
#include <lzma.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
#include "records.h"

enum { EXPORT_VERSION = 1 };

/* The run columns, in the file's order (id left out). */
#define RUN_COLUMNS                                                                                      \
  "digest, measured_at, imported_at, bundle, source_name, source_hash, libs, gpu, sm_count,"            \
  " compute_capability, driver_version, cuda_driver_version, runtime_version, nvcc_version, nvcc_flags," \
  " l2_bytes, memory_bytes, verifier_version"
#define MEASUREMENT_COLUMNS                                                                             \
  "source_hash, entry, recipe, binding, gpu, sm_count, driver_version, nvcc_version, nvcc_flags,"       \
  " variant, variant_file, kind, status, reason, median_ms, p10_ms, p90_ms, mad_ms, reps, speedup,"    \
  " ci_lo, ci_hi"

/* Each line that one query gives, written to out. Returns 0 after a database error. */
static int lines(sqlite3 *sql, const char *query, FILE *out, const char *path, diag *d) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, query, -1, &st, NULL);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      fprintf(out, "%s\n", (const char *)sqlite3_column_text(st, 0));
  if (rc != SQLITE_DONE)
    diag_report(d, DIAG_ERROR, path, 0, 0, "records database: %s", sqlite3_errmsg(sql));
  sqlite3_finalize(st);
  return rc == SQLITE_DONE;
}

int rec_export(const char *db_path, FILE *out, diag *d) {
  if (access(db_path, R_OK) != 0) {
    diag_report(d, DIAG_ERROR, db_path, 0, 0, "cannot read records database: %s", strerror(errno));
    return 0;
  }
  rec_db *db = rec_open(db_path, d); /* checks the schema */
  if (!db)
    return 0;
  rec_close(db);
  sqlite3 *sql = NULL;
  int ok = sqlite3_open_v2(db_path, &sql, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK;
  if (!ok)
    diag_report(d, DIAG_ERROR, db_path, 0, 0, "cannot open records database: %s",
                sql ? sqlite3_errmsg(sql) : "out of memory");
  char header[128];
  snprintf(header, sizeof header, "SELECT json_object('kfuse_records', %d, 'schema', %d)", EXPORT_VERSION,
           REC_SCHEMA_VERSION);
  ok = ok && lines(sql, header, out, db_path, d) &&
       lines(sql,
             "SELECT json_object('source_text', json_object('sha256', sha256, 'text', CAST(text AS TEXT)))"
             " FROM source_text ORDER BY sha256",
             out, db_path, d) &&
       lines(sql,
             "SELECT json_object('run', json_object("
             "'digest', digest, 'measured_at', measured_at, 'imported_at', imported_at, 'bundle', bundle,"
             " 'source_name', source_name, 'source_hash', source_hash, 'libs', libs, 'gpu', gpu,"
             " 'sm_count', sm_count, 'compute_capability', compute_capability,"
             " 'driver_version', driver_version, 'cuda_driver_version', cuda_driver_version,"
             " 'runtime_version', runtime_version, 'nvcc_version', nvcc_version, 'nvcc_flags', nvcc_flags,"
             " 'l2_bytes', l2_bytes, 'memory_bytes', memory_bytes, 'verifier_version', verifier_version),"
             " 'variants', (SELECT json_group_array(json(j)) FROM (SELECT json_object('name', name, 'file', file,"
             "   'recipe', recipe, 'text_sha256', text_sha256) AS j FROM run_variant"
             "   WHERE run_id = r.id ORDER BY name)),"
             " 'measurements', (SELECT json_group_array(json(j)) FROM (SELECT json_object("
             "   'source_hash', source_hash, 'entry', entry, 'recipe', recipe, 'binding', binding, 'gpu', gpu,"
             "   'sm_count', sm_count, 'driver_version', driver_version, 'nvcc_version', nvcc_version,"
             "   'nvcc_flags', nvcc_flags, 'variant', variant, 'variant_file', variant_file, 'kind', kind,"
             "   'status', status, 'reason', reason, 'median_ms', median_ms, 'p10_ms', p10_ms,"
             "   'p90_ms', p90_ms, 'mad_ms', mad_ms, 'reps', reps, 'speedup', speedup, 'ci_lo', ci_lo,"
             "   'ci_hi', ci_hi) AS j FROM measurement WHERE run_id = r.id"
             "   ORDER BY entry, recipe, binding, sm_count, driver_version, nvcc_version, nvcc_flags)))"
             " FROM run r ORDER BY measured_at, digest",
             out, db_path, d) &&
       lines(sql,
             "SELECT json_object('verification', json_object('source_hash', source_hash, 'recipe', recipe,"
             " 'gpu', gpu, 'verifier_version', verifier_version, 'status', status, 'reason', reason,"
             " 'checked_at', checked_at)) FROM verification ORDER BY source_hash, recipe, gpu",
             out, db_path, d);
  sqlite3_close_v2(sql);
  if (ok && (fflush(out) != 0 || ferror(out))) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot write the exported records");
    ok = 0;
  }
  return ok;
}

/* ---------------------------------------------------------------- import */

typedef struct reader {
  sqlite3 *sql;
  const char *path;
  unsigned line;
  diag *d;
} reader;

static int fail(reader *r, const char *what) {
  diag_report(r->d, DIAG_ERROR, r->path, r->line, 1, "%s: %s", what, sqlite3_errmsg(r->sql));
  return 0;
}

/* Runs sql with ?1 bound to the line and ?2 to n. */
static int run_line(reader *r, const char *sql, const char *line, sqlite3_int64 n, const char *what) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(r->sql, sql, -1, &st, NULL) != SQLITE_OK)
    return fail(r, what);
  sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, n);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? 1 : fail(r, what);
}

/* The integer json_extract(line, path) gives, or -1 when it is none. */
static long long int_field(reader *r, const char *line, const char *path) {
  sqlite3_stmt *st = NULL;
  long long v = -1;
  if (sqlite3_prepare_v2(r->sql, "SELECT json_type(?1, ?2), json_extract(?1, ?2)", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
        !strcmp((const char *)sqlite3_column_text(st, 0), "integer"))
      v = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  return v;
}

/* What the line holds: "source_text", "run", "verification", "" (none of them), or NULL (not
 * JSON). */
static const char *line_kind(reader *r, const char *line) {
  sqlite3_stmt *st = NULL;
  const char *kind = NULL;
  if (sqlite3_prepare_v2(r->sql, "SELECT json_valid(?1), json_type(?1, '$.source_text'), json_type(?1, '$.run'),"
                         " json_type(?1, '$.verification')", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0)) {
      static const char *const kinds[] = {"source_text", "run", "verification"};
      kind = "";
      for (int i = 0; i < 3 && !*kind; i++) {
        const char *type = (const char *)sqlite3_column_text(st, i + 1);
        if (type && !strcmp(type, "object"))
          kind = kinds[i];
      }
    }
  }
  sqlite3_finalize(st);
  return kind;
}

/* A source text, checked against its hash. */
static int read_text(reader *r, const char *line) {
  sqlite3_stmt *st = NULL;
  int ok = sqlite3_prepare_v2(r->sql,
                              "SELECT json_extract(?1, '$.source_text.sha256'), json_extract(?1, '$.source_text.text')",
                              -1, &st, NULL) == SQLITE_OK;
  if (ok) {
    sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
    ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
         sqlite3_column_type(st, 1) == SQLITE_TEXT;
  }
  if (!ok) {
    sqlite3_finalize(st);
    diag_report(r->d, DIAG_ERROR, r->path, r->line, 1, "a source_text needs a sha256 and a text");
    return 0;
  }
  const char *hash = (const char *)sqlite3_column_text(st, 0);
  const unsigned char *text = sqlite3_column_text(st, 1);
  char got[65];
  bundle_sha256(text, (size_t)sqlite3_column_bytes(st, 1), got);
  ok = !strcmp(got, hash);
  if (!ok)
    diag_report(r->d, DIAG_ERROR, r->path, r->line, 1, "the text's SHA-256 is %s, not %s as filed", got, hash);
  sqlite3_finalize(st);
  return ok && run_line(r,
                        "INSERT OR IGNORE INTO source_text (sha256, text) VALUES"
                        " (json_extract(?1, '$.source_text.sha256'), CAST(json_extract(?1, '$.source_text.text') AS BLOB))",
                        line, 0, "a source_text");
}

/* A run, its variants and its measurements. */
static int read_run(reader *r, const char *line) {
  if (!run_line(r,
                "INSERT INTO run (" RUN_COLUMNS ") VALUES (json_extract(?1, '$.run.digest'),"
                " json_extract(?1, '$.run.measured_at'), json_extract(?1, '$.run.imported_at'),"
                " json_extract(?1, '$.run.bundle'), json_extract(?1, '$.run.source_name'),"
                " json_extract(?1, '$.run.source_hash'), json_extract(?1, '$.run.libs'),"
                " json_extract(?1, '$.run.gpu'), json_extract(?1, '$.run.sm_count'),"
                " json_extract(?1, '$.run.compute_capability'), json_extract(?1, '$.run.driver_version'),"
                " json_extract(?1, '$.run.cuda_driver_version'), json_extract(?1, '$.run.runtime_version'),"
                " json_extract(?1, '$.run.nvcc_version'), json_extract(?1, '$.run.nvcc_flags'),"
                " json_extract(?1, '$.run.l2_bytes'), json_extract(?1, '$.run.memory_bytes'),"
                " coalesce(json_extract(?1, '$.run.verifier_version'), 0))",
                line, 0, "a run"))
    return 0;
  sqlite3_int64 id = sqlite3_last_insert_rowid(r->sql);
  return run_line(r,
                  "INSERT INTO run_variant (run_id, name, file, recipe, text_sha256) SELECT ?2,"
                  " json_extract(value, '$.name'), json_extract(value, '$.file'), json_extract(value, '$.recipe'),"
                  " json_extract(value, '$.text_sha256') FROM json_each(?1, '$.variants')",
                  line, id, "a run's variants") &&
         run_line(r,
                  "INSERT INTO measurement (run_id, " MEASUREMENT_COLUMNS ") SELECT ?2,"
                  " json_extract(value, '$.source_hash'), json_extract(value, '$.entry'),"
                  " json_extract(value, '$.recipe'), json_extract(value, '$.binding'), json_extract(value, '$.gpu'),"
                  " json_extract(value, '$.sm_count'), json_extract(value, '$.driver_version'),"
                  " json_extract(value, '$.nvcc_version'), json_extract(value, '$.nvcc_flags'),"
                  " json_extract(value, '$.variant'), json_extract(value, '$.variant_file'),"
                  " json_extract(value, '$.kind'), json_extract(value, '$.status'), json_extract(value, '$.reason'),"
                  " json_extract(value, '$.median_ms'), json_extract(value, '$.p10_ms'),"
                  " json_extract(value, '$.p90_ms'), json_extract(value, '$.mad_ms'), json_extract(value, '$.reps'),"
                  " json_extract(value, '$.speedup'), json_extract(value, '$.ci_lo'), json_extract(value, '$.ci_hi')"
                  " FROM json_each(?1, '$.measurements')",
                  line, id, "a run's measurements");
}

static const char *lzma_message(lzma_ret ret) {
  switch (ret) {
  case LZMA_MEM_ERROR:
  case LZMA_MEMLIMIT_ERROR: return "out of memory";
  case LZMA_FORMAT_ERROR: return "not in the xz format";
  case LZMA_OPTIONS_ERROR: return "unsupported xz options";
  case LZMA_DATA_ERROR: return "corrupt xz data";
  case LZMA_BUF_ERROR: return "truncated xz data";
  default: return "xz error";
  }
}

int rec_compress_xz(const char *text, size_t n, char **out, size_t *out_n, diag *d) {
  /* Preset 6: an 8 MiB dictionary reaches across a problem's variants, with some 100 MiB of
   * memory where preset 9 takes 700. One thread, so the bytes are the same everywhere. */
  size_t cap = lzma_stream_buffer_bound(n);
  *out = xmalloc(cap ? cap : 1);
  *out_n = 0;
  lzma_ret ret = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n, (uint8_t *)*out,
                                         out_n, cap);
  if (ret != LZMA_OK) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot compress the records: %s", lzma_message(ret));
    free(*out);
    *out = NULL;
    return 0;
  }
  return 1;
}

/* The xz stream in f, decompressed into a buffer of its own (*text, *n). */
static int decompress_xz(FILE *f, const char *path, char **text, size_t *n, diag *d) {
  lzma_stream s = LZMA_STREAM_INIT;
  lzma_ret ret = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
  uint8_t in[1 << 16];
  size_t cap = 1 << 20;
  *text = xmalloc(cap);
  *n = 0;
  lzma_action action = LZMA_RUN;
  while (ret == LZMA_OK) {
    if (s.avail_in == 0 && action == LZMA_RUN) {
      s.next_in = in;
      s.avail_in = fread(in, 1, sizeof in, f);
      if (ferror(f)) {
        diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read file: %s", strerror(errno));
        break;
      }
      if (feof(f))
        action = LZMA_FINISH;
    }
    if (*n == cap) {
      cap *= 2;
      *text = xrealloc(*text, cap);
    }
    s.next_out = (uint8_t *)*text + *n;
    s.avail_out = cap - *n;
    ret = lzma_code(&s, action);
    *n = cap - s.avail_out;
  }
  lzma_end(&s);
  if (ret != LZMA_STREAM_END) {
    if (!ferror(f))
      diag_report(d, DIAG_ERROR, path, 0, 0, "cannot decompress: %s", lzma_message(ret));
    free(*text);
    *text = NULL;
    return 0;
  }
  return 1;
}

/* Opens an exported file for reading lines: as it is, or decompressed into *buf (freed by
 * the caller after fclose) when it starts with xz's magic bytes. */
static FILE *open_export(const char *path, char **buf, diag *d) {
  *buf = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open file: %s", strerror(errno));
    return NULL;
  }
  static const unsigned char magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
  unsigned char head[6];
  size_t got = fread(head, 1, sizeof head, f);
  if (got < sizeof head || memcmp(head, magic, sizeof magic) != 0) {
    rewind(f);
    return f;
  }
  rewind(f);
  size_t n;
  int ok = decompress_xz(f, path, buf, &n, d);
  fclose(f);
  if (!ok)
    return NULL;
  if (n == 0) { /* fmemopen takes no empty buffer */
    diag_report(d, DIAG_ERROR, path, 0, 0, "empty: not exported records");
    free(*buf);
    *buf = NULL;
    return NULL;
  }
  f = fmemopen(*buf, n, "r");
  if (!f) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "out of memory");
    free(*buf);
    *buf = NULL;
  }
  return f;
}

/* Reads the file at path into the fresh database at tmp. */
static int read_file_into(const char *path, const char *tmp, diag *d) {
  char *buf;
  FILE *f = open_export(path, &buf, d);
  if (!f)
    return 0;
  reader r = {NULL, path, 0, d};
  int ok = sqlite3_open_v2(tmp, &r.sql, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
  if (!ok)
    diag_report(d, DIAG_ERROR, tmp, 0, 0, "cannot open a scratch database");
  ok = ok && sqlite3_exec(r.sql, "PRAGMA foreign_keys = ON; BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while (ok && (n = getline(&line, &cap, f)) >= 0) {
    r.line++;
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = 0;
    if (r.line == 1) {
      long long schema = int_field(&r, line, "$.schema");
      if (int_field(&r, line, "$.kfuse_records") != EXPORT_VERSION || schema < 1 || schema > REC_SCHEMA_VERSION) {
        diag_report(d, DIAG_ERROR, path, 1, 1, "not kfuse records of version %d, schema 1 to %d (the first line "
                    "of `kfuse records export`)", EXPORT_VERSION, REC_SCHEMA_VERSION);
        ok = 0;
      }
      continue;
    }
    const char *kind = line_kind(&r, line);
    if (!kind) {
      diag_report(d, DIAG_ERROR, path, r.line, 1, "not valid JSON");
      ok = 0;
    } else if (!strcmp(kind, "source_text")) {
      ok = read_text(&r, line);
    } else if (!strcmp(kind, "run")) {
      ok = read_run(&r, line);
    } else if (!strcmp(kind, "verification")) {
      ok = run_line(&r,
                    "INSERT OR REPLACE INTO verification (source_hash, recipe, gpu, verifier_version, status, reason,"
                    " checked_at) VALUES (json_extract(?1, '$.verification.source_hash'),"
                    " json_extract(?1, '$.verification.recipe'), json_extract(?1, '$.verification.gpu'),"
                    " json_extract(?1, '$.verification.verifier_version'), json_extract(?1, '$.verification.status'),"
                    " json_extract(?1, '$.verification.reason'), json_extract(?1, '$.verification.checked_at'))",
                    line, 0, "a verification");
    } else {
      diag_report(d, DIAG_ERROR, path, r.line, 1, "a line holds a \"source_text\", a \"run\" or a \"verification\" object");
      ok = 0;
    }
  }
  if (ok && ferror(f)) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read file");
    ok = 0;
  }
  if (ok && r.line == 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "empty: not exported records");
    ok = 0;
  }
  if (ok && sqlite3_exec(r.sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    ok = fail(&r, "the records");
  free(line);
  fclose(f);
  free(buf);
  sqlite3_close_v2(r.sql);
  return ok;
}

int rec_import_text(rec_db *db, const char *path, int *added, diag *d) {
  *added = 0;
  char dir[] = "/tmp/kfuse-records-XXXXXX";
  if (!mkdtemp(dir)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot create a temporary directory: %s", strerror(errno));
    return 0;
  }
  char tmp[64], side[80];
  snprintf(tmp, sizeof tmp, "%s/r.db", dir);
  rec_db *t = rec_open(tmp, d); /* the schema */
  int ok = t != NULL;
  rec_close(t);
  ok = ok && read_file_into(path, tmp, d) && rec_merge(db, tmp, added, d);
  static const char *const suffix[] = {"", "-wal", "-shm"};
  for (int i = 0; i < 3; i++) {
    snprintf(side, sizeof side, "%s%s", tmp, suffix[i]);
    unlink(side);
  }
  rmdir(dir);
  return ok;
}
