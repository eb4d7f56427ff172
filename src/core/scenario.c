#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"
#include "lora.h"
#include "optname.h"

const char *const scenario_option_names[SF_COUNT] = {
    [SF_GPU] = OPTNAME_GPU,
    [SF_MODEL] = OPTNAME_MODEL,
    [SF_GPUS] = OPTNAME_GPUS,
    [SF_TP] = OPTNAME_TP,
    [SF_ENGINE] = OPTNAME_ENGINE,
    [SF_CONTEXT] = OPTNAME_CONTEXT,
    [SF_PREFIX] = OPTNAME_PREFIX,
    [SF_AVG] = OPTNAME_AVG_CONTEXT,
    [SF_BLOCK] = OPTNAME_BLOCK_SIZE,
    [SF_HEADROOM] = OPTNAME_HEADROOM,
    [SF_KV_HEADS] = OPTNAME_KV_HEADS,
    [SF_KV_DTYPE] = OPTNAME_KV_DTYPE,
    [SF_WEIGHT_DTYPE] = OPTNAME_WEIGHT_DTYPE,
    [SF_VRAM] = OPTNAME_VRAM,
    [SF_WEIGHTS] = OPTNAME_WEIGHTS,
    [SF_PRICE] = OPTNAME_PRICE,
    [SF_GPU_MEMORY_UTILIZATION] = OPTNAME_GPU_MEMORY_UTILIZATION,
    [SF_MEM_FRACTION_STATIC] = OPTNAME_MEM_FRACTION_STATIC,
    [SF_FREE_GPU_MEMORY_FRACTION] = OPTNAME_FREE_GPU_MEMORY_FRACTION,
    [SF_PARALLEL] = OPTNAME_PARALLEL,
    [SF_MAX_NUM_SEQS] = OPTNAME_MAX_NUM_SEQS,
    [SF_MAX_NUM_BATCHED_TOKENS] = OPTNAME_MAX_NUM_BATCHED_TOKENS,
    [SF_LOGGED] = OPTNAME_GPU_TOTAL ", " OPTNAME_NON_KV " and " OPTNAME_KV_MEMORY,
    [SF_CONCURRENCY] = OPTNAME_CONCURRENCY,
    [SF_PROMPT] = OPTNAME_PROMPT,
    [SF_OUTPUT] = OPTNAME_OUTPUT_LEN,
    [SF_MIN_TOK_S] = OPTNAME_MIN_TOK_S,
    [SF_MAX_TTFT] = OPTNAME_MAX_TTFT,
    [SF_MBU] = OPTNAME_MBU,
    [SF_MFU] = OPTNAME_MFU,
    [SF_PP] = OPTNAME_PP,
    [SF_DP_ATTENTION] = OPTNAME_DP_ATTENTION,
    [SF_EXPERT_PARALLEL] = OPTNAME_EXPERT_PARALLEL,
    [SF_SPEC_METHOD] = OPTNAME_SPECULATIVE_METHOD,
    [SF_DRAFT_MODEL] = OPTNAME_DRAFT_MODEL,
    [SF_SPEC_TOKENS] = OPTNAME_NUM_SPECULATIVE_TOKENS,
    [SF_HOST_KV] = OPTNAME_HOST_KV,
    [SF_PREFIX_HIT_RATE] = OPTNAME_PREFIX_HIT_RATE,
    [SF_MAX_LORAS] = OPTNAME_MAX_LORAS,
    [SF_MAX_LORA_RANK] = OPTNAME_MAX_LORA_RANK,
    [SF_LORA_TARGETS] = OPTNAME_LORA_TARGET_MODULES,
    [SF_IMAGES] = OPTNAME_IMAGES,
    [SF_IMAGE_TOKENS] = OPTNAME_IMAGE_TOKENS,
    [SF_STEP_OVERHEAD] = OPTNAME_STEP_OVERHEAD,
    [SF_N_GPU_LAYERS] = OPTNAME_N_GPU_LAYERS,
    [SF_N_CPU_MOE] = OPTNAME_N_CPU_MOE,
    [SF_NO_KV_OFFLOAD] = OPTNAME_NO_KV_OFFLOAD,
    [SF_UBATCH] = OPTNAME_UBATCH,
    [SF_HOST_MEMORY] = OPTNAME_HOST_MEMORY,
    [SF_HOST_BANDWIDTH] = OPTNAME_HOST_BANDWIDTH,
    [SF_WIRED_LIMIT] = OPTNAME_WIRED_LIMIT_MB,
    [SF_ALLOW_LONG_CONTEXT] = OPTNAME_ALLOW_LONG_CONTEXT,
};

void scenario_default(struct scenario *s, const struct gpu_spec *gpu,
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

uint32_t scenario_images(const struct scenario *s)
{
    return s->images ? s->images : s->image_tokens ? 1 : 0;
}

uint32_t scenario_tokens_per_image(const struct scenario *s)
{
    return s->image_tokens ? s->image_tokens : s->model.image_tokens_per_image;
}

uint64_t scenario_image_tokens(const struct scenario *s)
{
    return (uint64_t)scenario_images(s) * scenario_tokens_per_image(s);
}

enum dtype scenario_compute_dtype(const struct scenario *s)
{
    switch (s->model.weight_dtype) {
    case DTYPE_FP32:
    case DTYPE_FP16:
    case DTYPE_BF16:
        return s->model.weight_dtype;
    default:
        return DTYPE_BF16;
    }
}

enum dtype scenario_kv_dtype(const struct scenario *s)
{
    if (s->kv_dtype != DTYPE_AUTO)
        return s->kv_dtype;
    /* DeepSeek V4's compressed attention (core/spec.h): its cache is FP8 as the
     * model is served (vLLM's fp8_ds_mla, SGLang's packed FP8; core/kvcost.h) */
    if (s->model.csa_layers || s->model.hca_layers)
        return DTYPE_FP8;
    /* a release's own cache under auto (vLLM 0.11 to 0.13: DeepSeek-V3.2's fp8) */
    const struct engine_desc *e = engine_desc(s->engine.kind);
    enum dtype release = e->auto_cache ? e->auto_cache(s) : DTYPE_AUTO;
    if (release != DTYPE_AUTO)
        return release;
    /* an engine with a cache type of its own under auto (llama.cpp's f16) */
    enum dtype own = e->cache_default;
    return own != DTYPE_AUTO ? own : scenario_compute_dtype(s);
}

bool scenario_weights_as_file(const struct scenario *s)
{
    const struct model_spec *m = &s->model;
    if (s->has_weights || m->weights_bytes == 0)
        return false;
    if (s->weight_dtype == DTYPE_AUTO)
        return true;
    /* a GGUF's preset (import-gguf) names the file's own type: that type
     * given is the same file, its exact bytes */
    return (m->gguf_file[0] != '\0' || m->layer_bytes_count > 0) && s->weight_dtype == m->weight_dtype;
}

uint64_t scenario_weights_bytes(const struct scenario *s, enum dtype *used)
{
    const struct model_spec *m = &s->model;
    *used = s->weight_dtype == DTYPE_AUTO ? m->weight_dtype : s->weight_dtype;
    if (s->has_weights)
        return s->weights_bytes;
    if (scenario_weights_as_file(s))
        return m->weights_bytes;
    const struct dtype_info *info = dtype_info(*used);
    uint64_t product;
    if (__builtin_mul_overflow(m->params, (uint64_t)info->bytes_num, &product))
        return UINT64_MAX;
    return product / info->bytes_den + (product % info->bytes_den != 0);
}

uint64_t scenario_expert_bytes(const struct scenario *s)
{
    const struct model_spec *m = &s->model;
    enum dtype used;
    uint64_t all = scenario_weights_bytes(s, &used);
    if (m->expert_params == 0 || all == UINT64_MAX)
        return 0;
    const struct dtype_info *info = dtype_info(used);
    long double per = (long double)info->bytes_num / info->bytes_den;
    if (scenario_weights_as_file(s)) {
        long double rest = (long double)(m->params - m->expert_params) * per;
        return rest < (long double)all ? (uint64_t)((long double)all - rest) : 0;
    }
    /* a --weights override keeps the experts' share of the parameters */
    return (uint64_t)((long double)all * m->expert_params / m->params);
}

/* Parameters of one layer's sparse-attention indexer (V3.2): wq_b, wk, the
 * key's LayerNorm (weight and bias) and weights_proj. */
static long double indexer_params(const struct model_spec *m, long double h)
{
    long double d = m->index_head_dim, n = m->index_n_heads;
    return d > 0 ? (long double)m->q_lora_rank * n * d + h * d + 2 * d + h * n : 0;
}

/* The bytes of `params` parameters at the weights' average bytes a parameter. */
static uint64_t share_of_weights(const struct scenario *s, long double params)
{
    const struct model_spec *m = &s->model;
    enum dtype used;
    uint64_t all = scenario_weights_bytes(s, &used);
    if (all == UINT64_MAX || m->params == 0 || params <= 0 || params >= (long double)m->params)
        return 0;
    return (uint64_t)((long double)all * params / (long double)m->params);
}

uint64_t scenario_replicated_bytes(const struct scenario *s)
{
    const struct model_spec *m = &s->model;
    if (m->attention != ATTENTION_MLA)
        return 0;
    long double h = m->hidden_size ? m->hidden_size : (long double)m->attention_heads * m->head_dim;
    /* the down projections to the query and KV latents, their norms, and the indexer */
    long double per_layer = h * ((long double)m->q_lora_rank + m->kv_lora_rank + m->qk_rope_head_dim) +
                            m->q_lora_rank + m->kv_lora_rank + indexer_params(m, h);
    return share_of_weights(s, per_layer * m->layers);
}

uint64_t scenario_attention_bytes(const struct scenario *s)
{
    const struct model_spec *m = &s->model;
    enum dtype used;
    uint64_t all = scenario_weights_bytes(s, &used);
    if (all == UINT64_MAX || m->params == 0)
        return 0;
    long double h = m->hidden_size ? m->hidden_size : (long double)m->attention_heads * m->head_dim;
    long double heads = m->attention_heads, per_layer;
    if (m->attention == ATTENTION_MLA) {
        long double qk = (long double)m->qk_nope_head_dim + m->qk_rope_head_dim;
        long double q = m->q_lora_rank ? h * m->q_lora_rank + (long double)m->q_lora_rank * heads * qk
                                       : h * heads * qk;
        per_layer = q + h * ((long double)m->kv_lora_rank + m->qk_rope_head_dim) +
                    (long double)m->kv_lora_rank * heads * ((long double)m->qk_nope_head_dim + m->v_head_dim) +
                    heads * m->v_head_dim * h + indexer_params(m, h);
    } else {
        per_layer = h * (heads + 2.0L * m->kv_heads) * m->head_dim + heads * m->head_dim * h;
    }
    long double params = per_layer * m->layers + (long double)m->vocab_size * h;
    if (params >= (long double)m->params)
        return 0;
    return (uint64_t)((long double)all * params / (long double)m->params);
}

uint64_t scenario_gpu_memory(const struct scenario *s)
{
    if (s->has_vram)
        return s->vram_bytes;
    if (s->gpu.unified_bytes && s->wired_limit_mb) {
        uint64_t wired = (uint64_t)s->wired_limit_mb * MIB;
        return wired < s->gpu.unified_bytes ? wired : s->gpu.unified_bytes;
    }
    return s->gpu.memory_bytes;
}

const char *scenario_gpu_memory_basis(const struct scenario *s)
{
    return s->has_vram                                   ? OPTNAME_VRAM
           : s->gpu.unified_bytes && s->wired_limit_mb ? OPTNAME_WIRED_LIMIT_MB
                                                       : s->gpu.memory_basis;
}

bool scenario_tp_even(const struct scenario *s, uint32_t tp)
{
    const struct model_spec *m = &s->model;
    if (engine_desc(s->engine.kind)->splits_layers)
        return true;
    return scenario_heads_split(m, s->kv_heads ? s->kv_heads : m->kv_heads,
                                m->attention == ATTENTION_MLA, tp);
}

uint32_t scenario_replicas(const struct scenario *s)
{
    uint32_t group = scenario_tp(s) * scenario_pp(s);
    return group ? s->gpus / group : 1;
}

bool scenario_heads_split(const struct model_spec *m, uint32_t kv_heads, bool mla, uint32_t tp)
{
    if (tp <= 1)
        return true;
    if (m->attention_heads % tp != 0)
        return false;
    if (mla || kv_heads == 0)
        return true;
    return tp <= kv_heads ? kv_heads % tp == 0 : tp % kv_heads == 0;
}

uint64_t scenario_prefix_within(uint64_t prefix, uint64_t context)
{
    return prefix < context ? prefix : context > 0 ? context - 1 : 0;
}

uint64_t scenario_output_within(const struct scenario *s, uint64_t context)
{
    uint64_t p = s->prompt_tokens ? s->prompt_tokens : s->context_tokens;
    return s->output_tokens && p + s->output_tokens <= context ? s->output_tokens : 0;
}

enum dtype scenario_auto_cache(const struct scenario *s)
{
    struct scenario a = *s;
    a.kv_dtype = DTYPE_AUTO;
    return scenario_kv_dtype(&a);
}

const char *scenario_cache_flag(const struct scenario *s, const char **value)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    bool half = s->kv_dtype == DTYPE_FP16 || s->kv_dtype == DTYPE_BF16;
    *value = NULL;
    if (!e->cache_flags || !half || s->kv_dtype == scenario_auto_cache(s))
        return NULL;
    const struct engine_cache_flags *f = e->cache_flags(s->engine.rule);
    bool fp16 = s->kv_dtype == DTYPE_FP16;
    *value = fp16 ? f->fp16 : f->bf16;
    if (*value)
        return "--kv-cache-dtype";
    *value = fp16 ? "float16" : "bfloat16"; /* ModelDType, in every release of both */
    return "--dtype";
}

uint64_t scenario_context_ceiling(const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    return e->long_context.env && !s->allow_long_context ? s->model.max_context_tokens : 0;
}

uint64_t scenario_avg_tokens(const struct scenario *s)
{
    return s->avg_context_tokens ? s->avg_context_tokens : s->context_tokens;
}

void scenario_set_engine(struct scenario *s, enum engine_kind kind, enum engine_rule rule)
{
    s->engine.kind = kind;
    s->engine.rule = rule;
    const struct engine_desc *e = engine_desc(kind);
    s->engine.gpu_memory_utilization = 0;
    s->engine.mem_fraction_static = 0;
    s->engine.free_gpu_memory_fraction = 0;
    s->engine.parallel = 0;
    s->engine.max_num_seqs = 0;
    s->engine.max_num_batched_tokens = 0;
    s->engine.chunked_prefill_size = 0;
    if (!e->dp_attention)
        s->dp_attention = false;
    if (!engine_expert_parallel(e, rule))
        s->expert_parallel = false;
    if (e->splits_layers)
        s->pp = 0;
    if (!e->long_context.env)
        s->allow_long_context = false;
}
