/* SGLang: mem_fraction_static of the CUDA total holds weights and the KV
 * pool; the rest stays free for activations and CUDA graphs. The pool is
 * token-granular and sizes every layer for the full length.
 * Upstream: python/sglang/srt/server_args.py (the reserve and defaults),
 * python/sglang/srt/model_executor/model_runner.py (profile_max_num_token),
 * scheduler max_running_requests. */
#include "engine_desc.h"
#include "policy.h"
#include "policy_sglang.h"
#include "speed.h"
#include "shell.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t target_bytes(const struct policy_ctx *c);

/* The host pool as --hicache-size asks for it: whole GB on each rank (at
 * least 1: 0 means its ratio), server_args.py. */
static uint64_t host_pool_bytes(const struct scenario *s)
{
    double gb = floor((double)s->host_kv_bytes / 1e9);
    return (uint64_t)(gb < 1 ? 1 : gb) * 1000000000ull;
}

static void host_note(const struct scenario *s, const struct placement *l, char *note,
                      size_t size)
{
    (void)l;
    snprintf(note, size, "SGLang --hicache-size %.0f GB (whole GB) on each rank, its device "
             "pool's layout", (double)host_pool_bytes(s) / 1e9);
}

/* python -m sglang.launch_server --model-path MODEL and the flags that make
 * it plan what kvplan planned. */
static void launch(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    static const struct launch_head head = {"python -m sglang.launch_server --model-path",
                                            "--context-length", "--mem-fraction-static", 3,
                                            "--kv-cache-dtype fp8_e4m3", "--tp", "--pp-size"};
    struct shell_line l;
    policy_launch_begin(c, &head, &l);
    if (c->l->dp_attention) {
        shell_words(&l, "--enable-dp-attention");
        shell_option(&l, "--dp", "%u", c->l->tp);
    } else if (c->l->replicas > 1) {
        shell_option(&l, "--dp", "%u", c->l->replicas);
    }
    /* server_args.py (0.5): --ep-size (--expert-parallel-size), whole experts
     * over the TP ranks; --enable-ep-moe is deprecated since 0.4.10 for
     * --ep-size equal to --tp-size */
    if (c->l->expert_parallel)
        shell_option(&l, "--ep-size", "%u", c->l->tp);
    if (s->engine.max_num_seqs)
        shell_option(&l, "--max-running-requests", "%u", s->engine.max_num_seqs);
    /* server_args.py: a chain of N draft steps, top-1, N + 1 tokens verified */
    if (c->spec->method == SPEC_DRAFT) {
        shell_words(&l, "--speculative-algorithm STANDALONE --speculative-draft-model-path");
        shell_word(&l, policy_model_ref(&s->draft));
    } else if (c->spec->method == SPEC_MTP) {
        shell_words(&l, "--speculative-algorithm EAGLE");
    }
    if (c->spec->method == SPEC_DRAFT || c->spec->method == SPEC_MTP) {
        shell_option(&l, "--speculative-num-steps", "%u", c->spec->tokens);
        shell_words(&l, "--speculative-eagle-topk 1");
        shell_option(&l, "--speculative-num-draft-tokens", "%u", c->spec->tokens + 1);
    }
    if (c->lora->slots) {
        shell_words(&l, "--enable-lora");
        shell_option(&l, "--max-loras-per-batch", "%u", c->lora->slots);
        shell_option(&l, "--max-lora-rank", "%u", c->lora->rank);
        policy_launch_lora_targets(&l, c->lora->targets);
    }
    if (s->host_kv_bytes) {
        shell_words(&l, "--enable-hierarchical-cache");
        shell_option(&l, "--hicache-size", "%.0f", (double)host_pool_bytes(s) / 1e9);
    }
    policy_launch_done(c, &l, c->l->dp_attention);
}

/* What SGLang prints at startup, and how it budgets in a sentence. */
static void log_lines(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    const struct model_spec *m = &s->model;
    char t[32];
    double half = (double)e->units * (double)target_bytes(c) / 2.0 / (double)GIB;
    if (c->k->compressed_span)
        sglang_dsv4_log(c); /* policy_sglang_dsv4.c */
    else if (m->attention == ATTENTION_MLA)
        policy_log(e, "KV Cache is allocated. #tokens: %llu, KV size: %.2f GB",
                   (unsigned long long)e->units, half * 2);
    else
        policy_log(e, "KV Cache is allocated. #tokens: %llu, K size: %.2f GB, V size: %.2f GB",
                   (unsigned long long)e->units, half, half);
    if (c->k->state_layers > 0)
        policy_log(e, "Mamba Cache is allocated. max_mamba_cache_size: %llu, conv_state size: "
                      "%.2fGB, ssm_state size: %.2fGB",
                   (unsigned long long)r->state_slots_per_replica,
                   (double)dtype_bytes_for(c->k->state_conv_dtype, c->k->state_conv_values) *
                       c->k->state_layers * r->state_slots_per_replica / (double)GIB,
                   (double)dtype_bytes_for(c->k->state_ssm_dtype, c->k->state_ssm_values) *
                       c->k->state_layers * r->state_slots_per_replica / (double)GIB);
    policy_log(e, "max_total_num_tokens=%s, max_running_requests=%u, context_len=%llu",
               units_format_int(e->units, t, sizeof t), e->scheduler_cap,
               (unsigned long long)c->l->context_tokens);
    if (c->k->compressed_span)
        snprintf(e->note, sizeof e->note,
                 "SGLang keeps (1 - %.3f) of the CUDA total free for activations and graphs and "
                 "splits the rest after weights into a full token pool and its window, c4, c128 "
                 "and compressor-state pools (DSV4PoolConfigurator)",
                 e->fraction);
    else
        snprintf(e->note, sizeof e->note,
                 "SGLang keeps (1 - %.3f) of the CUDA total free for activations and graphs and "
                 "gives the rest after weights to a token-granular pool, every layer at full length",
                 e->fraction);
}

/* State layers (Qwen3-Next, Nemotron-H, Granite 4.0-H, ...): a separate pool
 * of per-request states (MambaPool in mem_cache/memory_pool.py).
 * model_executor/model_runner_kv_cache_mixin.py (handle_max_mamba_cache):
 * unless --max-mamba-cache-size is given, the state pool takes
 * ratio / (1 + ratio) of the memory left after weights, ratio being
 * --mamba-full-memory-ratio (0.9, server_args.py), in whole requests'
 * states (max_mamba_cache_size); the KV pool of the attention layers gets
 * the rest. init_memory then caps max_running_requests at
 * max_mamba_cache_size // 3 (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO,
 * with the radix cache on and no extra buffer). Returns the KV pool's bytes. */
enum { SGLANG_MAMBA_RUNNING_RATIO = 3 };
#define SGLANG_MAMBA_FULL_MEMORY_RATIO 0.9

/* handle_max_mamba_cache, with speculative decoding: first it sets aside
 * one request's state x max_running_requests x speculative_num_draft_tokens
 * for the intermediate states of the draft tokens (MambaPool keeps them per
 * draft token, mem_cache/memory_pool.py); server_args.py sets
 * max_running_requests to 48 for speculative decoding when not given.
 * Returns those bytes (0 without a draft), with a row "state_spec". */
enum { SGLANG_SPEC_RUNNING_DEFAULT = 48 };

static uint64_t spec_states(const struct policy_ctx *c)
{
    struct plan_budget *r = c->b;
    if (c->spec->method == SPEC_NONE || c->spec->tokens == 0)
        return 0;
    uint64_t running = c->s->engine.max_num_seqs ? c->s->engine.max_num_seqs
                                                 : SGLANG_SPEC_RUNNING_DEFAULT;
    uint64_t draft = (uint64_t)c->spec->tokens + 1; /* speculative_num_draft_tokens */
    uint64_t bytes = kv_sat_mul(kv_sat_mul(c->k->state_bytes, running), draft);
    struct explain_row *row = explain_row_begin(c->x, "state_spec", "Draft-token states", "per GPU");
    explain_ref(c->x, row, "state_per_user", "state per request");
    explain_term(row, running, XU_COUNT,
                 c->s->engine.max_num_seqs ? "max_running_requests"
                                           : "max_running_requests (48 with a draft)");
    explain_op(row, XOP_MUL);
    explain_term(row, draft, XU_COUNT, "draft tokens");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "intermediate SSM and conv states of each draft token, set aside first");
    r->state_spec_bytes_per_gpu = bytes;
    return bytes;
}

/* _handle_mamba_radix_cache (no_buffer): a draft turns the radix cache off,
 * so the state pool is max_running_requests and calculate_mamba_ratio 1. */
#define spec_no_radix(c) ((c)->spec->method != SPEC_NONE)

static uint64_t state_pool(const struct policy_ctx *c, uint64_t *slots)
{
    struct plan_budget *r = c->b;
    const struct kv_cost *k = c->k;
    uint64_t spec = spec_states(c);
    uint64_t pool = r->kv_pool_bytes_per_gpu > spec ? r->kv_pool_bytes_per_gpu - spec : 0;
    double share = SGLANG_MAMBA_FULL_MEMORY_RATIO / (1.0 + SGLANG_MAMBA_FULL_MEMORY_RATIO);
    *slots = k->state_bytes ? (uint64_t)((double)pool * share) / k->state_bytes : 0;
    struct explain_row *row = explain_row_begin(c->x, "state_slots", "State slots", "per GPU");
    if (spec_no_radix(c)) {
        /* handle_max_mamba_cache: the radix cache off and max_running_requests
         * set, max_mamba_cache_size is max_running_requests (// dp_size) */
        uint64_t running = c->s->engine.max_num_seqs ? c->s->engine.max_num_seqs
                                                     : SGLANG_SPEC_RUNNING_DEFAULT;
        uint32_t dp = c->l->dp_attention && c->l->tp > 1 ? c->l->tp : 1;
        *slots = running / dp;
        explain_term(row, running, XU_COUNT,
                     c->s->engine.max_num_seqs ? "max_running_requests"
                                               : "max_running_requests (48 with a draft)");
        if (dp > 1) {
            explain_term(row, dp, XU_COUNT, "DP ranks");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_FLOOR);
        }
        explain_row_end(c->x, row, XU_COUNT, 0,
                        "max_mamba_cache_size: a draft turns the radix cache off");
    } else if (pool == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the state pool");
    } else {
        explain_ref(c->x, row, "pool", "pool");
        if (spec) {
            explain_ref(c->x, row, "state_spec", "draft-token states");
            explain_op(row, XOP_SUB);
        }
        explain_term(row, SGLANG_MAMBA_FULL_MEMORY_RATIO, XU_FRACTION, "mamba-full-memory-ratio");
        explain_op(row, XOP_MUL);
        explain_term(row, 1.0 + SGLANG_MAMBA_FULL_MEMORY_RATIO, XU_RATIO, "(1 + that ratio)");
        explain_op(row, XOP_DIV);
        explain_ref(c->x, row, "state_per_user", "state per request");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_FLOOR);
        explain_row_end(c->x, row, XU_COUNT, 0, "max_mamba_cache_size: whole requests' states");
    }
    return policy_state_pool(c, *slots, spec, "the attention layers' token pool");
}

/* Llama 4 (model_runner.py set_num_token_hybrid): the tokens the pool holds
 * at every layer's cell size are split between a full pool for the global
 * layers and a chunked-window pool holding r = chunk / context of it, so
 * that global x full + local x r x full fills the same memory:
 * full = tokens x layers / (global + local x r). A user needs its context in
 * the full pool and one chunk in the other. */
static void local_pool(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    struct engine_detail *e = &c->b->engine;
    uint64_t ctx = c->s->context_tokens;
    uint64_t chunk = k->window_tokens < ctx ? k->window_tokens : ctx;
    uint64_t tokens = k->bytes_per_token ? c->b->kv_pool_bytes_per_gpu / k->bytes_per_token : 0;
    long double den = (long double)k->global_layers * ctx + (long double)k->windowed_layers * chunk;
    e->units = (uint64_t)ceill((long double)tokens * k->layers * ctx / den);
    /* what one token of the full pool costs with its share of the window pool */
    e->unit_bytes = (uint64_t)ceill((long double)k->bytes_per_layer * den / ctx);
    struct explain_row *row = explain_row_begin(c->x, "units", "Full pool tokens", "per GPU");
    if (c->b->kv_pool_bytes_per_gpu == 0) {
        e->units = 0;
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        return;
    }
    explain_ref(c->x, row, "pool", "pool");
    explain_ref(c->x, row, "kv_per_token", "per token, every layer");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_term(row, k->layers, XU_COUNT, "layers");
    explain_op(row, XOP_MUL);
    explain_term(row, ctx, XU_TOKENS, "context");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)den, XU_COUNT, "global x context + chunked x chunk");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    explain_row_end(c->x, row, XU_COUNT, 0, "the chunked layers' pool holds chunk / context of it");
}

/* A draft (model or MTP head) loads after the target's profile
 * (model_runner_kv_cache_mixin.py: init_memory, profile_max_num_token): its
 * weights and its pool of draft_runner_cache_size tokens (the target's count)
 * come out of the reserve, so the budget gets the draft's weights back. */
static uint64_t draft_budget(const struct policy_ctx *c, uint64_t budget, const char **key)
{
    *key = "budget";
    if (c->spec->method == SPEC_NONE || c->spec->weights_bytes_per_gpu == 0 ||
        c->k->windowed_layers > 0)
        return budget;
    struct explain_row *row =
        explain_row_begin(c->x, "sglang_target_budget", "Target's budget", "per GPU");
    explain_ref(c->x, row, "budget", "SGLang static");
    explain_ref(c->x, row, "draft_weights", c->spec->method == SPEC_MTP ? "MTP" : "draft");
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "the draft loads after the target's profile: its weights and KV come "
                    "out of the reserve (1 - mem-fraction-static)");
    *key = "sglang_target_budget";
    return kv_sat_add(budget, c->spec->weights_bytes_per_gpu);
}

/* A token of the target's pool as allocated (the draft's pool is apart). */
static uint64_t target_bytes(const struct policy_ctx *c)
{
    return c->k->bytes_per_token > c->k->draft_bytes_per_token
               ? c->k->bytes_per_token - c->k->draft_bytes_per_token
               : c->k->bytes_per_token;
}

/* The profile's cell (get_cell_size_per_token): the target's layers, and an
 * FP8 sparse-attention latent (DeepSeek-V3.2) as kv_lora_rank +
 * qk_rope_head_dim bytes, not the 656 B NSATokenToKVPool then allocates
 * (calculate_mla_kv_cache_dim: scales and a bf16 rope). */
static uint64_t profile_cell(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    uint64_t cell = target_bytes(c);
    if (!k->latent_fp8_blocks)
        return cell;
    uint64_t packed = dtype_bytes_for(k->kv_dtype, k->values_per_layer);
    uint64_t less = kv_sat_mul(k->latent_bytes > packed ? k->latent_bytes - packed : 0, k->layers);
    return cell > less ? cell - less : cell;
}

static void split_units(const struct policy_ctx *c, uint64_t pool)
{
    struct engine_detail *e = &c->b->engine;
    const struct kv_cost *k = c->k;
    uint64_t cell = profile_cell(c);
    e->unit_bytes = cell;
    e->units = cell ? pool / cell : 0;
    struct explain_row *row = explain_row_begin(c->x, "units", "KV tokens", "per GPU");
    if (pool == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        return;
    }
    explain_ref(c->x, row, k->state_layers ? "kv_pool_after_state" : "pool", "pool");
    if (k->latent_fp8_blocks) {
        explain_term(row, k->layers, XU_COUNT, "layers");
        explain_term(row, (long double)k->values_per_layer, XU_COUNT, "latent values");
        explain_term(row, (long double)dtype_bytes_for(k->kv_dtype, 1), XU_BYTES_EXACT, "each");
        explain_op(row, XOP_MUL);
        explain_term(row, (long double)k->index_bytes, XU_BYTES_EXACT, "indexer key");
        explain_op(row, XOP_ADD);
        explain_op(row, XOP_MUL);
    } else {
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_ref(c->x, row, "draft_kv_per_token", "draft's");
        explain_op(row, XOP_SUB);
    }
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_COUNT, 0, k->latent_fp8_blocks
        ? "the profile's cell; the pool then allocates the FP8 layout, past the budget"
        : "the target's cell: the draft's pool of as many tokens is in the reserve");
}

/* max_running_requests and the scheduler's cap (named), tokens and states given. */
static uint32_t scheduler_cap(const struct policy_ctx *c, uint64_t kv_pool, uint64_t slots,
                              const char **name)
{
    const struct engine_flags *f = &c->s->engine;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    /* max_running_requests = min(max(tokens / context x 512, 2048), 4096) */
    uint64_t cell = profile_cell(c);
    uint64_t tokens = cell ? kv_pool / cell : 0;
    double running = (double)tokens / (double)c->l->context_tokens * 512.0;
    running = running < 2048 ? 2048 : running > 4096 ? 4096 : running;
    /* server_args.py (_handle_speculative_decoding): EAGLE, EAGLE3 and
     * STANDALONE drafting reset an unset max_running_requests to 48 */
    if (c->spec->method != SPEC_NONE)
        running = SGLANG_SPEC_RUNNING_DEFAULT;
    e->max_num_seqs = f->max_num_seqs ? f->max_num_seqs : (uint32_t)running;
    /* arg_groups/deepseek_v4_hook.py (apply_deepseek_v4_defaults): DeepSeek
     * V4 sets an unset max_running_requests to 256; _resolve_max_num_reqs
     * divides a set value among the DP workers */
    if (c->k->compressed_span) {
        e->max_num_seqs = sglang_dsv4_running(c->s);
        uint32_t dp = c->l->dp_attention && c->l->tp > 1 ? c->l->tp : 1;
        *name = f->max_num_seqs ? (dp > 1 ? "max_running_requests / DP ranks"
                                          : "max_running_requests")
                : dp > 1 ? "max_running_requests (256 for DeepSeek V4) / DP ranks"
                         : "max_running_requests (256 for DeepSeek V4)";
        return e->max_num_seqs / dp ? e->max_num_seqs / dp : 1;
    }
    /* init_memory: min(max_running_requests, given or not, max_mamba_cache_size // 3) */
    bool spec48 = c->spec->method != SPEC_NONE && !f->max_num_seqs;
    const char *cap_name = c->k->state_layers && spec48
                               ? "max_running_requests (48 with a draft = slots)"
                           : c->k->state_layers ? "max_running_requests (state slots / 3)"
                           : spec48
                               ? "max_running_requests (48 with a draft)"
                               : "max_running_requests";
    /* calculate_mamba_ratio: 1 with the radix cache off, else 3 */
    uint64_t ratio = spec_no_radix(c) ? 1 : SGLANG_MAMBA_RUNNING_RATIO;
    if (c->k->state_layers > 0 && e->max_num_seqs > slots / ratio) {
        if (f->max_num_seqs) {
            r->rule_warnings |= WARN_STATE_CAP;
            cap_name = "max_running_requests (slots / 3, capped)";
        }
        e->max_num_seqs = (uint32_t)(slots / ratio);
    }
    /* tp_worker.py / model_runner.py: under DP attention each rank's
     * scheduler takes max_running_requests // dp_size (here the TP ranks) */
    uint32_t cap = e->max_num_seqs;
    /* model_runner.py (_resolve_max_num_reqs): a value server_args holds (given,
     * or 48 with a draft) is divided among the DP workers; the estimate used when
     * it is unset is already a worker's */
    if (c->l->dp_attention && c->l->tp > 1 && (f->max_num_seqs || spec48)) {
        cap = e->max_num_seqs / c->l->tp ? e->max_num_seqs / c->l->tp : 1;
        cap_name = "max_running_requests / DP ranks";
    }
    *name = cap_name;
    return cap;
}

static void budget(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct engine_flags *f = &s->engine;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    e->gpu_total_bytes = policy_cuda_total(s);
    r->memory_bytes_per_gpu = e->gpu_total_bytes;
    /* server_args.py sizes its defaults from nvidia-smi's memory.total (the
     * driver total, in MiB), not from the CUDA total the budget multiplies. */
    uint64_t driver = s->has_vram ? s->vram_bytes : s->gpu.memory_bytes;
    double total_mb = (double)(driver ? driver : e->gpu_total_bytes) / (double)MIB;
    bool wide = c->l->tp >= 4;
    uint64_t chunked_default = total_mb < 35 * 1024.0    ? 2048
                               : total_mb < 60 * 1024.0  ? 4096
                               : total_mb < 160 * 1024.0 ? 8192
                                                         : 16384;
    uint32_t graph_bs = total_mb < 20 * 1024.0    ? 8
                        : total_mb < 35 * 1024.0  ? (wide ? 80 : 24)
                        : total_mb < 60 * 1024.0  ? (wide ? 160 : 32)
                        : total_mb < 160 * 1024.0 ? (wide ? 512 : 256)
                                                  : 512;
    uint64_t chunked = f->chunked_prefill_size ? f->chunked_prefill_size : chunked_default;
    e->max_num_batched_tokens = chunked;
    if (f->mem_fraction_static > 0) {
        e->fraction = f->mem_fraction_static;
    } else {
        sglang_fraction_rows(c, total_mb, chunked, graph_bs);
        e->fraction = sglang_default_fraction(c, total_mb, chunked, graph_bs);
    }
    /* profile_max_num_token (0.4; _profile_available_bytes in 0.5): the pool is
     * the memory free before loading x fraction less what loading took, no more;
     * free after init_torch_distributed, so less the context and communicators
     * (0.5 GiB, 1 GiB under TP) unless a log's total (--gpu-total) is given */
    uint64_t before = f->gpu_total_bytes || f->non_kv_bytes ? 0
                      : policy_gib(0.5) + (c->l->tp > 1 ? policy_gib(0.5) : 0);
    uint64_t start = e->gpu_total_bytes > before ? e->gpu_total_bytes - before : 0;
    e->budget_bytes = (uint64_t)llroundl((long double)start * e->fraction);
    r->reserved_bytes_per_gpu = e->gpu_total_bytes - e->budget_bytes;
    policy_user_bytes(c);
    e->held_extra_bytes = sglang_held_extra(c); /* policy_sglang_mem.c */
    struct explain_row *row = explain_row_begin(c->x, "budget", "SGLang static", "per GPU");
    explain_term(row, e->gpu_total_bytes, XU_BYTES, "CUDA total");
    if (before) {
        explain_term(row, before, XU_BYTES, "context and communicators");
        explain_op(row, XOP_SUB);
    }
    /* the fraction as a value (the default's row above shows where it comes from) */
    explain_term(row, e->fraction, XU_FRACTION, "mem-fraction-static");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ROUND);
    explain_row_end(c->x, row, XU_BYTES, 0, before ? "of the memory free before loading" : NULL);
    const char *budget_key;
    uint64_t target_budget = draft_budget(c, e->budget_bytes, &budget_key);
    policy_engine_pool(c, target_budget, budget_key, 0, 0);
    bool drafted = target_budget != e->budget_bytes;

    uint64_t slots = 0, kv_pool = r->kv_pool_bytes_per_gpu;
    if (c->k->state_layers > 0)
        kv_pool = state_pool(c, &slots);
    const char *cap_name;
    uint32_t cap = scheduler_cap(c, kv_pool, slots, &cap_name);
    struct block_rule b = {.unit_tokens = 1,
                           .unit_name = "token",
                           .cap = cap,
                           .cap_name = cap_name};
    if (c->k->state_layers > 0) {
        b.pool_bytes = kv_pool;
        b.pool_key = "kv_pool_after_state";
    }
    if (c->k->compressed_span) {
        sglang_dsv4_units(c, kv_pool, &b); /* policy_sglang_dsv4.c */
    } else if (c->k->windowed_layers > 0) {
        local_pool(c);
        b.units_given = true;
    } else if (drafted || c->k->latent_fp8_blocks) {
        split_units(c, kv_pool);
        b.units_given = true;
    }
    policy_blocks(c, &b);
    /* the draft's weights leave the reserve (its pool and the FP8 layout's
     * bytes past the profile's cells stay counted in it) */
    if (drafted)
        r->reserved_bytes_per_gpu -= r->reserved_bytes_per_gpu < c->spec->weights_bytes_per_gpu
                                         ? r->reserved_bytes_per_gpu
                                         : c->spec->weights_bytes_per_gpu;
    if (c->k->state_layers > 0)
        policy_state_pool_used(c);
    if (c->k->compressed_span)
        sglang_dsv4_used(c);
    e->request_units = c->k->compressed_span ? c->l->context_tokens
                                             : kv_sat_mul(c->l->context_tokens, c->k->layers);
    e->max_concurrency = (double)e->units / (double)c->l->context_tokens;
}

/* Every layer at full length, except Llama 4's chunked layers and DeepSeek
 * V4's windows, which get a pool of their own (model_runner.py set_num_token_hybrid); no window pool
 * for gpt-oss or Gemma (server_args.py disable_hybrid_swa_memory). */
/* A block given (core/engine_desc.h refuses_block) is SGLang's --page-size
 * (python/sglang/srt/server_args.py, ServerArgs.page_size: any int, 1 unless
 * a backend or the model sets it), and kvplan counts SGLang's pool token by
 * token, page 1: a larger page it has no rule for (the tokens a request
 * rounds up to, the backends that set their own). DeepSeek V4 is served in
 * its own page whatever is given (block_override). */
static const char *refuses_block(const struct scenario *s, char *buf, size_t size)
{
    if (s->block_tokens == 1 || kvcost_has_compressed(&s->model))
        return NULL;
    snprintf(buf, size, "not modelled: it is SGLang's --page-size, and kvplan counts SGLang's "
             "pool token by token, page 1 (python/sglang/srt/server_args.py, "
             "ServerArgs.page_size): give --block-size 1 or none");
    return buf;
}

static uint64_t block_override(const struct scenario *s, const char **why)
{
    return kvcost_has_compressed(&s->model) ? sglang_dsv4_page(why) : 0;
}

static bool windows_full(const struct scenario *s)
{
    /* DeepSeek V4's windows have a pool of their own (policy_sglang_dsv4.c) */
    if (s->model.csa_layers || s->model.hca_layers)
        return false;
    return strstr(s->model.window_pattern, "chunked") == NULL;
}

#define FLAG_AT(field) offsetof(struct engine_flags, field)

/* --kv-cache-dtype's choices: auto (the model's dtype), fp8_e5m2, fp8_e4m3,
 * bf16 (or bfloat16) and fp4_e2m1: no float16 (had with --dtype float16, the
 * model in it), no float32 (python/sglang/srt/server_args.py,
 * ServerArgs.add_cli_args, 0.5.x) */
const struct engine_cache_flags *sglang_cache_flags(enum engine_rule rule)
{
    (void)rule;
    static const struct engine_cache_flags f = {
        NULL, "bf16", "auto, fp8_e5m2, fp8_e4m3, bf16 (bfloat16) or fp4_e2m1",
        "srt/server_args.py, add_cli_args, 0.5.x"};
    return &f;
}

const struct engine_desc engine_sglang = {
    .step_overhead_s = SPEED_STEP_OVERHEAD_S,
    /* the HTTP server's TokenizerManager process, its ZMQ hand-off to the
     * Scheduler process (scheduler.py recv_requests) and the
     * DetokenizerManager process on the way back (the wait for the poll
     * itself is simulated: sim_sched_sglang.c): tools/fit_ttft.py, fitted on
     * SGLang 0.5.9 and 0.5.12 runs at 1 and 4 in flight, on NVIDIA GPUs and
     * on AMD GPUs apart (ROCm runs: a mean lifted by a tail of slow first
     * tokens, p99 1.3-6 s, doc/LOAD-VALIDATION.md) */
    .request_overhead_s = {{0, 126.4e-3}, {0, 374.9e-3}},
    /* several replicas: data_parallel_controller.py's default load_balance_method,
     * round_robin */
    .simulated = engine_any_rule,
    .refuses_block = refuses_block,
    .block_override = block_override,
    .sched = {.kind = SIM_SCHED_SGLANG, .router = SIM_ROUTE_ROUND_ROBIN, .title = "SGLang",
              .recv_interval = true, .seqs_name = "max-running-requests", .tokens_name = "chunked-prefill-size"},
    .kind = ENGINE_SGLANG,
    .name = "sglang",
    .title = "SGLang",
    .title_a = "an SGLang",
    .versions = {{RULE_CURRENT, "sglang@0.5", {"0.5"}, "the latest: the pool is mem-fraction-"
                  "static of the memory free before loading less the weights, as in 0.4; DeepSeek V4's "
                  "pools (DSV4PoolConfigurator, served from 0.5.12)", "0.5", "0.4",
                  "0.5.x", "its memory rule is read from 0.4 on"}},
    /* each model's attention asserts the query heads, and the KV heads or TP
     * a multiple of them, divide by the TP size (models/llama.py,
     * LlamaAttention.__init__, the other model files alike); only a CPU run
     * pads the heads (configs/update_config.py,
     * adjust_config_with_unaligned_cpu_tp) */
    .refuses_uneven_tp = "models/llama.py, LlamaAttention.__init__",
    /* an MLA model's query heads: num_heads % attn_tp_size == 0 asserted */
    .refuses_uneven_tp_mla = "models/deepseek_v2.py, DeepseekV2AttentionMLA.__init__",
    .refuses_uneven_nodes = "python/sglang/srt/entrypoints/engine.py, _launch_subprocesses: pp_size // nnodes stages a node",
    /* a --context-length past the model's derived one (get_context_length)
     * raises ValueError unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is
     * set: python/sglang/srt/configs/model_config.py,
     * ModelConfig._derive_context_length, read at main 001adf56; without
     * --context-length it takes the derived one */
    .long_context = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "--context-length",
                     "srt/configs/model_config.py, ModelConfig._derive_context_length"},
    .server = true,
    .cache_dtypes = {DTYPE_FP16, DTYPE_BF16, DTYPE_FP8}, /* no float32 (server_args.py) */
    .cache_flags = sglang_cache_flags,
    .vendors = {"NVIDIA", "AMD"},
    .knobs = {{.offset = FLAG_AT(mem_fraction_static),
               .role = KNOB_FRACTION,
               .label = "Mem static",
               .engine_flag = "--mem-fraction-static",
               .max = 1,
               .help = "the share of the CUDA total for weights and the KV pool (default: the "
                       "total less server_args.py's reserve)"},
              {.offset = FLAG_AT(max_num_seqs),
               .role = KNOB_SEQS,
               .label = "Max running",
               .engine_flag = "--max-running-requests",
               .min = 1,
               .max = 1000000,
               .help = "requests a replica runs at once (default from the pool's tokens)"},
              {.offset = FLAG_AT(chunked_prefill_size),
               .label = "Chunked prefill",
               .engine_flag = "--chunked-prefill-size",
               .min = 1,
               .max = (double)TOKENS_MAX,
               .help = "tokens a prefill chunk holds (default from the GPU's memory)"}},
    .dp_attention = true,
    .experts_over_tp = true,
    .windows_full = windows_full,
    /* DSV4PoolConfigurator (policy_sglang_dsv4.c): DeepSeek V4 from 0.5.12 */
    .compressed = engine_any_rule,
    /* DeepSeek V4 came in 0.5.12: its release notes, models/deepseek_v4.py */
    .compressed_from = "0.5.12",
    .refuses_model = sglang_refuses_model,
    /* python/sglang/srt/configs/mamba_utils.py (mamba2_state_dtype): conv
     * state bf16, the SSM state SGLANG_MAMBA_SSM_DTYPE, else the config's
     * mamba_ssm_dtype, else float32 */
    .state_conv = DTYPE_BF16,
    .state_ssm = DTYPE_FP32,
    .mtp = true,
    .spec_tokens = 1,
    .spec_lookahead = true,
    .packs_lora = true,
    .lora_flag = "--max-loras-per-batch",
    .lora_where = "LoRAMemoryPool, allocated before the KV pool",
    .runtime_words = "activations+rt",
    .reserved_words = "outside budget",
    .server_command = "python -m sglang.launch_server",
    .quant_online = "--quantization",
    .quant_serve = ", a pre-quantized checkpoint (AWQ, GPTQ, ModelOpt): SGLang quantizes at load only to FP8",
    /* hiradix_cache.py / memory_pool_host.py (HostKVCache.__init__): SGLang
     * asserts the host pool holds more tokens than the device pool */
    .host = {.beyond_device = true,
             .pool_term = "host pool (--hicache-size)",
             .pool_bytes = host_pool_bytes,
             .note = host_note},
    .budget = budget,
    .launch = launch,
    .servers = policy_sglang_servers,
    .log = log_lines,
};
