/*
 * kfuse: the compiler's command line. Options and exit codes only; the work is
 * kfuse_compile (lib/pipeline.c).
 *
 * Exit codes: 0 success; 1 the input has errors (diagnostics printed); 2 a usage error;
 * 3 the output could not be written. An internal error aborts (134) after printing
 * kfuse's own file and line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "pipeline.h"
#include "ranker.h"
#include "regress.h"
#include "../passes/pass.h"

static const char usage[] =
    "usage: kfuse [opt] [options] INPUT.cu -o OUTPUT.cu\n"
    "       kfuse COMMAND [options] ...    (kfuse COMMAND --help says more)\n"
    "\n"
    "Reads reference CUDA written to the kfuse input contract and writes CUDA that\n"
    "computes the same thing faster: a variant verified correct and measured faster on the\n"
    "GPU (here, or in the tuning records), else the input itself.\n"
    "\n"
    "commands:\n"
    "  opt       optimize INPUT.cu into OUTPUT.cu (the default: kfuse in.cu -o out.cu)\n"
    "  bundle    write a bundle for kfuse-runner: kfuse bundle INPUT.cu -o DIR\n"
    "  import    put kfuse-runner's results into the records: kfuse import DIR\n"
    "  check     verify and time a candidate against a reference on the GPU here\n"
    "  records   show, merge, export and import tuning records\n"
    "  explain   print the decisions an output (or a ledger) carries\n"
    "  learn     train the ranker on the records, or --evaluate it\n"
    "  regress   which programs a change to the passes touched, against the records\n"
    "  launch    the compiler launcher (also installed as kfuse-launch)\n"
    "\n"
    "options of opt:\n"
    "  -o FILE             write the output to FILE ('-' for standard output); required\n"
    "  --variant FILE      a candidate implementation of the same entries to verify and\n"
    "                      time against the input (repeatable): measured at once when a\n"
    "                      GPU is here\n"
    "  --records DB        the tuning records (default $KFUSE_RECORDS, else\n"
    "                      ~/.cache/kfuse/records.db)\n"
    "  --target-gpu NAME   select for this GPU model ('NVIDIA H200'; default: the GPU\n"
    "                      here, else the one model the records hold for the source)\n"
    "  --ledger FILE       also write the decision ledger (JSON: each pass's sites and\n"
    "                      refusals, each variant's verdict) to FILE; an output that\n"
    "                      applies a variant carries it at its end\n"
    "  --emit=KIND         cuda (default): the optimized program\n"
    "                      model: the program model as text\n"
    "                      model-json: the program model as JSON\n"
    "                      lifted: the input with every lifted kernel re-printed\n"
    "                      transformed: the program after the passes (default\n"
    "                      parameters), NOT verified or measured: for reading\n"
    "                      reference: a C file's annotated functions, each a kernel\n"
    "                      run by one thread, and entries that launch them (the\n"
    "                      serial form the parallelize pass starts from)\n"
    "  --passes=A,B        run only these passes, in this order ('' for none)\n"
    "  --pin PASS.PARAM=V  give a pass's parameter one value instead of searching its\n"
    "                      values (repeatable; kfuse --list-passes lists them)\n"
    "  --budget=N          make (and, with a GPU here, measure) at most N variants of the\n"
    "                      passes' parameters that the records do not hold yet (default\n"
    "                      12): a later call goes on where the records stop; those the\n"
    "                      runner prunes unmeasured (spills) do not count\n"
    "  --budget=Ns         or measure for about N seconds (10 to 86400): the runner starts\n"
    "                      no variant after that; the rest wait for a later call\n"
    "  --remeasure         measure again the variants the records hold\n"
    "  --no-measure        select from the records only, even with a GPU here (builds:\n"
    "                      kfuse-launch and kfuse_optimize() never tune)\n"
    "  --ranker MODEL      spend the budget on the rule order's first new variant, then\n"
    "                      the ones the learned ranker MODEL scores highest (default\n"
    "                      $KFUSE_RANKER, else the model built in, trained on the shipped\n"
    "                      H200 records; kfuse learn trains one); none: the rule order\n"
    "  --print-after=PASS  print the program after PASS to standard error\n"
    "  --list-passes       list the passes and their parameters, and exit\n"
    "  -R, --remarks       print remarks (opaque kernels, missed optimizations)\n"
    "  -I DIR, -D NAME[=V] passed to the parser, as to nvcc\n"
    "  --cuda-path=DIR     the CUDA toolkit (default /usr/local/cuda)\n"
    "  -v                  say what each phase did\n"
    "  --version           print the version\n"
    "  -h, --help          print this help\n"
    "\n"
    "old spellings, kept for one release: --bundle DIR (kfuse bundle), --import DIR (kfuse\n"
    "import), --show-records (kfuse records show), --max-variants=N (--budget=N)\n"
    "\n"
    "exit status: 0 success, 1 errors in the input, 2 usage error, 3 output not written,\n"
    "4 no GPU here (kfuse check)\n";

static const char bundle_usage[] =
    "usage: kfuse bundle INPUT.cu -o DIR [--variant FILE]... [--records DB] [--target-gpu NAME]\n"
    "                    [--budget=N] [--remeasure] [--passes=A,B] [--pin PASS.PARAM=V]\n"
    "                    [--ranker MODEL] [--shards N] [-I DIR] [-D NAME[=V]] [-v]\n"
    "\n"
    "Writes a bundle for kfuse-runner into DIR (docs/bundle-format.md): the reference, the\n"
    "variants the passes make (at most --budget new ones) and the --variant files, with\n"
    "their call shims and the manifest. With --records, the variants the records hold are\n"
    "left out (the search goes on where they stop; --remeasure takes them all). Run\n"
    "`kfuse-runner DIR` on a GPU host, then `kfuse import DIR`. With --shards N, N bundles\n"
    "DIR/shard-1..N, each with the reference and every N-th variant, for N GPUs or hosts\n"
    "(`kfuse-runner --gpus all DIR` runs them one per GPU; `kfuse import DIR` takes them\n"
    "all; docs/multi-gpu.md).\n";

static const char import_usage[] =
    "usage: kfuse import DIR [--records DB]\n"
    "\n"
    "Puts the results kfuse-runner wrote into the bundle DIR (results.tsv, device.tsv) into\n"
    "the tuning records (default $KFUSE_RECORDS, else ~/.cache/kfuse/records.db), with the\n"
    "variants' sources; every shard of DIR when it is a set of shards (kfuse bundle\n"
    "--shards). Importing the same results again changes nothing.\n";

static int usage_error(const char *fmt, const char *arg) {
  fputs("kfuse: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nkfuse: run 'kfuse --help' for usage\n", stderr);
  return KFUSE_USAGE_ERROR;
}

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* kfuse check [options] REF CAND: verify CAND against REF's annotations on the GPU here
 * and print the evidence and the measured speedup. */
static int check_command(const kfuse_options *base, int argc, char **argv) {
  static const char use[] = "usage: kfuse check [--deterministic] [--records DB] [-v] REF.cu CANDIDATE.cu";
  kfuse_options o = *base;
  const char *files[2];
  int nfiles = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("%s\n\n"
             "Verifies CANDIDATE.cu (hand- or LLM-written, the same entries) against REF.cu's\n"
             "annotations on the GPU here, as kfuse-runner verifies every variant, and prints the\n"
             "evidence and the measured speedup. --deterministic also demands bit-identical reruns;\n"
             "with --records the results go into the tuning records.\n", use);
      return 0;
    } else if (!strcmp(a, "--deterministic")) {
      o.deterministic = 1;
    } else if (!strcmp(a, "--records")) {
      if (++i >= argc)
        return usage_error("%s needs an argument", a);
      o.records = argv[i];
    } else if (!strcmp(a, "-v")) {
      o.verbose = 1;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s' of kfuse check", a);
    } else if (nfiles == 2) {
      return usage_error("%s", use);
    } else {
      files[nfiles++] = a;
    }
  }
  if (nfiles != 2)
    return usage_error("%s", use);
  o.input = files[0];
  diag *d = diag_new(stderr);
  kfuse_status st = kfuse_check(&o, files[1], d);
  diag_free(d);
  return (int)st;
}

/* kfuse explain FILE: the ledger FILE carries (or is), for people. */
static int explain_command(int argc, char **argv) {
  static const char use[] = "usage: kfuse explain OUTPUT.cu|LEDGER.json";
  if (argc == 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
    printf("%s\n\nPrints the decision ledger of a kfuse output (or of a ledger written with\n"
           "--ledger): the sites each pass applied at and refused, and each variant's verdict\n"
           "from the tuning records, with its numbers.\n", use);
    return 0;
  }
  if (argc != 3 || (argv[2][0] == '-' && argv[2][1]))
    return usage_error("%s", use);
  diag *d = diag_new(stderr);
  kfuse_status st = kfuse_explain(argv[2], d);
  diag_free(d);
  return (int)st;
}

/* kfuse learn [--records DB] [--rounds N] -o MODEL: trains the ranker on the records. */
static int learn_command(int argc, char **argv) {
  static const char use[] = "usage: kfuse learn [--records DB] [--rounds N] -o MODEL.json\n"
                            "       kfuse learn --evaluate [--records DB] [--rounds N] [--min-variants K] [--curves FILE.csv]";
  const char *records = NULL, *model = NULL, *curves = NULL;
  int rounds = 50, evaluate = 0, min_variants = 4;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("%s\n\nTrains the ranker (XGBoost, rank:pairwise) on the tune measurements of the records\n"
             "(default $KFUSE_RECORDS, else ~/.cache/kfuse/records.db): one group per source, entry,\n"
             "GPU model and binding, each variant's label the log of its first-round speed (1 / its\n"
             "median) relative to the group's fastest. `kfuse --ranker MODEL.json` then measures the\n"
             "variants it scores highest first.\n"
             "\n"
             "--evaluate holds each level of the corpus (level1, level2, level3, launch; from the\n"
             "sources' paths) out of the training in turn and, for every group of K or more timed\n"
             "variants (--min-variants, default 4), counts the measurements needed to reach 95%% of\n"
             "the group's best (by first-round speed): in the rule order, in random order (expected)\n"
             "and in the held-out ranker's order. --curves writes the mean search curves (the\n"
             "fraction of the best found after each measurement) as CSV.\n", use);
      return 0;
    }
    if ((!strcmp(a, "--records") || !strcmp(a, "-o") || !strcmp(a, "--rounds") || !strcmp(a, "--curves") ||
         !strcmp(a, "--min-variants")) && i + 1 >= argc)
      return usage_error("%s needs an argument", a);
    if (!strcmp(a, "--evaluate")) {
      evaluate = 1;
    } else if (!strcmp(a, "--curves")) {
      curves = argv[++i];
    } else if (!strcmp(a, "--min-variants")) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || v < 2 || v > 10000)
        return usage_error("--min-variants needs a count from 2 to 10000, not '%s'", argv[i]);
      min_variants = (int)v;
    } else if (!strcmp(a, "--records")) {
      records = argv[++i];
    } else if (!strcmp(a, "-o")) {
      model = argv[++i];
    } else if (!strcmp(a, "--rounds")) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || v < 1 || v > 10000)
        return usage_error("--rounds needs a count from 1 to 10000, not '%s'", argv[i]);
      rounds = (int)v;
    } else {
      return usage_error("%s", use);
    }
  }
  if (evaluate ? model != NULL : (model == NULL || curves != NULL))
    return usage_error("%s", use);
  if (evaluate) {
    diag *d = diag_new(stderr);
    kfuse_status st = kfuse_learn_evaluate(records, rounds, min_variants, curves, d);
    diag_free(d);
    return (int)st;
  }
  diag *d = diag_new(stderr);
  kfuse_status st = kfuse_learn(records, model, rounds, d);
  diag_free(d);
  return (int)st;
}

/* kfuse regress [options]: the rules' regression report against the records. */
static int regress_command(int argc, char **argv, const char **extra, const char **pins) {
  static const char use[] = "usage: kfuse regress [--corpus DIR|FILE] [--records DB] [--target-gpu NAME] "
                            "[--junit FILE] [--fail-on-change] [--bisect] [--no-measure] [--passes=A,B] "
                            "[--pin PASS.PARAM=V] [-I DIR] [-D NAME[=V]]";
  kfuse_options o = {0};
  regress_options r = {.corpus = "benchmarks/corpus", .measure = 1};
  o.emit = EMIT_CUDA;
  o.argv0 = argv[0];
  o.tu.extra_args = extra;
  o.pins = pins;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("%s\n\n"
             "Runs the passes again on every .cu of the corpus (default benchmarks/corpus) and\n"
             "compares their variants with what the tuning records (default $KFUSE_RECORDS, else\n"
             "~/.cache/kfuse/records.db) say the rules made before, on the GPU model (--target-gpu,\n"
             "else the one the records hold for the source): per recipe unchanged, differing in\n"
             "bytes, new among the first ones the rules make, or lost. Needs no GPU.\n"
             "With a GPU here (unless --no-measure), what changed is measured beside the baseline's\n"
             "choice, and a changed variant that fails verification, or a best variant slower than\n"
             "the baseline's choice beyond the spread of their times, is a regression (exit 1).\n"
             "--bisect names the pass decision behind a lost baseline choice, by pinning each pass\n"
             "of its recipe to its recorded parameters until the choice is made again byte for byte.\n"
             "--junit FILE writes the report as JUnit XML; --fail-on-change exits 1 when a source\n"
             "changed. A source that no longer goes through kfuse is an error (exit 1).\n", use);
      return 0;
    }
    int needs = !strcmp(a, "--corpus") || !strcmp(a, "--records") || !strcmp(a, "--target-gpu") ||
                !strcmp(a, "--junit") || !strcmp(a, "-I") || !strcmp(a, "-D");
    if (needs && i + 1 >= argc)
      return usage_error("%s needs an argument", a);
    if (!strcmp(a, "--corpus"))
      r.corpus = argv[++i];
    else if (!strcmp(a, "--records"))
      o.records = argv[++i];
    else if (!strcmp(a, "--target-gpu"))
      o.target_gpu = argv[++i];
    else if (!strcmp(a, "--junit"))
      r.junit = argv[++i];
    else if (!strcmp(a, "--fail-on-change"))
      r.fail_on_change = 1;
    else if (!strcmp(a, "--no-measure"))
      r.measure = 0;
    else if (!strcmp(a, "--bisect"))
      r.bisect = 1;
    else if (starts(a, "--passes="))
      o.passes = a + 9;
    else if (!strcmp(a, "--pin") && i + 1 < argc)
      pins[o.npins++] = argv[++i];
    else if (!strcmp(a, "-I") || !strcmp(a, "-D")) {
      extra[o.tu.nextra_args++] = a;
      extra[o.tu.nextra_args++] = argv[++i];
    } else if (starts(a, "-I") || starts(a, "-D"))
      extra[o.tu.nextra_args++] = a;
    else
      return usage_error("%s", use);
  }
  diag *d = diag_new(stderr);
  kfuse_status st = kfuse_check_options(&o, d);
  if (st == KFUSE_OK)
    st = kfuse_regress(&o, &r, d);
  diag_free(d);
  return (int)st;
}

/* kfuse records merge|export|import: records from other machines, and as text. */
static int records_command(int argc, char **argv) {
  static const char use[] = "usage: kfuse records show [--records DB] | merge INTO.db FROM.db... | export DB -o FILE | "
                            "import INTO.db FILE... | verify [--records DB] [-v]";
  int help = 0;
  for (int i = 2; i < argc; i++)
    help |= !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
  if (help) {
    printf("%s\n\n"
           "show    prints every run of the records (--records, default $KFUSE_RECORDS) and its\n"
           "        measurements, oldest first.\n"
           "merge   merges the tuning records of each FROM.db (measured on another machine, say a\n"
           "        GPU host) into INTO.db, created when missing: runs INTO.db has are skipped, and\n"
           "        of two measurements of one key the one measured later stays. FROM.db is only read.\n"
           "export  writes DB's records as JSON lines, in a fixed order, to FILE ('-': standard\n"
           "        output): text that diffs, and travels where a database file does not.\n"
           "import  reads such files and merges their records into INTO.db as merge does.\n"
           "verify  (needs a GPU) runs the verifier again on every recorded variant of this GPU's\n"
           "        model that is neither failed nor quarantined; one that fails is quarantined:\n"
           "        kept, marked with the verifier's line, never applied again (exit 1).\n", use);
    return 0;
  }
  const char *cmd = argc >= 3 ? argv[2] : "";
  if (!strcmp(cmd, "verify")) {
    kfuse_options o = {0};
    o.argv0 = argv[0];
    for (int i = 3; i < argc; i++) {
      if (!strcmp(argv[i], "--records") && i + 1 < argc)
        o.records = argv[++i];
      else if (!strcmp(argv[i], "-v"))
        o.verbose = 1;
      else
        return usage_error("%s", use);
    }
    diag *d = diag_new(stderr);
    kfuse_status st = kfuse_records_verify(&o, d);
    diag_free(d);
    return (int)st;
  }
  for (int i = 3; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "-o"))
      return usage_error("%s", use);
  int merge = !strcmp(cmd, "merge") && argc >= 5, import = !strcmp(cmd, "import") && argc >= 5,
      export = !strcmp(cmd, "export") && argc == 6 && !strcmp(argv[4], "-o");
  if (!merge && !import && !export)
    return usage_error("%s", use);
  diag *d = diag_new(stderr);
  kfuse_status st = merge    ? kfuse_records_merge(argv[3], (const char *const *)argv + 4, argc - 4, d)
                    : import ? kfuse_records_import(argv[3], (const char *const *)argv + 4, argc - 4, d)
                             : kfuse_records_export(argv[3], argv[5], d);
  diag_free(d);
  return (int)st;
}

static int run(int argc, char **argv, const char **extra, const char **variants, const char **pins) {
  kfuse_options o = {0};
  o.pins = pins;
  o.emit = EMIT_CUDA;
  o.argv0 = argv[0];
  const char *import_dir = NULL;
  int show_records = 0, remeasure = 0;
  /* the commands that are the one-shot path's options under another name: opt, bundle,
   * import, records show; argv is rewritten into the old spelling and read again */
  if (argc >= 2 && (!strcmp(argv[1], "opt") || !strcmp(argv[1], "bundle") || !strcmp(argv[1], "import") ||
                    (!strcmp(argv[1], "records") && argc >= 3 && !strcmp(argv[2], "show")))) {
    const char *cmd = argv[1];
    int skip = !strcmp(cmd, "records") ? 2 : 1;
    for (int i = 1 + skip; i < argc; i++)
      if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
        fputs(!strcmp(cmd, "bundle") ? bundle_usage : !strcmp(cmd, "import") ? import_usage
              : !strcmp(cmd, "records") ? "usage: kfuse records show [--records DB]\n\nPrints every run of "
                                          "the tuning records and its measurements, oldest first.\n"
                                        : usage, stdout);
        return 0;
      }
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args)
      return 70;
    int n = 0;
    args[n++] = argv[0];
    if (!strcmp(cmd, "records"))
      args[n++] = "--show-records";
    int dir_seen = 0;
    for (int i = 1 + skip; i < argc; i++) {
      if (!strcmp(cmd, "bundle") && !strcmp(argv[i], "-o")) {
        args[n++] = "--bundle";
      } else if (!strcmp(argv[i], "--records") && i + 1 < argc) {
        args[n++] = argv[i++];
        args[n++] = argv[i];
      } else if (!strcmp(cmd, "import") && argv[i][0] != '-' && !dir_seen) {
        args[n++] = "--import"; /* the bundle directory */
        args[n++] = argv[i];
        dir_seen = 1;
      } else {
        args[n++] = argv[i];
      }
    }
    int has_o = 0;
    for (int i = 1 + skip; i < argc; i++)
      has_o |= !strcmp(argv[i], "-o");
    int rc = !strcmp(cmd, "import") && !dir_seen ? usage_error("%s", "usage: kfuse import DIR [--records DB]")
             : !strcmp(cmd, "bundle") && !has_o ? usage_error("%s", "kfuse bundle writes a directory: give it with -o DIR")
                                               : run(n, args, extra, variants, pins);
    free(args);
    return rc;
  }
  /* kfuse-launch (a link to kfuse) and `kfuse launch`: the compiler launcher */
  const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (!strcmp(base, "kfuse-launch"))
    return kfuse_launch(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "launch"))
    return kfuse_launch(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "check"))
    return check_command(&o, argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "explain"))
    return explain_command(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "records"))
    return records_command(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "learn"))
    return learn_command(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "regress"))
    return regress_command(argc, argv, extra, pins);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("kfuse %s (libclang: %s)\n", KFUSE_VERSION, "22");
      return 0;
    } else if (!strcmp(a, "--list-passes")) {
      for (int p = 0; p < pass_count; p++) {
        printf("%-16s %s%s%s\n", pass_list[p]->name, pass_list[p]->summary,
               pass_list[p]->opt_in ? " (only when --passes= names it)" : "",
               pass_list[p]->optional ? " (variants made with it and without it)" : "");
        const pass_param *params;
        int n = pass_list[p]->params(&params);
        for (int q = 0; q < n; q++) {
          printf("%-16s   %s.%s:", "", pass_list[p]->name, params[q].name);
          for (int k = 0; k < params[q].nvalues; k++)
            printf(" %d%s", params[q].values[k], k == 0 ? " (default)" : "");
          printf("\n");
        }
      }
      if (!pass_count)
        printf("(no passes yet)\n");
      return 0;
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc)
        return usage_error("%s needs a file name", "-o");
      if (o.output)
        return usage_error("%s given twice", "-o");
      o.output = argv[i];
    } else if (!strcmp(a, "--records") || !strcmp(a, "--target-gpu") || !strcmp(a, "--import")) {
      if (++i >= argc)
        return usage_error("%s needs an argument", a);
      if (a[2] == 'r')
        o.records = argv[i];
      else if (a[2] == 't')
        o.target_gpu = argv[i];
      else
        import_dir = argv[i];
    } else if (!strcmp(a, "--show-records")) {
      show_records = 1;
    } else if (!strcmp(a, "--ranker")) {
      if (++i >= argc)
        return usage_error("%s needs a file name", a);
      o.ranker = argv[i];
      if (strcmp(o.ranker, "none") != 0 && access(o.ranker, R_OK) != 0)
        return usage_error("--ranker: cannot read the model '%s'", o.ranker);
    } else if (!strcmp(a, "--ledger")) {
      if (++i >= argc)
        return usage_error("%s needs a file name", a);
      if (o.ledger)
        return usage_error("%s given twice", "--ledger");
      o.ledger = argv[i];
    } else if (!strcmp(a, "--bundle") || !strcmp(a, "--variant")) {
      if (++i >= argc)
        return usage_error("%s needs an argument", a);
      if (a[2] == 'b') {
        if (o.bundle_dir)
          return usage_error("%s given twice", "--bundle");
        o.bundle_dir = argv[i];
      } else {
        variants[o.nvariants++] = argv[i];
      }
    } else if (starts(a, "--emit=")) {
      const char *k = a + 7;
      if (!strcmp(k, "cuda"))
        o.emit = EMIT_CUDA;
      else if (!strcmp(k, "model"))
        o.emit = EMIT_MODEL;
      else if (!strcmp(k, "model-json"))
        o.emit = EMIT_MODEL_JSON;
      else if (!strcmp(k, "lifted"))
        o.emit = EMIT_LIFTED;
      else if (!strcmp(k, "transformed"))
        o.emit = EMIT_TRANSFORMED;
      else if (!strcmp(k, "reference"))
        o.emit = EMIT_REFERENCE;
      else
        return usage_error("unknown --emit kind '%s'; expected cuda, model, model-json, lifted, transformed or reference",
                           k);
    } else if (starts(a, "--max-variants=") || starts(a, "--budget=")) {
      const char *val = strchr(a, '=') + 1;
      char *end;
      long v = strtol(val, &end, 10);
      if (a[2] == 'b' && *val && end != val && !strcmp(end, "s")) {
        /* seconds: the runner stops starting variants then; the count is only a cap */
        if (v < 10 || v > 86400)
          return usage_error("--budget=Ns needs from 10 to 86400 seconds, not '%s'", val);
        o.budget_s = (int)v;
        o.max_variants = v / 2 < 12 ? 12 : v / 2 > 256 ? 256 : (int)(v / 2);
        continue;
      }
      if (!*val || *end || v < 1 || v > 1000)
        return usage_error(a[2] == 'b' ? "--budget needs a count of variants from 1 to 1000, or seconds as "
                                         "60s, not '%s'" : "--max-variants needs a count from 1 to 1000, not '%s'", val);
      o.max_variants = (int)v;
    } else if (starts(a, "--shards=") || !strcmp(a, "--shards")) {
      const char *val = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
      char *end;
      long v = strtol(val, &end, 10);
      if (!*val || *end || v < 1 || v > 1024)
        return usage_error("--shards needs a count of bundles from 1 to 1024, not '%s'", val);
      o.shards = (int)v;
    } else if (!strcmp(a, "--remeasure")) {
      remeasure = 1;
    } else if (!strcmp(a, "--no-measure")) {
      o.no_measure = 1;
    } else if (!strcmp(a, "--pin")) {
      if (++i >= argc)
        return usage_error("%s needs PASS.PARAM=VALUE", a);
      pins[o.npins++] = argv[i];
    } else if (starts(a, "--passes=")) {
      o.passes = a + 9;
    } else if (starts(a, "--print-after=")) {
      o.print_after = a + 14;
      if (!*o.print_after)
        return usage_error("%s needs a pass name", "--print-after=");
    } else if (starts(a, "--cuda-path=")) {
      o.tu.cuda_path = a + 12;
    } else if (!strcmp(a, "-R") || !strcmp(a, "--remarks")) {
      o.remarks = 1;
    } else if (!strcmp(a, "-v")) {
      o.verbose = 1;
    } else if ((!strcmp(a, "-I") || !strcmp(a, "-D"))) {
      if (i + 1 >= argc)
        return usage_error("%s needs an argument", a);
      extra[o.tu.nextra_args++] = a;
      extra[o.tu.nextra_args++] = argv[++i];
    } else if (starts(a, "-I") || starts(a, "-D")) {
      extra[o.tu.nextra_args++] = a;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      if (o.input)
        return usage_error("more than one input file ('%s')", a);
      o.input = a;
    }
  }
  o.tu.extra_args = extra;
  o.variants = variants;
  /* variants the records hold are not measured again: in the one-shot path by default,
   * for a bundle when --records names the records */
  o.resume = !remeasure && (!o.bundle_dir || o.records);
  if (!o.ranker && getenv("KFUSE_RANKER") && *getenv("KFUSE_RANKER"))
    o.ranker = getenv("KFUSE_RANKER");
  if (!o.ranker)
    o.ranker = RANKER_BUILTIN; /* the model trained on the shipped H200 records */
  if (import_dir || show_records) {
    if (o.input || o.output || o.ledger)
      return usage_error("%s", "--import and --show-records take no input, output or ledger file");
    diag *d = diag_new(stderr);
    kfuse_status st = import_dir ? kfuse_import(o.records, import_dir, d) : KFUSE_OK;
    if (st == KFUSE_OK && show_records)
      st = kfuse_show_records(o.records, d);
    diag_free(d);
    return (int)st;
  }
  if (!o.input)
    return usage_error("%s", "no input file");
  if (o.shards && !o.bundle_dir)
    return usage_error("%s", "--shards goes with kfuse bundle (it splits the bundle)");
  if (o.bundle_dir) {
    if (o.output || o.ledger)
      return usage_error("%s", "--bundle writes a directory; drop -o and --ledger");
    diag *d = diag_new(stderr);
    kfuse_status st = kfuse_bundle(&o, NULL, d);
    diag_free(d);
    return (int)st;
  }
  if (!o.output)
    return usage_error("%s", "no output file: use -o FILE (or -o - for standard output)");
  if (o.ledger && o.emit != EMIT_CUDA)
    return usage_error("%s", "--ledger goes with --emit=cuda (the decisions are made only there)");
  if (o.ledger && !strcmp(o.ledger, o.output) && strcmp(o.output, "-"))
    return usage_error("%s", "--ledger and -o name the same file");
  diag *d = diag_new(stderr);
  kfuse_status st = kfuse_compile(&o, d);
  diag_free(d);
  return (int)st;
}

int main(int argc, char **argv) {
  /* -I/-D arguments for the parser; freed on every path, usage errors included. */
  const char **extra = calloc((size_t)argc * 2 + 1, sizeof *extra);
  if (!extra)
    return 70;
  const char **variants = calloc((size_t)argc + 1, sizeof *variants);
  const char **pins = calloc((size_t)argc + 1, sizeof *pins);
  int rc = variants && pins ? run(argc, argv, extra, variants, pins) : 70;
  free(extra);
  free(variants);
  free(pins);
  return rc;
}
