/* hfconfig: a model preset from a Hugging Face config.json (no network).
 *
 * Reads the dimensions, explicit head_dim, MLA ranks, sliding windows
 * (layer_types, sliding_window_pattern, use_sliding_window), MoE experts,
 * tied embeddings, torch_dtype and quantization_config, including a text
 * config nested in a multimodal one, and both Falcon schemas. The parameter
 * count is computed from the dimensions (core/params). */
#ifndef KVPLAN_IO_HFCONFIG_H
#define KVPLAN_IO_HFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/params.h"
#include "core/spec.h"
#include "io/hfdefaults.h"

struct hf_import {
    struct model_spec model;
    struct arch_dims dims;
    char model_type[64];
    double stated_params; /* a count the config states (num_parameters), 0 if none */
    char notes[8][192];   /* what was decided and why, for the user */
    int note_count;
    /* the fields transformers' classes gave: the text config's, the outer one's */
    struct hf_defaulted defaults[2];
};

/* Parses config.json text; id and name may be NULL (derived from the
 * config's _name_or_path, else from the file's directory). */
bool hfconfig_parse(const char *path, const char *text, size_t len, const char *id,
                    const char *name, struct hf_import *out, struct diag *d);

#endif
