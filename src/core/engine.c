#include "engine.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "capacity.h"
#include "units.h"

static const char *names[ENGINE_COUNT] = {"generic", "vllm", "sglang", "llama.cpp", "trtllm"};

const char *engine_name(enum engine_kind k)
{
    return k >= 0 && k < ENGINE_COUNT ? names[k] : "?";
}

const char *engine_label(enum engine_kind k, enum engine_rule r)
{
    if (k == ENGINE_VLLM && r == RULE_VLLM_V0)
        return "vllm@0";
    if (k == ENGINE_LLAMACPP && r == RULE_LLAMACPP_PRE_MLA)
        return "llama.cpp@pre-mla";
    return engine_name(k);
}

bool engine_parse(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                  struct diag *d)
{
    char name[64];
    snprintf(name, sizeof name, "%s", text ? text : "");
    char *at = strchr(name, '@');
    const char *version = NULL;
    if (at) {
        *at = '\0';
        version = at + 1;
    }
    static const struct {
        const char *alias;
        enum engine_kind k;
    } aliases[] = {{"generic", ENGINE_GENERIC}, {"vllm", ENGINE_VLLM},
                   {"sglang", ENGINE_SGLANG},   {"llama.cpp", ENGINE_LLAMACPP},
                   {"llamacpp", ENGINE_LLAMACPP}, {"llama-cpp", ENGINE_LLAMACPP},
                   {"ollama", ENGINE_LLAMACPP}, {"trtllm", ENGINE_TRTLLM},
                   {"tensorrt-llm", ENGINE_TRTLLM}, {"trt-llm", ENGINE_TRTLLM}};
    bool found = false;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *kind = aliases[i].k;
            found = true;
        }
    }
    if (!found)
        return diag_fail(d, "'%s' is not an engine (generic, vllm, sglang, llama.cpp, trtllm)",
                         text ? text : "");
    *rule = RULE_CURRENT;
    if (version == NULL || version[0] == '\0' || strcasecmp(version, "latest") == 0)
        return true;
    if (*kind == ENGINE_VLLM && (strcmp(version, "0") == 0 || strcasecmp(version, "v0") == 0)) {
        *rule = RULE_VLLM_V0;
        return true;
    }
    if (*kind == ENGINE_VLLM && (strcmp(version, "1") == 0 || strcasecmp(version, "v1") == 0))
        return true;
    if (*kind == ENGINE_LLAMACPP && strcasecmp(version, "pre-mla") == 0) {
        *rule = RULE_LLAMACPP_PRE_MLA;
        return true;
    }
    return diag_fail(d, "'%s': unknown version of %s (known: vllm@0, vllm@1, "
                        "llama.cpp@pre-mla)",
                     text, engine_name(*kind));
}

/* ---- shared pieces ---------------------------------------------------- */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? a / b + (a % b != 0) : 0;
}

/* Products of absurd scenarios saturate instead of wrapping: a cap that no
 * real memory reaches reads as "does not fit", never as a small number. */
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t out;
    return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t out;
    return __builtin_add_overflow(a, b, &out) ? UINT64_MAX : out;
}

static uint64_t gib_frac(double gib)
{
    return (uint64_t)llround(gib * (double)GIB);
}

/* What CUDA reports as total: the observed figure, or the driver total less
 * the ~0.45 GiB the driver keeps (H100 79.65 -> 79.22 GiB, RTX 3090 24.00 -> 23.57). */
static uint64_t cuda_total(const struct scenario *s, const struct plan_result *r)
{
    if (s->engine.gpu_total_bytes)
        return s->engine.gpu_total_bytes;
    if (s->has_vram)
        return r->gpu_memory_bytes_per_gpu;
    if (s->gpu.cuda_visible_bytes)
        return s->gpu.cuda_visible_bytes;
    uint64_t reserve = 460 * MIB;
    return s->gpu.memory_bytes > reserve ? s->gpu.memory_bytes - reserve : 0;
}

static uint32_t vocab(const struct model_spec *m)
{
    return m->vocab_size ? m->vocab_size : 32000;
}

static uint32_t hidden(const struct model_spec *m)
{
    if (m->hidden_size)
        return m->hidden_size;
    return m->attention_heads * (m->head_dim ? m->head_dim : 128);
}

/* Peak of a profiling forward pass: hidden states of the batched tokens
 * (about 32 bytes per hidden unit per token across the layer's buffers) and
 * fp32 logits of the sampled rows, twice (logits and their softmax). */
static uint64_t activation_estimate(const struct model_spec *m, uint64_t tokens,
                                    uint64_t logit_rows)
{
    return tokens * hidden(m) * 32 + logit_rows * vocab(m) * 8;
}

static void add_log(struct engine_result *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_log(struct engine_result *e, const char *fmt, ...)
{
    if (e->log_lines >= ENGINE_LOG_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->log[e->log_lines++], sizeof e->log[0], fmt, ap);
    va_end(ap);
}

static const char *model_ref(const struct model_spec *m)
{
    return m->hf_id[0] ? m->hf_id : m->id;
}

static uint32_t layers_windowed(const struct plan_result *r)
{
    return r->windowed_layers;
}

/* ---- vLLM ---------------------------------------------------------------- */

static void vllm(const struct scenario *s, const struct plan_result *r, struct engine_result *e)
{
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    bool v0 = f->rule == RULE_VLLM_V0;
    e->fraction = f->gpu_memory_utilization > 0 ? f->gpu_memory_utilization : 0.9;
    /* vllm/engine/arg_utils.py: larger defaults on GPUs of 70 GiB or more, not A100 */
    bool big = !v0 && e->gpu_total_bytes >= 70 * GIB && strncmp(s->gpu.id, "a100", 4) != 0;
    e->max_num_seqs = f->max_num_seqs ? f->max_num_seqs : big ? 1024 : 256;
    uint64_t ctx = s->context_tokens;
    e->max_num_batched_tokens = f->max_num_batched_tokens ? f->max_num_batched_tokens
                                : v0 ? (ctx > 2048 ? ctx : 2048)
                                : big ? 8192 : 2048;
    e->budget_bytes = (uint64_t)llround((double)e->gpu_total_bytes * e->fraction);
    /* V0 profiled logits for every batched token; V1 for one row per sequence. */
    e->activation_bytes = activation_estimate(
        m, e->max_num_batched_tokens, v0 ? e->max_num_batched_tokens : e->max_num_seqs);
    e->runtime_bytes = gib_frac(v0 ? 0.1 : 0.25) + (e->tp > 1 ? gib_frac(1.5) : 0);
    e->unit_tokens = s->block_tokens ? s->block_tokens : 16;
    /* kv_cache_utils.py: page = block x per-layer bytes; blocks = available // page // layers */
    e->unit_bytes = sat_mul(sat_mul(e->unit_tokens, r->kv_bytes_per_token_per_layer_per_gpu),
                            m->layers);
    uint64_t global = r->global_layers, windowed = layers_windowed(r);
    if (v0) { /* V0 sized every layer for the whole context */
        global = m->layers;
        windowed = 0;
    }
    uint64_t full_blocks = ceil_div(ctx, e->unit_tokens);
    uint64_t window_need = r->window_tokens - 1 + e->max_num_batched_tokens;
    uint64_t window_blocks =
        ceil_div(window_need < ctx ? window_need : ctx, e->unit_tokens) + 1;
    if (window_blocks > full_blocks)
        window_blocks = full_blocks;
    /* layer-weighted blocks of one request, in units of whole-model blocks */
    /* layer-weighted blocks of one request, in units of whole-model blocks x layers */
    e->request_units = sat_add(sat_mul(global, full_blocks), sat_mul(windowed, window_blocks));
    e->request_bytes = sat_mul(sat_mul(e->request_units, e->unit_tokens),
                               r->kv_bytes_per_token_per_layer_per_gpu);
    e->scheduler_cap = e->max_num_seqs;
}

static void vllm_finish(const struct scenario *s, struct engine_result *e, bool describe)
{
    const struct model_spec *m = &s->model;
    char tok[32], a[32], b[32];
    e->kv_tokens = e->units * e->unit_tokens;
    e->max_concurrency = e->request_units && e->request_units != UINT64_MAX
                             ? (double)e->units * m->layers / (double)e->request_units
                             : 0;
    if (!describe)
        return;
    units_format_bytes(e->kv_cache_bytes_per_gpu, UNITS_GIB, a, sizeof a);
    if (s->engine.rule == RULE_VLLM_V0) {
        add_log(e, "# GPU blocks: %llu, # CPU blocks: 0", (unsigned long long)e->units);
    } else {
        add_log(e, "Available KV cache memory: %s", a);
        add_log(e, "GPU KV cache size: %s tokens", units_format_int(e->kv_tokens, tok, sizeof tok));
    }
    add_log(e, "Maximum concurrency for %s tokens per request: %.2fx",
            units_format_int(s->context_tokens, b, sizeof b), e->max_concurrency);
    char extra[256] = "";
    size_t n = 0;
    if (capacity_kv_dtype(s) == DTYPE_FP8)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --kv-cache-dtype fp8");
    if (e->tp > 1)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " -tp %u", e->tp);
    if (e->replicas > 1)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --data-parallel-size %u", e->replicas);
    if (s->engine.max_num_seqs)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --max-num-seqs %u", e->max_num_seqs);
    if (s->engine.max_num_batched_tokens)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --max-num-batched-tokens %llu",
                              (unsigned long long)e->max_num_batched_tokens);
    if (e->unit_tokens != 16)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --block-size %llu",
                              (unsigned long long)e->unit_tokens);
    if (s->prefix_tokens > 0)
        snprintf(extra + n, sizeof extra - n, " --enable-prefix-caching");
    snprintf(e->launch, sizeof e->launch,
             "vllm serve %s --max-model-len %llu --gpu-memory-utilization %.2f%s", model_ref(m),
             (unsigned long long)s->context_tokens, e->fraction, extra);
    snprintf(e->note, sizeof e->note,
             "vLLM takes %.0f%% of the CUDA total, then subtracts weights, a profiled activation "
             "peak (%llu batched tokens, %u sequences) and runtime memory; KV in %llu-token "
             "blocks",
             e->fraction * 100, (unsigned long long)e->max_num_batched_tokens, e->max_num_seqs,
             (unsigned long long)e->unit_tokens);
}

/* ---- SGLang -------------------------------------------------------------- */

static void sglang(const struct scenario *s, const struct plan_result *r, struct engine_result *e)
{
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    double total_mb = (double)e->gpu_total_bytes / (double)MIB;
    uint64_t chunked = f->chunked_prefill_size ? f->chunked_prefill_size
                       : total_mb < 35 * 1024.0 ? 2048
                       : total_mb < 60 * 1024.0 ? 4096 : 8192;
    uint32_t graph_bs = total_mb < 35 * 1024.0 ? 32 : total_mb < 60 * 1024.0 ? 80 : 160;
    e->max_num_batched_tokens = chunked;
    if (f->mem_fraction_static > 0) {
        e->fraction = f->mem_fraction_static;
    } else {
        /* server_args.py: a reserve in MB, at least 10 GiB on GPUs over 60 GiB */
        double reserved = 512 + (double)(chunked > 2048 ? chunked : 2048) * 1.5 + graph_bs * 2.0 +
                          e->tp / 8.0 * 1024;
        if (total_mb > 60 * 1024.0 && reserved < 10 * 1024.0)
            reserved = 10 * 1024.0;
        e->fraction = (total_mb - reserved) / total_mb;
    }
    /* rest = free after weights - total x (1 - mem_fraction_static) */
    e->budget_bytes = (uint64_t)llround((double)e->gpu_total_bytes * e->fraction);
    e->runtime_bytes = gib_frac(0.5) + (e->tp > 1 ? gib_frac(0.5) : 0);
    e->activation_bytes = 0; /* inside the reserve */
    e->unit_tokens = 1;      /* token-granular pool (page size 1) */
    /* cell_size: K and V of every layer on this rank (SGLang sizes every layer fully) */
    e->unit_bytes = r->kv_bytes_per_token_per_layer_per_gpu * m->layers;
    e->request_units = sat_mul(s->context_tokens, m->layers);
    e->request_bytes = sat_mul(s->context_tokens, e->unit_bytes);
}

static void sglang_finish(const struct scenario *s, struct engine_result *e, bool describe)
{
    const struct model_spec *m = &s->model;
    e->kv_tokens = e->units;
    e->max_concurrency = (double)e->units / (double)s->context_tokens;
    /* max_running_requests = min(max(tokens / context x 512, 2048), 4096) */
    double running = (double)e->units / (double)s->context_tokens * 512.0;
    if (running < 2048)
        running = 2048;
    if (running > 4096)
        running = 4096;
    e->scheduler_cap = (uint32_t)running;
    if (!describe)
        return;
    char t[32];
    double half = (double)e->units * (double)e->unit_bytes / 2.0 / (double)GIB;
    if (m->attention == ATTENTION_MLA)
        add_log(e, "KV Cache is allocated. #tokens: %llu, KV size: %.2f GB",
                (unsigned long long)e->units, half * 2);
    else
        add_log(e, "KV Cache is allocated. #tokens: %llu, K size: %.2f GB, V size: %.2f GB",
                (unsigned long long)e->units, half, half);
    add_log(e, "max_total_num_tokens=%s, max_running_requests=%u, context_len=%llu",
            units_format_int(e->units, t, sizeof t), e->scheduler_cap,
            (unsigned long long)s->context_tokens);
    char extra[160] = "";
    size_t n = 0;
    if (capacity_kv_dtype(s) == DTYPE_FP8)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --kv-cache-dtype fp8_e4m3");
    if (e->tp > 1)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --tp %u", e->tp);
    if (e->replicas > 1)
        snprintf(extra + n, sizeof extra - n, " --dp %u", e->replicas);
    snprintf(e->launch, sizeof e->launch,
             "python -m sglang.launch_server --model-path %s --context-length %llu "
             "--mem-fraction-static %.3f%s",
             model_ref(m), (unsigned long long)s->context_tokens, e->fraction, extra);
    snprintf(e->note, sizeof e->note,
             "SGLang keeps (1 - %.3f) of the CUDA total free for activations and graphs and "
             "gives the rest after weights to a token-granular pool, every layer at full length",
             e->fraction);
}

/* ---- llama.cpp ----------------------------------------------------------- */

static uint64_t row_bytes(enum dtype d, uint64_t values)
{
    return dtype_bytes_for(d, values);
}

/* ggml's names for the cache types (-ctk/-ctv and the log) */
static const char *ggml_name(enum dtype d)
{
    switch (d) {
    case DTYPE_FP16:
        return "f16";
    case DTYPE_FP32:
        return "f32";
    default:
        return dtype_info(d)->name;
    }
}

static void llamacpp(const struct scenario *s, const struct plan_result *r,
                     struct engine_result *e, bool describe)
{
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    uint32_t np = f->parallel ? f->parallel : 1;
    uint64_t n_ctx = s->context_tokens * np;
    /* llama.cpp caches f16 unless told (-ctk/-ctv), whatever the weights */
    enum dtype tk = s->kv_dtype != DTYPE_AUTO ? s->kv_dtype : DTYPE_FP16;
    enum dtype tv = f->v_dtype != DTYPE_AUTO ? f->v_dtype : tk;
    uint64_t k_row, v_row;
    if (m->attention == ATTENTION_MLA && f->rule == RULE_LLAMACPP_PRE_MLA) {
        /* before MLA support: K and V expanded per head */
        k_row = row_bytes(tk, (uint64_t)m->attention_heads * (m->qk_nope_head_dim + m->qk_rope_head_dim));
        v_row = row_bytes(tv, (uint64_t)m->attention_heads * m->v_head_dim);
    } else if (m->attention == ATTENTION_MLA) {
        /* the latent as K; V is a view of it */
        k_row = row_bytes(tk, (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim);
        v_row = 0;
    } else {
        uint64_t kvh = s->kv_heads ? s->kv_heads : m->kv_heads;
        k_row = row_bytes(tk, kvh * m->head_dim);
        v_row = row_bytes(tv, kvh * m->head_dim);
    }
    /* sliding-window layers: GGML_PAD(min(n_ctx, n_swa x n_seq + n_ubatch), 256) cells */
    uint64_t swa_cells = n_ctx;
    if (r->windowed_layers) {
        uint64_t want = r->window_tokens * np + 512;
        swa_cells = (want < n_ctx ? want : n_ctx);
        swa_cells = (swa_cells + 255) / 256 * 256;
    }
    uint64_t layers_full = r->global_layers, layers_swa = r->windowed_layers;
    uint64_t cells = sat_add(sat_mul(layers_full, n_ctx), sat_mul(layers_swa, swa_cells));
    uint64_t k_total = sat_mul(cells, k_row), v_total = sat_mul(cells, v_row);
    e->unit_tokens = 1;
    /* layers split across the GPUs (split mode layer): each holds its share */
    uint32_t gpus = s->gpus ? s->gpus : 1;
    e->kv_cache_bytes_per_gpu = ceil_div(sat_add(k_total, v_total), gpus);
    e->kv_tokens = n_ctx;
    e->units = n_ctx;
    e->unit_bytes = ceil_div(sat_add(k_total, v_total), n_ctx ? n_ctx : 1);
    e->max_num_seqs = np;
    e->scheduler_cap = np;
    e->fraction = 0;
    uint64_t margin = f->fit_target_bytes ? f->fit_target_bytes : GIB;
    e->budget_bytes = e->gpu_total_bytes > margin ? e->gpu_total_bytes - margin : 0;
    e->activation_bytes = 0;
    /* compute buffers: a 512-token micro-batch of logits and hidden states */
    e->runtime_bytes = 512ull * (vocab(m) + 4ull * hidden(m)) * 4 / gpus + 256 * MIB;
    e->weights_bytes = ceil_div(r->weights_bytes, gpus);
    e->non_kv_bytes = s->engine.non_kv_bytes ? s->engine.non_kv_bytes
                                             : e->weights_bytes + e->runtime_bytes;
    uint64_t room = e->budget_bytes > e->non_kv_bytes ? e->budget_bytes - e->non_kv_bytes : 0;
    if (s->engine.kv_memory_bytes)
        room = s->engine.kv_memory_bytes;
    e->fits = e->kv_cache_bytes_per_gpu <= room;
    /* how many -np slots of this context would fit */
    uint64_t per_slot = ceil_div(e->kv_cache_bytes_per_gpu, np);
    e->users = per_slot ? room / per_slot : 0;
    e->max_concurrency = np;
    e->request_units = s->context_tokens;
    e->request_bytes = per_slot;
    if (!describe)
        return;
    double k_mib = (double)k_total / (double)MIB, v_mib = (double)v_total / (double)MIB;
    add_log(e, "llama_kv_cache: size = %.2f MiB (%8llu cells, %3u layers, %2u/%2u seqs), "
               "K (%s): %.2f MiB, V (%s): %.2f MiB",
            k_mib + v_mib, (unsigned long long)n_ctx, m->layers, np, np, ggml_name(tk), k_mib,
            ggml_name(tv), v_mib);
    char types[96] = "";
    if (tk != DTYPE_FP16)
        snprintf(types, sizeof types, " -ctk %s -ctv %s -fa on", ggml_name(tk), ggml_name(tv));
    else if (tv != tk)
        snprintf(types, sizeof types, " -ctv %s -fa on", ggml_name(tv));
    snprintf(e->launch, sizeof e->launch, "llama-server -m %s.gguf -c %llu -np %u%s -ngl 999",
             m->id, (unsigned long long)n_ctx, np, types);
    snprintf(e->note, sizeof e->note,
             "llama.cpp allocates -c x -np cells up front (no paging); --fit keeps %.2f GiB free "
             "per GPU; %s",
             (double)margin / (double)GIB,
             f->rule == RULE_LLAMACPP_PRE_MLA && m->attention == ATTENTION_MLA
                 ? "before MLA support, DeepSeek K and V were stored per head"
                 : "the users figure is how many such slots would fit");
}

/* ---- TensorRT-LLM -------------------------------------------------------- */

static void trtllm(const struct scenario *s, const struct plan_result *r, struct engine_result *e)
{
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    e->fraction = f->free_gpu_memory_fraction > 0 ? f->free_gpu_memory_fraction : 0.9;
    e->max_num_seqs = f->max_num_seqs ? f->max_num_seqs : 2048;
    e->max_num_batched_tokens = f->max_num_batched_tokens ? f->max_num_batched_tokens : 8192;
    e->activation_bytes = activation_estimate(m, e->max_num_batched_tokens, e->max_num_seqs);
    e->runtime_bytes = gib_frac(0.5) + (e->tp > 1 ? gib_frac(1.0) : 0);
    e->unit_tokens = s->block_tokens && s->block_tokens != 16 ? s->block_tokens : 32;
    e->unit_bytes = sat_mul(sat_mul(e->unit_tokens, r->kv_bytes_per_token_per_layer_per_gpu),
                            m->layers);
    e->request_units = sat_mul(ceil_div(s->context_tokens, e->unit_tokens), m->layers);
    e->request_bytes = sat_mul(ceil_div(s->context_tokens, e->unit_tokens), e->unit_bytes);
    e->scheduler_cap = e->max_num_seqs;
}

static void trtllm_finish(const struct scenario *s, struct engine_result *e, bool describe)
{
    const struct model_spec *m = &s->model;
    e->kv_tokens = e->units * e->unit_tokens;
    e->max_concurrency = (double)e->units / (double)ceil_div(s->context_tokens, e->unit_tokens);
    if (!describe)
        return;
    add_log(e, "[MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%llu).",
            (double)e->kv_cache_bytes_per_gpu / (double)GIB, (unsigned long long)e->kv_tokens);
    char extra[64] = "";
    if (e->tp > 1)
        snprintf(extra, sizeof extra, " --tp_size %u", e->tp);
    snprintf(e->launch, sizeof e->launch,
             "trtllm-serve %s --max_seq_len %llu --kv_cache_free_gpu_memory_fraction %.2f%s",
             model_ref(m), (unsigned long long)s->context_tokens, e->fraction, extra);
    snprintf(e->note, sizeof e->note,
             "TensorRT-LLM gives %.0f%% of the memory still free after weights and activations to "
             "the KV cache (a fraction of free, not of total), in %llu-token blocks",
             e->fraction * 100, (unsigned long long)e->unit_tokens);
}

/* ---- generic ------------------------------------------------------------- */

static void generic(const struct scenario *s, const struct plan_result *r, struct engine_result *e,
                    bool describe)
{
    e->fits = r->fits;
    e->budget_bytes = r->budget_bytes / e->tp;
    e->weights_bytes = r->weights_bytes_per_gpu;
    e->runtime_bytes = r->headroom_bytes / e->tp;
    e->non_kv_bytes = e->weights_bytes + e->runtime_bytes;
    e->kv_cache_bytes_per_gpu = r->kv_pool_bytes / e->tp;
    e->unit_tokens = 1;
    e->unit_bytes = r->kv_bytes_per_token_per_gpu;
    e->units = r->kv_tokens;
    e->kv_tokens = r->kv_tokens;
    e->max_concurrency = r->kv_bytes_per_user
                             ? ((double)r->kv_pool_bytes - (double)r->prefix_bytes) /
                                   (double)r->kv_bytes_per_user
                             : 0;
    if (e->max_concurrency < 0)
        e->max_concurrency = 0;
    e->users = r->max_users / e->replicas;
    e->request_bytes = r->kv_bytes_per_user / e->tp;
    e->scheduler_cap = 0;
    if (!describe)
        return;
    snprintf(e->note, sizeof e->note,
             "generic: memory x (1 - %g%% headroom) - weights, divided by KV per user",
             s->headroom_percent);
    snprintf(e->launch, sizeof e->launch, "(generic plan: pick --engine for a launch command)");
}

/* Whether the engine can cache in this precision at all. */
static bool engine_supports(enum engine_kind k, enum dtype d)
{
    switch (k) {
    case ENGINE_VLLM:
    case ENGINE_SGLANG:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_FP8;
    case ENGINE_LLAMACPP:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_Q8_0 ||
               d == DTYPE_Q4_0;
    case ENGINE_TRTLLM:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_FP8 ||
               d == DTYPE_INT8;
    default:
        return true;
    }
}

void capacity_engine(const struct scenario *s, struct plan_result *r, bool describe)
{
    struct engine_result *e = &r->engine;
    if (!engine_supports(s->engine.kind, r->kv_dtype) ||
        (s->engine.kind == ENGINE_LLAMACPP && s->engine.v_dtype != DTYPE_AUTO &&
         !engine_supports(ENGINE_LLAMACPP, s->engine.v_dtype)))
        r->warnings |= WARN_ENGINE_DTYPE;
    memset(e, 0, sizeof *e);
    e->kind = s->engine.kind;
    e->tp = s->tp ? s->tp : s->gpus;
    e->replicas = s->gpus / e->tp;
    e->gpu_total_bytes = cuda_total(s, r);
    if (e->kind == ENGINE_GENERIC) {
        e->gpu_total_bytes = r->gpu_memory_bytes_per_gpu;
        generic(s, r, e, describe);
        e->scheduler_limited_users = r->max_users;
        return;
    }
    if (e->kind == ENGINE_LLAMACPP) {
        llamacpp(s, r, e, describe);
        e->users *= e->replicas;
        e->scheduler_limited_users = e->users < e->scheduler_cap * (uint64_t)e->replicas
                                         ? e->users
                                         : e->scheduler_cap * (uint64_t)e->replicas;
        return;
    }
    e->weights_bytes = r->weights_bytes_per_gpu;
    if (e->kind == ENGINE_VLLM)
        vllm(s, r, e);
    else if (e->kind == ENGINE_SGLANG)
        sglang(s, r, e);
    else
        trtllm(s, r, e);
    e->non_kv_bytes = s->engine.non_kv_bytes
                          ? s->engine.non_kv_bytes
                          : e->weights_bytes + e->activation_bytes + e->runtime_bytes;
    /* The budget rule: vLLM and SGLang take a fraction of the total and
     * subtract what is not KV; TensorRT-LLM takes a fraction of what is free. */
    uint64_t kv = 0;
    if (s->engine.kv_memory_bytes) {
        kv = s->engine.kv_memory_bytes;
    } else if (e->kind == ENGINE_TRTLLM) {
        e->budget_bytes = e->gpu_total_bytes;
        if (e->gpu_total_bytes > e->non_kv_bytes)
            kv = (uint64_t)((double)(e->gpu_total_bytes - e->non_kv_bytes) * e->fraction);
    } else if (e->budget_bytes > e->non_kv_bytes) {
        kv = e->budget_bytes - e->non_kv_bytes;
    }
    e->units = e->unit_bytes ? kv / e->unit_bytes : 0;
    e->kv_cache_bytes_per_gpu = kv;
    e->fits = e->units > 0;
    if (e->kind == ENGINE_VLLM)
        vllm_finish(s, e, describe);
    else if (e->kind == ENGINE_SGLANG)
        sglang_finish(s, e, describe);
    else
        trtllm_finish(s, e, describe);
    e->users = (uint64_t)floor(e->max_concurrency) * e->replicas;
    uint64_t cap = (uint64_t)e->scheduler_cap * e->replicas;
    e->scheduler_limited_users = e->users < cap ? e->users : cap;
}
