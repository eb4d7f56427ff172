/* engine_detail: what an engine profile adds to the budget's result
 * (core/budget.h): the budget's figures, the units it allocates, the log
 * lines it would print and its launch line. The policies (core/policy.h)
 * fill it. */
#ifndef KVPLAN_CORE_ENGINE_DETAIL_H
#define KVPLAN_CORE_ENGINE_DETAIL_H

#include <stdbool.h>
#include <stdint.h>

#include "offload.h"

/* The launch line quotes every word for the shell (core/shell.h); its room
 * holds the longest one (every id at its longest, every byte of it to be
 * escaped: tests/unit/test_launch.c builds it), so no line is ever cut. */
enum { ENGINE_LOG_LINES = 4, ENGINE_TEXT_MAX = 512, ENGINE_LAUNCH_MAX = 4096 };

/* vLLM V1's window and state groups as its pool allocates them
 * (v1/core/single_type_kv_cache_manager.py): in each of `groups` a request
 * holds the blocks of `block` tokens from its computed tokens' window on (a
 * sliding window of `window` tokens, SlidingWindowManager; chunked, the
 * current chunk of `window`, ChunkedLocalAttentionManager), or `fixed`
 * blocks whatever its length (a state group, MambaManager). */
enum { ENGINE_WINDOW_KINDS = 4 };
struct engine_window {
    uint32_t groups;
    bool chunked;
    uint64_t window, block, fixed;
};

/* What an engine profile adds to the answer: its flags as used, its units
 * of allocation, and what it would print. */
struct engine_detail {
    uint64_t gpu_total_bytes;  /* the budget's basis: CUDA-visible total per GPU */
    double fraction;           /* utilisation / mem fraction used; 0 = none */
    uint64_t budget_bytes;     /* per GPU: total x fraction, or total - margin */
    uint64_t activation_bytes; /* estimated peak of the profiling run */
    uint64_t non_kv_bytes;     /* weights + activation + runtime (or given) */
    uint64_t held_extra_bytes; /* held whole beside the weights' share (vLLM: row "weights_extra") */
    uint64_t kv_cache_bytes;   /* per GPU: what the engine allocates for KV (fits or not) */
    uint64_t unit_tokens;      /* block / page / cell size in tokens */
    uint64_t unit_bytes;       /* one unit across all layers, one GPU */
    uint64_t units;            /* blocks, tokens or cells per GPU */
    uint64_t request_units;    /* layer-weighted units of one full-context request */
    double max_concurrency;    /* as the engine prints it */
    uint64_t request_bytes;    /* one full-context request as the engine counts it; 0: the generic figure */
    uint64_t request_room_bytes; /* the part of the pool requests draw on (SGLang's DeepSeek V4:
                                  * less the c128 states set aside); 0: the whole pool */
    uint64_t log_unit_tokens;  /* vLLM: the smallest block over its groups, its log's unit; 0: unit_tokens */
    uint64_t log_kv_tokens;    /* vLLM V1: its "GPU KV cache size" figure, in the form of the
                                * rule's release (policy_vllm_mem.c); 0: none logged */
    /* vLLM V1's hybrid pool: its groups of full attention (a block of `units`
     * is one group's) and its other kinds of group; full_groups 0: a block
     * is every layer's */
    uint32_t full_groups, nwindows;
    struct engine_window windows[ENGINE_WINDOW_KINDS];
    uint32_t scheduler_cap;    /* max_num_seqs / max_running_requests / slots, per replica */
    uint32_t max_num_seqs;
    uint64_t max_num_batched_tokens;
    uint32_t slots;            /* llama.cpp: -np, given or the most that fit */
    struct offload_split offload; /* llama.cpp: what is in host memory (inactive: nothing) */
    /* llama.cpp's fit search found no split that fits: the closest it tried
     * (core/offload_fit.h offload_choose; placed false otherwise) */
    struct offload_split offload_tried;
    /* The texts, last: written by the launch and log functions only, which
     * run only when explaining (a sweep along the context zeroes the figures
     * above them at each context, not these: core/plan.c plan_at_context). */
    int log_lines;
    char log[ENGINE_LOG_LINES][ENGINE_TEXT_MAX / 2];
    char launch[ENGINE_LAUNCH_MAX];
    char note[ENGINE_TEXT_MAX / 2]; /* how the engine budgets, in a sentence */
};

#endif
