/* gguf_layers: a GGUF's blocks (blk.N.*) against its <arch>.block_count,
 * and the exact bytes of each block, the token embedding and the output
 * layer, for llama.cpp's placement of the layers (core/spec.h). */
#ifndef KVPLAN_IO_GGUF_LAYERS_H
#define KVPLAN_IO_GGUF_LAYERS_H

#include <stdbool.h>

#include "core/spec.h"
#include "io/gguf.h"

/* m->layers is <arch>.block_count (named `key`). A tensor of a block at or
 * past it, or a block below it that no tensor holds, is refused, d naming
 * the file (`path`, as printed), the tensor or the key. Otherwise sets m's
 * embed_bytes, output_bytes and each block's bytes (spec_set_layer_bytes;
 * layer_bytes_count 0, even shares, past SPEC_LAYER_BYTES_MAX blocks or
 * SPEC_LAYER_SIZES_MAX sizes of block). */
bool gguf_layers_read(const char *path, const char *key, const struct gguf_file *g,
                      struct model_spec *m, struct diag *d);

#endif
