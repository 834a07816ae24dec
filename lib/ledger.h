/*
 * ledger.h: what kfuse decided for one input and why (docs/ledger.md). For every entry:
 * the sites each pass applied at, every variant's verdict from the tuning records (kept,
 * faster but not the best, slower with its interval, failed with the verifier's line,
 * verified but not re-timed, not measured) with its numbers; for the file, every site a pass
 * refused with the reason (its -Rpass-missed remark). Written as JSON, one value a line so
 * that two ledgers diff line by line: at the end of an output that applies a variant (with
 * a summary in its head) and, with --ledger FILE, on its own. `kfuse explain` prints it
 * for people.
 */
#ifndef KFUSE_LEDGER_H
#define KFUSE_LEDGER_H

#include "diag.h"
#include "model.h"
#include "records.h"

typedef struct ledger_site {
  const char *pass;
  int entry;
  const char *what;     /* pass_site.what */
} ledger_site;

typedef struct ledger_refusal {
  const char *pass;
  unsigned line, col;
  const char *why;      /* the remark without its [-Rpass-missed=...] */
} ledger_refusal;

typedef struct ledger {
  arena *a;
  ledger_site *sites;
  int nsites, cap_sites;
  ledger_refusal *refused;
  int nrefused, cap_refused;
  const char **made;    /* the recipes of the variants the passes made */
  int nmade, cap_made;
  strbuf json;          /* ledger_build's document */
  const char *summary;  /* ledger_build's one line */
} ledger;

/* A ledger in a's memory. */
void ledger_init(ledger *lg, arena *a);
void ledger_free(ledger *lg);
/* Keeps the passes' -Rpass-missed remarks reported to d from now on (printed or not);
 * ledger_listen(NULL, d) stops. */
void ledger_listen(ledger *lg, diag *d);
void ledger_add_site(ledger *lg, const char *pass, int entry, const char *what);
void ledger_add_made(ledger *lg, const char *recipe);
/* Writes the document into lg->json and its summary into lg->summary: m's sites and
 * refusals, and for each entry the verdicts the records db hold for the source hash on
 * gpu (db or gpu NULL: none); applied is the recipe the output applies, or NULL with why
 * the output is the input. Returns 0 after a database error (reported to d). */
int ledger_build(ledger *lg, const kmodel *m, rec_db *db, const char *hash, const char *gpu,
                 const char *applied, const char *why, diag *d);
/* Appends the document to out as `//` comment lines under a `// kfuse-ledger-json` line. */
void ledger_append_comment(const ledger *lg, strbuf *out);
/* kfuse explain: prints the ledger in path (a kfuse output that carries one, or a ledger
 * written with --ledger) for people, to out. Returns 0 after an error reported to d. */
int ledger_explain(const char *path, FILE *out, diag *d);

#endif
