/* hfconfig_read: what the stages of one import-hf share, between
 * hfconfig.c (the config's identity and dimensions) and hfconfig_spec.c
 * (the preset they give: names, attention, windows, precision, counts).
 * Private to those two files and io/hf_late2026.c. */
#ifndef KVPLAN_IO_HFCONFIG_READ_H
#define KVPLAN_IO_HFCONFIG_READ_H

#include <cJSON.h>

#include "io/hfconfig.h"
#include "io/jsonread.h"

/* What the stages of one import share: the config, where its language
 * model's fields are (root, or text_config), and the values read along the
 * way that no field of the preset keeps. */
struct hf_read {
    const char *path;
    const cJSON *root, *o; /* o: root, or text_config for a multimodal config */
    struct jsonread r, tr;
    struct hf_import *h;
    struct diag *d;
    char type[64], name_or_path[SPEC_HF_ID_MAX];
    bool hf_id_ok, tied_default;
    uint64_t window, pattern, kv, expansion, index_topk;
};

/* A note for the user, what was decided and why (at most four kept). */
void hf_note(struct hf_import *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The stages after the dimensions, each false with d set on an error. */
bool hf_fill_spec(struct hf_read *x, const char *id, const char *name);
bool hf_read_windows(struct hf_read *x);
bool hf_read_precision(struct hf_read *x);
bool hf_count_params(struct hf_read *x);

#endif
