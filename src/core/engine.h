/* engine: how real serving engines turn GPU memory into KV-cache capacity.
 *
 * Each profile mirrors its engine's own budgeting rule, its estimate of the
 * memory outside weights and KV, its allocation granularity and scheduler
 * cap, so kvplan can predict the numbers the engine logs at startup
 * (../shared/reference/ENGINES.md has the upstream file of each rule).
 * Estimates of activation and runtime memory are estimates: a calibration
 * from a real log (--non-kv, --gpu-total, --kv-memory) replaces them. */
#ifndef KVPLAN_CORE_ENGINE_H
#define KVPLAN_CORE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"

enum engine_kind {
    ENGINE_GENERIC = 0, /* memory x (1 - headroom) - weights */
    ENGINE_VLLM,
    ENGINE_SGLANG,
    ENGINE_LLAMACPP,
    ENGINE_TRTLLM,
    ENGINE_COUNT
};

/* Older arithmetic an engine used, selected with --engine NAME@VERSION. */
enum engine_rule {
    RULE_CURRENT = 0,
    RULE_VLLM_V0,         /* vllm@0: V0 engine, logits profiled for every batched token */
    RULE_LLAMACPP_PRE_MLA /* llama.cpp@pre-mla: DeepSeek K and V expanded per head */
};

/* The engine and its launch flags; zero means "the engine's default". */
struct engine_flags {
    enum engine_kind kind;
    enum engine_rule rule;
    double gpu_memory_utilization;   /* vLLM, default 0.9 */
    uint32_t max_num_seqs;           /* vLLM (and TRT-LLM max_batch_size) */
    uint64_t max_num_batched_tokens; /* vLLM (TRT-LLM max_num_tokens) */
    double mem_fraction_static;      /* SGLang, default from its reserve rule */
    uint64_t chunked_prefill_size;   /* SGLang */
    uint32_t parallel;               /* llama.cpp -np slots, default 1 */
    uint64_t fit_target_bytes;       /* llama.cpp --fit margin, default 1 GiB */
    enum dtype v_dtype;              /* llama.cpp -ctv; AUTO = the cache dtype */
    double free_gpu_memory_fraction; /* TensorRT-LLM, default 0.9 */
    /* What a startup log told you (per GPU); 0 = estimate. */
    uint64_t gpu_total_bytes; /* CUDA-visible total */
    uint64_t non_kv_bytes;    /* weights + activations + runtime */
    uint64_t kv_memory_bytes; /* the KV cache itself */
};

enum { ENGINE_LOG_LINES = 4, ENGINE_TEXT_MAX = 512 };

/* What the engine would do with the scenario, per GPU unless named. */
struct engine_result {
    enum engine_kind kind;
    bool fits;                       /* the KV cache gets memory at all */
    uint32_t tp, replicas;
    uint64_t gpu_total_bytes;        /* the budget's basis (CUDA-visible) */
    uint64_t budget_bytes;           /* total x fraction, or total - margin */
    uint64_t weights_bytes;          /* one GPU's share */
    uint64_t activation_bytes;       /* estimated peak of the profiling run */
    uint64_t runtime_bytes;          /* CUDA context, NCCL, graphs, compute buffers */
    uint64_t non_kv_bytes;           /* weights + activation + runtime (or given) */
    uint64_t kv_cache_bytes_per_gpu; /* what the engine allocates for KV */
    uint64_t unit_tokens;            /* block / page / cell size in tokens */
    uint64_t unit_bytes;             /* one unit across all layers, one GPU */
    uint64_t units;                  /* blocks, tokens or cells */
    uint64_t kv_tokens;              /* the engine's "KV cache size" in tokens */
    uint64_t request_units;          /* units one full-context request needs (layer-weighted) */
    uint64_t request_bytes;          /* KV bytes one full-context request needs, per GPU */
    double max_concurrency;          /* as the engine prints it */
    uint64_t users;                  /* full-context requests that fit, all replicas */
    uint32_t scheduler_cap;          /* max_num_seqs / max_running_requests / slots */
    uint64_t scheduler_limited_users; /* min(users, cap) x replicas */
    uint64_t max_num_batched_tokens; /* the default or the flag, as used */
    uint32_t max_num_seqs;
    double fraction;                 /* utilisation / mem fraction used */
    int log_lines;
    char log[ENGINE_LOG_LINES][ENGINE_TEXT_MAX / 2];
    char launch[ENGINE_TEXT_MAX];
    char note[ENGINE_TEXT_MAX / 2];  /* why it differs from the generic answer */
};

/* "generic", "vllm", "sglang", "llama.cpp", "trtllm" */
const char *engine_name(enum engine_kind k);

/* Parses "vllm", "vllm@0", "llama.cpp@pre-mla", "trtllm", "tensorrt-llm", ... */
bool engine_parse(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                  struct diag *d);

/* "vllm@0" style name of kind and rule. */
const char *engine_label(enum engine_kind k, enum engine_rule r);

#endif
