/* The manifest of a hand-made bundle for row_softmax.cu (ref.cu): two entries without a
 * stream, the reference and one variant slot, v1.cu, that each test fills. */
#include "kfuse_bundle.h"

static int64_t rc_elems(const kb_value *s) { return s[0].i * s[1].i; } /* [R][C] */
static int64_t r_elems(const kb_value *s) { return s[0].i; }           /* [R] */
static int assumes(const kb_value *s) { return s[0].i >= 1 && s[1].i >= 1; }

static const kb_scalar scalars[] = {{"R", 0}, {"C", 0}};

static const kb_buffer softmax_buffers[] = {
    {"x", KB_IN, KB_F32, "[R][C]", rc_elems, KB_DIST_DEFAULT, 0, 0},
    {"y", KB_OUT, KB_F32, "[R][C]", rc_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value softmax_tune[] = {{.i = 4096}, {.i = 1024}};
static const kb_value softmax_check[] = {{.i = 5}, {.i = 333}};
static const kb_binding softmax_bindings[] = {
    {1, softmax_tune, "R=4096 C=1024", 30},
    {0, softmax_check, "R=5 C=333", 31},
};

static const kb_buffer sum_buffers[] = {
    {"x", KB_IN, KB_F32, "[R][C]", rc_elems, KB_DIST_DEFAULT, 0, 0},
    {"s", KB_OUT, KB_F32, "[R]", r_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value sum_tune[] = {{.i = 4096}, {.i = 1024}};
static const kb_value sum_check[] = {{.i = 7}, {.i = 1000}};
static const kb_binding sum_bindings[] = {
    {1, sum_tune, "R=4096 C=1024", 39},
    {0, sum_check, "R=7 C=1000", 40},
};

static const kb_entry entries[] = {
    {"row_softmax", "kfuse_call_row_softmax", 2, scalars, 2, softmax_buffers, 2,
     softmax_bindings, assumes, -1, -1, 0},
    {"row_sum", "kfuse_call_row_sum", 2, scalars, 2, sum_buffers, 2, sum_bindings, assumes,
     -1, -1, 0},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "row_softmax.cu",
    "8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b", "",
    2, entries, 2, variants};
