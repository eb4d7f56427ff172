/* hf_late2026: what import-hf reads for the families of late 2026 beyond
 * the dimensions every family shares (Qwen3.5 and Qwen3.6: the recurrent
 * state's precision, the vision tower; Kimi K2.5 and K2.6: INT4 experts).
 * Called by hfconfig_spec.c. */
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
 * knows (*known set; Qwen3.5's "qwen3_5", "qwen3_5_moe"; Gemma 4's
 * "gemma4_vision"): its dimensions into v. False with d naming the field that
 * is missing or out of range. */
bool hf_late_vision(const struct jsonread *vr, const cJSON *vc, const char *type,
                    struct vision_dims *v, bool *known, struct diag *d);

struct hf_read;

/* Gemma 4 (gemma4, gemma4_text): the global layers (layer_types'
 * "full_attention") keep num_global_key_value_heads of global_head_dim, the
 * key their value with attention_k_eq_v; with enable_moe_block, num_experts
 * experts of moe_intermediate_size, top_k_experts a token, beside the dense
 * MLP. Into the dimensions and the model; false with d naming the field. */
bool hf_late_gemma4(struct hf_read *x);

/* Kimi K2.5 and K2.6 ship their routed experts in INT4 and the rest in the
 * model's precision: a compressed-tensors quantization_config (in text_config
 * or beside it) whose group quantizes weights to 4-bit ints in groups of
 * group_size, and whose ignore list keeps attention and the shared experts
 * out. Each expert weight then costs 1/2 B and a bf16 scale per group
 * (weight_packed, weight_scale): weights_bytes = experts x (1/2 + 2 /
 * group_size) + the rest x the model's bytes. Kimi K3's group is MXFP4
 * instead (format mxfp4-pack-quantized, 4-bit floats, groups of 32, a uint8
 * scale: weight_packed and weight_scale), 17/32 B an expert weight. Does
 * nothing for any other quantization; false with d set when the experts
 * cannot be counted. */
bool hf_late_int4_experts(struct hf_read *x, uint64_t total);

#endif
