/*
 * bundle.c: the bundle writer. A bundle is what travels to a GPU host (docs/bundle-format.md):
 *
 *   kfuse_bundle.h     the ABI header, embedded in kfuse at build time
 *   bundle.c           the manifest as C data: scalars, buffers with their extents, init
 *                      bounds and assumes as C functions of the scalars, the bindings,
 *                      tolerances, variants
 *   manifest.txt       the same, for people and for `kfuse --import`
 *   ref.cu, v1.cu ...  the reference and each variant, verbatim
 *   <v>.shim.cu        `#include "<v>.cu"`, then one uniform call shim per entry
 *
 * The bundle is written into a temporary directory beside the target and renamed into
 * place, so a failure leaves nothing behind and an earlier bundle is replaced whole.
 */
#define _XOPEN_SOURCE 700
#include "bundle.h"

#include <errno.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

/* runner/kfuse_bundle.h, embedded by CMake (lib/CMakeLists.txt). */
extern const unsigned char kfuse_bundle_header[];
extern const size_t kfuse_bundle_header_size;

void bundle_sha256(const void *data, size_t n, char out[65]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
  for (unsigned i = 0; i < len && i < 32; i++)
    snprintf(out + 2 * i, 3, "%02x", md[i]);
  out[64] = 0;
}

/* ---------------------------------------------------------------- C text */

/* Prints an annotation expression as C over int64_t/double locals named like the
 * scalars: integer literals get LL so that every operation is 64-bit, as the contract
 * evaluates extents. */
static void print_c(const xexpr *e, strbuf *b) {
  switch (e->kind) {
  case XE_INT:
    sb_printf(b, "%lldLL", (long long)e->ival);
    return;
  case XE_FLT: {
    char num[40];
    snprintf(num, sizeof num, "%.17g", e->fval);
    sb_puts(b, num);
    if (!strpbrk(num, ".eEni"))
      sb_puts(b, ".0");
    return;
  }
  case XE_NAME:
    sb_puts(b, e->name);
    return;
  case XE_UNARY:
    sb_printf(b, "(%s", xexpr_op_text(e->op));
    print_c(e->a, b);
    sb_putc(b, ')');
    return;
  case XE_BINARY:
    sb_putc(b, '(');
    print_c(e->a, b);
    sb_printf(b, " %s ", xexpr_op_text(e->op));
    print_c(e->b, b);
    sb_putc(b, ')');
    return;
  case XE_COND:
    sb_putc(b, '(');
    print_c(e->a, b);
    sb_puts(b, " ? ");
    print_c(e->b, b);
    sb_puts(b, " : ");
    print_c(e->c, b);
    sb_putc(b, ')');
    return;
  }
}

/* A C string literal. */
static void c_string(strbuf *b, const char *s) {
  sb_putc(b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      sb_printf(b, "\\%c", *s);
    else if (*s == '\n')
      sb_puts(b, "\\n");
    else if ((unsigned char)*s < 0x20)
      sb_printf(b, "\\%03o", (unsigned char)*s);
    else
      sb_putc(b, *s);
  }
  sb_putc(b, '"');
}

static const char *kb_type_name(ktype t) {
  switch (t) {
  case KT_F32: return "KB_F32";
  case KT_F64: return "KB_F64";
  case KT_F16: return "KB_F16";
  case KT_BF16: return "KB_BF16";
  case KT_I8: return "KB_I8";
  case KT_U8: return "KB_U8";
  case KT_I32: return "KB_I32";
  case KT_I64: return "KB_I64";
  case KT_BOOL: return "KB_BOOL";
  default: KFUSE_BUG("buffer type %d has no bundle type", (int)t);
  }
}

static const char *const kb_dist_names[] = {"KB_DIST_DEFAULT", "KB_DIST_NORMAL", "KB_DIST_UNIFORM",
                                            "KB_DIST_POSITIVE", "KB_DIST_INT"};
static const char *const role_names[] = {"KB_IN", "KB_IN", "KB_OUT", "KB_INOUT"};

/* The locals that bind an entry's scalars in every generated function. */
static void scalar_locals(const kentry *e, strbuf *b) {
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    if (p->scalar_index < 0)
      continue;
    if (ktype_is_float(p->type))
      sb_printf(b, " const double %s = kfuse_s_[%d].f; (void)%s;", p->name, p->scalar_index, p->name);
    else
      sb_printf(b, " const int64_t %s = kfuse_s_[%d].i; (void)%s;", p->name, p->scalar_index, p->name);
  }
}

static void gen_entry(const kentry *e, int ei, strbuf *b) {
  sb_printf(b, "\n/* entry %s */\n", e->name);
  /* Buffers: element counts and init bounds. */
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    if (!p->is_pointer)
      continue;
    sb_printf(b, "static int64_t e%d_elems_%s(const kb_value *kfuse_s_) {", ei, p->name);
    scalar_locals(e, b);
    sb_puts(b, " return 1LL");
    for (int j = 0; j < p->ndim; j++) {
      sb_puts(b, " * (int64_t)");
      print_c(p->extents[j], b);
    }
    sb_puts(b, "; }\n");
    if (p->lo) {
      for (int k = 0; k < 2; k++) {
        sb_printf(b, "static double e%d_%s_%s(const kb_value *kfuse_s_) {", ei, k ? "hi" : "lo", p->name);
        scalar_locals(e, b);
        sb_puts(b, " return (double)");
        print_c(k ? p->hi : p->lo, b);
        sb_puts(b, "; }\n");
      }
    }
  }
  sb_printf(b, "static int e%d_assumes(const kb_value *kfuse_s_) {", ei);
  scalar_locals(e, b);
  sb_puts(b, " return 1");
  for (int i = 0; i < e->annot.nassume; i++) {
    sb_puts(b, " && ");
    print_c(e->annot.assumes[i].expr, b);
  }
  sb_puts(b, "; }\n");
  sb_printf(b, "static const kb_scalar e%d_scalars[] = {", ei);
  int ns = 0;
  for (int i = 0; i < e->nparams; i++)
    if (e->params[i].scalar_index >= 0) {
      sb_printf(b, "%s{\"%s\", %d}", ns++ ? ", " : "", e->params[i].name, ktype_is_float(e->params[i].type));
    }
  if (!ns)
    sb_puts(b, "{0, 0}");
  sb_puts(b, "};\n");
  sb_printf(b, "static const kb_buffer e%d_buffers[] = {\n", ei);
  for (int i = 0; i < e->nparams; i++) {
    const kparam *p = &e->params[i];
    if (!p->is_pointer)
      continue;
    strbuf shape = {0};
    for (int j = 0; j < p->ndim; j++)
      sb_printf(&shape, "[%s]", p->extent_text[j]);
    sb_printf(b, "    {\"%s\", %s, %s, ", p->name, role_names[p->role], kb_type_name(p->elem));
    c_string(b, shape.s ? shape.s : "");
    sb_printf(b, ", e%d_elems_%s, %s, ", ei, p->name, kb_dist_names[p->dist]);
    if (p->lo)
      sb_printf(b, "e%d_lo_%s, e%d_hi_%s},\n", ei, p->name, ei, p->name);
    else
      sb_puts(b, "0, 0},\n");
    sb_free(&shape);
  }
  sb_puts(b, "};\n");
  for (int i = 0; i < e->annot.nbinding; i++) {
    const kbinding *bd = &e->annot.bindings[i];
    sb_printf(b, "static const kb_value e%d_binding%d[] = {", ei, i);
    for (int j = 0; j < e->nparams; j++) {
      const kparam *p = &e->params[j];
      if (p->scalar_index < 0)
        continue;
      xvalue v = bd->values[p->scalar_index];
      if (ktype_is_float(p->type))
        sb_printf(b, "{.f = %.17g}, ", v.is_float ? v.f : (double)v.i);
      else
        sb_printf(b, "{.i = %lldLL}, ", (long long)v.i);
    }
    if (!ns)
      sb_puts(b, "{.i = 0}");
    sb_puts(b, "};\n");
  }
  sb_printf(b, "static const kb_binding e%d_bindings[] = {\n", ei);
  for (int i = 0; i < e->annot.nbinding; i++) {
    const kbinding *bd = &e->annot.bindings[i];
    sb_printf(b, "    {%d, e%d_binding%d, ", bd->is_tune, ei, i);
    c_string(b, bd->text);
    sb_printf(b, ", %u},\n", bd->loc.line);
  }
  sb_puts(b, "};\n");
}

static int has_include(const char *text, const char *header) {
  return strstr(text, header) != NULL;
}

/* ---------------------------------------------------------------- files */

typedef struct source {
  const char *name;     /* "ref", "v1", ... */
  const char *file;     /* "ref.cu" */
  const char *recipe;
  char *text;           /* malloc'd */
  size_t size;
} source;

static int write_in(const char *dir, const char *name, const char *data, size_t n, diag *d) {
  size_t len = strlen(dir) + strlen(name) + 2;
  char *path = xmalloc(len);
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, n, f) == n;
  if (f)
    ok = fclose(f) == 0 && ok;
  if (!ok)
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot write bundle file: %s", strerror(errno));
  free(path);
  return ok;
}

char *bundle_slurp(const char *path, size_t *size, diag *d) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (d)
      diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open file: %s", strerror(errno));
    return NULL;
  }
  strbuf b = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    sb_putn(&b, buf, n);
  int err = ferror(f);
  fclose(f);
  if (err) {
    if (d)
      diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read file");
    sb_free(&b);
    return NULL;
  }
  if (!b.s)
    sb_puts(&b, "");
  *size = b.len;
  return b.s;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void bundle_remove_tree(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* The call shim of one variant: the uniform entry point of every entry. Casts use the
 * reference's canonical parameter types, which every variant was checked to share. */
static void gen_shim(const kmodel *m, const source *src, const strbuf *sigs, strbuf *b) {
  sb_printf(b, "// Call shims of variant \"%s\", written by kfuse: the variant's source, then one\n"
               "// uniform entry point per entry (runner/kfuse_bundle.h).\n"
               "#include \"%s\"\n#include \"kfuse_bundle.h\"\n", src->name, src->file);
  for (int i = 0; i < m->nentries; i++) {
    const kentry *e = &m->entries[i];
    const char *sig = sigs[i].s;
    const char *args = strchr(sig, '(') + 1;
    sb_printf(b, "\nextern \"C\" int kfuse_call_%s(void *const *bufs, const kb_value *s, void *stream) {\n  ",
              e->name);
    int returns = strcmp(e->ret_spelling, "void") != 0;
    sb_printf(b, "%s%s(", returns ? "return (int)" : "", e->name);
    for (int j = 0; j < e->nparams; j++) {
      const kparam *p = &e->params[j];
      /* The j-th canonical parameter type. */
      const char *end = args;
      int depth = 0;
      while (*end && !((*end == ',' || *end == ')') && depth == 0)) {
        depth += *end == '(' || *end == '<';
        depth -= *end == ')' || *end == '>';
        end++;
      }
      char *type = arena_strndup(m->arena, args, (size_t)(end - args));
      args = *end ? end + 2 : end;
      if (j)
        sb_puts(b, ", ");
      if (p->is_stream)
        sb_puts(b, "(cudaStream_t)stream");
      else if (p->is_pointer)
        sb_printf(b, "(%s)bufs[%d]", type, p->buffer_index);
      else
        sb_printf(b, "(%s)s[%d].%c", type, p->scalar_index, ktype_is_float(p->type) ? 'f' : 'i');
    }
    sb_printf(b, ");\n%s}\n", returns ? "" : "  return 0;\n");
  }
}

static void gen_manifest_text(const kmodel *m, const source *srcs, int nsrc, const char *hash,
                              const char *libs, strbuf *b) {
  sb_printf(b, "kfuse-bundle 1\nsource %s %s\nlibs %s\n", m->path, hash, libs);
  for (int i = 0; i < nsrc; i++)
    sb_printf(b, "variant %s %s %s\n", srcs[i].name, srcs[i].file, srcs[i].recipe);
  for (int i = 0; i < m->nentries; i++) {
    const kentry *e = &m->entries[i];
    sb_printf(b, "entry %s\n", e->name);
    for (int j = 0; j < e->nparams; j++) {
      const kparam *p = &e->params[j];
      if (!p->is_pointer)
        continue;
      sb_printf(b, "  %s %s %s", krole_name(p->role), p->name, ktype_name(p->elem));
      for (int k = 0; k < p->ndim; k++)
        sb_printf(b, "[%s]", p->extent_text[k]);
      sb_putc(b, '\n');
    }
    for (int j = 0; j < e->annot.nbinding; j++)
      sb_printf(b, "  %s %s\n", e->annot.bindings[j].is_tune ? "tune" : "check", e->annot.bindings[j].text);
    for (int j = 0; j < e->annot.nassume; j++)
      sb_printf(b, "  assume %s\n", e->annot.assumes[j].text);
    if (e->annot.deterministic)
      sb_puts(b, "  deterministic\n");
  }
}

int bundle_write(const kmodel *m, const char *dir, const bundle_variant *variants, int nvariants,
                 const tu_options *opt, diag *d) {
  int ok = 0, nsrc = 1 + nvariants;
  source *srcs = arena_alloc(m->arena, sizeof *srcs * (size_t)nsrc);
  strbuf *sigs = arena_alloc(m->arena, sizeof *sigs * (size_t)(m->nentries + 1));
  char *tmp = NULL;
  tu *ref = NULL;
  if (!m->nentries) {
    diag_report(d, DIAG_ERROR, m->path, 0, 0, "no annotated entry: nothing to bundle");
    return 0;
  }
  /* The reference's canonical signatures, which every variant must share. */
  ref = tu_parse(m->path, opt, d);
  if (!ref)
    goto done;
  for (int i = 0; i < m->nentries; i++)
    if (!tu_signature(ref, m->entries[i].name, &sigs[i], NULL, NULL))
      KFUSE_BUG("entry %s has no signature", m->entries[i].name);
  srcs[0] = (source){"ref", "ref.cu", "reference", NULL, 0};
  srcs[0].text = bundle_slurp(m->path, &srcs[0].size, d);
  if (!srcs[0].text)
    goto done;
  for (int v = 0; v < nvariants; v++) {
    source *s = &srcs[v + 1];
    s->name = arena_printf(m->arena, "v%d", v + 1);
    s->file = arena_printf(m->arena, "v%d.cu", v + 1);
    s->recipe = variants[v].recipe;
    if (!variants[v].path) {
      s->text = xmalloc(variants[v].size + 1);
      memcpy(s->text, variants[v].text, variants[v].size);
      s->text[variants[v].size] = 0;
      s->size = variants[v].size;
      continue;
    }
    s->text = bundle_slurp(variants[v].path, &s->size, d);
    if (!s->text)
      goto done;
    tu *vt = tu_parse(variants[v].path, opt, d);
    if (!vt)
      goto done;
    int bad = 0;
    for (int i = 0; i < m->nentries; i++) {
      strbuf vs = {0};
      unsigned line = 0, col = 0;
      if (!tu_signature(vt, m->entries[i].name, &vs, &line, &col)) {
        diag_report(d, DIAG_ERROR, variants[v].path, 0, 0,
                    "variant defines no extern \"C\" function '%s' (the reference's entry)", m->entries[i].name);
        bad = 1;
      } else if (strcmp(vs.s, sigs[i].s)) {
        diag_report(d, DIAG_ERROR, variants[v].path, line, col,
                    "variant's '%s' has signature %s; the reference's is %s", m->entries[i].name, vs.s, sigs[i].s);
        bad = 1;
      }
      sb_free(&vs);
    }
    tu_free(vt);
    if (bad)
      goto done;
  }

  /* What the sources need linked. */
  strbuf libs = {0};
  int cublas = 0, cublaslt = 0, cudnn = 0;
  for (int i = 0; i < nsrc; i++) {
    cublas |= has_include(srcs[i].text, "cublas");
    cublaslt |= has_include(srcs[i].text, "cublasLt.h");
    cudnn |= has_include(srcs[i].text, "cudnn");
  }
  if (cublaslt)
    sb_puts(&libs, "-lcublasLt ");
  if (cublas)
    sb_puts(&libs, "-lcublas ");
  if (cudnn)
    sb_puts(&libs, "-lcudnn ");
  if (libs.len)
    libs.s[--libs.len] = 0;
  else
    sb_puts(&libs, "");

  char hash[65];
  bundle_sha256(srcs[0].text, srcs[0].size, hash);

  /* bundle.c */
  strbuf bc = {0};
  sb_printf(&bc, "/* The manifest of a bundle, written by kfuse %s from %s; do not edit.\n"
                 " * The ABI is kfuse_bundle.h; docs/bundle-format.md explains it. */\n"
                 "#include <stdint.h>\n#include \"kfuse_bundle.h\"\n", KFUSE_VERSION, m->path);
  for (int i = 0; i < m->nentries; i++)
    gen_entry(&m->entries[i], i, &bc);
  sb_puts(&bc, "\nstatic const kb_entry entries[] = {\n");
  for (int i = 0; i < m->nentries; i++) {
    const kentry *e = &m->entries[i];
    sb_printf(&bc, "    {\"%s\", \"kfuse_call_%s\", %d, e%d_scalars, %d, e%d_buffers, %d, e%d_bindings, e%d_assumes, %.17g, %.17g, %d, %d},\n",
              e->name, e->name, e->nscalar, i, e->nbuffer, i, e->annot.nbinding, i, i, e->annot.rtol,
              e->annot.atol, e->stream_param >= 0, e->annot.deterministic);
  }
  sb_puts(&bc, "};\nstatic const kb_variant variants[] = {\n");
  for (int i = 0; i < nsrc; i++) {
    sb_printf(&bc, "    {\"%s\", \"%s\", ", srcs[i].name, srcs[i].file);
    c_string(&bc, srcs[i].recipe);
    sb_puts(&bc, "},\n");
  }
  sb_puts(&bc, "};\n\nconst kb_bundle kfuse_bundle = {KB_ABI_VERSION, ");
  c_string(&bc, m->path);
  sb_printf(&bc, ", \"%s\", \"%s\", %d, entries, %d, variants};\n", hash, libs.s, m->nentries, nsrc);

  strbuf man = {0};
  gen_manifest_text(m, srcs, nsrc, hash, libs.s, &man);

  /* Into a temporary directory beside the target, then renamed into place. */
  size_t dl = strlen(dir);
  tmp = xmalloc(dl + 16);
  snprintf(tmp, dl + 16, "%s.tmp-XXXXXX", dir);
  if (!mkdtemp(tmp)) {
    diag_report(d, DIAG_ERROR, dir, 0, 0, "cannot create bundle directory: %s", strerror(errno));
    free(tmp);
    tmp = NULL;
    goto free_text;
  }
  chmod(tmp, 0755);
  ok = write_in(tmp, "kfuse_bundle.h", (const char *)kfuse_bundle_header, kfuse_bundle_header_size, d) &&
       write_in(tmp, "bundle.c", bc.s, bc.len, d) && write_in(tmp, "manifest.txt", man.s, man.len, d);
  for (int i = 0; ok && i < nsrc; i++) {
    strbuf sh = {0};
    gen_shim(m, &srcs[i], sigs, &sh);
    ok = write_in(tmp, srcs[i].file, srcs[i].text, srcs[i].size, d) &&
         write_in(tmp, arena_printf(m->arena, "%s.shim.cu", srcs[i].name), sh.s, sh.len, d);
    sb_free(&sh);
  }
  if (ok) {
    struct stat st;
    char *old = NULL;
    if (stat(dir, &st) == 0) {
      /* Replace an earlier bundle whole; refuse anything else. */
      size_t ml = dl + 16;
      char *mpath = xmalloc(ml);
      snprintf(mpath, ml, "%s/manifest.txt", dir);
      int is_bundle = S_ISDIR(st.st_mode) && access(mpath, F_OK) == 0;
      free(mpath);
      if (!is_bundle) {
        diag_report(d, DIAG_ERROR, dir, 0, 0, "exists and is not a bundle; kfuse will not overwrite it");
        ok = 0;
      } else {
        old = xmalloc(dl + 16);
        snprintf(old, dl + 16, "%s.old-XXXXXX", dir);
        if (!mkdtemp(old) || rename(dir, old) != 0) {
          diag_report(d, DIAG_ERROR, dir, 0, 0, "cannot replace the earlier bundle: %s", strerror(errno));
          ok = 0;
        }
      }
    }
    if (ok && rename(tmp, dir) != 0) {
      diag_report(d, DIAG_ERROR, dir, 0, 0, "cannot create bundle directory: %s", strerror(errno));
      ok = 0;
    }
    if (old) {
      if (ok)
        bundle_remove_tree(old);
      else
        rename(old, dir);
      free(old);
    }
  }
  if (!ok)
    bundle_remove_tree(tmp);
free_text:
  sb_free(&bc);
  sb_free(&man);
  sb_free(&libs);
done:
  for (int i = 0; i < nsrc; i++)
    free(srcs[i].text);
  for (int i = 0; i < m->nentries; i++)
    sb_free(&sigs[i]);
  free(tmp);
  tu_free(ref);
  return ok;
}
