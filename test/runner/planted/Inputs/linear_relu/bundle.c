/* The manifest of a hand-made bundle for linear_relu (ref.cu), written as kfuse writes
 * one (kfuse_bundle.h): the reference and one variant slot, v1.cu, that each test fills.
 * libs links cuBLAS so that a variant may use it. */
#include "kfuse_bundle.h"

static int64_t x_elems(const kb_value *s) { return s[0].i * s[1].i; }    /* [B][K] */
static int64_t w_elems(const kb_value *s) { return s[2].i * s[1].i; }    /* [N][K] */
static int64_t bias_elems(const kb_value *s) { return s[2].i; }          /* [N] */
static int64_t out_elems(const kb_value *s) { return s[0].i * s[2].i; }  /* [B][N] */
static int assumes(const kb_value *s) { (void)s; return 1; }

static const kb_scalar scalars[] = {{"B", 0}, {"K", 0}, {"N", 0}};
static const kb_buffer buffers[] = {
    {"x", KB_IN, KB_F32, "[B][K]", x_elems, KB_DIST_DEFAULT, 0, 0},
    {"w", KB_IN, KB_F32, "[N][K]", w_elems, KB_DIST_DEFAULT, 0, 0},
    {"bias", KB_IN, KB_F32, "[N]", bias_elems, KB_DIST_DEFAULT, 0, 0},
    {"out", KB_OUT, KB_F32, "[B][N]", out_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value tune0[] = {{.i = 256}, {.i = 1024}, {.i = 1024}};
static const kb_value check0[] = {{.i = 3}, {.i = 77}, {.i = 129}};
static const kb_binding bindings[] = {
    {1, tune0, "B=256 K=1024 N=1024", 25},
    {0, check0, "B=3 K=77 N=129", 26},
};
static const kb_entry entries[] = {
    {"linear_relu", "kfuse_call_linear_relu", 3, scalars, 4, buffers, 2, bindings, assumes,
     -1, -1, 1},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "linear_relu.cu",
    "5d1c0a2f8e3b4c6d7a9e0f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f", "-lcublas",
    1, entries, 2, variants};
