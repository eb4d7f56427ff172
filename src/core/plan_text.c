/* plan_text: how a plan is told, apart from how it is computed (plan.c):
 * where one GPU's memory goes, the names of its parts, and the sentence of
 * each warning with the plan's figures. */
#include "plan.h"
#include "engine_desc.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "offload_fit.h"
#include "optname.h"
#include "speed.h"
#include "units.h"

uint64_t plan_kv_token_bytes_per_gpu(const struct plan_result *r)
{
    if (engine_desc(r->profile)->splits_layers && r->tp > 1) /* the fullest GPU's layers */
        return placement_share(&r->placement, r->cost.bytes_per_token);
    return r->cost.bytes_per_token;
}

uint64_t plan_kv_token_bytes_per_replica(const struct plan_result *r)
{
    if (engine_desc(r->profile)->splits_layers)
        return r->cost.bytes_per_token;
    /* under DP attention a token lives on the one rank that serves its request */
    if (r->dp_attention)
        return kv_sat_mul(r->cost.bytes_per_token, r->pp ? r->pp : 1);
    /* a GPU holds its stage's layers: the replica is TP x stages of them */
    return kv_sat_mul(kv_sat_mul(r->cost.bytes_per_token, r->tp), r->pp ? r->pp : 1);
}

void plan_segments(const struct plan_result *r, uint64_t bytes[SEG_COUNT])
{
    memset(bytes, 0, SEG_COUNT * sizeof bytes[0]);
    /* llama.cpp's split: only its GPUs' part of the weights (core/offload.h) */
    uint64_t weights = r->engine.offload.placed ? r->engine.offload.gpu_weights_bytes
                                                : r->weights_bytes_per_gpu;
    /* with what the engine holds whole beside them (vLLM's router gates, MLA copies) */
    bytes[SEG_WEIGHTS] = weights - r->spec.weights_bytes_per_gpu + r->engine.held_extra_bytes;
    bytes[SEG_DRAFT] = r->spec.weights_bytes_per_gpu;
    bytes[SEG_RESERVED] = r->reserved_bytes_per_gpu;
    if (!r->weights_fit) {
        /* what the weights leave no room beside: the parts sum past the memory */
        bytes[SEG_RUNTIME] = r->runtime_bytes_per_gpu;
        return;
    }
    bytes[SEG_RUNTIME] = r->runtime_bytes_per_gpu;
    bytes[SEG_LORA] = r->lora.bytes;
    bytes[SEG_ENCODER] = r->encoder_cache_bytes_per_gpu;
    uint64_t used = r->kv_used_bytes_per_gpu;
    bytes[SEG_PREFIX] = r->users_per_replica > 0 && used >= r->prefix_bytes_per_gpu
                            ? r->prefix_bytes_per_gpu
                            : 0;
    bytes[SEG_STATE] = r->state_used_bytes_per_gpu <= used - bytes[SEG_PREFIX]
                           ? r->state_used_bytes_per_gpu
                           : used - bytes[SEG_PREFIX];
    /* a separate state pool's idle slots (and SGLang's draft-token states,
     * counted in it) are allocated but hold no user: spare */
    uint64_t idle = r->state_pool_bytes_per_gpu > bytes[SEG_STATE]
                        ? r->state_pool_bytes_per_gpu - bytes[SEG_STATE]
                        : 0;
    if (idle > used - bytes[SEG_PREFIX] - bytes[SEG_STATE])
        idle = used - bytes[SEG_PREFIX] - bytes[SEG_STATE];
    bytes[SEG_USERS] = used - bytes[SEG_PREFIX] - bytes[SEG_STATE] - idle;
    bytes[SEG_SPARE] = r->spare_bytes_per_gpu + idle;
    if (used == 0)
        bytes[SEG_SPARE] = r->kv_pool_bytes_per_gpu;
    bytes[SEG_RESERVED] = r->reserved_bytes_per_gpu;
}

const char *plan_segment_name(const struct plan_result *r, enum segment s)
{
    const struct engine_desc *e = engine_desc(r->profile);
    switch (s) {
    case SEG_WEIGHTS:
        return "weights";
    case SEG_RUNTIME:
        return e->runtime_words;
    case SEG_DRAFT:
        return r->spec.method == SPEC_MTP ? "MTP head" : "draft model";
    case SEG_STATE:
        return "users' state";
    case SEG_LORA:
        return "LoRA slots";
    case SEG_ENCODER:
        return "encoder cache";
    case SEG_PREFIX:
        return "shared prefix";
    case SEG_USERS:
        return "users' KV";
    case SEG_SPARE: /* with a separate state pool's idle slots (plan_segments) */
        return r->state_pool_bytes_per_gpu > r->state_used_bytes_per_gpu ? "spare KV+state"
                                                                          : "spare KV";
    case SEG_RESERVED:
        return e->reserved_words;
    case SEG_COUNT:
        break;
    }
    return "";
}

/* An engine that splits whole layers over its GPUs (llama.cpp's split_mode
 * LLAMA_SPLIT_MODE_LAYER, src/llama-model.cpp llama_model_default_params)
 * splits no tensor: its replicas are told in its own words. */
static bool layers_split(const struct plan_result *r)
{
    return engine_desc(r->profile)->splits_layers && r->pp <= 1;
}

void plan_layout_words(const struct plan_result *r, char *buf, size_t size)
{
    if (!layers_split(r))
        snprintf(buf, size, "TP %u", r->tp);
    else if (r->tp > 1)
        snprintf(buf, size, "layers split over %u GPUs", r->tp);
    else
        snprintf(buf, size, "one GPU each");
}

void plan_layout_group(const struct plan_result *r, char *buf, size_t size)
{
    snprintf(buf, size, layers_split(r) ? "%u x %u GPUs" : "%u x TP %u", r->replicas, r->tp);
}

void plan_layout_title(const struct plan_result *r, char *buf, size_t size)
{
    if (r->pp > 1)
        snprintf(buf, size, "%u x TP %u x PP %u", r->replicas, r->tp, r->pp);
    else
        snprintf(buf, size, layers_split(r) ? "%u x %u GPUs, layers split" : "%u x TP %u",
                 r->replicas, r->tp);
}

void plan_layout_suffix(const struct plan_result *r, char *buf, size_t size)
{
    char a[64] = "";
    bool shown = r->pp > 1 || r->replicas > 1;
    if (shown)
        plan_layout_title(r, a, sizeof a);
    snprintf(buf, size, shown ? " (%s)" : "%s", a);
}

void plan_layout_text(const struct plan_result *r, char *buf, size_t size)
{
    char ep[64], words[64];
    snprintf(ep, sizeof ep, ", experts over all %u GPUs", r->gpus);
    plan_layout_words(r, words, sizeof words);
    const char *dp = r->dp_attention ? ", DP attention over the TP ranks"
                     : r->experts_spread ? ep
                                          : "";
    if (r->pp > 1 && r->replicas == 1)
        snprintf(buf, size, "%u stages x %u GPU%s: TP %u, PP %u%s", r->pp, r->tp,
                 r->tp == 1 ? "" : "s", r->tp, r->pp, dp);
    else if (r->pp > 1)
        snprintf(buf, size, "%u replicas, each %u stages x %u GPU%s: TP %u, PP %u%s", r->replicas,
                 r->pp, r->tp, r->tp == 1 ? "" : "s", r->tp, r->pp, dp);
    else if (layers_split(r) && r->tp > 1 && r->replicas == 1)
        snprintf(buf, size, "one replica, %s%s", words, dp);
    else if (layers_split(r) && r->tp > 1)
        snprintf(buf, size, "%u replicas, each with %s%s", r->replicas, words, dp);
    else if (layers_split(r) && r->replicas > 1)
        snprintf(buf, size, "%u replicas, %s (one %s per GPU)", r->replicas, words,
                 engine_desc(r->profile)->server_command);
    else if (r->replicas == 1)
        snprintf(buf, size, "one replica, tensor parallel %u%s", r->tp, dp);
    else if (r->experts_spread && !r->dp_attention) /* one model: the experts shared */
        snprintf(buf, size, "%u attention replicas (data parallel, TP %u), experts over all %u "
                 "GPUs (expert parallel)", r->replicas, r->tp, r->gpus);
    else
        snprintf(buf, size, "%u replicas of tensor parallel %u%s", r->replicas, r->tp, dp);
}

const char *plan_weights_label(const struct plan_result *r)
{
    return placement_weights_label(&r->placement);
}

const char *plan_warning_text(enum plan_warning w)
{
    switch (w) {
    case WARN_WEIGHTS_DO_NOT_FIT:
        return "the weights alone do not fit in the memory budget";
    case WARN_NO_USER_FITS:
        return "not one user fits at this context length";
    case WARN_CONTEXT_BEYOND_MODEL:
        return "the context is longer than the model's maximum position";
    case WARN_HEADS_UNEVEN_SPLIT:
        return "the tensor-parallel size does not divide the model's heads evenly (engines "
               "refuse or pad this split)";
    case WARN_KV_HEADS_REPLICATED:
        return "more GPUs per replica than KV heads: each GPU keeps a replicated KV head";
    case WARN_FP8_UNSUPPORTED:
        return "FP8 cache on a GPU without native FP8 (emulated or refused by engines)";
    case WARN_PREFIX_DOES_NOT_FIT:
        return "the shared prefix alone does not fit in the KV pool";
    case WARN_PRICE_UNKNOWN:
        return "no price for this GPU: use --price";
    case WARN_BANDWIDTH_UNKNOWN:
        return "no memory bandwidth for this GPU: no decode bound";
    case WARN_MLA_REPLICATED:
        return "MLA latent is replicated on every GPU (tensor parallel does not shrink it)";
    case WARN_ENGINE_DTYPE:
        return "the engine has no such cache type (vLLM and SGLang: fp8 or the model's; "
               "llama.cpp: f16, q8_0, q4_0; TensorRT-LLM: fp8, int8)";
    case WARN_SCHEDULER_CAP:
        return "the engine's concurrency cap binds before memory does";
    case WARN_KV_DOES_NOT_FIT:
        return "the KV cache does not fit in what the engine's budget leaves";
    case WARN_WINDOWS_UNUSED:
        return "this engine sizes every layer for the whole context: sliding windows save "
               "nothing here";
    case WARN_ENGINE_WEIGHTS:
        return "llama.cpp loads GGUF weights (f16, bf16, q8_0, q6_k, q5_k_m, q4_k_m, q4_0): "
               "choose one with --weight-dtype";
    case WARN_SPEED_MOE:
        return "fine-grained MoE: its speed rests on a fit by GPU family to DeepSeek-R1 in "
               "late-2025 and 2026 SGLang, TensorRT-LLM and ATOM builds, 106 of 111 cases within "
               "20% and -42% to +19% off case by case; early-2025 builds were 2-6x slower "
               "(doc/SPEED-FIT-FAMILY.md)";
    case WARN_SPEED_BATCHED:
        return "several sequences decoding at once on this GPU family: a 2023 llama.cpp build "
               "took 2.2-2.8x one sequence's time per token at 2 to 8 on V100; kvplan's decode "
               "is unvalidated here (doc/SPEED-VALIDATION.md)";
    case WARN_CONCURRENCY_BEYOND_FIT:
        return "more users decoding at once than fit in memory: the speed is for a batch "
               "that cannot be held";
    case WARN_WIRED_LIMIT:
        return "macOS lets the GPU use only part of unified memory: `sudo sysctl "
               "iogpu.wired_limit_mb=N` raises it";
    case WARN_TP_ACROSS_NODES:
        return "tensor parallel across nodes: engines use pipeline stages (--pp) between nodes";
    case WARN_DRAFT_VOCAB:
        /* said of every engine: vLLM's draft_model.py refuses such a draft,
         * llama.cpp's common_speculative_are_compatible one whose vocabulary
         * differs by more than a few tokens */
        return "the draft model's vocabulary is not the model's: its tokens would not be "
               "the model's, and engines refuse such a draft";
    case WARN_DRAFT_SIZE:
        return "the draft is more than a quarter of the model's size: each step runs it N "
               "times, so speculative decoding gains little or loses";
    case WARN_ENGINE_HARDWARE:
        return "this engine on this GPU is outside what kvplan models (the serving engines on "
               "NVIDIA and AMD GPUs, TensorRT-LLM on NVIDIA's only): the plan shows what its "
               "rule would give on this one";
    case WARN_STATE_GENERIC:
        return "TensorRT-LLM keeps the state layers' states in a pool of its own "
               "(MambaHybridCacheManager) that kvplan does not size: each user's state is "
               "counted in KV blocks instead";
    case WARN_HOST_TOO_SMALL:
        return "SGLang refuses a host pool that holds no more tokens than the GPU's pool "
               "(memory_pool_host.py, HostKVCache): give a larger host tier";
    case WARN_STATE_CAP:
        return "SGLang caps max_running_requests at its state slots / 3 "
               "(model_runner_kv_cache_mixin.py, init_memory): the value given is not reached";
    case WARN_CALIBRATION:
        return "the calibration was measured on another GPU, model or engine than this plan's";
    case WARN_SERVICE_LEVEL_MISSED:
        return "no number of users keeps the service level, not even one alone: the speed "
               "shown misses the target";
    case WARN_HOST_DOES_NOT_FIT:
        return "llama.cpp's weights and cache in host memory do not fit the host's memory";
    case WARN_NO_SPLIT_FITS:
        return "no split of the model between the GPUs and host memory fits";
    case WARN_STATE_PREFIX:
        return "vLLM's prefix caching keeps a hybrid model's states at block boundaries "
               "(config/cache.py, mamba_cache_mode \"align\": 2 + the speculative blocks a "
               "sequence in each state group; \"all\": one a block): more than the one a "
               "sequence counted here";
    }
    return "";
}

/* "no number of users keeps the service level, not even one alone: 0 users
 * at it; the speed shown, 23.7 tok/s per user at 1 user, misses the target" */
static void service_level_missed(const struct plan_result *r, char *buf, size_t size)
{
    const char *const *names = r->names ? r->names : scenario_option_names;
    char at[32], keep[32];
    units_format_int(r->speed.concurrency, at, sizeof at);
    if (r->speed.level_forced_missed) {
        /* "at 40 users (--concurrency) 30.4 tok/s misses --min-tok-s 50; 17 keep it" */
        units_format_int(r->speed.users_at_service_level, keep, sizeof keep);
        snprintf(buf, size, "at %s %s (%s) %.1f tok/s misses %s %g; %s %s it", at,
                 r->speed.concurrency == 1 ? "user" : "users", names[SF_CONCURRENCY],
                 r->speed.tokens_per_s_per_user, names[SF_MIN_TOK_S], r->speed.target_tokens_per_s,
                 keep, r->speed.users_at_service_level == 1 ? "keeps" : "keep");
        return;
    }
    if (r->speed.binding == BIND_PREFILL) { /* the first token misses, not the speed */
        snprintf(buf, size, "no number of users keeps the service level, not even one alone: 0 "
                 "users at it; one user's first token alone, %.3g s, is over %s %g s (its "
                 "speed, %.1f tok/s, is shown)", r->speed.ttft_seconds, names[SF_MAX_TTFT],
                 r->speed.target_ttft_seconds, r->speed.tokens_per_s_per_user);
        return;
    }
    snprintf(buf, size, "no number of users keeps the service level, not even one alone: 0 users "
             "at it; the speed shown, %.1f tok/s per user at %s %s, misses the target",
             r->speed.tokens_per_s_per_user, at, r->speed.concurrency == 1 ? "user" : "users");
}

/* What binds llama.cpp's split: the host memory it has (needed vs
 * available), or, when the fit search found none, the closest split it
 * tried and what it lacks where. */
static void offload_warning(const struct plan_result *r, enum plan_warning w, char *buf,
                            size_t size)
{
    const struct offload_split *o =
        w == WARN_NO_SPLIT_FITS ? &r->engine.offload_tried : &r->engine.offload;
    char split[192], need[32], have[32], lack[32];
    offload_sentence(o, split, sizeof split);
    units_format_bytes(o->node_host_bytes, UNITS_GIB, need, sizeof need);
    units_format_bytes(o->host_memory_bytes, UNITS_GIB, have, sizeof have);
    units_format_bytes(o->gpu_lack_bytes, UNITS_GIB, lack, sizeof lack);
    const char *where = o->unified ? "the unified memory the GPU's part and macOS leave"
                        : o->node_servers > 1 ? "the node's host memory"
                                              : "host memory";
    if (w == WARN_HOST_DOES_NOT_FIT) {
        snprintf(buf, size, "host memory binds, not the GPU: %s of weights and cache there, %s "
                 "available in %s (%s)", need, have, where, split);
        return;
    }
    int n = snprintf(buf, size, "no split fits: the closest the fit search tried, %s, ", split);
    if (n < 0 || (size_t)n >= size)
        return;
    if (o->gpu_lack_bytes && !o->host_fits)
        snprintf(buf + n, size - (size_t)n, "lacks %s per GPU, and needs %s in %s, %s available",
                 lack, need, where, have);
    else if (o->gpu_lack_bytes)
        snprintf(buf + n, size - (size_t)n, "lacks %s per GPU for its weights and cache", lack);
    else
        snprintf(buf + n, size - (size_t)n, "needs %s in %s, %s available", need, where, have);
}

void plan_warning_format(const struct plan_result *r, enum plan_warning w, char *buf, size_t size)
{
    const char *const *names = r->names ? r->names : scenario_option_names;
    char a[32], b[32];
    switch (w) {
    case WARN_CONCURRENCY_BEYOND_FIT:
        units_format_int(r->speed.concurrency, a, sizeof a);
        units_format_int(r->max_users, b, sizeof b);
        snprintf(buf, size, "more users decoding at once (%s %s) than fit in memory (%s): the "
                 "speed is for a batch that cannot be held", names[SF_CONCURRENCY], a, b);
        return;
    case WARN_ENGINE_WEIGHTS:
        snprintf(buf, size, "llama.cpp loads GGUF weights (f16, bf16, q8_0, q6_k, q5_k_m, "
                 "q4_k_m, q4_0): choose one with %s", names[SF_WEIGHT_DTYPE]);
        return;
    case WARN_TP_ACROSS_NODES: {
        /* an option names itself; a control's label would only repeat the words */
        unsigned node = r->speed.domain_gpus ? r->speed.domain_gpus : SPEED_GPUS_PER_NODE;
        const char *what = node > SPEED_GPUS_PER_NODE ? "-GPU NVLink domains" : "-GPU nodes";
        if (strncmp(names[SF_PP], "--", 2) == 0)
            snprintf(buf, size, "tensor parallel across nodes (%s %u over %u%s): engines "
                     "use pipeline stages (%s) between nodes", names[SF_TP], r->tp, node, what,
                     names[SF_PP]);
        else
            snprintf(buf, size, "tensor parallel across nodes (%s %u over %u%s): engines "
                     "use pipeline stages between nodes", names[SF_TP], r->tp, node, what);
        return;
    }
    case WARN_WIRED_LIMIT:
        snprintf(buf, size, "the GPU may use %.1f GiB of %.0f GiB unified memory%s; `sudo sysctl "
                 "iogpu.wired_limit_mb=%u` %s (%s %u plans with it)",
                 (double)r->wired.limit_bytes / GIB, (double)r->wired.unified_bytes / GIB,
                 r->wired.split ? ", so the fit search keeps part of the model on the CPU" : "",
                 r->wired.suggest_mb,
                 r->wired.split ? "holds it all on the GPU" : "raises it to what this asks",
                 OPTNAME_WIRED_LIMIT_MB, r->wired.suggest_mb);
        return;
    case WARN_HOST_DOES_NOT_FIT:
    case WARN_NO_SPLIT_FITS:
        offload_warning(r, w, buf, size);
        return;
    case WARN_CALIBRATION:
        snprintf(buf, size, "%s", r->calibration_note[0] ? r->calibration_note
                                                         : plan_warning_text(w));
        return;
    case WARN_SERVICE_LEVEL_MISSED:
        service_level_missed(r, buf, size);
        return;
    case WARN_STATE_CAP:
        units_format_int(r->engine.max_num_seqs, a, sizeof a);
        units_format_int(r->state_slots_per_replica, b, sizeof b);
        snprintf(buf, size, "SGLang caps max_running_requests at %s, its %s state slots / 3 "
                 "(model_runner_kv_cache_mixin.py, init_memory): the value given is not reached",
                 a, b);
        return;
    default:
        snprintf(buf, size, "%s", plan_warning_text(w));
        return;
    }
}

uint32_t plan_shown_warnings(const struct plan_result *r)
{
    return r->warnings & ~(uint32_t)(WARN_PRICE_UNKNOWN | WARN_BANDWIDTH_UNKNOWN);
}
