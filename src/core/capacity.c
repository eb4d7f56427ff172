#include "capacity.h"

#include <math.h>
#include <string.h>

enum { DEFAULT_BLOCK_TOKENS = 16 };

/* Checked arithmetic: the first overflow sticks, and the result is refused. */
struct checked {
    bool overflow;
};

static uint64_t mul(struct checked *c, uint64_t a, uint64_t b)
{
    uint64_t out;
    if (__builtin_mul_overflow(a, b, &out)) {
        c->overflow = true;
        return 0;
    }
    return out;
}

static uint64_t add(struct checked *c, uint64_t a, uint64_t b)
{
    uint64_t out;
    if (__builtin_add_overflow(a, b, &out)) {
        c->overflow = true;
        return 0;
    }
    return out;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t round_up(uint64_t tokens, uint64_t block)
{
    return (tokens + block - 1) / block * block;
}

void capacity_scenario_default(struct scenario *s, const struct gpu_spec *gpu,
                               const struct model_spec *model)
{
    memset(s, 0, sizeof *s);
    if (gpu)
        s->gpu = *gpu;
    if (model)
        s->model = *model;
    s->gpus = 1;
    s->weight_dtype = DTYPE_AUTO;
    s->kv_dtype = DTYPE_AUTO;
    s->context_tokens = 8192;
    s->block_tokens = DEFAULT_BLOCK_TOKENS;
    s->headroom_percent = 10.0;
    s->units = UNITS_GIB;
}

enum dtype capacity_kv_dtype(const struct scenario *s)
{
    if (s->kv_dtype != DTYPE_AUTO)
        return s->kv_dtype;
    switch (s->model.weight_dtype) {
    case DTYPE_FP32:
    case DTYPE_FP16:
    case DTYPE_BF16:
        return s->model.weight_dtype;
    default:
        return DTYPE_BF16;
    }
}

uint64_t capacity_model_kv_bytes_per_token(const struct model_spec *m)
{
    struct scenario s;
    capacity_scenario_default(&s, NULL, m);
    enum dtype kv = capacity_kv_dtype(&s);
    uint64_t per_layer =
        m->attention == ATTENTION_MLA
            ? dtype_bytes_for(kv, (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim)
            : 2 * dtype_bytes_for(kv, (uint64_t)m->kv_heads * m->head_dim);
    return per_layer * m->layers;
}

bool capacity_validate(const struct scenario *s, struct diag *d)
{
    const struct model_spec *m = &s->model;
    if (s->gpus < 1 || s->gpus > GPUS_MAX)
        return diag_fail(d, "--gpus: %u is out of range (1 to %d)", s->gpus, GPUS_MAX);
    if (s->tp != 0 && (s->tp > s->gpus || s->gpus % s->tp != 0))
        return diag_fail(d, "--tp: %u does not divide --gpus %u into whole replicas", s->tp,
                         s->gpus);
    if ((int)s->engine.kind < 0 || s->engine.kind >= ENGINE_COUNT)
        return diag_fail(d, "--engine: unknown engine");
    if (s->engine.gpu_memory_utilization < 0 || s->engine.gpu_memory_utilization > 1)
        return diag_fail(d, "--gpu-memory-utilization: %g is out of range (0 to 1)",
                         s->engine.gpu_memory_utilization);
    if (s->engine.mem_fraction_static < 0 || s->engine.mem_fraction_static > 1)
        return diag_fail(d, "--mem-fraction-static: %g is out of range (0 to 1)",
                         s->engine.mem_fraction_static);
    if (s->engine.free_gpu_memory_fraction < 0 || s->engine.free_gpu_memory_fraction > 1)
        return diag_fail(d, "--free-gpu-memory-fraction: %g is out of range (0 to 1)",
                         s->engine.free_gpu_memory_fraction);
    if (s->engine.parallel > 65536)
        return diag_fail(d, "--parallel: %u is out of range (1 to 65536)", s->engine.parallel);
    if (s->engine.parallel > 1 && s->context_tokens > TOKENS_MAX / s->engine.parallel)
        return diag_fail(d, "--parallel: %u slots of %llu tokens is more than %llu cells", 
                         s->engine.parallel, (unsigned long long)s->context_tokens,
                         (unsigned long long)TOKENS_MAX);
    if (s->engine.max_num_batched_tokens > TOKENS_MAX)
        return diag_fail(d, "--max-num-batched-tokens: too many tokens");
    if ((s->engine.gpu_total_bytes | s->engine.non_kv_bytes | s->engine.kv_memory_bytes) >
        ((uint64_t)1 << 44))
        return diag_fail(d, "--gpu-total, --non-kv and --kv-memory must be at most 16 TiB");
    if (s->context_tokens < 1 || s->context_tokens > TOKENS_MAX)
        return diag_fail(d, "--context: %llu tokens is out of range (1 to %llu)",
                         (unsigned long long)s->context_tokens, (unsigned long long)TOKENS_MAX);
    if (s->prefix_tokens >= s->context_tokens)
        return diag_fail(d, "--prefix: %llu tokens must be less than --context (%llu tokens)",
                         (unsigned long long)s->prefix_tokens,
                         (unsigned long long)s->context_tokens);
    if (s->avg_context_tokens != 0) {
        if (s->avg_context_tokens > s->context_tokens)
            return diag_fail(d, "--avg-context: %llu tokens is more than --context (%llu tokens)",
                             (unsigned long long)s->avg_context_tokens,
                             (unsigned long long)s->context_tokens);
        if (s->avg_context_tokens <= s->prefix_tokens)
            return diag_fail(d, "--avg-context: %llu tokens must be more than --prefix "
                                "(%llu tokens)",
                             (unsigned long long)s->avg_context_tokens,
                             (unsigned long long)s->prefix_tokens);
    }
    if (s->block_tokens > BLOCK_TOKENS_MAX)
        return diag_fail(d, "--block-size: %llu tokens is out of range (1 to %d)",
                         (unsigned long long)s->block_tokens, BLOCK_TOKENS_MAX);
    if (!(s->headroom_percent >= 0.0 && s->headroom_percent < 100.0))
        return diag_fail(d, "--headroom: %g%% is out of range (0 to less than 100)",
                         s->headroom_percent);
    if (s->has_vram && (s->vram_bytes == 0 || s->vram_bytes > ((uint64_t)1 << 44)))
        return diag_fail(d, "--vram: must be more than 0 B and at most 16 TiB");
    if (s->has_weights && s->weights_bytes > ((uint64_t)1 << 60))
        return diag_fail(d, "--weights: is larger than any cluster (1 EiB)");
    if (s->has_price && !(s->price_usd_per_hour >= 0.0 && s->price_usd_per_hour < 1e6))
        return diag_fail(d, "--price: %g is out of range (0 to 1,000,000 USD per GPU-hour)",
                         s->price_usd_per_hour);
    if ((int)s->kv_dtype < 0 || s->kv_dtype >= DTYPE_COUNT)
        return diag_fail(d, "--kv-dtype: unknown precision");
    if ((int)s->weight_dtype < 0 || s->weight_dtype >= DTYPE_COUNT)
        return diag_fail(d, "--weight-dtype: unknown precision");
    if (s->kv_heads != 0) {
        if (m->attention == ATTENTION_MLA)
            return diag_fail(d, "--kv-heads: %s caches one MLA latent per layer, not K/V heads",
                             m->name);
        if (s->kv_heads > m->attention_heads || m->attention_heads % s->kv_heads != 0)
            return diag_fail(d, "--kv-heads: %u does not divide the %u attention heads of %s",
                             s->kv_heads, m->attention_heads, m->name);
    }
    struct diag inner = {0};
    if (!spec_model_validate(m, &inner))
        return diag_fail(d, "model %s: %s", m->id, inner.message);
    if (!spec_gpu_validate(&s->gpu, &inner))
        return diag_fail(d, "gpu %s: %s", s->gpu.id, inner.message);
    return true;
}

/* Tokens one user holds privately, and the shared prefix holds once, in a
 * global layer and in a windowed layer, at length `len`.
 * A windowed layer keeps tokens [max(0, len - window), len); the part of the
 * prefix still inside that range is shared, the rest of the window is private. */
struct token_split {
    uint64_t user_global, user_windowed, prefix_global, prefix_windowed;
};

static struct token_split split_tokens(uint64_t len, uint64_t prefix, uint64_t window,
                                       bool has_window)
{
    struct token_split t = {0};
    t.user_global = len - prefix;
    t.prefix_global = prefix;
    if (has_window) {
        uint64_t start = len > window ? len - window : 0;
        uint64_t shared = prefix > start ? prefix - start : 0;
        t.user_windowed = min_u64(len, window) - shared;
        t.prefix_windowed = min_u64(prefix, window);
    }
    return t;
}

static uint64_t split_bytes(struct checked *c, const struct plan_result *r, uint64_t per_layer,
                            uint64_t tokens_global, uint64_t tokens_windowed)
{
    uint64_t g = mul(c, mul(c, per_layer, r->global_layers), tokens_global);
    uint64_t w = mul(c, mul(c, per_layer, r->windowed_layers), tokens_windowed);
    return add(c, g, w);
}

static uint64_t resolve_weights(struct checked *c, const struct scenario *s, enum dtype *used)
{
    const struct model_spec *m = &s->model;
    *used = s->weight_dtype == DTYPE_AUTO ? m->weight_dtype : s->weight_dtype;
    if (s->has_weights)
        return s->weights_bytes;
    if (s->weight_dtype == DTYPE_AUTO && m->weights_bytes > 0)
        return m->weights_bytes;
    const struct dtype_info *info = dtype_info(*used);
    return (mul(c, m->params, info->bytes_num) + info->bytes_den - 1) / info->bytes_den;
}

static bool compute(const struct scenario *s, struct plan_result *r, struct diag *d,
                    bool describe);

bool capacity_compute(const struct scenario *s, struct plan_result *r, struct diag *d)
{
    return compute(s, r, d, true);
}

bool capacity_compute_numbers(const struct scenario *s, struct plan_result *r, struct diag *d)
{
    return compute(s, r, d, false);
}

static bool compute(const struct scenario *s, struct plan_result *r, struct diag *d, bool describe)
{
    memset(r, 0, sizeof *r);
    if (!capacity_validate(s, d))
        return false;
    const struct model_spec *m = &s->model;
    struct checked c = {false};
    /* Everything below is for one replica of `gpus` tensor-parallel GPUs. */
    r->tp = s->tp ? s->tp : s->gpus;
    r->replicas = s->gpus / r->tp;
    uint64_t gpus = r->tp;

    r->kv_dtype = capacity_kv_dtype(s);
    r->avg_context_tokens = s->avg_context_tokens ? s->avg_context_tokens : s->context_tokens;
    r->block_tokens = s->block_tokens ? s->block_tokens : DEFAULT_BLOCK_TOKENS;

    /* Memory budget. */
    r->gpu_memory_bytes_per_gpu = s->has_vram ? s->vram_bytes : s->gpu.memory_bytes;
    r->gpu_memory_bytes = mul(&c, r->gpu_memory_bytes_per_gpu, gpus);
    long double headroom = (long double)r->gpu_memory_bytes * s->headroom_percent / 100.0L;
    r->headroom_bytes = (uint64_t)llroundl(headroom);
    r->budget_bytes = r->gpu_memory_bytes - r->headroom_bytes;
    r->weights_bytes = resolve_weights(&c, s, &r->weight_dtype);
    r->weights_bytes_per_gpu = (r->weights_bytes + gpus - 1) / gpus;
    r->fits = r->weights_bytes <= r->budget_bytes;
    if (r->fits)
        r->kv_pool_bytes = r->budget_bytes - r->weights_bytes;
    else
        r->shortfall_bytes = r->weights_bytes - r->budget_bytes;

    /* Per-token, per-layer cost on one GPU. */
    if (m->attention == ATTENTION_MLA) {
        /* One latent per layer, replicated on every tensor-parallel rank. */
        r->kv_values_per_layer_per_gpu = (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim;
        r->kv_bytes_per_token_per_layer_per_gpu =
            dtype_bytes_for(r->kv_dtype, r->kv_values_per_layer_per_gpu);
        if (gpus > 1)
            r->warnings |= WARN_MLA_REPLICATED;
    } else {
        r->kv_heads = s->kv_heads ? s->kv_heads : m->kv_heads;
        /* ceil: the most loaded GPU decides; max(1, ...): heads replicate. */
        uint64_t per_gpu = (r->kv_heads + gpus - 1) / gpus;
        r->kv_heads_per_gpu = (uint32_t)(per_gpu < 1 ? 1 : per_gpu);
        if (gpus > r->kv_heads)
            r->warnings |= WARN_KV_HEADS_REPLICATED;
        if ((gpus <= r->kv_heads && r->kv_heads % gpus != 0) ||
            (gpus > r->kv_heads && gpus % r->kv_heads != 0) || m->attention_heads % gpus != 0)
            r->warnings |= WARN_HEADS_UNEVEN_SPLIT;
        uint64_t row = (uint64_t)r->kv_heads_per_gpu * m->head_dim;
        r->kv_values_per_layer_per_gpu = 2 * row;
        r->kv_bytes_per_token_per_layer_per_gpu = 2 * dtype_bytes_for(r->kv_dtype, row);
    }
    uint64_t per_layer_sum = mul(&c, r->kv_bytes_per_token_per_layer_per_gpu, gpus);

    bool windows = m->windowed_layers > 0 && !s->full_attention;
    r->windowed_layers = windows ? m->windowed_layers : 0;
    r->global_layers = m->layers - r->windowed_layers;
    r->window_tokens = windows ? m->window_tokens : 0;
    r->kv_bytes_per_token_per_gpu = mul(&c, r->kv_bytes_per_token_per_layer_per_gpu, m->layers);
    r->kv_bytes_per_token = mul(&c, per_layer_sum, m->layers);
    r->kv_bytes_per_token_global = mul(&c, per_layer_sum, r->global_layers);

    /* Worst case: every user at the full context. */
    struct token_split full =
        split_tokens(s->context_tokens, s->prefix_tokens, r->window_tokens, windows);
    r->user_tokens_global = full.user_global;
    r->user_tokens_windowed = full.user_windowed;
    r->prefix_tokens_global = full.prefix_global;
    r->prefix_tokens_windowed = full.prefix_windowed;
    r->kv_bytes_per_user = split_bytes(&c, r, per_layer_sum, full.user_global, full.user_windowed);
    r->prefix_bytes = split_bytes(&c, r, per_layer_sum, full.prefix_global, full.prefix_windowed);

    /* Paged: users at the average length, each rounded up to whole blocks. */
    struct token_split avg =
        split_tokens(r->avg_context_tokens, s->prefix_tokens, r->window_tokens, windows);
    uint64_t b = r->block_tokens;
    r->kv_bytes_per_user_avg = split_bytes(&c, r, per_layer_sum, avg.user_global, avg.user_windowed);
    r->kv_bytes_per_user_paged = split_bytes(&c, r, per_layer_sum, round_up(avg.user_global, b),
                                             round_up(avg.user_windowed, b));
    r->prefix_bytes_paged = split_bytes(&c, r, per_layer_sum, round_up(avg.prefix_global, b),
                                        round_up(avg.prefix_windowed, b));
    if (c.overflow) {
        memset(r, 0, sizeof *r);
        return diag_fail(d, "the scenario's byte counts exceed 64 bits; reduce --context or --gpus");
    }

    if (r->kv_bytes_per_user > 0 && r->kv_pool_bytes >= r->prefix_bytes)
        r->max_users = (r->kv_pool_bytes - r->prefix_bytes) / r->kv_bytes_per_user;
    if (r->kv_bytes_per_user_paged > 0 && r->kv_pool_bytes >= r->prefix_bytes_paged)
        r->max_users_paged =
            (r->kv_pool_bytes - r->prefix_bytes_paged) / r->kv_bytes_per_user_paged;
    if (r->fits && r->kv_pool_bytes < r->prefix_bytes)
        r->warnings |= WARN_PREFIX_DOES_NOT_FIT;
    if (r->max_users > 0) {
        r->kv_used_bytes = r->prefix_bytes + r->max_users * r->kv_bytes_per_user;
        r->remainder_bytes = r->kv_pool_bytes - r->kv_used_bytes;
        r->reservation_waste_bytes =
            r->max_users * (r->kv_bytes_per_user - r->kv_bytes_per_user_avg);
    } else {
        r->remainder_bytes = r->kv_pool_bytes;
    }
    if (r->max_users_paged > 0 && r->kv_bytes_per_user_paged >= r->kv_bytes_per_user_avg)
        r->paged_waste_bytes =
            r->max_users_paged * (r->kv_bytes_per_user_paged - r->kv_bytes_per_user_avg);
    if (r->kv_bytes_per_token > 0)
        r->kv_tokens = r->kv_pool_bytes / r->kv_bytes_per_token;

    /* Money and speed, per replica; then every replica counts. */
    double price = s->has_price ? s->price_usd_per_hour : s->gpu.price_usd_per_hour;
    r->price_usd_per_hour = price >= 0 ? price * (double)gpus : -1.0;
    r->cost_per_user_hour = -1.0;
    if (price < 0)
        r->warnings |= WARN_PRICE_UNKNOWN;
    else if (r->max_users > 0)
        r->cost_per_user_hour = r->price_usd_per_hour / (double)r->max_users;
    if (r->max_users > 0) {
        /* Each decode step reads every weight once and every user's cache at
         * the average length: an upper bound on speed, compute ignored. */
        r->decode_step_bytes =
            r->weights_bytes + r->prefix_bytes + r->max_users * r->kv_bytes_per_user_avg;
        if (s->gpu.bandwidth_bytes_per_s > 0)
            r->decode_tokens_per_s_per_user =
                (double)s->gpu.bandwidth_bytes_per_s * (double)gpus / (double)r->decode_step_bytes;
    }
    if (s->gpu.bandwidth_bytes_per_s == 0)
        r->warnings |= WARN_BANDWIDTH_UNKNOWN;
    if (r->replicas > 1) {
        r->max_users *= r->replicas;
        r->max_users_paged *= r->replicas;
        r->kv_tokens *= r->replicas;
        if (r->price_usd_per_hour >= 0)
            r->price_usd_per_hour *= r->replicas;
    }

    if (!r->fits)
        r->warnings |= WARN_WEIGHTS_DO_NOT_FIT;
    else if (r->max_users == 0)
        r->warnings |= WARN_NO_USER_FITS;
    if (s->context_tokens > m->max_context_tokens)
        r->warnings |= WARN_CONTEXT_BEYOND_MODEL;
    if (r->kv_dtype == DTYPE_FP8 && !s->gpu.fp8)
        r->warnings |= WARN_FP8_UNSUPPORTED;
    capacity_engine(s, r, describe);
    return true;
}

const char *capacity_warning_text(enum plan_warning w)
{
    switch (w) {
    case WARN_WEIGHTS_DO_NOT_FIT:
        return "the weights alone do not fit in the memory budget";
    case WARN_NO_USER_FITS:
        return "not one user fits at this context length";
    case WARN_CONTEXT_BEYOND_MODEL:
        return "the context is longer than the model's maximum position";
    case WARN_HEADS_UNEVEN_SPLIT:
        return "the GPU count does not divide the model's heads evenly (engines refuse "
               "or pad this split)";
    case WARN_KV_HEADS_REPLICATED:
        return "more GPUs than KV heads: each GPU keeps a replicated KV head";
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
    }
    return "";
}

void capacity_segments(const struct plan_result *r, uint64_t bytes[SEG_COUNT])
{
    bytes[SEG_WEIGHTS] = r->weights_bytes;
    bytes[SEG_PREFIX] = r->max_users > 0 ? r->prefix_bytes : 0;
    bytes[SEG_USERS] = r->max_users > 0 ? r->kv_used_bytes - r->prefix_bytes : 0;
    bytes[SEG_REMAINDER] = r->remainder_bytes;
    bytes[SEG_HEADROOM] = r->headroom_bytes;
}

const char *capacity_segment_name(enum segment s)
{
    static const char *names[SEG_COUNT] = {"weights", "shared prefix", "users' KV", "remainder",
                                           "headroom"};
    return (int)s >= 0 && s < SEG_COUNT ? names[s] : "";
}
