/* preset_compressed: a model preset's "compressed_attention" object, DeepSeek
 * V4's CSA and HCA layers and the CSA layers' indexer (core/spec.h): read
 * beside the other fields of preset.c, and written after its sliding_window. */
#ifndef KVPLAN_IO_PRESET_COMPRESSED_H
#define KVPLAN_IO_PRESET_COMPRESSED_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "io/jsonout.h"
#include "io/jsonread.h"

/* "compressed_attention": {"csa_layers", "csa_ratio", "hca_layers",
 * "hca_ratio", "qk_rope_head_dim", "index_head_dim", "index_n_heads",
 * "index_topk"} or absent (or null); false with d naming the field. */
bool preset_read_compressed(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                            struct diag *d);

/* The object, when the model has compressed layers. */
void preset_write_compressed(struct jsonout *o, const struct model_spec *m);

#endif
