#include "explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct explain_line *add_line(struct explain *e, const char *key, const char *label)
{
    if (e->count >= EXPLAIN_LINES_MAX)
        return &e->lines[EXPLAIN_LINES_MAX - 1];
    struct explain_line *l = &e->lines[e->count++];
    memset(l, 0, sizeof *l);
    snprintf(l->key, sizeof l->key, "%s", key);
    snprintf(l->label, sizeof l->label, "%s", label);
    return l;
}

static void set(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

/* "2 B (bf16)" or "34/32 B (q8_0)" */
static void bytes_per_value(enum dtype d, char *buf, size_t size)
{
    const struct dtype_info *info = dtype_info(d);
    if (info->bytes_den == 1)
        snprintf(buf, size, "%u B (%s)", info->bytes_num, info->name);
    else
        snprintf(buf, size, "%u/%u B (%s)", info->bytes_num, info->bytes_den, info->name);
}

static void exact(uint64_t bytes, char *buf, size_t size)
{
    char n[32], x[48];
    units_format_int(bytes, n, sizeof n);
    units_format_bytes_exact(bytes, x, sizeof x);
    if (bytes < KIB)
        snprintf(buf, size, "%s B", n);
    else
        snprintf(buf, size, "%s B (%s)", n, x);
}

static void per_token_line(const struct scenario *s, const struct plan_result *r, struct explain *e)
{
    const struct model_spec *m = &s->model;
    struct explain_line *l = add_line(e, "kv_per_token", "KV per token");
    char bpv[48];
    bytes_per_value(r->kv_dtype, bpv, sizeof bpv);
    char gpu_part[96] = "";
    if (s->gpus > 1) {
        char sum[64];
        exact(r->kv_bytes_per_token, sum, sizeof sum);
        snprintf(gpu_part, sizeof gpu_part, " per GPU; x %u GPUs = %s", s->gpus, sum);
    }
    if (m->attention == ATTENTION_MLA) {
        set(l->formula, sizeof l->formula,
            "%u layers x (%u kv_lora_rank + %u rope dims) x %s, one latent per layer%s%s", m->layers,
            m->kv_lora_rank, m->qk_rope_head_dim, bpv, s->gpus > 1 ? ", replicated" : "",
            gpu_part);
    } else {
        char heads[64];
        if (s->gpus > 1)
            snprintf(heads, sizeof heads, "%u KV head%s/GPU (%u over %u GPUs)", r->kv_heads_per_gpu,
                     r->kv_heads_per_gpu == 1 ? "" : "s", r->kv_heads, s->gpus);
        else
            snprintf(heads, sizeof heads, "%u KV head%s", r->kv_heads, r->kv_heads == 1 ? "" : "s");
        set(l->formula, sizeof l->formula, "2 (K,V) x %u layers x %s x %u head_dim x %s%s",
            m->layers, heads, m->head_dim, bpv, gpu_part);
    }
    exact(r->kv_bytes_per_token_per_gpu, l->value, sizeof l->value);
}

static void windows_line(const struct scenario *s, const struct plan_result *r, struct explain *e)
{
    const struct model_spec *m = &s->model;
    if (m->windowed_layers == 0)
        return;
    struct explain_line *l = add_line(e, "windows", "Sliding window");
    char w[32], g[64];
    units_format_int(m->window_tokens, w, sizeof w);
    if (s->full_attention) {
        set(l->formula, sizeof l->formula,
            "%u of %u layers are windowed (%s tokens, %s), counted as global (--full-attention)",
            m->windowed_layers, m->layers, w, m->window_pattern);
        set(l->value, sizeof l->value, "off");
        return;
    }
    exact(r->kv_bytes_per_token_global, g, sizeof g);
    set(l->formula, sizeof l->formula,
        "%u global layers hold every token; %u windowed layers (%s) hold at most %s tokens; "
        "past the window each token costs",
        r->global_layers, r->windowed_layers, m->window_pattern, w);
    snprintf(l->value, sizeof l->value, "%s", g);
}

/* "a x b tok x c" summed over layer classes */
static void split_formula(const struct plan_result *r, uint64_t per_layer_sum, uint64_t tg,
                          uint64_t tw, char *buf, size_t size)
{
    char pl[48], a[32], b[32];
    units_format_bytes_exact(per_layer_sum, pl, sizeof pl);
    units_format_int(tg, a, sizeof a);
    units_format_int(tw, b, sizeof b);
    if (r->windowed_layers == 0)
        snprintf(buf, size, "%s tokens x %u layers x %s", a, r->global_layers, pl);
    else if (r->global_layers == 0)
        snprintf(buf, size, "%s tokens x %u windowed layers x %s", b, r->windowed_layers, pl);
    else
        snprintf(buf, size, "%s tokens x %u global layers x %s + %s tokens x %u windowed x %s", a,
                 r->global_layers, pl, b, r->windowed_layers, pl);
}

void explain_build(const struct scenario *s, const struct plan_result *r, struct explain *e)
{
    memset(e, 0, sizeof *e);
    enum unit_system u = s->units;
    char a[64], b[64], c[64], dd[64], n1[32], n2[32];
    uint64_t per_layer_sum = r->kv_bytes_per_token_per_layer_per_gpu * s->gpus;

    per_token_line(s, r, e);
    windows_line(s, r, e);

    struct explain_line *l = add_line(e, "kv_per_user", "KV per user");
    char f[EXPLAIN_TEXT_MAX / 2];
    split_formula(r, per_layer_sum, r->user_tokens_global, r->user_tokens_windowed, f, sizeof f);
    units_format_int(s->context_tokens, n1, sizeof n1);
    units_format_int(s->prefix_tokens, n2, sizeof n2);
    set(l->formula, sizeof l->formula, "(%s context - %s prefix): %s", n1, n2, f);
    units_format_bytes(r->kv_bytes_per_user, u, l->value, sizeof l->value);

    if (s->prefix_tokens > 0) {
        l = add_line(e, "prefix", "Shared prefix");
        split_formula(r, per_layer_sum, r->prefix_tokens_global, r->prefix_tokens_windowed, f,
                      sizeof f);
        set(l->formula, sizeof l->formula, "stored once: %s", f);
        units_format_bytes(r->prefix_bytes, u, l->value, sizeof l->value);
    }

    l = add_line(e, "pool", "KV pool");
    units_format_bytes(r->gpu_memory_bytes, u, a, sizeof a);
    units_format_bytes(r->headroom_bytes, u, b, sizeof b);
    units_format_bytes(r->weights_bytes, u, c, sizeof c);
    units_format_bytes(r->gpu_memory_bytes_per_gpu, u, dd, sizeof dd);
    char mem[96];
    if (s->gpus > 1)
        snprintf(mem, sizeof mem, "%u x %s = %s", s->gpus, dd, a);
    else
        snprintf(mem, sizeof mem, "%s", a);
    set(l->formula, sizeof l->formula, "%s memory - %g%% headroom (%s) - %s weights (%s)", mem,
        s->headroom_percent, b, c, dtype_info(r->weight_dtype)->name);
    if (r->fits) {
        units_format_bytes(r->kv_pool_bytes, u, l->value, sizeof l->value);
    } else {
        units_format_bytes(r->shortfall_bytes, u, a, sizeof a);
        set(l->value, sizeof l->value, "short by %s", a);
    }

    l = add_line(e, "users", "Users");
    units_format_bytes(r->kv_pool_bytes, u, a, sizeof a);
    units_format_bytes(r->prefix_bytes, u, b, sizeof b);
    units_format_bytes(r->kv_bytes_per_user, u, c, sizeof c);
    if (!r->fits) {
        set(l->formula, sizeof l->formula, "the weights do not fit: no KV pool");
    } else {
        double exact_users = r->kv_bytes_per_user
                                 ? ((double)r->kv_pool_bytes - (double)r->prefix_bytes) /
                                       (double)r->kv_bytes_per_user
                                 : 0.0;
        if (exact_users < 0)
            exact_users = 0;
        if (r->windowed_layers == 0 && r->kv_bytes_per_token > 0) {
            /* per user = private tokens x bytes per token: show both factors */
            char tok[32], pt[48];
            units_format_int(r->user_tokens_global, tok, sizeof tok);
            units_format_bytes_exact(r->kv_bytes_per_token, pt, sizeof pt);
            set(l->formula, sizeof l->formula, "floor((%s pool - %s prefix) / (%s tok x %s)) = floor(%.2f)",
                a, b, tok, pt, exact_users);
        } else {
            set(l->formula, sizeof l->formula,
                "floor((%s pool - %s prefix) / %s per user) = floor(%.2f)", a, b, c, exact_users);
        }
    }
    units_format_int(r->max_users, n1, sizeof n1);
    set(l->value, sizeof l->value, "%s", n1);

    l = add_line(e, "users_paged", "Users, paged");
    units_format_bytes(r->kv_bytes_per_user_paged, u, c, sizeof c);
    units_format_int(r->avg_context_tokens, n1, sizeof n1);
    units_format_int(r->block_tokens, n2, sizeof n2);
    set(l->formula, sizeof l->formula,
        "at %s tokens in use, rounded up to %s-token blocks: %s per user", n1, n2, c);
    units_format_int(r->max_users_paged, n1, sizeof n1);
    set(l->value, sizeof l->value, "%s", n1);

    if (r->reservation_waste_bytes > 0) {
        l = add_line(e, "waste", "Reservation waste");
        units_format_bytes(r->reservation_waste_bytes, u, a, sizeof a);
        units_format_int(r->max_users, n1, sizeof n1);
        set(l->formula, sizeof l->formula,
            "%s users reserving the full context but using the average", n1);
        set(l->value, sizeof l->value, "%s", a);
    }

    l = add_line(e, "kv_tokens", "Tokens held");
    units_format_bytes(r->kv_pool_bytes, u, a, sizeof a);
    exact(r->kv_bytes_per_token, b, sizeof b);
    set(l->formula, sizeof l->formula, "%s pool / %s per token (all layers)", a, b);
    units_format_int(r->kv_tokens, l->value, sizeof l->value);

    l = add_line(e, "cost", "Cost per user-hour");
    if (r->price_usd_per_hour < 0) {
        set(l->formula, sizeof l->formula, "no price for this GPU (use --price)");
        set(l->value, sizeof l->value, "unknown");
    } else {
        units_format_int(r->max_users, n1, sizeof n1);
        set(l->formula, sizeof l->formula, "$%.2f/h x %u GPU%s / %s users",
            r->price_usd_per_hour / s->gpus, s->gpus, s->gpus == 1 ? "" : "s", n1);
        if (r->cost_per_user_hour >= 0)
            set(l->value, sizeof l->value, "$%.4f", r->cost_per_user_hour);
        else
            set(l->value, sizeof l->value, "n/a");
    }

    l = add_line(e, "decode", "Decode bound");
    if (s->gpu.bandwidth_bytes_per_s == 0 || r->max_users == 0) {
        set(l->formula, sizeof l->formula, "%s",
            r->max_users == 0 ? "no user fits" : "no bandwidth figure for this GPU");
        set(l->value, sizeof l->value, "n/a");
    } else {
        units_format_bytes(r->decode_step_bytes, UNITS_GB, a, sizeof a);
        set(l->formula, sizeof l->formula,
            "%u x %.2f TB/s / %s read per step (weights + every cache at the average length)",
            s->gpus, (double)s->gpu.bandwidth_bytes_per_s / 1e12, a);
        set(l->value, sizeof l->value, "%.1f tok/s/user", r->decode_tokens_per_s_per_user);
    }
}

const struct explain_line *explain_find(const struct explain *e, const char *key)
{
    for (int i = 0; i < e->count; i++)
        if (strcmp(e->lines[i].key, key) == 0)
            return &e->lines[i];
    return NULL;
}
