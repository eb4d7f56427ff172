/* placement: how the replicas hold the model. The GPUs and their split
 * (tensor parallel, pipeline stages, replicas, DP attention, the routed
 * experts' spread), the weights each GPU holds, a draft's included, the
 * precisions, and the context a user holds. The plan's stage after the
 * per-token cost and the draft (core/plan.c). */
#ifndef KVPLAN_CORE_PLACEMENT_H
#define KVPLAN_CORE_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "specdec.h"

/* A list of fields, so that the plan holds the result whole and each field
 * by its own name too (core/plan.h). Per-GPU figures hold for every GPU. */
#define PLACEMENT_FIELDS                                                                           \
    enum engine_kind profile;                                                                      \
    enum engine_rule rule;                                                                         \
    uint32_t gpus, tp, replicas;                                                                   \
    uint32_t node_gpus;                /* a host's GPUs: the launch lines' nodes */                \
    uint32_t pp;                       /* pipeline stages: each GPU holds its stage's layers */    \
    enum layout_basis layout_basis;    /* why this layout (scenario_layout_basis) */               \
    uint32_t layouts_run;              /* of how many that run, when the most users chose it */    \
    bool dp_attention;                 /* SGLang: each TP rank serves its own requests */          \
    bool expert_parallel;              /* vLLM --enable-expert-parallel: whole experts */          \
    bool experts_spread;               /* routed experts over the whole DP group (vLLM V1) */      \
    uint64_t expert_bytes;             /* of weights_bytes, in routed experts (0 dense) */         \
    uint64_t expert_padding_bytes;     /* of expert_bytes, the engine's kernels' padding */        \
    uint32_t padded_inter, padded_hidden; /* an expert's dimensions as loaded (0: unpadded) */      \
    uint64_t attention_bytes;          /* of weights_bytes, whole on every GPU (DP attention) */   \
    uint64_t replicated_bytes;         /* of weights_bytes, whole on every TP rank (MLA) */        \
    enum dtype weight_dtype, kv_dtype; /* resolved */                                              \
    bool weights_as_released;          /* the checkpoint's own size (MXFP4, FP8 blocks) */         \
    uint64_t weights_bytes;            /* the whole model */                                       \
    uint64_t weights_bytes_per_gpu;    /* the model's share, and the draft's */                    \
    uint32_t layers_fullest, layers_all; /* a layer split: the fullest GPU's layers, of all */     \
    uint64_t context_tokens, prefix_tokens; /* a user's, images included */                        \
    uint64_t avg_context_tokens, block_tokens;

struct placement {
    PLACEMENT_FIELDS
};

/* The placement of scenario s (its image tokens in the context), with the
 * draft's weights per GPU (spec; SPEC_NONE adds none). weights_bytes is
 * UINT64_MAX when the model's bytes pass 64 bits. */
void placement_compute(const struct scenario *s, const struct spec_result *spec,
                       struct placement *out);

/* Of those, the context a user holds (context_tokens, prefix_tokens,
 * avg_context_tokens): the only figures of the placement a context changes. */
void placement_context(const struct scenario *s, struct placement *l);

/* The layers of `layers` the fullest of `gpus` GPUs holds in llama.cpp's
 * split by layer (llama_model::load_tensors, src/llama-model.cpp: with
 * -ngl 999 the layers and the output layer are layers + 1 slots, slot j
 * on GPU upper_bound(splits, j / slots), splits the GPUs' running shares of
 * their free memory, alike for alike GPUs): ceil((layers + 1) / gpus), as
 * whole layers go to a GPU; the output layer is the last GPU's last slot. */
uint32_t placement_fullest_layers(uint32_t layers, uint32_t gpus);

/* Of `bytes` spread over a replica's layers, the part its fullest GPU holds:
 * ceil(bytes x layers_fullest / layers_all) in a layer split, else
 * ceil(bytes / (tp x pp)). */
uint64_t placement_share(const struct placement *l, uint64_t bytes);

/* The GPUs of a launch line's node: the host's (node_gpus), 8 when unset. */
uint32_t placement_node_gpus(const struct placement *l);

/* How the weights are stored: "bf16", or "checkpoint" for a mixed-format
 * checkpoint counted at its released size (gpt-oss MXFP4 experts). */
const char *placement_weights_label(const struct placement *l);

#endif
