/* What the policies share: CUDA totals, estimates, the launch line and the
 * log, per-user bytes, the state's rows and the engine pool (allocation in
 * fixed units of tokens: policy_blocks.c). */
#include "engine_desc.h"
#include "policy.h"
#include "shell.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint64_t policy_cuda_total(const struct scenario *s)
{
    if (s->engine.gpu_total_bytes)
        return s->engine.gpu_total_bytes;
    if (s->has_vram || s->gpu.unified_bytes)
        return scenario_gpu_memory(s);
    if (s->gpu.cuda_visible_bytes)
        return s->gpu.cuda_visible_bytes;
    /* the driver keeps ~0.45 GiB: H100 79.65 -> 79.22 GiB, RTX 3090 24.00 -> 23.57 */
    uint64_t reserve = 460 * MIB;
    return s->gpu.memory_bytes > reserve ? s->gpu.memory_bytes - reserve : 0;
}

uint32_t policy_vocab(const struct model_spec *m)
{
    return m->vocab_size ? m->vocab_size : 32000;
}

uint32_t policy_hidden(const struct model_spec *m)
{
    if (m->hidden_size)
        return m->hidden_size;
    return m->attention_heads * (m->head_dim ? m->head_dim : 128);
}

/* About 32 bytes per hidden unit per batched token across a layer's buffers,
 * and fp32 logits of the sampled rows twice (logits and their softmax). */
uint64_t policy_activation_estimate(const struct model_spec *m, uint64_t tokens,
                                    uint64_t logit_rows)
{
    return kv_sat_add(kv_sat_mul(kv_sat_mul(tokens, policy_hidden(m)), 32),
                      kv_sat_mul(kv_sat_mul(logit_rows, policy_vocab(m)), 8));
}

uint64_t policy_gib(double gib)
{
    return (uint64_t)llround(gib * (double)GIB);
}

const char *policy_model_ref(const struct model_spec *m)
{
    return m->hf_id[0] ? m->hf_id : m->id;
}

void policy_gguf_word(struct shell_line *sl, const struct model_spec *m)
{
    if (m->gguf_file[0])
        shell_word(sl, m->gguf_file);
    else
        shell_wordf(sl, "%s.gguf", m->id);
}

static bool sixteen_bit(enum dtype d)
{
    return d == DTYPE_BF16 || d == DTYPE_FP16 || d == DTYPE_FP32;
}

/* The planned weights when the checkpoint is not in them, else AUTO: a
 * 16-bit checkpoint read as another 16-bit type is a cast at load, no file
 * of its own. */
static enum dtype weights_requantized(const struct policy_ctx *c)
{
    enum dtype want = c->l->weight_dtype, have = c->s->model.weight_dtype;
    if (want == DTYPE_AUTO || have == DTYPE_AUTO || want == have)
        return DTYPE_AUTO;
    return sixteen_bit(want) && sixteen_bit(have) ? DTYPE_AUTO : want;
}

/* The engine quantizes a 16-bit checkpoint to fp8 as it loads (vLLM's and
 * SGLang's --quantization fp8: Fp8Config, dynamic per-tensor scales). */
static bool quantized_online(const struct policy_ctx *c)
{
    return weights_requantized(c) == DTYPE_FP8 && sixteen_bit(c->s->model.weight_dtype) &&
           engine_desc(c->s->engine.kind)->quant_online;
}

/* A remark naming the weights to serve when the engine cannot make them
 * from the checkpoint as it loads. */
static void launch_weights_remark(const struct policy_ctx *c, struct shell_line *l)
{
    enum dtype w = weights_requantized(c);
    const struct engine_desc *d = engine_desc(c->s->engine.kind);
    if (w == DTYPE_AUTO || quantized_online(c) || !d->quant_serve ||
        !engine_loads(c->s->engine.kind, w)) /* unloadable: WARN_ENGINE_WEIGHTS says so */
        return;
    char name[16];
    size_t i = 0;
    for (const char *p = dtype_info(w)->name; *p && i + 1 < sizeof name; p++)
        name[i++] = (char)toupper((unsigned char)*p);
    name[i] = '\0';
    shell_comment(l, "%s weights: %s in %s%s", l->remarked ? ";" : "  #",
                  policy_model_ref(&c->s->model), name, d->quant_serve);
}

void policy_launch_begin(const struct policy_ctx *c, const struct launch_head *h,
                         struct shell_line *l)
{
    const struct plan_budget *r = c->b;
    shell_line_init(l, c->b->engine.launch, sizeof c->b->engine.launch);
    const char *env = engine_desc(c->s->engine.kind)->long_context.env;
    if (env && c->s->allow_long_context) /* a context past the model's: it starts */
        shell_wordf(l, "%s=1", env);
    shell_words(l, h->command);
    shell_word(l, policy_model_ref(&c->s->model));
    shell_option(l, h->context, "%llu", (unsigned long long)c->l->context_tokens);
    shell_option(l, h->fraction, "%.*f", h->fraction_digits, r->engine.fraction);
    if (h->kv_fp8 && c->l->kv_dtype == DTYPE_FP8)
        shell_words(l, h->kv_fp8);
    const char *value, *option = scenario_cache_flag(c->s, &value); /* fp16, bf16 not the model's */
    if (option)
        shell_option(l, option, "%s", value);
    if (c->l->tp > 1)
        shell_option(l, h->tp, "%u", c->l->tp);
    if (c->l->pp > 1)
        shell_option(l, h->pp, "%u", c->l->pp);
    if (quantized_online(c))
        shell_option(l, engine_desc(c->s->engine.kind)->quant_online, "fp8");
}

void policy_launch_lora_targets(struct shell_line *l, uint32_t targets)
{
    char mods[128];
    lora_targets_format(targets, mods, sizeof mods);
    for (char *p = mods; *p; p++)
        if (*p == ',')
            *p = ' ';
    shell_word(l, "--lora-target-modules");
    shell_words(l, mods);
}

void policy_launch_done(const struct policy_ctx *c, struct shell_line *l, bool separate_servers)
{
    struct engine_detail *e = &c->b->engine;
    if (separate_servers && c->l->replicas > 1)
        shell_comment(l, "  # x %u replicas, one server each", c->l->replicas);
    launch_weights_remark(c, l);
    if (!shell_line_done(l, NULL))
        snprintf(e->launch, sizeof e->launch,
                 "(the launch line is longer than the %zu bytes kvplan holds: not shown)",
                 sizeof e->launch);
}

void policy_log(struct engine_detail *e, const char *fmt, ...)
{
    if (e->log_lines >= ENGINE_LOG_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->log[e->log_lines++], sizeof e->log[0], fmt, ap);
    va_end(ap);
}

/* tokens x per-token bytes, or the global and windowed parts of it */
void policy_bytes_expr(const struct policy_ctx *c, struct explain_row *row, uint64_t global,
                       uint64_t windowed, const char *what)
{
    const struct kv_cost *k = c->k;
    if (k->compressed_span) { /* DeepSeek V4 (plan_rows_compressed.c) */
        policy_compressed_expr(c, row, global, windowed, what);
        return;
    }
    if (k->windowed_layers == 0) {
        explain_term(row, global, XU_TOKENS, what);
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
        return;
    }
    explain_term(row, global, XU_TOKENS, what);
    explain_ref(c->x, row, "kv_past_window", "in global layers");
    explain_op(row, XOP_MUL);
    explain_term(row, windowed, XU_TOKENS, "tokens in the window");
    explain_term(row, k->windowed_layers, XU_COUNT, "windowed layers");
    explain_op(row, XOP_MUL);
    explain_ref(c->x, row, "kv_per_layer", "per layer");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
}

/* A delta-rule layer (gated DeltaNet; Kimi Delta Attention, as many key
 * heads as value heads), not a Mamba one */
static bool delta_rule(const struct model_spec *m)
{
    return strstr(m->state_kind, "delta") != NULL || strcmp(m->state_kind, "kda") == 0;
}

/* The names of a state layer's dimensions, by kind (core/spec.h). */
static void state_names(const struct model_spec *m, const char **heads, const char **dim,
                        const char **groups, const char **size)
{
    bool delta = delta_rule(m);
    bool mamba1 = strcmp(m->state_kind, "mamba") == 0; /* a head a channel */
    *heads = delta ? "value heads" : mamba1 ? "d_inner" : "heads";
    *dim = delta ? "value head_dim" : mamba1 ? "a channel" : "head_dim";
    *groups = delta ? "key heads" : "groups";
    *size = delta ? "key head_dim" : "d_state";
}

/* values x bytes per value in precision d, rounded up to whole bytes */
static void value_bytes(struct explain_row *row, enum dtype d, uint64_t values)
{
    const struct dtype_info *info = dtype_info(d);
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", info->name);
    explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
    explain_op(row, XOP_MUL);
    if ((values * info->bytes_num) % info->bytes_den != 0)
        explain_op(row, XOP_CEIL);
}

void policy_state_rows(const struct policy_ctx *c, uint32_t gpus)
{
    const struct model_spec *m = &c->s->model;
    const struct kv_cost *k = c->k;
    if (k->state_layers == 0 || c->x == NULL)
        return;
    const char *heads, *dim, *groups, *size;
    state_names(m, &heads, &dim, &groups, &size);
    char hn[48], gn[48], note[128];
    snprintf(hn, sizeof hn, "%s%s", heads, gpus > 1 ? "/GPU" : "");
    snprintf(gn, sizeof gn, "%s%s", groups, gpus > 1 ? "/GPU" : "");
    const char *where = gpus > 1 ? "per GPU" : "";
    struct explain_row *row = explain_row_begin(c->x, "state_conv", "Conv state, layer", where);
    explain_term(row, m->state_conv_kernel - 1, XU_COUNT, "(conv_kernel - 1)");
    explain_term(row, k->state_heads_per_gpu, XU_COUNT, hn);
    explain_term(row, m->state_head_dim, XU_COUNT, dim);
    explain_op(row, XOP_MUL);
    if (k->state_groups_per_gpu) {
        /* Mamba-2 convolves x with its B and C; a delta-rule layer (gated
         * DeltaNet, KDA) its values with its queries and keys */
        explain_term(row, 2, XU_COUNT, delta_rule(m) ? "(q,k)" : "(B,C)");
        explain_term(row, k->state_groups_per_gpu, XU_COUNT, gn);
        explain_op(row, XOP_MUL);
        explain_term(row, m->state_size, XU_COUNT, size);
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    explain_op(row, XOP_MUL);
    value_bytes(row, k->state_conv_dtype, k->state_conv_values);
    snprintf(note, sizeof note, "%s layer, one sequence%s", m->state_kind,
             gpus > 1 ? "; heads split over the GPUs" : "");
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);

    row = explain_row_begin(c->x, "state_ssm",
                            strcmp(size, "d_state") != 0 ? "Delta state, layer"
                                                         : "SSM state, layer",
                            where);
    explain_term(row, k->state_heads_per_gpu, XU_COUNT, hn);
    explain_term(row, m->state_head_dim, XU_COUNT, dim);
    explain_op(row, XOP_MUL);
    explain_term(row, m->state_size, XU_COUNT, size);
    explain_op(row, XOP_MUL);
    value_bytes(row, k->state_ssm_dtype, k->state_ssm_values);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, NULL);

    row = explain_row_begin(c->x, "state_per_user", "State per user", where);
    explain_term(row, k->state_layers, XU_COUNT, "state layers");
    explain_ref(c->x, row, "state_conv", "conv");
    explain_ref(c->x, row, "state_ssm", "state");
    explain_op(row, XOP_ADD);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, "fixed: it does not grow with the context");
}

/* + the state of one sequence, when the model has state layers */
static void add_state(const struct policy_ctx *c, struct explain_row *row)
{
    if (c->k->state_bytes == 0) /* state layers, or DeepSeek V4's compressor */
        return;
    explain_ref(c->x, row, "state_per_user", "state");
    explain_op(row, XOP_ADD);
}

void policy_user_bytes(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_budget *r = c->b;
    struct token_split full = kvcost_split(c->k, s->context_tokens, s->prefix_tokens);
    struct token_split avg = kvcost_split(c->k, scenario_avg_tokens(s), s->prefix_tokens);
    r->user_bytes_per_gpu = kvcost_bytes(c->k, full.user_global, full.user_windowed);
    r->user_bytes_avg_per_gpu = kvcost_bytes(c->k, avg.user_global, avg.user_windowed);
    r->prefix_bytes_per_gpu = kvcost_bytes(c->k, full.prefix_global, full.prefix_windowed);
    /* the state is per sequence: never shared with the prefix */
    uint64_t state = c->k->state_bytes;
    r->state_bytes_per_user_per_gpu = state;
    r->user_bytes_per_gpu = kv_sat_add(r->user_bytes_per_gpu, state);
    r->user_bytes_avg_per_gpu = kv_sat_add(r->user_bytes_avg_per_gpu, state);
    if (c->x == NULL) /* the rows below only */
        return;
    struct explain_row *row = explain_row_begin(
        c->x, "kv_per_user", state ? "KV+state per user" : "KV per user", "per GPU");
    if (c->k->windowed_layers == 0 && !c->k->compressed_span && s->prefix_tokens > 0) {
        explain_term(row, s->context_tokens, XU_TOKENS, "context tokens");
        explain_term(row, s->prefix_tokens, XU_TOKENS, "prefix");
        explain_op(row, XOP_SUB);
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
    } else {
        policy_bytes_expr(c, row, full.user_global,
                   full.user_windowed, c->k->windowed_layers ? "tokens" : "context tokens");
    }
    add_state(c, row);
    explain_row_end(c->x, row, XU_BYTES, 0, NULL);
    if (s->prefix_tokens == 0)
        return;
    row = explain_row_begin(c->x, "prefix", "Shared prefix", "per GPU");
    policy_bytes_expr(c, row, full.prefix_global, full.prefix_windowed, "prefix tokens");
    explain_row_end(c->x, row, XU_BYTES, 0, "stored once for every user");
}

/* The weights operand: the per-GPU row when the model is split. */
void policy_weights_term(const struct policy_ctx *c, struct explain_row *row)
{
    char name[48];
    if (row == NULL) /* no rows kept: the name is not written */
        return;
    if (c->l->tp * c->l->pp > 1 || c->l->experts_spread || c->spec->method != SPEC_NONE) {
        explain_ref(c->x, row, "weights_per_gpu", "weights");
    } else {
        snprintf(name, sizeof name, "weights (%s)", placement_weights_label(c->l));
        explain_term(row, (long double)c->l->weights_bytes_per_gpu, XU_BYTES, name);
    }
}

long double policy_logged_pool(const struct policy_ctx *c, struct explain_row *row,
                               uint64_t held)
{
    /* the engine's budget: the memory less what it keeps outside (vLLM's
     * 1 - gpu-memory-utilization, SGLang's 1 - mem-fraction-static) */
    uint64_t mem = c->b->memory_bytes_per_gpu, out = c->b->reserved_bytes_per_gpu;
    uint64_t kv = c->s->engine.kv_memory_bytes, cap = out < mem ? mem - out : mem;
    uint64_t need = kv_sat_add(held, kv);
    bool over = cap && need > cap;
    /* named by where it came from: a calibration file's (as the CLI's
     * options or the planner moved it), or --kv-memory */
    const struct calibration_origin *o = &c->s->calibration_from;
    char from[sizeof o->file + 64], note[sizeof from + 256];
    if (o->present && o->kv_logged && kv == o->kv_applied && o->file[0])
        snprintf(from, sizeof from, "--calibration %s", o->file);
    else
        snprintf(from, sizeof from, "--kv-memory");
    bool moved = o->present && o->kv_logged && kv == o->kv_applied && kv != o->kv_logged;
    snprintf(note, sizeof note, "%s (%s)%s",
             moved ? "the log's KV cache, moved by what this plan's GPU, fraction or weights "
                     "change in the engine's budget"
                   : "the KV cache memory the log gave",
             from,
             over ? ": with the weights it passes the engine's budget on this GPU, which cannot "
                    "hold it"
                  : "");
    explain_row_end(c->x, row, XU_BYTES, (long double)kv, note);
    return over ? -(long double)(need - cap) : (long double)kv;
}

void policy_engine_pool(const struct policy_ctx *c, uint64_t budget, const char *budget_key,
                        uint64_t activation, uint64_t runtime)
{
    const struct engine_flags *f = &c->s->engine;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    e->activation_bytes = activation;
    /* LoRA slots (core/lora.h) are allocated before the engine sizes its KV
     * cache: outside KV, like the weights (a logged non-KV figure has them) */
    uint64_t held = kv_sat_add(kv_sat_add(c->l->weights_bytes_per_gpu, c->lora->bytes),
                               kv_sat_add(r->encoder_cache_bytes_per_gpu, e->held_extra_bytes));
    e->non_kv_bytes = f->non_kv_bytes ? f->non_kv_bytes
                                      : kv_sat_add(kv_sat_add(held, activation), runtime);
    r->runtime_bytes_per_gpu = e->non_kv_bytes > held ? e->non_kv_bytes - held : 0;
    struct explain_row *row = explain_row_begin(c->x, "pool", "KV pool", "per GPU");
    long double pool;
    if (f->kv_memory_bytes) {
        pool = policy_logged_pool(c, row, held);
        /* the log's server ran within its budget: what it left outside the KV
         * cache beside the weights is what the log implies, not kvplan's
         * estimate of the activation peak (so the memory's parts add up) */
        uint64_t in = kv_sat_add(held, f->kv_memory_bytes);
        if (!f->non_kv_bytes && budget) {
            r->runtime_bytes_per_gpu = budget > in ? budget - in : 0;
            e->non_kv_bytes = kv_sat_add(held, r->runtime_bytes_per_gpu);
        }
    } else {
        explain_ref(c->x, row, budget_key, "budget");
        if (f->non_kv_bytes) {
            explain_term(row, (long double)f->non_kv_bytes, XU_BYTES, "outside KV (given)");
            explain_op(row, XOP_SUB);
        } else {
            policy_weights_term(c, row);
            explain_op(row, XOP_SUB);
            if (e->held_extra_bytes) {
                explain_ref(c->x, row, "weights_extra", "beside weights");
                explain_op(row, XOP_SUB);
            }
            if (c->lora->bytes) {
                explain_ref(c->x, row, "lora", "LoRA slots");
                explain_op(row, XOP_SUB);
            }
            if (r->encoder_cache_bytes_per_gpu) {
                explain_ref(c->x, row, "encoder_cache", "encoder cache");
                explain_op(row, XOP_SUB);
            }
            if (c->x && explain_find(c->x, "activation"))
                explain_ref(c->x, row, "activation", "activation peak");
            else
                explain_term(row, (long double)activation, XU_BYTES, "activation peak");
            explain_op(row, XOP_SUB);
            if (runtime) { /* none: the engine's budget holds it already */
                explain_term(row, (long double)runtime, XU_BYTES, "runtime");
                explain_op(row, XOP_SUB);
            }
        }
        pool = (long double)budget - (long double)e->non_kv_bytes;
        explain_row_end(c->x, row, XU_BYTES, pool,
                        f->non_kv_bytes ? NULL : "activation and runtime are estimates");
    }
    if (pool > 0) {
        r->kv_pool_bytes_per_gpu = (uint64_t)pool;
    } else {
        r->kv_pool_bytes_per_gpu = 0;
        r->shortfall_bytes_per_gpu = (uint64_t)(-pool);
    }
    r->weights_fit = c->l->weights_bytes_per_gpu <= budget;
    r->fits = r->weights_fit && r->kv_pool_bytes_per_gpu > 0;
}

void policy_kv_layer_expr(struct explain_row *row, const struct model_spec *m,
                          const struct kv_cost *k)
{
    if (row == NULL)
        return;
    const struct dtype_info *info = dtype_info(k->kv_dtype);
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", info->name);
    if (k->latent_fp8_blocks) {
        /* FlashMLA's sparse layout of an FP8 latent (kvcost.h) */
        explain_term(row, m->kv_lora_rank, XU_COUNT, "kv_lora_rank");
        explain_term(row, 1, XU_PER_VALUE, bpv);
        explain_op(row, XOP_MUL);
        explain_term(row, m->kv_lora_rank / 128 * 4, XU_BYTES_EXACT, "fp32 scale per 128");
        explain_op(row, XOP_ADD);
        explain_term(row, m->qk_rope_head_dim, XU_COUNT, "rope dims");
        explain_term(row, 2, XU_PER_VALUE, "B (bf16)");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    } else {
        if (k->mla) {
            explain_term(row, m->kv_lora_rank, XU_COUNT, "kv_lora_rank");
            explain_term(row, m->qk_rope_head_dim, XU_COUNT, "rope dims");
            explain_op(row, XOP_ADD);
        } else {
            explain_term(row, 2, XU_COUNT, "(K,V)");
            explain_term(row, k->kv_heads_per_gpu, XU_COUNT,
                         k->tp > 1 ? "KV heads/GPU" : "KV heads");
            explain_term(row, m->head_dim, XU_COUNT, "head_dim");
            explain_op(row, XOP_MUL);
        }
        /* bytes(values) rounds a row up to a whole byte (q8_0, q4_0, int4) */
        uint64_t values = k->mla ? k->values_per_layer : k->values_per_layer / 2;
        explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
        explain_op(row, XOP_MUL);
        if ((values * info->bytes_num) % info->bytes_den != 0)
            explain_op(row, XOP_CEIL);
        if (!k->mla)
            explain_op(row, XOP_MUL);
    }
    if (k->index_bytes) {
        explain_term(row, (long double)k->index_bytes, XU_BYTES_EXACT, "indexer key");
        explain_op(row, XOP_ADD);
    }
}
