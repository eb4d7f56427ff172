/* engine: the serving profiles kvplan knows (the generic headroom rule and
 * the budgeting rules of vLLM, SGLang, llama.cpp, TensorRT-LLM and Ollama), their
 * names, versions and launch flags.
 *
 * Each profile is one descriptor (core/engine_desc.h), defined with its rule
 * in its own policy file (policy_*.c); doc/ENGINES.md has the
 * upstream file of each rule. */
#ifndef KVPLAN_CORE_ENGINE_H
#define KVPLAN_CORE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"

enum engine_kind {
    ENGINE_GENERIC = 0, /* memory x (1 - headroom) - weights */
    ENGINE_VLLM,
    ENGINE_SGLANG,
    ENGINE_LLAMACPP,
    ENGINE_TRTLLM,
    ENGINE_OLLAMA, /* llama-server under Ollama's defaults and environment */
    ENGINE_COUNT
};

/* Older arithmetic an engine used, selected with --engine NAME@VERSION. */
enum engine_rule {
    RULE_CURRENT = 0,
    RULE_VLLM_V0,         /* vllm@0: V0 engine, logits profiled for every batched token */
    RULE_VLLM_0_13,       /* vllm@0.13: CUTLASS MLA (blocks of 128) Blackwell's MLA default */
    RULE_VLLM_0_17,       /* vllm@0.17: the profile's top-k/top-p still a PyTorch sort */
    RULE_LLAMACPP_PRE_MLA, /* llama.cpp@pre-mla: DeepSeek K and V expanded per head */
    RULE_TRTLLM_ENGINE,    /* trtllm@trt: the TensorRT engine path, 64 tokens per block */
    RULE_LLAMACPP_MLA_KV,  /* llama.cpp@mla-kv: the MLA latent as K and again as V */
    RULE_TRTLLM_0,         /* trtllm@0.19: the 0.x PyTorch backend, the plugin's 32 tokens */
    RULE_TRTLLM_BUILD_PY,  /* trtllm@0.7: a model's build.py, 128 tokens per block */
    RULE_LLAMACPP_OUTPUT_FIRST, /* llama.cpp@output-first: mla-kv's cache, -ngl's output layer first */
    RULE_VLLM_0_20              /* vllm@0.20: "GPU KV cache size" of blocks over groups */
};

/* The profile and its launch flags; zero means "the engine's default". */
struct engine_flags {
    enum engine_kind kind;
    enum engine_rule rule;
    /* The release asked for where it is not the rule's own name ("0.11" of
     * --engine vllm@0.11, planned with the vllm@0.13 rule); "" otherwise. */
    char release_asked[24];
    double gpu_memory_utilization;   /* vLLM, default 0.9 */
    uint32_t max_num_seqs;           /* vLLM, SGLang max_running_requests, TRT-LLM max_batch_size */
    uint64_t max_num_batched_tokens; /* vLLM (TRT-LLM max_num_tokens) */
    double mem_fraction_static;      /* SGLang, default from its reserve rule */
    uint64_t chunked_prefill_size;   /* SGLang */
    uint32_t parallel;               /* llama.cpp -np slots; 0 = as many as fit (at most
                                      * LLAMA_MAX_SEQ, its knob's bound) */
    uint64_t fit_target_bytes;       /* llama.cpp --fit margin, default 1 GiB */
    enum dtype v_dtype;              /* llama.cpp -ctv; AUTO = the cache dtype */
    double free_gpu_memory_fraction; /* TensorRT-LLM, default 0.9 */
    /* What a startup log told you (per GPU); 0 = estimate. */
    uint64_t gpu_total_bytes; /* CUDA-visible total */
    uint64_t non_kv_bytes;    /* weights + activations + runtime */
    uint64_t kv_memory_bytes; /* the KV cache itself */
};

/* "generic", "vllm", "sglang", "llama.cpp", "trtllm" */
const char *engine_name(enum engine_kind k);

/* Parses "vllm", "vllm@0", "llama.cpp@pre-mla", "trtllm", "tensorrt-llm", ... */
bool engine_parse(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                  struct diag *d);
/* ... and NAME@RELEASE, a release as run ("vllm@0.20.1", "llama.cpp@b6500"):
 * the rule that holds for it; a release newer than the newest known takes
 * the newest rule and says so in note (size bytes; may be NULL). */
bool engine_parse_noted(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                        char *note, size_t size, struct diag *d);
/* ... and the release asked for into asked (asked_size bytes; "" where the
 * text names a rule, "vllm@0.13", not a release as run, "vllm@0.11"). */
bool engine_parse_asked(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                        char *note, size_t size, char *asked, size_t asked_size,
                        struct diag *d);

/* "vllm@0" style name of kind and rule. */
const char *engine_label(enum engine_kind k, enum engine_rule r);

/* The release a rule is named after ("0.15", "0.5", "1.x"; "" for the
 * generic rule), and the engine with it for a reader ("vLLM 0.15"; the
 * label where there is no release, "generic"), into buf, returned. */
const char *engine_release(enum engine_kind k, enum engine_rule r);
const char *engine_version_title(enum engine_kind k, enum engine_rule r, char *buf, size_t size);
/* The same with the release asked for where there is one: "vLLM 0.13 rule,
 * for 0.11" (issue 22: a release is not renamed without a word). */
const char *engine_flags_title(const struct engine_flags *f, char *buf, size_t size);

/* Whether kvplan's profile of the engine models this vendor's GPUs: vLLM and
 * SGLang on NVIDIA and AMD (CUDA and ROCm), TensorRT-LLM on NVIDIA,
 * llama.cpp and the generic rule everywhere (Apple included). */
bool engine_runs_on(enum engine_kind k, const char *vendor);

/* Whether the engine can cache in this precision at all. */
bool engine_supports(enum engine_kind k, enum dtype d);

/* The cache types engine_supports accepts, as a list for messages
 * ("auto, fp16, bf16, fp32 or fp8"; "any"). */
void engine_cache_types(enum engine_kind k, char *buf, size_t size);

/* Whether the engine loads weights in this precision (llama.cpp: GGUF types). */
bool engine_loads(enum engine_kind k, enum dtype d);

#endif
