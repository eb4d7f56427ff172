/* What the policies share: CUDA totals, estimates, per-user bytes, the
 * engine pool and allocation in fixed units of tokens. */
#include "policy.h"
#include "shell.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint64_t policy_cuda_total(const struct scenario *s)
{
    if (s->engine.gpu_total_bytes)
        return s->engine.gpu_total_bytes;
    if (s->has_vram)
        return s->vram_bytes;
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

void policy_launch_begin(const struct policy_ctx *c, const struct launch_head *h,
                         struct shell_line *l)
{
    const struct plan_result *r = c->r;
    shell_line_init(l, c->r->engine.launch, sizeof c->r->engine.launch);
    shell_words(l, h->command);
    shell_word(l, policy_model_ref(&c->s->model));
    shell_option(l, h->context, "%llu", (unsigned long long)r->context_tokens);
    shell_option(l, h->fraction, "%.*f", h->fraction_digits, r->engine.fraction);
    if (h->kv_fp8 && r->kv_dtype == DTYPE_FP8)
        shell_words(l, h->kv_fp8);
    if (r->tp > 1)
        shell_option(l, h->tp, "%u", r->tp);
    if (r->pp > 1)
        shell_option(l, h->pp, "%u", r->pp);
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
    struct engine_detail *e = &c->r->engine;
    if (separate_servers && c->r->replicas > 1)
        shell_comment(l, "  # x %u replicas, one server each", c->r->replicas);
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
void policy_bytes_expr(struct policy_ctx *c, struct explain_row *row, uint64_t global,
                       uint64_t windowed, const char *what)
{
    const struct kv_cost *k = &c->r->cost;
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

/* The names of a state layer's dimensions, by kind (core/spec.h). */
static void state_names(const struct model_spec *m, const char **heads, const char **dim,
                        const char **groups, const char **size)
{
    bool delta = strstr(m->state_kind, "delta") != NULL;
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

void policy_state_rows(struct policy_ctx *c, uint32_t gpus)
{
    const struct model_spec *m = &c->s->model;
    const struct kv_cost *k = &c->r->cost;
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
        explain_term(row, 2, XU_COUNT, "(B,C)");
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
                            strstr(m->state_kind, "delta") ? "Delta state, layer"
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
static void add_state(struct policy_ctx *c, struct explain_row *row)
{
    if (c->r->cost.state_layers == 0)
        return;
    explain_ref(c->x, row, "state_per_user", "state");
    explain_op(row, XOP_ADD);
}

void policy_user_bytes(struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_result *r = c->r;
    struct token_split full = kvcost_split(&r->cost, s->context_tokens, s->prefix_tokens);
    struct token_split avg = kvcost_split(&r->cost, r->avg_context_tokens, s->prefix_tokens);
    r->user_bytes_per_gpu = kvcost_bytes(&r->cost, full.user_global, full.user_windowed);
    r->user_bytes_avg_per_gpu = kvcost_bytes(&r->cost, avg.user_global, avg.user_windowed);
    r->prefix_bytes_per_gpu = kvcost_bytes(&r->cost, full.prefix_global, full.prefix_windowed);
    /* the state is per sequence: never shared with the prefix */
    uint64_t state = r->cost.state_bytes;
    r->state_bytes_per_user_per_gpu = state;
    r->user_bytes_per_gpu = kv_sat_add(r->user_bytes_per_gpu, state);
    r->user_bytes_avg_per_gpu = kv_sat_add(r->user_bytes_avg_per_gpu, state);

    struct explain_row *row = explain_row_begin(
        c->x, "kv_per_user", state ? "KV+state per user" : "KV per user", "per GPU");
    if (r->cost.windowed_layers == 0 && s->prefix_tokens > 0) {
        explain_term(row, s->context_tokens, XU_TOKENS, "context tokens");
        explain_term(row, s->prefix_tokens, XU_TOKENS, "prefix");
        explain_op(row, XOP_SUB);
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
    } else {
        policy_bytes_expr(c, row, full.user_global,
                   full.user_windowed, r->cost.windowed_layers ? "tokens" : "context tokens");
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
void policy_weights_term(struct policy_ctx *c, struct explain_row *row)
{
    char name[48];
    if (row == NULL) /* no rows kept: the name is not written */
        return;
    if (c->r->tp * c->r->pp > 1 || c->r->experts_spread || c->r->spec.method != SPEC_NONE) {
        explain_ref(c->x, row, "weights_per_gpu", "weights");
    } else {
        snprintf(name, sizeof name, "weights (%s)", plan_weights_label(c->r));
        explain_term(row, (long double)c->r->weights_bytes_per_gpu, XU_BYTES, name);
    }
}

void policy_engine_pool(struct policy_ctx *c, uint64_t budget, const char *budget_key,
                        uint64_t activation, uint64_t runtime)
{
    const struct engine_flags *f = &c->s->engine;
    struct plan_result *r = c->r;
    struct engine_detail *e = &r->engine;
    e->activation_bytes = activation;
    /* LoRA slots (core/lora.h) are allocated before the engine sizes its KV
     * cache: outside KV, like the weights (a logged non-KV figure has them) */
    uint64_t held = kv_sat_add(kv_sat_add(r->weights_bytes_per_gpu, r->lora.bytes),
                               r->encoder_cache_bytes_per_gpu);
    e->non_kv_bytes = f->non_kv_bytes ? f->non_kv_bytes
                                      : kv_sat_add(kv_sat_add(held, activation), runtime);
    r->runtime_bytes_per_gpu = e->non_kv_bytes > held ? e->non_kv_bytes - held : 0;
    struct explain_row *row = explain_row_begin(c->x, "pool", "KV pool", "per GPU");
    long double pool;
    if (f->kv_memory_bytes) {
        pool = (long double)f->kv_memory_bytes;
        explain_row_end(c->x, row, XU_BYTES, pool, "the KV cache memory the log gave (--kv-memory)");
    } else {
        explain_ref(c->x, row, budget_key, "budget");
        if (f->non_kv_bytes) {
            explain_term(row, (long double)f->non_kv_bytes, XU_BYTES, "outside KV (given)");
            explain_op(row, XOP_SUB);
        } else {
            policy_weights_term(c, row);
            explain_op(row, XOP_SUB);
            if (r->lora.bytes) {
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
            explain_term(row, (long double)runtime, XU_BYTES, "runtime");
            explain_op(row, XOP_SUB);
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
    r->weights_fit = r->weights_bytes_per_gpu <= budget;
    r->fits = r->weights_fit && r->kv_pool_bytes_per_gpu > 0;
}

static uint64_t users_of(uint64_t units, uint64_t prefix_units, uint64_t per_user, uint32_t cap,
                         uint64_t *fit)
{
    uint64_t n = per_user && units > prefix_units ? (units - prefix_units) / per_user : 0;
    if (fit)
        *fit = n;
    return cap && n > cap ? cap : n;
}

/* Units one user holds privately at length len (prefix blocks shared whole). */
static uint64_t user_units(const struct block_rule *b, uint64_t len, uint64_t prefix,
                           uint64_t window_units)
{
    uint64_t own = kv_ceil_div(len, b->unit_tokens) - prefix / b->unit_tokens;
    if (!b->hybrid)
        return kv_sat_add(b->user_cap_units && own > b->user_cap_units ? b->user_cap_units : own,
                          b->state_units);
    return kv_sat_add(kv_sat_mul(b->full_groups, own), kv_sat_mul(b->window_groups, window_units));
}

/* min(floor((units - prefix units) / per user), cap) as a row */
static void users_row(struct policy_ctx *c, const struct block_rule *b, const char *key,
                      const char *label, uint64_t per_user, const char *per_user_key,
                      uint64_t prefix_units, uint64_t avail, const char *note)
{
    struct explain_row *row = explain_row_begin(c->x, key, label, "per replica");
    if (avail == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        return;
    }
    if (avail <= prefix_units) {
        explain_row_end(c->x, row, XU_COUNT, 0, "the shared prefix fills the KV pool");
        return;
    }
    explain_ref(c->x, row, "units", b->unit_tokens == 1 ? "tokens" : "blocks");
    if (prefix_units) {
        explain_term(row, (long double)prefix_units, XU_COUNT,
                     b->unit_tokens == 1 ? "shared prefix tokens" : "shared prefix blocks");
        explain_op(row, XOP_SUB);
    }
    if (per_user_key)
        explain_ref(c->x, row, per_user_key, "per user");
    else
        explain_term(row, (long double)per_user, XU_COUNT, "per user");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    if (b->cap) {
        explain_term(row, b->cap, XU_COUNT, b->cap_name);
        explain_op(row, XOP_MIN);
    }
    explain_row_end(c->x, row, XU_COUNT, 0, note);
}

static void units_row(struct policy_ctx *c, const struct block_rule *b, uint64_t pool)
{
    struct explain_row *row = b->units_given ? NULL : explain_row_begin(
        c->x, "units", b->unit_tokens == 1 ? "KV tokens" : "KV blocks", "per GPU");
    if (row && pool == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        row = NULL;
    }
    explain_ref(c->x, row, b->pool_key ? b->pool_key : "pool", "pool");
    if (b->hybrid) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "tokens per block");
        explain_ref(c->x, row, "kv_per_layer", "per layer");
        explain_op(row, XOP_MUL);
        explain_term(row, b->group_layers, XU_COUNT, "layers per group");
        explain_op(row, XOP_MUL);
    } else if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "tokens per block");
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
    } else {
        explain_ref(c->x, row, "kv_per_token", "per token");
    }
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_COUNT, 0, NULL);
}

static void per_user_row(struct policy_ctx *c, const struct block_rule *b, uint64_t ctx,
                         uint64_t prefix)
{
    struct explain_row *row = explain_row_begin(
        c->x, "units_per_user", b->unit_tokens == 1 ? "Tokens per user" : "Blocks per user", "");
    if (b->hybrid)
        explain_term(row, b->full_groups, XU_COUNT,
                     b->full_groups == 1 ? "full group" : "full groups");
    explain_term(row, ctx, XU_TOKENS, "context tokens");
    if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
    }
    if (prefix >= b->unit_tokens) {
        explain_term(row, prefix, XU_TOKENS, "prefix tokens");
        if (b->unit_tokens > 1) {
            explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_FLOOR);
        }
        explain_op(row, XOP_SUB);
    }
    if (b->user_cap_units && !b->hybrid) {
        explain_term(row, b->user_cap_units, XU_COUNT, "blocks of the window");
        explain_op(row, XOP_MIN);
    }
    if (b->state_units && !b->hybrid) {
        explain_term(row, b->state_units, XU_COUNT,
                     b->unit_tokens == 1 ? "tokens' worth of state" : "blocks of state");
        explain_op(row, XOP_ADD);
    }
    if (b->hybrid) {
        explain_op(row, XOP_MUL);
        explain_term(row, b->window_groups, XU_COUNT, b->state ? "state groups" : "window groups");
        if (b->state && b->spec_units) {
            explain_term(row, 1, XU_COUNT, "running state");
            explain_term(row, b->spec_units, XU_COUNT, "speculative tokens' states");
            explain_op(row, XOP_ADD);
        } else {
            explain_term(row, b->window_units, XU_COUNT,
                         b->state ? "block of state each" : "blocks in the window");
        }
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_COUNT, 0,
                    b->state && b->spec_units
                        ? "blocks of a group: a state group keeps a block per sequence and one "
                          "per speculative token"
                    : b->state  ? "blocks of a group: a state group keeps one block per sequence"
                    : b->hybrid ? "blocks of a group: windowed groups keep the window and a batch"
                                : NULL);
}

static void tokens_held_row(struct policy_ctx *c, const struct block_rule *b, uint32_t groups)
{
    struct explain_row *row =
        explain_row_begin(c->x, "kv_tokens_replica", "Tokens held", "per replica");
    explain_ref(c->x, row, "units", b->unit_tokens == 1 ? "tokens" : "blocks");
    if (groups > 1) {
        explain_term(row, groups, XU_COUNT, "groups");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_FLOOR);
    }
    if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
        explain_op(row, XOP_MUL);
    }
    explain_row_end(c->x, row, XU_TOKENS, 0, NULL);
}

void policy_blocks(struct policy_ctx *c, const struct block_rule *b)
{
    const struct scenario *s = c->s;
    struct plan_result *r = c->r;
    struct engine_detail *e = &r->engine;
    const struct kv_cost *k = &r->cost;
    e->unit_tokens = b->unit_tokens;
    /* a block of one group under the hybrid grouping, else of every layer */
    if (!b->units_given)
        e->unit_bytes = b->hybrid ? kv_sat_mul(kv_sat_mul(b->unit_tokens, k->bytes_per_layer),
                                           b->group_layers)
                              : kv_sat_mul(b->unit_tokens, k->bytes_per_token);
    uint64_t pool = b->pool_key ? b->pool_bytes : r->kv_pool_bytes_per_gpu;
    if (!b->units_given)
        e->units = e->unit_bytes ? pool / e->unit_bytes : 0;
    e->scheduler_cap = b->cap;
    e->kv_cache_bytes = r->kv_pool_bytes_per_gpu;

    units_row(c, b, pool);
    /* Units of one user: its own blocks (whole prefix blocks are shared). */
    uint64_t ctx = s->context_tokens, prefix = s->prefix_tokens, avg = r->avg_context_tokens;
    uint64_t per_user = user_units(b, ctx, prefix, b->window_units);
    uint64_t per_user_avg = user_units(b, avg, prefix, b->window_units_avg);
    uint64_t prefix_units = prefix / b->unit_tokens;
    if (b->hybrid)
        prefix_units = kv_sat_mul(prefix_units, b->full_groups);
    uint64_t avail = e->units;
    per_user_row(c, b, ctx, prefix);
    r->users_per_replica = users_of(avail, prefix_units, per_user, b->cap, &r->users_fit_per_replica);
    r->users_paged_per_replica = users_of(avail, prefix_units, per_user_avg, b->cap, NULL);
    /* hybrid: vLLM logs the blocks over the groups as its token count */
    uint32_t groups = b->hybrid ? b->full_groups + b->window_groups : 1;
    r->kv_tokens_per_replica = kv_sat_mul(e->units / groups, b->unit_tokens);
    uint64_t unit_layer_bytes = e->unit_bytes;
    r->kv_used_bytes_per_gpu = kv_sat_mul(
        kv_sat_add(prefix_units, kv_sat_mul(r->users_per_replica, per_user)), unit_layer_bytes);
    r->prefix_bytes_paged_per_gpu = kv_sat_mul(prefix_units, unit_layer_bytes);
    r->prefix_bytes_per_gpu = r->prefix_bytes_paged_per_gpu;
    r->user_bytes_paged_per_gpu = kv_sat_mul(per_user_avg, unit_layer_bytes);

    if (!r->fits || e->units == 0) {
        struct explain_row *row =
            explain_row_begin(c->x, "users_replica", "Users", "per replica");
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
    } else {
        users_row(c, b, "users_replica", "Users", per_user, "units_per_user", prefix_units, avail,
                  NULL);
    }
    char note[96], t[32];
    units_format_int(avg, t, sizeof t);
    snprintf(note, sizeof note, "at %s tokens in use", t);
    users_row(c, b, "users_paged_replica", "Users, paged", per_user_avg, NULL, prefix_units, avail,
              note);

    tokens_held_row(c, b, groups);
}

uint64_t policy_state_pool(struct policy_ctx *c, uint64_t slots, uint64_t spec, const char *note)
{
    struct plan_result *r = c->r;
    uint64_t pool = r->kv_pool_bytes_per_gpu;
    uint64_t bytes = kv_sat_add(kv_sat_mul(slots, r->cost.state_bytes), spec);
    r->state_slots_per_replica = slots;
    struct explain_row *row = explain_row_begin(c->x, "kv_pool_after_state", "KV pool left", "per GPU");
    if (pool <= bytes) {
        explain_row_end(c->x, row, XU_BYTES, 0, "no memory is left for the KV cache");
        return 0;
    }
    explain_ref(c->x, row, "pool", "pool");
    explain_ref(c->x, row, "state_slots", "state slots");
    explain_ref(c->x, row, "state_per_user", "state each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_SUB);
    if (spec) {
        explain_ref(c->x, row, "state_spec", "draft-token states");
        explain_op(row, XOP_SUB);
    }
    explain_row_end(c->x, row, XU_BYTES, 0, note);
    return pool - bytes;
}

void policy_state_pool_used(struct policy_ctx *c)
{
    struct plan_result *r = c->r;
    /* the state pool is allocated whole, used or not: kv_used counts it all,
     * state_used the users' states, the rest is idle (plan_segments: spare) */
    uint64_t bytes = kv_sat_add(kv_sat_mul(r->state_slots_per_replica, r->cost.state_bytes),
                                r->state_spec_bytes_per_gpu);
    uint64_t users = r->users_per_replica < r->state_slots_per_replica ? r->users_per_replica
                                                                       : r->state_slots_per_replica;
    r->state_pool_bytes_per_gpu = bytes;
    r->state_used_bytes_per_gpu =
        kv_sat_add(kv_sat_mul(users, r->cost.state_bytes), r->state_spec_bytes_per_gpu);
    r->kv_used_bytes_per_gpu = kv_sat_add(r->kv_used_bytes_per_gpu, bytes);
    r->state_bytes_per_user_per_gpu = r->cost.state_bytes;
    r->user_bytes_paged_per_gpu = kv_sat_add(r->user_bytes_paged_per_gpu, r->cost.state_bytes);
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
