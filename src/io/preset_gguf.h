/* preset_gguf: a model preset's "gguf" object, what import-gguf read from
 * the file (core/spec.h): its name, for launch lines, and its tensors'
 * exact bytes by block, for llama.cpp's placement of the layers. */
#ifndef KVPLAN_IO_PRESET_GGUF_H
#define KVPLAN_IO_PRESET_GGUF_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "io/jsonout.h"
#include "io/jsonread.h"

/* "gguf": {"file", "embed_bytes", "output_bytes", "layer_bytes": [one a
 * layer], "layer_expert_bytes": [the same count, or absent]} or absent
 * (or null). Read after num_layers and weights_bytes; false with d naming
 * the field. */
bool preset_read_gguf(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                      struct diag *d);

/* The object, when the model came from a GGUF file. */
void preset_write_gguf(struct jsonout *o, const struct model_spec *m);

#endif
