/* plan: the one answer to a scenario, computed in stages (plan.c), each a
 * function of the scenario and the earlier stages' results that writes its
 * own result: the images, the per-token cost, speculative decoding, the
 * placement, LoRA, the profile's budget (the generic headroom rule, or an
 * engine's rule: one GPU's memory into a KV pool and users per replica), the
 * totals over the replicas, the speed and its measured spread, the price and
 * the host tier, then the warnings. Asked for them, the stages write every step as explain rows into
 * the caller's buffer. Every view renders this struct (and those rows); none
 * computes.
 *
 * Per-GPU figures hold for every GPU (all GPUs of a layout are alike);
 * "per replica" is one tensor-parallel group; totals cover every replica. */
#ifndef KVPLAN_CORE_PLAN_H
#define KVPLAN_CORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "explain.h"
#include "hosttier.h"
#include "images.h"
#include "kvcost.h"
#include "lora.h"
#include "placement.h"
#include "price.h"
#include "scenario.h"
#include "specdec.h"
#include "speed.h"
#include "speedband.h"
#include "totals.h"

enum plan_warning {
    WARN_WEIGHTS_DO_NOT_FIT = 1u << 0,
    WARN_NO_USER_FITS = 1u << 1,
    WARN_CONTEXT_BEYOND_MODEL = 1u << 2,
    WARN_HEADS_UNEVEN_SPLIT = 1u << 3, /* attention or KV heads not divisible by TP */
    WARN_KV_HEADS_REPLICATED = 1u << 4,
    WARN_FP8_UNSUPPORTED = 1u << 5,
    WARN_PREFIX_DOES_NOT_FIT = 1u << 6,
    WARN_PRICE_UNKNOWN = 1u << 7,
    WARN_BANDWIDTH_UNKNOWN = 1u << 8,
    WARN_MLA_REPLICATED = 1u << 9,
    WARN_ENGINE_DTYPE = 1u << 10,     /* the chosen engine has no such cache type */
    WARN_SCHEDULER_CAP = 1u << 11,    /* the engine's concurrency cap binds, not memory */
    WARN_KV_DOES_NOT_FIT = 1u << 12,  /* the engine leaves no room for the cache */
    WARN_WINDOWS_UNUSED = 1u << 13,   /* the engine sizes windowed layers fully */
    WARN_SPEED_MOE = 1u << 14,        /* fine-grained MoE: the decode speed is optimistic */
    WARN_CONCURRENCY_BEYOND_FIT = 1u << 15, /* --concurrency above the users that fit */
    WARN_TP_ACROSS_NODES = 1u << 16,  /* tensor parallel wider than one node */
    WARN_ENGINE_WEIGHTS = 1u << 17,   /* llama.cpp has no GGUF type for these weights */
    WARN_DRAFT_VOCAB = 1u << 18,      /* the draft's vocabulary is not the model's */
    WARN_STATE_GENERIC = 1u << 19,    /* the engine's state pool is not modelled: counted per user */
    WARN_HOST_TOO_SMALL = 1u << 20,   /* SGLang refuses a host pool no larger than the device's */
    WARN_STATE_CAP = 1u << 21,        /* SGLang: the state pool caps a larger --max-running-requests */
    WARN_STATE_PREFIX = 1u << 22,     /* vLLM V1 hybrid + prefix caching: states at block boundaries */
    WARN_DRAFT_SIZE = 1u << 23,       /* the draft is no smaller than a quarter of the model */
    WARN_ENGINE_HARDWARE = 1u << 24,  /* the engine does not run on this GPU's vendor */
    WARN_SPEED_BATCHED = 1u << 25,    /* the engine's batched decode on this family: unvalidated */
    WARN_WIRED_LIMIT = 1u << 26,      /* unified memory: macOS's wired limit binds, a sysctl raises it */
    WARN_CALIBRATION = 1u << 27,      /* a calibration measured on another GPU, model or engine */
    WARN_SERVICE_LEVEL_MISSED = 1u << 28, /* no count of users keeps the target, not even one */
    WARN_HOST_DOES_NOT_FIT = 1u << 29, /* llama.cpp: host memory, not the GPU's, is what is short */
    WARN_NO_SPLIT_FITS = 1u << 30,     /* llama.cpp: the fit search found no split that fits */
    WARN_LAST = WARN_NO_SPLIT_FITS
};

/* Where one GPU's memory goes, in order; the parts sum to memory_bytes_per_gpu
 * (except when the weights do not fit). */
enum segment {
    SEG_WEIGHTS,
    SEG_RUNTIME,  /* activations, CUDA graphs, buffers (engines) */
    SEG_DRAFT,    /* speculative decoding: the draft model's or the MTP layers' weights */
    SEG_STATE,    /* the users' fixed state (state-space and linear-attention layers) */
    SEG_LORA,     /* LoRA adapter slots (core/lora.h) */
    SEG_ENCODER,  /* vLLM's encoder cache for image embeddings (core/images.h) */
    SEG_PREFIX,   /* the shared prefix, stored once */
    SEG_USERS,    /* the users that fit */
    SEG_SPARE,    /* KV memory too small for one more user */
    SEG_RESERVED, /* headroom, or memory outside the engine's budget */
    SEG_COUNT
};

/* Unified memory (Apple silicon, core/plan_wired.c): the wired limit the
 * plan ran under and, when memory falls short of what was asked (the
 * weights, a user, --concurrency), the limit that would hold it. */
struct wired_figures {
    uint64_t unified_bytes; /* 0: the GPU's memory is its own */
    uint64_t limit_bytes;   /* what the GPU may use */
    uint32_t suggest_mb;    /* the wired limit, whole GiB in MiB, that holds what was asked;
                             * 0: none is needed, or none below the unified memory */
    bool split;             /* the limit made the fit search keep part of the model on the CPU */
};

/* The headroom rule's answer, kept beside an engine's for comparison only. */
struct generic_figures {
    bool present;
    double headroom_percent;
    uint64_t max_users, max_users_paged, kv_tokens, kv_pool_bytes;
};

/* The stages' results, and nothing else. A stage's result is a member
 * under its own name (r->placement, r->budget: what plan.c hands the next
 * stage); those declared as a list of fields (core/placement.h,
 * budget.h, ...) are also the plan's own fields, each by its own name
 * (r->tp, r->users_per_replica: what the views read). */
struct plan_result {
    union { /* the images of a request (core/images.h) */
        struct image_counts image_counts;
        struct { IMAGE_COUNTS_FIELDS };
    };
    struct kv_cost cost;             /* per token, per GPU (the draft's included) */
    struct spec_result spec;         /* speculative decoding (in the weights and the cost) */
    union { /* the layout and the weights each GPU holds (core/placement.h) */
        struct placement placement;
        struct { PLACEMENT_FIELDS };
    };
    struct lora_cost lora;           /* LoRA slots on one GPU (lora.bytes 0: none) */
    union { /* one GPU and one replica, by the profile's rule (core/budget.h) */
        struct plan_budget budget;
        struct { PLAN_BUDGET_FIELDS };
    };
    union { /* every replica: the answer (core/totals.h) */
        struct plan_totals totals;
        struct { PLAN_TOTALS_FIELDS };
    };
    struct speed_result speed;       /* the service level */
    struct speed_bands bands;        /* each speed figure's measured spread (core/speedband.h) */
    uint64_t decode_step_bytes_per_gpu;  /* speed.step_bytes_per_gpu, as the views read it */
    double decode_tokens_per_s_per_user; /* speed.tokens_per_s_per_user; 0 unknown or no user */
    union { /* what an hour and a user-hour cost (core/price.h) */
        struct plan_price price;
        struct { PLAN_PRICE_FIELDS };
    };
    struct host_tier host;           /* --host-kv: the second tier */
    uint32_t warnings;               /* enum plan_warning bits */
    struct generic_figures generic;  /* engines only: the headroom rule's answer */
    struct wired_figures wired;      /* unified memory's wired limit */
    const char *const *names;        /* how the caller names the fields, for warnings */
    char calibration_note[480];      /* the scenario's, for WARN_CALIBRATION */
};

/* No explain rows: numbers only, for curves, sweeps and solves. */
#define PLAN_NUMBERS ((struct explain *)NULL)

/* Computes the plan. With x (the caller's), also the arithmetic as explain
 * rows, the engine's log lines and launch command, and the generic
 * comparison; with PLAN_NUMBERS, none of them. x->deferred is the caller's
 * (core/explain.h) and is left as it is. Returns false (with d naming
 * the field in `names`, or the command line's names when NULL) when the
 * scenario is invalid or its byte counts pass 64 bits; r is then zeroed and
 * x left as it was. */
bool plan_compute(const struct scenario *s, struct explain *x, const char *const names[SF_COUNT],
                  struct plan_result *r, struct diag *d);

/* A sweep along the context: plan_prepare runs once what a scenario fixes
 * whatever its context (the checks of everything else, the images' counts,
 * the cost of a token, the draft, the placement, LoRA), plan_at_context the
 * rest at each context (its checks, the budget, the totals, the speed, the
 * price, the host tier, the warnings), numbers only. */
struct plan_base {
    bool ready;                  /* false: plan_at_context runs plan_compute whole */
    const char *const *names;    /* as given to plan_prepare */
    struct scenario s;           /* the scenario, at the last context */
    struct scenario eff, run;    /* with the images' tokens; and the lookahead (plan.c) */
    struct kv_cost plain;        /* kvcost's own cost of a token: the context's 64-bit check */
    uint32_t warnings;           /* those the fixed stages raise */
    struct plan_result r;        /* the plan at the last context */
};

/* Prepares b for scenario s (its context, prefix and average are ignored);
 * `names` as plan_compute's. */
void plan_prepare(const struct scenario *s, const char *const names[SF_COUNT], struct plan_base *b);

/* The plan of b's scenario at the given context, prefix and average
 * (PLAN_NUMBERS), in b: byte for byte plan_compute's of that scenario, or
 * NULL with plan_compute's message in d. */
const struct plan_result *plan_at_context(struct plan_base *b, uint64_t context, uint64_t prefix,
                                          uint64_t avg, struct diag *d);

/* Where one GPU's memory goes (enum segment order). */
void plan_segments(const struct plan_result *r, uint64_t bytes[SEG_COUNT]);

/* A token's KV on one GPU and on a replica's GPUs together. llama.cpp's
 * cost.bytes_per_token is its whole model's (it splits layers, not heads):
 * a GPU holds its share of the layers. */
uint64_t plan_kv_token_bytes_per_gpu(const struct plan_result *r);
uint64_t plan_kv_token_bytes_per_replica(const struct plan_result *r);

/* "weights", "runtime", "shared prefix", "users' KV", "spare KV", "headroom"
 * (or "outside budget" for an engine). */
const char *plan_segment_name(const struct plan_result *r, enum segment s);

/* The layout, written once for every view: how one replica holds the model
 * ("TP 4", or for an engine that splits layers "layers split over 4 GPUs",
 * "one GPU each"), the replicas in short ("3 x TP 4", "3 x 4 GPUs"), and the
 * whole sentence ("3 replicas of tensor parallel 4", "2 stages x 8 GPUs: TP
 * 8, PP 2", "one replica, layers split over 2 GPUs"). */
void plan_layout_words(const struct plan_result *r, char *buf, size_t size);
void plan_layout_group(const struct plan_result *r, char *buf, size_t size);
void plan_layout_text(const struct plan_result *r, char *buf, size_t size);
/* The layout as every title writes it in its brackets: "3 x TP 4", "2 x TP 8
 * x PP 2", "3 x 4 GPUs, layers split". */
void plan_layout_title(const struct plan_result *r, char *buf, size_t size);
/* " (3 x TP 4)" after a title, when there is more than one replica or
 * stage; "" otherwise. */
void plan_layout_suffix(const struct plan_result *r, char *buf, size_t size);

/* How the weights are stored (placement_weights_label). */
const char *plan_weights_label(const struct plan_result *r);

/* r->wired from the budget and the totals (core/plan_wired.c). */
void wired_compute(const struct scenario *s, struct plan_result *r);

/* What the speed model reads of r (core/speed.h). */
struct speed_basis plan_speed_basis(const struct plan_result *r);

/* One sentence per warning bit, without the plan's figures. */
const char *plan_warning_text(enum plan_warning w);

/* The sentence of warning w for this plan: with its figures, and options
 * named as the caller of plan_compute names them ("--concurrency 500"). */
void plan_warning_format(const struct plan_result *r, enum plan_warning w, char *buf, size_t size);

/* The warnings worth showing (price and bandwidth gaps left out), as bits. */
uint32_t plan_shown_warnings(const struct plan_result *r);

#endif
