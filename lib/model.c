/* model.c: names and properties of the model's enumerations. */
#include "model.h"

static const char *const ktype_names[KT_COUNT] = {
    [KT_UNKNOWN] = "unknown", [KT_VOID] = "void", [KT_BOOL] = "bool", [KT_I8] = "int8",
    [KT_U8] = "uint8", [KT_I16] = "int16", [KT_U16] = "uint16", [KT_I32] = "int32",
    [KT_U32] = "uint32", [KT_I64] = "int64", [KT_U64] = "uint64", [KT_F16] = "half",
    [KT_BF16] = "bfloat16", [KT_F32] = "float", [KT_F64] = "double", [KT_DIM3] = "dim3",
    [KT_STREAM] = "stream",
};

const char *ktype_name(ktype t) { return t < KT_COUNT ? ktype_names[t] : "unknown"; }

int ktype_is_float(ktype t) {
  return t == KT_F16 || t == KT_BF16 || t == KT_F32 || t == KT_F64;
}

int ktype_is_int(ktype t) { return t >= KT_BOOL && t <= KT_U64; }

int ktype_size(ktype t) {
  switch (t) {
  case KT_BOOL: case KT_I8: case KT_U8: return 1;
  case KT_I16: case KT_U16: case KT_F16: case KT_BF16: return 2;
  case KT_I32: case KT_U32: case KT_F32: return 4;
  case KT_I64: case KT_U64: case KT_F64: return 8;
  default: return 0;
  }
}

const char *krole_name(krole r) {
  static const char *const n[] = {"none", "in", "out", "inout"};
  return n[r];
}

const char *kbuiltin_name(kbuiltin b) {
  static const char *const n[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x",
                                  "blockIdx.y",  "blockIdx.z",  "blockDim.x",  "blockDim.y",
                                  "blockDim.z",  "gridDim.x",   "gridDim.y",   "gridDim.z",
                                  "warpSize"};
  return n[b];
}

const char *kop_text(kop op) {
  static const char *const n[] = {"-", "+", "!", "~", "*", "/", "%", "+", "-", "<<", ">>",
                                  "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||", ","};
  return n[op];
}

static const kstep *find_step(const kstep *steps, int n, int index) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i], *in = NULL;
    if (st->index == index)
      return st;
    if (st->kind == KS_LOOP || st->kind == KS_COND)
      if (!(in = find_step(st->body, st->nbody, index)))
        in = find_step(st->orelse, st->norelse, index);
    if (in)
      return in;
  }
  return NULL;
}

unsigned model_line(const kmodel *m, unsigned pos) {
  unsigned line = 1;
  for (unsigned i = 0; i < pos && i < m->size; i++)
    line += m->text[i] == '\n';
  return line;
}

void model_linecol(const kmodel *m, unsigned pos, unsigned *line, unsigned *col) {
  unsigned start = 0;
  if (pos > m->size)
    pos = m->size;
  *line = model_line(m, pos);
  for (unsigned i = 0; i < pos; i++)
    if (m->text[i] == '\n')
      start = i + 1;
  *col = pos - start + 1;
}

const kstep *model_find_step(const kentry *e, int index) { return find_step(e->steps, e->nsteps, index); }

static const kstep *find_anywhere(const kstep *steps, int n, int index, const kstep *call, const kstep **outer) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i], *in = NULL;
    if (st->index == index) {
      *outer = call;
      return st;
    }
    const kstep *c = call ? call : st->kind == KS_HOSTCALL ? st : NULL;
    if (!(in = find_anywhere(st->body, st->nbody, index, c, outer)))
      in = find_anywhere(st->orelse, st->norelse, index, c, outer);
    if (in)
      return in;
  }
  return NULL;
}

const kstep *model_find_step_in_helpers(const kentry *e, int index, const kstep **call) {
  *call = NULL;
  return find_anywhere(e->steps, e->nsteps, index, NULL, call);
}
