/* capacity: how many concurrent users a GPU (or a tensor-parallel group of
 * GPUs) can serve, and every term of the arithmetic that says so.
 *
 * The one entry point is capacity_compute(): plain scenario in, plain result
 * out, no I/O, no globals. Counts and bytes are exact 64-bit integers; only
 * the derived rates (cost, tokens per second) are floating point. */
#ifndef KVPLAN_CORE_CAPACITY_H
#define KVPLAN_CORE_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"
#include "engine.h"
#include "spec.h"
#include "units.h"

enum { GPUS_MAX = 65536, BLOCK_TOKENS_MAX = 1 << 20 };

/* The knobs. Zero / DTYPE_AUTO / false mean "the default" as documented. */
struct scenario {
    struct gpu_spec gpu;       /* full spec, so a snapshot is self-contained */
    struct model_spec model;
    uint32_t gpus;             /* all GPUs; >= 1 */
    uint32_t tp;               /* tensor parallel per replica; 0 = all GPUs (one replica) */
    enum dtype weight_dtype;   /* AUTO = as released (model.weights_bytes if set) */
    enum dtype kv_dtype;       /* AUTO = the model's 16/32-bit compute precision */
    uint32_t kv_heads;         /* 0 = the model's */
    uint64_t context_tokens;   /* per user, worst case */
    uint64_t prefix_tokens;    /* shared by every user, stored once */
    uint64_t avg_context_tokens; /* tokens actually in use; 0 = context */
    uint64_t block_tokens;     /* paged allocation block; 0 = 16 */
    double headroom_percent;   /* of total memory kept free, [0, 100) */
    bool has_vram;             /* memory per GPU overridden */
    uint64_t vram_bytes;
    bool has_weights;          /* weights (whole model) overridden */
    uint64_t weights_bytes;
    bool has_price;            /* price per GPU-hour overridden */
    double price_usd_per_hour;
    bool full_attention;       /* treat windowed layers as global */
    enum unit_system units;    /* display only */
    struct engine_flags engine; /* how a real engine would budget it */
};

enum plan_warning {
    WARN_WEIGHTS_DO_NOT_FIT = 1u << 0,
    WARN_NO_USER_FITS = 1u << 1,
    WARN_CONTEXT_BEYOND_MODEL = 1u << 2,
    WARN_HEADS_UNEVEN_SPLIT = 1u << 3, /* attention or KV heads not divisible by GPUs */
    WARN_KV_HEADS_REPLICATED = 1u << 4,
    WARN_FP8_UNSUPPORTED = 1u << 5,
    WARN_PREFIX_DOES_NOT_FIT = 1u << 6,
    WARN_PRICE_UNKNOWN = 1u << 7,
    WARN_BANDWIDTH_UNKNOWN = 1u << 8,
    WARN_MLA_REPLICATED = 1u << 9,
    WARN_ENGINE_DTYPE = 1u << 10, /* the chosen engine has no such cache type */
};

/* Memory totals below are for one replica (tp GPUs); max_users, paged
 * users, kv_tokens and the cost cover every replica. */
struct plan_result {
    bool fits;                     /* weights fit within the budget */
    uint32_t tp, replicas;
    enum dtype weight_dtype;       /* resolved */
    enum dtype kv_dtype;           /* resolved */
    uint32_t warnings;             /* enum plan_warning bits */

    /* Memory, summed over all GPUs unless the name says per_gpu. */
    uint64_t gpu_memory_bytes_per_gpu;
    uint64_t gpu_memory_bytes;
    uint64_t headroom_bytes;
    uint64_t budget_bytes;         /* memory - headroom */
    uint64_t weights_bytes;
    uint64_t weights_bytes_per_gpu; /* rounded up */
    uint64_t kv_pool_bytes;        /* budget - weights, 0 when it does not fit */
    uint64_t shortfall_bytes;      /* weights - budget when it does not fit */

    /* The per-token cost. */
    uint32_t kv_heads;             /* used (override or model) */
    uint32_t kv_heads_per_gpu;     /* max(1, ceil(kv_heads / gpus)); 0 for MLA */
    uint64_t kv_values_per_layer_per_gpu; /* K+V values (or latent) per token per layer */
    uint64_t kv_bytes_per_token_per_layer_per_gpu;
    uint32_t global_layers;        /* layers holding the whole context */
    uint32_t windowed_layers;      /* layers holding at most window_tokens */
    uint64_t window_tokens;
    uint64_t kv_bytes_per_token_per_gpu; /* all layers, as if every layer were global */
    uint64_t kv_bytes_per_token;         /* same, summed over GPUs */
    uint64_t kv_bytes_per_token_global;  /* marginal cost past the window, summed */

    /* Per user at the full context, and the shared prefix, summed over GPUs. */
    uint64_t user_tokens_global;   /* private tokens in each global layer */
    uint64_t user_tokens_windowed; /* private tokens in each windowed layer */
    uint64_t kv_bytes_per_user;
    uint64_t prefix_tokens_global;
    uint64_t prefix_tokens_windowed;
    uint64_t prefix_bytes;
    uint64_t max_users;
    uint64_t kv_used_bytes;        /* prefix + max_users x per user */
    uint64_t remainder_bytes;      /* pool left over, less than one more user */

    /* Paged allocation at the average length. */
    uint64_t avg_context_tokens;
    uint64_t block_tokens;
    uint64_t kv_bytes_per_user_avg;   /* exact, unrounded, at the average length */
    uint64_t kv_bytes_per_user_paged; /* rounded up to whole blocks */
    uint64_t prefix_bytes_paged;
    uint64_t max_users_paged;
    uint64_t reservation_waste_bytes; /* contiguous: reserved at context - used at average */
    uint64_t paged_waste_bytes;       /* paged: block rounding of the paged users */

    uint64_t kv_tokens;            /* tokens the pool holds at the full per-token cost */
    double price_usd_per_hour;     /* for all GPUs; < 0 unknown */
    double cost_per_user_hour;     /* < 0 when unknown or no user fits */
    uint64_t decode_step_bytes;    /* bytes read per decode step at max_users */
    double decode_tokens_per_s_per_user; /* 0 when unknown or no user fits */
    struct engine_result engine;   /* the engine profile's answer (generic mirrors the above) */
};

/* A scenario with every default filled in for the given GPU and model. */
void capacity_scenario_default(struct scenario *s, const struct gpu_spec *gpu,
                               const struct model_spec *model);

/* Checks the knobs against each other and the model (prefix below context,
 * KV heads dividing the attention heads, ...). Messages name the option. */
bool capacity_validate(const struct scenario *s, struct diag *d);

/* Computes the plan. Returns false (with d set) when the scenario is invalid
 * or a product would overflow 64 bits; r is then zeroed. */
bool capacity_compute(const struct scenario *s, struct plan_result *r, struct diag *d);

/* A model's KV bytes per token on one GPU, all layers at full length, in
 * the cache precision it computes in (what catalogues and pickers show). */
uint64_t capacity_model_kv_bytes_per_token(const struct model_spec *m);

/* Resolves DTYPE_AUTO for the cache: the model's precision when it is
 * fp32/fp16/bf16, bf16 otherwise (FP8 or 4-bit checkpoints compute in bf16). */
enum dtype capacity_kv_dtype(const struct scenario *s);

/* Where the memory of all GPUs goes, in order: weights, shared prefix, the
 * users that fit, the remainder too small for one more user, headroom.
 * The parts sum to gpu_memory_bytes, except when the weights do not fit:
 * then weights exceed the budget by shortfall_bytes and the KV parts are 0. */
enum segment { SEG_WEIGHTS, SEG_PREFIX, SEG_USERS, SEG_REMAINDER, SEG_HEADROOM, SEG_COUNT };
void capacity_segments(const struct plan_result *r, uint64_t bytes[SEG_COUNT]);

/* "weights", "shared prefix", "users' KV", "remainder", "headroom" */
const char *capacity_segment_name(enum segment s);

/* Fills r->engine from the scenario's engine profile (engine.c); its log
 * lines, launch command and note only when `describe`. */
void capacity_engine(const struct scenario *s, struct plan_result *r, bool describe);

/* capacity_compute without the engine's text (log lines, launch command):
 * for curves, sweeps and solves that only need the numbers. */
bool capacity_compute_numbers(const struct scenario *s, struct plan_result *r, struct diag *d);

/* One sentence per warning bit, for text output and the TUI. */
const char *capacity_warning_text(enum plan_warning w);

#endif
