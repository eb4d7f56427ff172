/* hfhybrid: the state layers of a hybrid config.json for import-hf (qwen3_next,
 * nemotron_h, granitemoehybrid, jamba, falcon_h1): which layers are attention, state or plain
 * MLP, and the dimensions of one state layer (core/spec.h). */
#ifndef KVPLAN_IO_HFHYBRID_H
#define KVPLAN_IO_HFHYBRID_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/params.h"
#include "core/spec.h"
#include "io/jsonread.h"

/* True for the families this reads. */
bool hfhybrid_family(enum arch_family f);

/* Reads the layer kinds and state dimensions of a hybrid family into a;
 * false with d naming the field that is missing or wrong. */
bool hfhybrid_dims(const struct jsonread *r, const cJSON *o, struct arch_dims *a, struct diag *d);

/* The model's state fields from a (and the config's mamba_ssm_cache_dtype);
 * false with d naming the field when that precision is not one kvplan knows. */
bool hfhybrid_spec(const struct jsonread *r, const cJSON *o, const struct arch_dims *a,
                   struct model_spec *m, struct diag *d);

#endif
