/* The manifest of a hand-made bundle for lookup.cu (ref.cu): two entries with a stream,
 * the reference and one variant slot, v1.cu, that each test fills. */
#include "kfuse_bundle.h"

static int64_t n_elems(const kb_value *s) { return s[0].i; }                 /* [N] */
static double x_lo(const kb_value *s) { (void)s; return 0; }
static double x_hi(const kb_value *s) { (void)s; return 1; }
static int root_assumes(const kb_value *s) { return s[0].i >= 1; }

static int64_t table_elems(const kb_value *s) { return s[1].i * s[2].i; }    /* [C][D] */
static int64_t out_elems(const kb_value *s) { return s[0].i * s[2].i; }      /* [N][D] */
static double idx_lo(const kb_value *s) { (void)s; return 0; }
static double idx_hi(const kb_value *s) { return (double)s[1].i; }
static int gather_assumes(const kb_value *s) {
  return s[0].i >= 1 && s[1].i >= 2 && s[2].i >= 1 && s[0].i <= 65535;
}

static const kb_scalar root_scalars[] = {{"N", 0}};
static const kb_buffer root_buffers[] = {
    {"x", KB_IN, KB_F32, "[N]", n_elems, KB_DIST_UNIFORM, x_lo, x_hi},
    {"y", KB_OUT, KB_F32, "[N]", n_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value root_tune[] = {{.i = 4194304}};
static const kb_value root_check[] = {{.i = 1001}};
static const kb_binding root_bindings[] = {
    {1, root_tune, "N=4194304", 21},
    {0, root_check, "N=1001", 22},
};

static const kb_scalar gather_scalars[] = {{"N", 0}, {"C", 0}, {"D", 0}};
static const kb_buffer gather_buffers[] = {
    {"table", KB_IN, KB_F32, "[C][D]", table_elems, KB_DIST_DEFAULT, 0, 0},
    {"idx", KB_IN, KB_I32, "[N]", n_elems, KB_DIST_INT, idx_lo, idx_hi},
    {"out", KB_OUT, KB_F32, "[N][D]", out_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value gather_tune[] = {{.i = 4096}, {.i = 100000}, {.i = 64}};
static const kb_value gather_check[] = {{.i = 7}, {.i = 1000}, {.i = 5}};
static const kb_binding gather_bindings[] = {
    {1, gather_tune, "N=4096 C=100000 D=64", 32},
    {0, gather_check, "N=7 C=1000 D=5", 33},
};

static const kb_entry entries[] = {
    {"root", "kfuse_call_root", 1, root_scalars, 2, root_buffers, 2, root_bindings,
     root_assumes, -1, -1, 1, 0},
    {"gather", "kfuse_call_gather", 3, gather_scalars, 3, gather_buffers, 2, gather_bindings,
     gather_assumes, -1, -1, 1, 0},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "lookup.cu",
    "de5d03171556b32cdc6abe25e2a615ae42beadf604c6308ab658fa500e1c9447", "",
    2, entries, 2, variants};
