/* hf_late2026: what import-hf reads for the families of late 2026 beyond
 * the dimensions every family shares (Qwen3.5 and Qwen3.6: the recurrent
 * state's precision, the vision tower). Called by hfconfig_spec.c. */
#ifndef KVPLAN_IO_HF_LATE2026_H
#define KVPLAN_IO_HF_LATE2026_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "core/params.h"
#include "core/spec.h"
#include "io/jsonread.h"

/* Qwen3.5's text config names the recurrent state's precision
 * mamba_ssm_dtype; vLLM serves the state in it unless told otherwise
 * (model_executor/models/config.py, Qwen3_5ForConditionalGenerationConfig.
 * verify_and_update_config). Sets m->state_dtype for a qwen3_5 type when
 * the config gives no mamba_ssm_cache_dtype; false with d naming the field
 * when the precision is not one kvplan knows. */
bool hf_late_state_dtype(const struct jsonread *r, const cJSON *o, const char *type,
                         struct model_spec *m, struct diag *d);

/* The vision tower of vision_config when its model_type is one this file
 * knows (*known set; Qwen3.5's "qwen3_5", "qwen3_5_moe"): its dimensions
 * into v. False with d naming the field that is missing or out of range. */
bool hf_late_vision(const struct jsonread *vr, const cJSON *vc, const char *type,
                    struct vision_dims *v, bool *known, struct diag *d);

#endif
