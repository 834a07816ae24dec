/* The manifest of a hand-made bundle for layer_norm.cu (ref.cu): two entries with a
 * stream, float and half, the reference and one variant slot, v1.cu, that each test
 * fills. */
#include "kfuse_bundle.h"

static int64_t rd_elems(const kb_value *s) { return s[0].i * s[1].i; } /* [R][D] */
static int64_t d_elems(const kb_value *s) { return s[1].i; }           /* [D] */
static double gamma_lo(const kb_value *s) { (void)s; return 0.5; }
static double gamma_hi(const kb_value *s) { (void)s; return 1.5; }
static double beta_lo(const kb_value *s) { (void)s; return -0.5; }
static double beta_hi(const kb_value *s) { (void)s; return 0.5; }
static int assumes(const kb_value *s) { return s[0].i >= 1 && s[1].i >= 1; }

static const kb_scalar scalars[] = {{"R", 0}, {"D", 0}};

static const kb_buffer float_buffers[] = {
    {"x", KB_IN, KB_F32, "[R][D]", rd_elems, KB_DIST_DEFAULT, 0, 0},
    {"gamma", KB_IN, KB_F32, "[D]", d_elems, KB_DIST_UNIFORM, gamma_lo, gamma_hi},
    {"beta", KB_IN, KB_F32, "[D]", d_elems, KB_DIST_UNIFORM, beta_lo, beta_hi},
    {"y", KB_OUT, KB_F32, "[R][D]", rd_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value float_tune[] = {{.i = 2048}, {.i = 1024}};
static const kb_value float_check[] = {{.i = 3}, {.i = 777}};
static const kb_binding float_bindings[] = {
    {1, float_tune, "R=2048 D=1024", 52},
    {0, float_check, "R=3 D=777", 53},
};

static const kb_buffer half_buffers[] = {
    {"x", KB_IN, KB_F16, "[R][D]", rd_elems, KB_DIST_DEFAULT, 0, 0},
    {"gamma", KB_IN, KB_F32, "[D]", d_elems, KB_DIST_UNIFORM, gamma_lo, gamma_hi},
    {"beta", KB_IN, KB_F32, "[D]", d_elems, KB_DIST_UNIFORM, beta_lo, beta_hi},
    {"y", KB_OUT, KB_F16, "[R][D]", rd_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value half_tune[] = {{.i = 2048}, {.i = 1024}};
static const kb_value half_check[] = {{.i = 5}, {.i = 333}};
static const kb_binding half_bindings[] = {
    {1, half_tune, "R=2048 D=1024", 66},
    {0, half_check, "R=5 D=333", 67},
};

static const kb_entry entries[] = {
    {"layer_norm", "kfuse_call_layer_norm", 2, scalars, 4, float_buffers, 2, float_bindings,
     assumes, -1, -1, 1, 0},
    {"layer_norm_half", "kfuse_call_layer_norm_half", 2, scalars, 4, half_buffers, 2,
     half_bindings, assumes, -1, -1, 1, 0},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "layer_norm.cu",
    "7c53c023ed4f5cefee5432957bb6eac32334df7178c6092f60b5a0283f68bd12", "",
    2, entries, 2, variants};
