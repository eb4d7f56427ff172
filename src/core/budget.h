/* budget: the plan's stage of the profile's rule (the generic headroom rule,
 * or an engine's budgeting rule, core/engine_desc.h). From the earlier
 * stages' results it turns one GPU's memory into a KV pool, allocates it to
 * users in the rule's units, and says how many one replica holds; an engine
 * adds its own figures, log lines and launch line (core/engine_detail.h). */
#ifndef KVPLAN_CORE_BUDGET_H
#define KVPLAN_CORE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_detail.h"
#include "explain.h"
#include "images.h"
#include "kvcost.h"
#include "lora.h"
#include "placement.h"
#include "scenario.h"
#include "specdec.h"

/* One GPU (every GPU holds the same) and one replica (one tensor-parallel
 * group; under DP attention the plan multiplies a rank's users by the
 * ranks). A list of fields, so that the plan holds the result whole and
 * each field by its own name too (core/plan.h). State layers (core/kvcost.h):
 * one user's state as the rule allocates it, the part of kv_used that is
 * state, and the sequences a separate state pool holds (SGLang, vLLM V0;
 * 0 when the state shares the KV pool). */
#define PLAN_BUDGET_FIELDS                                                                         \
    bool weights_fit;                  /* the weights fit within the profile's budget */           \
    bool fits;                         /* ... and the profile gives the cache memory */            \
    uint64_t memory_bytes_per_gpu;     /* the basis: driver total, or CUDA total */                \
    uint64_t reserved_bytes_per_gpu;   /* headroom, or outside the engine's budget */              \
    uint64_t runtime_bytes_per_gpu;    /* activations and runtime (engines) */                     \
    uint64_t kv_pool_bytes_per_gpu;    /* memory for the KV cache */                               \
    uint64_t shortfall_bytes_per_gpu;  /* what is missing when it does not fit */                  \
    uint64_t user_bytes_per_gpu;       /* one user at the full context, as allocated */            \
    uint64_t user_bytes_avg_per_gpu;   /* one user at the average length, exact */                 \
    uint64_t user_bytes_paged_per_gpu; /* ... rounded to the allocation unit */                    \
    uint64_t prefix_bytes_per_gpu;                                                                 \
    uint64_t prefix_bytes_paged_per_gpu;                                                           \
    uint64_t kv_used_bytes_per_gpu;    /* prefix + users x per user */                             \
    uint64_t users_fit_per_replica;    /* by memory alone */                                       \
    uint64_t users_per_replica;        /* min(fit, scheduler cap) */                               \
    uint64_t users_paged_per_replica;                                                              \
    uint64_t counted_users_per_replica; /* vLLM V1's window groups: its Maximum concurrency's  \
                                         * users, each prefilling a batch; 0: none apart */     \
    uint64_t kv_tokens_per_replica;                                                                \
    uint64_t reservation_waste_bytes_per_gpu; /* full context reserved - used */                   \
    uint64_t encoder_cache_tokens;     /* vLLM V1: image embeddings held */                        \
    uint64_t encoder_cache_bytes_per_gpu;                                                          \
    uint64_t state_bytes_per_user_per_gpu; /* as the rule allocates it */                          \
    uint64_t state_used_bytes_per_gpu; /* the users' (no idle slots) */                            \
    uint64_t state_slots_per_replica;  /* a separate pool's; 0: none */                            \
    uint64_t state_pool_bytes_per_gpu; /* that pool, whole */                                      \
    uint64_t state_spec_bytes_per_gpu; /* SGLang: the draft tokens' states */                      \
    uint32_t rule_warnings;            /* enum plan_warning bits the rule raises */                \
    struct engine_detail engine;       /* engines only */

struct plan_budget {
    PLAN_BUDGET_FIELDS
};

/* What a rule reads, the earlier stages' results, and what it writes: only
 * *b. The policies' shared steps and the earlier stages' rows take it too
 * (core/policy.h); those rows write nothing but x. */
struct policy_ctx {
    const struct scenario *s;        /* the run: a user's context holds its speculative tokens */
    const struct placement *l;       /* the layout: the context as asked for */
    const struct kv_cost *k;         /* a token's cost, with the draft's */
    const struct spec_result *spec;
    const struct lora_cost *lora;
    const struct image_counts *img;
    struct plan_budget *b;           /* the rule's answer */
    struct explain *x;               /* NULL: numbers only */
};

#endif
