/* gguf_model: a model preset from a GGUF header (import-gguf).
 *
 * The architecture's dimensions come from its metadata
 * (general.architecture, then <arch>.block_count, .embedding_length,
 * .attention.head_count and the rest), the vocabulary from the token
 * embedding's dimensions, and the weights from the tensors themselves:
 * the parameters are their elements, weights_bytes their exact bytes, so
 * the planner takes the file's size rather than params x a precision. An
 * architecture kvplan cannot describe is refused rather than guessed. */
#ifndef KVPLAN_IO_GGUF_MODEL_H
#define KVPLAN_IO_GGUF_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/spec.h"
#include "io/gguf.h"

enum { GGUF_MIX_MAX = 48 }; /* ggml type numbers the mix counts */

struct gguf_import {
    struct model_spec model;
    char arch[32];
    char file_type[24];         /* general.file_type's name, "" when absent */
    uint64_t tensor_bytes[GGUF_MIX_MAX]; /* the quantization mix: bytes by ggml type */
    uint64_t tensor_count[GGUF_MIX_MAX]; /* and tensors */
    char notes[4][192];         /* what was decided and why, for the user */
    int note_count;
};

/* The preset of a read header; id and name may be NULL (then from the
 * file's name and general.name). False with d naming the file and the key. */
bool gguf_import_model(const char *path, const struct gguf_file *g, const char *id,
                       const char *name, struct gguf_import *out, struct diag *d);

#endif
