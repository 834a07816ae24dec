/* The manifest of a hand-made bundle for gelu.cu (ref.cu): one entry with a stream, the
 * reference and one variant slot, v1.cu, that each test fills. */
#include "kfuse_bundle.h"

static int64_t n_elems(const kb_value *s) { return s[0].i; } /* [N] */
static int assumes(const kb_value *s) { return s[0].i >= 1; }

static const kb_scalar scalars[] = {{"N", 0}};
static const kb_buffer buffers[] = {
    {"x", KB_IN, KB_F32, "[N]", n_elems, KB_DIST_DEFAULT, 0, 0},
    {"y", KB_OUT, KB_F32, "[N]", n_elems, KB_DIST_DEFAULT, 0, 0},
};
static const kb_value tune0[] = {{.i = 4194304}};
static const kb_value check0[] = {{.i = 1001}};
static const kb_binding bindings[] = {
    {1, tune0, "N=4194304", 16},
    {0, check0, "N=1001", 17},
};
static const kb_entry entries[] = {
    {"gelu", "kfuse_call_gelu", 1, scalars, 2, buffers, 2, bindings, assumes, -1, -1, 1, 0},
};
static const kb_variant variants[] = {
    {"ref", "ref.cu", "reference"},
    {"v1", "v1.cu", "user:v1.cu"},
};

const kb_bundle kfuse_bundle = {
    KB_ABI_VERSION, "gelu.cu",
    "4bc8082b64aa8a25fea586652bf5da513caa4e11a3d45c7433e2b9d0da347573", "",
    1, entries, 2, variants};
