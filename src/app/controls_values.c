/* controls_values: the values each planner control steps through
 * (control_values), sorted, and the one the scenario holds
 * (control_current), in the terms the sliders and lists count in: indexes
 * into the catalogue and the precision lists, tokens, thousandths. */
#include "controls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* widest first: a step right is a step cheaper (q8_0 carries its scales: 34/32 B) */
static const enum dtype kv_dtypes[] = {DTYPE_AUTO, DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_Q8_0,
                                       DTYPE_FP8,  DTYPE_INT8, DTYPE_Q4_0, DTYPE_INT4, DTYPE_FP4};
/* widest first, the GGUF mixes llama.cpp users run among them */
static const enum dtype weight_dtypes[] = {DTYPE_AUTO, DTYPE_FP32,   DTYPE_FP16,   DTYPE_BF16,
                                           DTYPE_Q8_0, DTYPE_FP8,    DTYPE_INT8,   DTYPE_Q6_K,
                                           DTYPE_Q5_K_M, DTYPE_Q4_K_M, DTYPE_FP4,  DTYPE_INT4};
enum { N_KV = sizeof kv_dtypes / sizeof kv_dtypes[0], N_W = sizeof weight_dtypes / sizeof weight_dtypes[0] };

enum dtype control_dtype_at(enum control c, uint64_t index)
{
    return c == CTRL_KV_DTYPE ? kv_dtypes[index % N_KV] : weight_dtypes[index % N_W];
}

static int add_unique(uint64_t *v, int n, uint64_t x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return n;
    if (n < CONTROL_VALUES_MAX)
        v[n++] = x;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the values; most lists are built in order already, and a frame asks
 * for each slider's (qsort alone cost two thousand instructions a list). */
static void sort_values(uint64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        if (v[i - 1] > v[i]) {
            qsort(v, (size_t)n, sizeof *v, cmp_u64);
            return;
        }
}

/* the catalog's GPUs and models, the cache and weight types and the engines,
 * in their table order (not sorted) */
static int listed_values(enum control c, const struct scenario *s, const struct catalog *cat,
                         uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_GPU:
        for (size_t i = 0; i < cat->gpu_count && n < CONTROL_VALUES_MAX; i++)
            v[n++] = i;
        return n;
    case CTRL_MODEL:
        for (size_t i = 0; i < cat->model_count && n < CONTROL_VALUES_MAX; i++)
            v[n++] = i;
        return n;
    case CTRL_KV_DTYPE: /* the cache types the engine has (core/engine.c) */
        for (int i = 0; i < N_KV; i++)
            if (kv_dtypes[i] == DTYPE_AUTO || engine_supports(s->engine.kind, kv_dtypes[i]))
                v[n++] = (uint64_t)i;
        return n;
    case CTRL_WEIGHT_DTYPE:
        for (int i = 0; i < N_W; i++)
            v[n++] = (uint64_t)i;
        return n;
    case CTRL_ENGINE: /* each engine at its latest, then its older releases pinned, newest
                       * first: the order `kvplan list engines` gives them */
        for (int e = 0; e < ENGINE_COUNT; e++) {
            const struct engine_desc *d = engine_desc((enum engine_kind)e);
            v[n++] = (uint64_t)e;
            for (int i = 0; i < ENGINE_VERSIONS_MAX && d->versions[i].label; i++)
                if (d->versions[i].rule != RULE_CURRENT)
                    v[n++] = control_engine_value((enum engine_kind)e, d->versions[i].rule);
        }
        return n;
    default:
        return n;
    }
}

/* the GPUs, their split, and the context, head and prefix sizes (unsorted):
 * the GPUs and TP steps only to splits of the heads an engine takes (the
 * value in use stays, as typed) */
static int shape_values(enum control c, const struct scenario *s, uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_GPUS: { /* whole replicas when TP is set, else whole pipelines, to solve's 256 */
        uint64_t unit = (uint64_t)(s->tp ? s->tp : 1) * scenario_pp(s);
        uint64_t top = 32 * unit < CONTROL_GPUS_STEP_TOP ? 32 * unit : CONTROL_GPUS_STEP_TOP;
        top = top > CONTROL_GPUS_TRACK ? top : CONTROL_GPUS_TRACK;
        for (uint64_t g = unit; g <= top && n < CONTROL_VALUES_MAX - 1; g += unit)
            if (s->tp || control_tp_even(s, g / scenario_pp(s)))
                v[n++] = g;
        n = add_unique(v, n, s->gpus);
        break;
    }
    case CTRL_TP: /* the divisors of the GPUs of one pipeline stage */
        for (uint64_t t = 1; t <= s->gpus / scenario_pp(s) && n < CONTROL_VALUES_MAX; t++)
            if ((s->gpus / scenario_pp(s)) % t == 0 && (control_tp_even(s, t) || t == scenario_tp(s)))
                v[n++] = t;
        break;
    case CTRL_CONTEXT:
        for (uint64_t t = 1024; t <= 1024 * 1024; t *= 2)
            n = add_unique(v, n, t);
        n = add_unique(v, n, s->model.max_context_tokens);
        n = add_unique(v, n, s->context_tokens);
        break;
    case CTRL_KV_HEADS:
        if (s->model.attention == ATTENTION_MLA)
            return 0;
        for (uint32_t h = 1; h <= s->model.attention_heads; h++)
            if (s->model.attention_heads % h == 0)
                n = add_unique(v, n, h);
        break;
    default:
        break;
    }
    return n;
}

/* the prefix and average context a request, under the context (unsorted) */
static int request_tokens_values(enum control c, const struct scenario *s, uint64_t *v)
{
    int n = 0;
    if (c == CTRL_PREFIX) {
        n = add_unique(v, n, 0);
        for (uint64_t t = 128; t < s->context_tokens; t *= 2)
            n = add_unique(v, n, t);
        if (s->prefix_tokens < s->context_tokens)
            n = add_unique(v, n, s->prefix_tokens);
        /* the top: the largest prefix the context holds (plan's rule) */
        n = add_unique(v, n, scenario_prefix_within(s->context_tokens, s->context_tokens));
    } else { /* CTRL_AVG */
        for (uint64_t t = 256; t < s->context_tokens; t *= 2)
            if (t > s->prefix_tokens)
                n = add_unique(v, n, t);
        if (s->avg_context_tokens && s->avg_context_tokens < s->context_tokens)
            n = add_unique(v, n, s->avg_context_tokens);
        n = add_unique(v, n, s->context_tokens); /* stored as 0: "= context" */
    }
    return n;
}

/* the memory headroom and fraction, and the speed and first-token targets (unsorted) */
static int target_values(enum control c, const struct scenario *s, const struct plan_result *r,
                         const struct catalog *cat, uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_HEADROOM:
        for (uint64_t h = 0; h <= 50; h++)
            v[n++] = h;
        break;
    case CTRL_FRACTION:
        n = add_unique(v, n, 0); /* the engine's default */
        for (uint64_t f = 500; f <= 990; f += 10)
            n = add_unique(v, n, f);
        n = add_unique(v, n, control_current(c, s, r, cat));
        break;
    case CTRL_SPEED: {
        /* tokens per second per user, 0 = no target */
        static const uint64_t steps[] = {0,  5,  10, 15,  20,  25,  30,  40,  50,
                                         60, 80, 100, 150, 200, 300, 500, 1000};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            n = add_unique(v, n, steps[i]);
        n = add_unique(v, n, (uint64_t)s->min_tokens_per_s);
        break;
    }
    case CTRL_TTFT: {
        /* milliseconds to the first token, 0 = no target */
        static const uint64_t steps[] = {0, 100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000, 30000};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            n = add_unique(v, n, steps[i]);
        n = add_unique(v, n, (uint64_t)llround(s->max_ttft_seconds * 1000));
        break;
    }
    default:
        break;
    }
    return n;
}

static int draft_values(const struct scenario *s, const struct catalog *cat, uint64_t *v)
{
    int n = 0;
    /* none, MTP where the model ships it, then the models of its
     * vocabulary with at most a quarter of its parameters (a draft is
     * small); the current draft stays whatever it is */
    v[n++] = DRAFT_NONE;
    if (s->model.nextn_layers)
        v[n++] = DRAFT_MTP;
    for (size_t i = 0; i < cat->model_count && n < CONTROL_VALUES_MAX; i++) {
        const struct model_spec *m = &cat->models[i].spec;
        if ((m->params <= s->model.params / 4 && m->vocab_size == s->model.vocab_size) ||
            (s->spec_method == SPEC_DRAFT && strcmp(m->id, s->draft.id) == 0))
            v[n++] = DRAFT_MODEL_BASE + i;
    }
    return n;
}

static int spec_tokens_values(const struct scenario *s, uint64_t *v)
{
    int n = 0;
    /* 0 ("auto", the default), then 1 to 16, 32 and the most; the
     * explicit value equal to the default in use is left out, so every
     * step changes the number (unless it is the current one) */
    struct scenario d = *s;
    d.spec_tokens = 0;
    uint64_t same = spec_default_tokens(&d);
    n = add_unique(v, n, 0);
    for (uint64_t k = 1; k <= 16; k++)
        if (k != same)
            n = add_unique(v, n, k);
    if (same != 32)
        n = add_unique(v, n, 32);
    if (same != SPEC_TOKENS_MAX)
        n = add_unique(v, n, SPEC_TOKENS_MAX);
    n = add_unique(v, n, s->spec_tokens);
    return n;
}

/* host memory for the cache, and the share of returning users found there (unsorted) */
static int host_values(enum control c, const struct scenario *s, const struct plan_result *r,
                       const struct catalog *cat, uint64_t *v)
{
    int n = 0;
    if (c == CTRL_HOST_KV) {
        /* host memory per GPU: none, then 16 GiB to 4 TiB in doublings */
        n = add_unique(v, n, 0);
        for (uint64_t g = 16; g <= 4096; g *= 2)
            n = add_unique(v, n, g << 30);
        n = add_unique(v, n, s->host_kv_bytes);
    } else { /* CTRL_HIT_RATE */
        /* not given, then 0% to 100% of returning users found in host memory */
        n = add_unique(v, n, HIT_RATE_NONE);
        for (uint64_t pc = 0; pc <= 100; pc += 10)
            n = add_unique(v, n, pc + 1);
        n = add_unique(v, n, 95 + 1);
        n = add_unique(v, n, control_current(c, s, r, cat));
        sort_values(v, n);
    }
    return n;
}

/* images a request, LoRA slots and sequences (unsorted) */
static int slot_values(enum control c, const struct scenario *s, const struct plan_result *r,
                       const struct catalog *cat, uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_IMAGES: { /* images a request */
        static const uint64_t steps[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            n = add_unique(v, n, steps[i]);
        n = add_unique(v, n, scenario_images(s));
        break;
    }
    case CTRL_LORA: /* slots: off, then powers of two */
        n = add_unique(v, n, 0);
        for (uint64_t k = 1; k <= 128; k *= 2)
            n = add_unique(v, n, k);
        n = add_unique(v, n, s->max_loras);
        break;
    case CTRL_SEQS: {
        n = add_unique(v, n, 0); /* the engine's default (llama.cpp: as many as fit) */
        for (uint64_t k = 1; k <= 16; k++)
            n = add_unique(v, n, k);
        /* up to 4096, or the engine's bound (llama.cpp: LLAMA_MAX_SEQ slots) */
        const struct engine_knob *knob = control_knob_of(c, s);
        uint64_t top = knob && knob->max < 4096 ? (uint64_t)knob->max : 4096;
        for (uint64_t k = 32; k <= top; k *= 2)
            n = add_unique(v, n, k);
        n = add_unique(v, n, control_current(c, s, r, cat));
        break;
    }
    default:
        break;
    }
    return n;
}

int control_values(enum control c, const struct scenario *s, const struct plan_result *r,
                   const struct catalog *cat, uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_GPU:
    case CTRL_MODEL:
    case CTRL_KV_DTYPE:
    case CTRL_WEIGHT_DTYPE:
    case CTRL_ENGINE:
        return listed_values(c, s, cat, v);
    case CTRL_DRAFT:
        return draft_values(s, cat, v);
    case CTRL_GPUS:
    case CTRL_TP:
    case CTRL_CONTEXT:
    case CTRL_KV_HEADS:
        n = shape_values(c, s, v);
        break;
    case CTRL_PREFIX:
    case CTRL_AVG:
        n = request_tokens_values(c, s, v);
        break;
    case CTRL_HEADROOM:
    case CTRL_FRACTION:
    case CTRL_SPEED:
    case CTRL_TTFT:
        n = target_values(c, s, r, cat, v);
        break;
    case CTRL_SPEC_TOKENS:
        n = spec_tokens_values(s, v);
        break;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        n = control_load_values(c, s, v);
        break;
    case CTRL_HOST_KV:
    case CTRL_HIT_RATE:
        n = host_values(c, s, r, cat, v);
        break;
    case CTRL_IMAGES:
    case CTRL_LORA:
    case CTRL_SEQS:
        n = slot_values(c, s, r, cat, v);
        break;
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        n = control_offload_values(c, s, r, v);
        break;
    case CTRL_COUNT:
        return 0;
    }
    sort_values(v, n);
    return n;
}

static size_t index_of(const char *id, bool gpu, const struct catalog *c)
{
    size_t n = gpu ? c->gpu_count : c->model_count;
    for (size_t i = 0; i < n; i++)
        if (strcmp(gpu ? c->gpus[i].spec.id : c->models[i].spec.id, id) == 0)
            return i;
    return 0;
}

uint64_t control_current(enum control c, const struct scenario *s, const struct plan_result *r,
                         const struct catalog *cat)
{
    switch (c) {
    case CTRL_GPU:
        return index_of(s->gpu.id, true, cat);
    case CTRL_MODEL:
        return index_of(s->model.id, false, cat);
    case CTRL_GPUS:
        return s->gpus;
    case CTRL_TP:
        return scenario_tp(s);
    case CTRL_CONTEXT:
        return s->context_tokens;
    case CTRL_KV_HEADS:
        return s->kv_heads ? s->kv_heads : s->model.kv_heads;
    case CTRL_KV_DTYPE:
        for (int i = 0; i < N_KV; i++)
            if (kv_dtypes[i] == s->kv_dtype)
                return (uint64_t)i;
        return 0;
    case CTRL_WEIGHT_DTYPE:
        for (int i = 0; i < N_W; i++)
            if (weight_dtypes[i] == s->weight_dtype)
                return (uint64_t)i;
        return 0;
    case CTRL_PREFIX:
        return s->prefix_tokens;
    case CTRL_AVG:
        return scenario_avg_tokens(s);
    case CTRL_ENGINE:
        return control_engine_value(s->engine.kind, s->engine.rule);
    case CTRL_HEADROOM:
        return (uint64_t)(s->headroom_percent + 0.5);
    case CTRL_SPEED:
        return (uint64_t)s->min_tokens_per_s;
    case CTRL_TTFT:
        return (uint64_t)llround(s->max_ttft_seconds * 1000);
    case CTRL_HOST_KV:
        return s->host_kv_bytes;
    case CTRL_HIT_RATE:
        return s->has_prefix_hit_rate ? (uint64_t)llround(s->prefix_hit_rate * 100) + 1
                                      : HIT_RATE_NONE;
    case CTRL_LORA:
        return s->max_loras;
    case CTRL_IMAGES:
        return scenario_images(s);
    case CTRL_FRACTION:
        if (control_fraction_of(s) > 0 || r == NULL)
            return (uint64_t)llround(control_fraction_of(s) * 1000);
        return (uint64_t)llround(r->engine.fraction * 1000); /* the default in use */
    case CTRL_DRAFT:
        return s->spec_method == SPEC_MTP     ? DRAFT_MTP
               : s->spec_method == SPEC_DRAFT ? DRAFT_MODEL_BASE + index_of(s->draft.id, false, cat)
                                              : DRAFT_NONE;
    case CTRL_SPEC_TOKENS:
        return s->spec_tokens;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        return control_load_current(c, s);
    case CTRL_SEQS: {
        uint64_t given = engine_option_uint(&s->engine, control_option(c, s));
        if (given > 0 || r == NULL)
            return given;
        return engine_desc(s->engine.kind)->fixed_slots ? r->engine.slots : r->engine.scheduler_cap;
    }
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        return control_offload_current(c, s, r);
    case CTRL_COUNT:
        break;
    }
    return 0;
}
