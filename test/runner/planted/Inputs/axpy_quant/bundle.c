/* The manifest of a hand-made bundle for axpy_quant.cu (ref.cu): the reference and one
 * variant slot, v1.cu, that each test fills. */
#include "kfuse_bundle.h"

static int64_t n_elems(const kb_value *s) { return s[0].i; } /* [N] */
static double x_lo(const kb_value *s) { (void)s; return -4; }
static double x_hi(const kb_value *s) { (void)s; return 4; }
static int assumes(const kb_value *s) { return s[0].i >= 1; }

static const kb_scalar scalars[] = {{"N", 0}, {"alpha", 1}};
static const kb_buffer buffers[] = {
    {"x", KB_IN, KB_F16, "[N]", n_elems, KB_DIST_UNIFORM, x_lo, x_hi},
    {"acc", KB_INOUT, KB_F32, "[N]", n_elems, KB_DIST_DEFAULT, 0, 0},
    {"q", KB_OUT, KB_I32, "[N]", n_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value tune0[] = {{.i = 4194304}, {.f = 0.5}};
static const kb_value check0[] = {{.i = 1001}, {.f = -1.25}};
static const kb_binding bindings[] = {
    {1, tune0, "N=4194304 alpha=0.5", 19},
    {0, check0, "N=1001 alpha=-1.25", 20},
};
static const kb_entry entries[] = {
    {"axpy_quant", "kfuse_call_axpy_quant", 2, scalars, 3, buffers, 2, bindings, assumes,
     -1, -1, 1},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "axpy_quant.cu",
    "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0", "",
    1, entries, 2, variants};
