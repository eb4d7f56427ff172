/* controls_text: a control's value as text, and text typed into it (Enter),
 * in the planner's own units and words. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app/controls.h"
#include "core/units.h"

/* text into buf as snprintf's "%s" puts it there (cut to size - 1 bytes),
 * without its cost: every control's value is put together each frame. */
static void put_text(char *buf, size_t size, const char *text)
{
    if (size == 0)
        return;
    size_t n = strlen(text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* "N" or "NxM" (also "N x rM"): the count, and the size after the x when given. */
static bool pair_parse(const char *text, uint64_t max_n, uint64_t max_m, const char *size_word,
                       uint64_t *n, uint64_t *m, bool *has_m, struct diag *d)
{
    char first[32], second[32] = "";
    const char *x = strpbrk(text, "xX");
    size_t len = x ? (size_t)(x - text) : strlen(text);
    if (len >= sizeof first || (x && strlen(x + 1) >= sizeof second))
        return diag_fail(d, "'%s' is not N or N x %s", text, size_word);
    snprintf(first, sizeof first, "%.*s", (int)len, text);
    if (x) {
        const char *r = x + 1;
        while (*r == ' ')
            r++;
        if (*r == 'r' || *r == 'R')
            r++;
        snprintf(second, sizeof second, "%s", r);
    }
    struct diag in = {0};
    if (!units_parse_count(first, 0, max_n, n, &in))
        return diag_fail(d, "%s", in.message);
    *has_m = x != NULL;
    if (x && !units_parse_count(second, 1, max_m, m, &in))
        return diag_fail(d, "%s: %s", size_word, in.message);
    return true;
}

static bool images_parse(struct scenario *s, const char *text, struct diag *d)
{
    uint64_t n = 0, m = 0;
    bool has_m = false;
    if (strcasecmp(text, "off") == 0)
        text = "0";
    if (!pair_parse(text, 1000, 1000000, "tokens", &n, &m, &has_m, d))
        return diag_fail(d, "%s (2, or 2x576 for 2 images of 576 tokens)", d->message);
    s->images = (uint32_t)n;
    if (has_m)
        s->image_tokens = (uint32_t)m;
    if (n == 0)
        s->image_tokens = 0;
    return true;
}

static bool lora_parse(struct scenario *s, const char *text, struct diag *d)
{
    uint64_t n = 0, k = 0;
    bool has_k = false;
    if (strcasecmp(text, "off") == 0)
        text = "0";
    if (!pair_parse(text, LORA_SLOTS_MAX, LORA_RANK_MAX, "rank", &n, &k, &has_k, d))
        return diag_fail(d, "%s (8, or 8x64 for 8 slots at rank 64)", d->message);
    s->max_loras = (uint32_t)n;
    if (has_k)
        s->max_lora_rank = (uint32_t)k;
    control_fit_knobs(s);
    return true;
}

/* The value column of a control row is 13 wide (layout.h LAYOUT_VALUE_W). */
enum { HOST_KV_VALUE_W = 13 };

/* A host size that does not fit the value column, in three figures at most
 * in the largest unit under 1,000: "279 GiB/GPU", "9.1 TiB/GPU". */
static void host_kv_brief(uint64_t bytes, enum unit_system units, char *buf, size_t size)
{
    static const char *const gib[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *const gb[] = {"KB", "MB", "GB", "TB", "PB"};
    double base = units == UNITS_GB ? 1000.0 : 1024.0, v = (double)bytes / base;
    int i = 0;
    while (i < 4 && v >= 999.5) {
        v /= base;
        i++;
    }
    char n[16];
    snprintf(n, sizeof n, v < 9.95 ? "%.1f" : "%.0f", v);
    size_t len = strlen(n);
    if (len > 2 && strcmp(n + len - 2, ".0") == 0)
        n[len - 2] = '\0';
    snprintf(buf, size, "%s %s/GPU", n, (units == UNITS_GB ? gb : gib)[i]);
}

/* The most the sequence row takes: the engine's bound (llama.cpp: LLAMA_MAX_SEQ). */
static uint64_t seqs_max(const struct scenario *s)
{
    const struct engine_knob *k = engine_knob_role(engine_desc(s->engine.kind), KNOB_SEQS);
    return k ? (uint64_t)k->max : 1000000;
}

/* the token sizes and the GPU, head and sequence counts */
static bool count_parse(enum control c, struct scenario *s, const char *text, struct diag *in)
{
    uint64_t n = 0;
    bool ok = true;
    switch (c) {
    case CTRL_CONTEXT:
        if ((ok = units_parse_tokens(text, false, &n, in)))
            control_set_context(s, n);
        break;
    case CTRL_PREFIX:
        if ((ok = units_parse_tokens(text, true, &n, in)))
            s->prefix_tokens = n;
        break;
    case CTRL_AVG:
        if ((ok = units_parse_tokens(text, false, &n, in)))
            s->avg_context_tokens = n >= s->context_tokens ? 0 : n;
        break;
    case CTRL_GPUS:
        if ((ok = units_parse_count(text, 1, GPUS_MAX, &n, in)))
            control_set_gpus(s, (uint32_t)n);
        break;
    case CTRL_TP:
        if ((ok = units_parse_count(text, 1, GPUS_MAX, &n, in)))
            s->tp = n == s->gpus ? 0 : (uint32_t)n;
        break;
    case CTRL_KV_HEADS:
        if ((ok = units_parse_count(text, 1, 100000, &n, in)))
            s->kv_heads = (uint32_t)n;
        break;
    case CTRL_SEQS:
        if ((ok = units_parse_count(text, 0, seqs_max(s), &n, in)))
            control_set_seqs(s, (uint32_t)n);
        break;
    default:
        break;
    }
    return ok;
}

/* the headroom, the memory fraction, and the speed and first-token targets */
static bool number_parse(enum control c, struct scenario *s, const char *text, struct diag *in)
{
    double x = 0;
    bool ok = true;
    switch (c) {
    case CTRL_HEADROOM:
        if ((ok = units_parse_number(text, 0, 99.9, &x, in)))
            s->headroom_percent = x;
        break;
    case CTRL_FRACTION:
        if ((ok = units_parse_number(text, 0.01, 1, &x, in)))
            control_set_fraction(s, x);
        break;
    case CTRL_SPEED:
        if ((ok = units_parse_number(text, 0, 1e6, &x, in)))
            s->min_tokens_per_s = x;
        break;
    case CTRL_TTFT: /* seconds, as --max-ttft takes them */
        if ((ok = units_parse_number(text, 0, 86400, &x, in)))
            s->max_ttft_seconds = x;
        break;
    default:
        break;
    }
    return ok;
}

/* a size, as --host-kv takes it; "off" or 0 for none */
static bool host_kv_parse(struct scenario *s, const char *text, struct diag *in)
{
    uint64_t n = 0;
    bool ok = true;
    if (strcasecmp(text, "off") == 0 || strcmp(text, "0") == 0)
        s->host_kv_bytes = 0;
    else if ((ok = units_parse_size(text, &n, in)) && n > ((uint64_t)1 << 50))
        ok = diag_fail(in, "'%s' is more than 1 PiB per GPU", text);
    else if (ok)
        s->host_kv_bytes = n;
    return ok;
}

/* 0 to 1 as --prefix-hit-rate takes it, or a percentage */
static bool hit_rate_parse(struct scenario *s, const char *text, struct diag *in)
{
    double x = 0;
    bool ok = true;
    if (strcasecmp(text, "none") == 0 || strcasecmp(text, "off") == 0) {
        s->has_prefix_hit_rate = false;
        s->prefix_hit_rate = 0;
    } else {
        size_t len = strlen(text);
        bool pc = len > 0 && text[len - 1] == '%';
        char num[64];
        snprintf(num, sizeof num, "%.*s", (int)(pc ? len - 1 : len), text);
        if ((ok = units_parse_number(num, 0, pc ? 100 : 1, &x, in))) {
            s->has_prefix_hit_rate = true;
            s->prefix_hit_rate = pc ? x / 100.0 : x;
        } else {
            ok = diag_fail(in, "'%s' is not a share from 0 to 1 (or 0%% to 100%%)", text);
        }
    }
    return ok;
}

/* 1 to 64 as --num-speculative-tokens takes them; 0 or auto: the default */
static bool spec_tokens_parse(struct scenario *s, const char *text, struct diag *in)
{
    uint64_t n = 0;
    bool ok = true;
    if (strcasecmp(text, "auto") == 0)
        n = 0;
    else if (!units_parse_count(text, 0, SPEC_TOKENS_MAX, &n, &(struct diag){0}))
        ok = diag_fail(in, "'%s' is not a number of tokens from 1 to %d (0 or auto: the default)",
                       text, SPEC_TOKENS_MAX);
    if (ok)
        s->spec_tokens = s->spec_method == SPEC_NONE ? 0 : (uint32_t)n;
    return ok;
}

static bool dtype_control_parse(enum control c, struct scenario *s, const char *text,
                                struct diag *in)
{
    enum dtype t;
    bool ok = true;
    if (!dtype_parse(text, &t))
        ok = diag_fail(in, "'%s' is not a precision (%s)", text, dtype_names());
    else if (c == CTRL_KV_DTYPE)
        s->kv_dtype = t;
    else
        s->weight_dtype = t;
    return ok;
}

bool control_parse(enum control c, struct scenario *s, const char *text, struct diag *d)
{
    struct diag in = {0};
    bool ok = true;
    switch (c) {
    case CTRL_CONTEXT:
    case CTRL_PREFIX:
    case CTRL_AVG:
    case CTRL_GPUS:
    case CTRL_TP:
    case CTRL_KV_HEADS:
    case CTRL_SEQS:
        ok = count_parse(c, s, text, &in);
        break;
    case CTRL_HEADROOM:
    case CTRL_FRACTION:
    case CTRL_SPEED:
    case CTRL_TTFT:
        ok = number_parse(c, s, text, &in);
        break;
    case CTRL_HOST_KV:
        ok = host_kv_parse(s, text, &in);
        break;
    case CTRL_HIT_RATE:
        ok = hit_rate_parse(s, text, &in);
        break;
    case CTRL_KV_DTYPE:
    case CTRL_WEIGHT_DTYPE:
        ok = dtype_control_parse(c, s, text, &in);
        break;
    case CTRL_ENGINE:
        ok = engine_parse_asked(text, &s->engine.kind, &s->engine.rule, NULL, 0,
                                s->engine.release_asked, sizeof s->engine.release_asked, &in);
        break;
    case CTRL_SPEC_TOKENS:
        ok = spec_tokens_parse(s, text, &in);
        break;
    case CTRL_LORA: /* "off", "8" slots, or "8x64": 8 slots at rank 64 */
        ok = lora_parse(s, text, &in);
        break;
    case CTRL_IMAGES: /* "2" images, or "2x576": 2 images of 576 tokens */
        ok = images_parse(s, text, &in);
        break;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        ok = control_load_parse(c, s, text, &in);
        break;
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        ok = control_offload_parse(c, s, text, &in);
        break;
    default:
        ok = diag_fail(&in, "pick it from the list (Enter)");
        break;
    }
    if (!ok)
        return diag_fail(d, "%s: %s", control_label(c, s), in.message);
    return true;
}

/* the GPU, the model, the GPUs and their split, and the token sizes */
static void shape_format(enum control c, const struct scenario *s, char *buf, size_t size)
{
    char t[32];
    switch (c) {
    case CTRL_GPU:
        put_text(buf, size, s->gpu.name);
        break;
    case CTRL_MODEL:
        put_text(buf, size, s->model.name);
        break;
    case CTRL_GPUS:
        snprintf(buf, size, "%u", s->gpus);
        break;
    case CTRL_TP:
        /* one form, the group then " xN repl", in the value column's 14
         * columns: "4 x2 repl", "4 pp2 x2 repl", "layers/2 x2" */
        if (scenario_pp(s) > 1)
            snprintf(buf, size, "%u pp%u x%u repl", scenario_tp(s), scenario_pp(s),
                     scenario_replicas(s));
        else if (engine_desc(s->engine.kind)->splits_layers && scenario_tp(s) > 1)
            snprintf(buf, size, scenario_replicas(s) > 1 ? "layers/%u x%u" : "layers/%u",
                     scenario_tp(s), scenario_replicas(s));
        else
            snprintf(buf, size, "%u x%u repl", scenario_tp(s), scenario_replicas(s));
        break;
    case CTRL_CONTEXT:
        put_text(buf, size, units_format_tokens_short(s->context_tokens, t, sizeof t));
        break;
    case CTRL_PREFIX:
        put_text(buf, size, units_format_tokens_short(s->prefix_tokens, t, sizeof t));
        break;
    case CTRL_AVG:
        if (s->avg_context_tokens == 0)
            put_text(buf, size, "= context");
        else
            put_text(buf, size, units_format_tokens_short(s->avg_context_tokens, t, sizeof t));
        break;
    default:
        break;
    }
}

/* the KV heads, and the cache and weight precisions */
static void precision_format(enum control c, const struct scenario *s,
                             const struct plan_result *r, char *buf, size_t size)
{
    switch (c) {
    case CTRL_KV_HEADS:
        if (s->model.attention == ATTENTION_MLA) {
            put_text(buf, size, "MLA latent");
        } else {
            uint32_t h = s->kv_heads ? s->kv_heads : s->model.kv_heads;
            uint32_t group = s->model.attention_heads / (h ? h : 1);
            if (h == 1)
                put_text(buf, size, "1 (MQA)");
            else if (group == 1)
                snprintf(buf, size, "%u (MHA)", h);
            else
                snprintf(buf, size, "%u (group %u)", h, group);
        }
        break;
    case CTRL_KV_DTYPE:
        if (s->kv_dtype == DTYPE_AUTO)
            snprintf(buf, size, "auto %s", dtype_info(r->kv_dtype)->name);
        else
            put_text(buf, size, dtype_info(s->kv_dtype)->name);
        break;
    case CTRL_WEIGHT_DTYPE:
        if (s->weight_dtype == DTYPE_AUTO)
            snprintf(buf, size, "auto %s", plan_weights_label(r));
        else
            put_text(buf, size, dtype_info(s->weight_dtype)->name);
        break;
    default:
        break;
    }
}

/* the engine, headroom, memory fraction and sequences, and the speed and first-token targets */
static void engine_format(enum control c, const struct scenario *s, const struct plan_result *r,
                          char *buf, size_t size)
{
    switch (c) {
    case CTRL_ENGINE:
        engine_flags_title(&s->engine, buf, size);
        break;
    case CTRL_HEADROOM:
        snprintf(buf, size, "%g%%", s->headroom_percent);
        break;
    case CTRL_SPEED:
        if (s->min_tokens_per_s > 0)
            snprintf(buf, size, "%g tok/s", s->min_tokens_per_s);
        else
            put_text(buf, size, "no target");
        break;
    case CTRL_TTFT:
        if (s->max_ttft_seconds > 0)
            snprintf(buf, size, "within %g s", s->max_ttft_seconds);
        else
            put_text(buf, size, "no target");
        break;
    case CTRL_FRACTION:
        if (control_fraction_of(s) > 0)
            snprintf(buf, size, "%.3f", control_fraction_of(s));
        else
            snprintf(buf, size, "auto %.3f", r->engine.fraction);
        break;
    case CTRL_SEQS:
        if (control_current(c, s, NULL, NULL) > 0)
            snprintf(buf, size, "%llu", (unsigned long long)control_current(c, s, NULL, NULL));
        else if (engine_desc(s->engine.kind)->fixed_slots)
            snprintf(buf, size, "auto %u", r->engine.slots);
        else
            snprintf(buf, size, "auto %u", r->engine.scheduler_cap);
        break;
    default:
        break;
    }
}

/* host memory for the cache, and the share of returning users found there */
static void host_format(enum control c, const struct scenario *s, char *buf, size_t size)
{
    char t[32];
    if (c == CTRL_HOST_KV) {
        if (s->host_kv_bytes > 0) {
            /* "256 GiB/GPU": whole sizes without their ".00" */
            units_format_bytes(s->host_kv_bytes, s->units, t, sizeof t);
            char *zeros = strstr(t, ".00 ");
            if (zeros)
                memmove(zeros, zeros + 3, strlen(zeros + 3) + 1);
            snprintf(buf, size, "%s/GPU", t);
            if (strlen(buf) > HOST_KV_VALUE_W)
                host_kv_brief(s->host_kv_bytes, s->units, buf, size);
        } else
            put_text(buf, size, "none");
    } else { /* CTRL_HIT_RATE */
        if (s->has_prefix_hit_rate)
            snprintf(buf, size, "%g%% from host", s->prefix_hit_rate * 100);
        else
            put_text(buf, size, "not given");
    }
}

/* the draft and its tokens, LoRA slots and images a request */
static void extras_format(enum control c, const struct scenario *s, const struct plan_result *r,
                          char *buf, size_t size)
{
    switch (c) {
    case CTRL_DRAFT:
        if (s->spec_method == SPEC_MTP)
            snprintf(buf, size, "MTP (%u layer%s)", s->model.nextn_layers,
                     s->model.nextn_layers == 1 ? "" : "s");
        else if (s->spec_method == SPEC_DRAFT)
            put_text(buf, size, s->draft.name);
        else
            put_text(buf, size, "none");
        break;
    case CTRL_SPEC_TOKENS:
        if (s->spec_tokens)
            snprintf(buf, size, "%u", s->spec_tokens);
        else
            snprintf(buf, size, "auto %u", r->spec.tokens);
        break;
    case CTRL_LORA:
        if (s->max_loras == 0)
            put_text(buf, size, "off");
        else
            snprintf(buf, size, "%u x r%u", s->max_loras, lora_rank(s));
        break;
    case CTRL_IMAGES:
        if (scenario_images(s) == 0)
            put_text(buf, size, "none");
        else
            snprintf(buf, size, "%u x %u tok", scenario_images(s), scenario_tokens_per_image(s));
        break;
    default:
        break;
    }
}

void control_format(enum control c, const struct scenario *s, const struct plan_result *r,
                    char *buf, size_t size)
{
    switch (c) {
    case CTRL_GPU:
    case CTRL_MODEL:
    case CTRL_GPUS:
    case CTRL_TP:
    case CTRL_CONTEXT:
    case CTRL_PREFIX:
    case CTRL_AVG:
        shape_format(c, s, buf, size);
        break;
    case CTRL_KV_HEADS:
    case CTRL_KV_DTYPE:
    case CTRL_WEIGHT_DTYPE:
        precision_format(c, s, r, buf, size);
        break;
    case CTRL_ENGINE:
    case CTRL_HEADROOM:
    case CTRL_SPEED:
    case CTRL_TTFT:
    case CTRL_FRACTION:
    case CTRL_SEQS:
        engine_format(c, s, r, buf, size);
        break;
    case CTRL_HOST_KV:
    case CTRL_HIT_RATE:
        host_format(c, s, buf, size);
        break;
    case CTRL_DRAFT:
    case CTRL_SPEC_TOKENS:
    case CTRL_LORA:
    case CTRL_IMAGES:
        extras_format(c, s, r, buf, size);
        break;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        control_load_format(c, s, buf, size);
        break;
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        control_offload_format(c, s, r, buf, size);
        break;
    case CTRL_COUNT:
        buf[0] = '\0';
        break;
    }
}
