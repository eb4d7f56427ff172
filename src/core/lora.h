/* lora: the GPU memory an engine holds for LoRA adapter slots.
 *
 * vLLM and SGLang allocate, at start-up and before the KV cache is sized,
 * one A and one B matrix per slot for every adapted projection of every
 * layer, at the largest rank served: A is rank x in_features, B is
 * out_features x rank, in the model's compute precision. Under tensor
 * parallel a column-parallel projection (q, k, v, gate, up) keeps A whole
 * and splits B's output; a row-parallel one (o, down) splits A's input and
 * keeps B whole. Sources, per engine:
 *   vLLM  vllm/lora/layers/base_linear.py BaseLinearLayerWithLoRA.create_lora_weights,
 *         column_parallel_linear.py MergedColumnParallelLinearWithLoRA.create_lora_weights
 *         (lora_a_stacked (max_loras, 1, max_lora_rank, input_size), lora_b_stacked
 *         (max_loras, 1, output_size per partition, max_lora_rank), lora_dtype);
 *         model_manager.py LoRAModelManager.lora_slots = max_loras;
 *         v1/worker/lora_model_runner_mixin.py load_lora_model, called while the model
 *         loads, so the profile counts the buffers outside the KV cache.
 *   SGLang python/sglang/srt/lora/mem_pool.py LoRAMemoryPool.get_lora_A_shape
 *         (max_loras_per_batch, rank x stacked, input_dim / tp for row-parallel) and
 *         get_lora_B_shape (max_loras_per_batch, output_dim / tp for column-parallel,
 *         rank); _effective_tp_size: attention projections split by the attention TP.
 * Not counted: LoRA on MoE experts (both engines have per-expert buffers:
 * vllm/lora/layers/fused_moe.py, SGLang's 4-D MoE buffers), on the embedding
 * and lm_head, vLLM's fully_sharded_loras (which also splits the rank), and
 * MLA attention's projections (refused by scenario_validate). */
#ifndef KVPLAN_CORE_LORA_H
#define KVPLAN_CORE_LORA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"

struct scenario;

enum lora_module { LORA_Q, LORA_K, LORA_V, LORA_O, LORA_GATE, LORA_UP, LORA_DOWN, LORA_MODULES };

enum {
    LORA_ATTENTION = (1u << LORA_Q) | (1u << LORA_K) | (1u << LORA_V) | (1u << LORA_O),
    LORA_MLP = (1u << LORA_GATE) | (1u << LORA_UP) | (1u << LORA_DOWN),
    LORA_ALL = LORA_ATTENTION | LORA_MLP,
    LORA_SLOTS_MAX = 1024,
    LORA_RANK_MAX = 1024,
    LORA_DEFAULT_RANK = 16 /* vllm/config/lora.py LoRAConfig.max_lora_rank */
};

/* "q_proj", "k_proj", ... "down_proj". */
const char *lora_module_name(enum lora_module m);

/* Parses "q_proj,k_proj,..." (or "all", "attention"); false with d naming
 * the first word that is not a module. */
bool lora_targets_parse(const char *text, uint32_t *mask, struct diag *d);

/* "q_proj,k_proj,v_proj,o_proj" for a mask. */
void lora_targets_format(uint32_t mask, char *buf, size_t size);

/* The modules adapted: those given, or every projection of attention and
 * the MLP (attention only for a MoE model: its MLP is experts). */
uint32_t lora_targets(const struct scenario *s);

/* The modules whose buffers the engines allocate for the targets: the packed
 * projections whole, so any of q, k, v takes all three (qkv_proj) and gate or
 * up takes both (gate_up_proj); without a gate (model.mlp_ungated) the MLP is
 * up and down only. Sources: vLLM vllm/lora/utils.py is_in_target_modules (a
 * packed module is adapted when any of its parts is targeted) and
 * layers/column_parallel_linear.py MergedQKVParallelLinearWithLoRA /
 * MergedColumnParallelLinearWithLoRA.create_lora_weights (A and B for every
 * slice); SGLang python/sglang/srt/lora/utils.py get_normalized_target_modules
 * (q/k/v -> qkv_proj, gate/up -> gate_up_proj) and get_stacked_multiply (3, 2),
 * sizing mem_pool.py's buffers. The generic rule counts the targets as given. */
uint32_t lora_allocated(const struct scenario *s);

/* The rank the slots are sized for (given, or 16). */
uint32_t lora_rank(const struct scenario *s);

/* The precision of the buffers: the model's compute precision. */
enum dtype lora_dtype(const struct scenario *s);

/* What the slots hold on one GPU. */
struct lora_cost {
    uint32_t slots, rank, layers, targets;
    enum dtype dtype;
    uint64_t features[LORA_MODULES]; /* in + out features of each module on one GPU */
    uint64_t features_sum;           /* of the adapted modules */
    uint64_t slot_bytes;             /* layers x rank x features_sum x dtype bytes */
    uint64_t bytes;                  /* slots x slot_bytes */
};

/* The cost on one GPU holding `layers` layers, attention split over
 * attention_tp GPUs (kv_heads_per_gpu K/V heads each) and the MLP over tp. */
void lora_compute(const struct scenario *s, uint32_t attention_tp, uint32_t tp, uint32_t layers,
                  uint32_t kv_heads_per_gpu, struct lora_cost *c);

#endif
