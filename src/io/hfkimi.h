/* hfkimi: import-hf's reading of Kimi-Linear (model_type kimi_linear), its
 * Kimi Delta Attention layers as state layers and its MLA layers as
 * attention. Called by io/hfhybrid.c. */
#ifndef KVPLAN_IO_HFKIMI_H
#define KVPLAN_IO_HFKIMI_H

#include <stdbool.h>

#include <cJSON.h>

#include "core/params.h"
#include "io/jsonread.h"

/* linear_attn_config (vLLM transformers_utils/configs/kimi_linear.py,
 * KimiLinearConfig): kda_layers and full_attn_layers, 1-based, each layer in
 * one of them; num_heads of head_dim, the state's dimensions as core/spec.h's
 * gated DeltaNet with as many key heads as value heads; the convolution's
 * short_conv_kernel_size. model_max_length when there is no
 * max_position_embeddings. Kimi K3's additions, counted as its checkpoint
 * stores them (core/params.h): routed_expert_hidden_size (latent experts),
 * attn_res_block_size (attention residuals), mla_use_output_gate (the gated
 * MLA, the only one that takes a q_lora_rank: without it one is refused, as
 * vLLM's KimiMLAAttention takes none) and linear_attn_config.use_full_rank_gate
 * (KDA's full-rank output gate). */
bool hf_kimi_linear(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                    struct diag *d);

#endif
