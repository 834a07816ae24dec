/* The manifest of a hand-made bundle for col_sum.cu (ref.cu): two entries with a stream,
 * the second `deterministic`, the reference and one variant slot, v1.cu, that each test
 * fills. */
#include "kfuse_bundle.h"

static int64_t rc_elems(const kb_value *s) { return s[0].i * s[1].i; } /* [R][C] */
static int64_t c_elems(const kb_value *s) { return s[1].i; }           /* [C] */
static int assumes(const kb_value *s) { return s[0].i >= 1 && s[1].i >= 1; }

static const kb_scalar scalars[] = {{"R", 0}, {"C", 0}};
static const kb_buffer buffers[] = {
    {"x", KB_IN, KB_F32, "[R][C]", rc_elems, KB_DIST_DEFAULT, 0, 0},
    {"s", KB_OUT, KB_F32, "[C]", c_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value tune0[] = {{.i = 4096}, {.i = 1024}};
static const kb_value check0[] = {{.i = 33}, {.i = 100}};
static const kb_binding bindings[] = {
    {1, tune0, "R=4096 C=1024", 15},
    {0, check0, "R=33 C=100", 16},
};
static const kb_binding det_bindings[] = {
    {1, tune0, "R=4096 C=1024", 26},
    {0, check0, "R=33 C=100", 27},
};
static const kb_entry entries[] = {
    {"col_sum", "kfuse_call_col_sum", 2, scalars, 2, buffers, 2, bindings, assumes, -1, -1,
     1, 0},
    {"col_sum_det", "kfuse_call_col_sum_det", 2, scalars, 2, buffers, 2, det_bindings,
     assumes, -1, -1, 1, 1},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "col_sum.cu",
    "f9f79d36d907f9f97299d2b6e226878751e40883585891515bdd26361632c2c0", "",
    2, entries, 2, variants};
