/* hfmoe: which layers of an imported MoE model hold the experts (core/spec.h's
 * moe_first_dense, moe_period, moe_offset), from the fields each family names
 * them by. Called by hfconfig_spec.c. */
#ifndef KVPLAN_IO_HFMOE_H
#define KVPLAN_IO_HFMOE_H

#include <stdbool.h>

struct hf_read;

/* DeepSeek, GLM and Kimi: first_k_dense_replace dense layers, then MoE in
 * the layers i % moe_layer_freq == 0 (vLLM models/deepseek_v2.py,
 * DeepseekV2DecoderLayer); Jamba: expert_layer_period and _offset; Llama 4:
 * interleave_moe_layer_step (the layers (i + 1) % step == 0); Qwen's MoE
 * families: decoder_sparse_step (likewise) and mlp_only_layers. Sets the
 * model's pattern; false with d naming the field when the pattern is one the
 * family's parameter count does not follow (moe_layer_freq past 1, a sparse
 * step or mlp_only_layers on Qwen). */
bool hf_moe_layers(struct hf_read *x);

#endif
