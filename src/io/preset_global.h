/* preset_global: a model preset's "global_attention" object, Gemma 4's global
 * layers with KV heads and a head dim of their own (core/spec.h): read beside
 * the other fields of preset.c, and written after its sliding_window. */
#ifndef KVPLAN_IO_PRESET_GLOBAL_H
#define KVPLAN_IO_PRESET_GLOBAL_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "io/jsonout.h"
#include "io/jsonread.h"

/* "global_attention": {"kv_heads", "head_dim", "k_eq_v"} or absent (or
 * null); false with d naming the field. */
bool preset_read_global(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                        struct diag *d);

/* The object, when the model has global dimensions of its own. */
void preset_write_global(struct jsonout *o, const struct model_spec *m);

#endif
