/* controls_load: the layout past one tensor-parallel group (pipeline stages,
 * the engine's expert parallel or DP attention) and the load (users decoding
 * at once, the prompt timed to its first token), which the command line had
 * alone: their values, steps, text and defaults. Which engine has which
 * knob is its descriptor's word (core/engine_desc.h). */
#include "controls.h"

#include <stdio.h>
#include <string.h>

bool control_tp_even(const struct scenario *s, uint64_t tp)
{
    return scenario_tp_even(s, (uint32_t)tp);
}

/* The track's top is a count of GPUs alone, never of the split (TP x
 * PP): 16 GPUs sit at one place however they are split; the steps past
 * it (whole replicas of a wide split) move the top with the count. */
uint64_t control_gpus_top(const struct scenario *s)
{
    return s->gpus > CONTROL_GPUS_TRACK ? s->gpus : CONTROL_GPUS_TRACK;
}

bool control_is_load(enum control c)
{
    return c == CTRL_PP || c == CTRL_EXPERTS || c == CTRL_CONCURRENCY || c == CTRL_PROMPT ||
           c == CTRL_OUTPUT;
}

/* The engine's own knob of the Experts row: DP attention (SGLang) before
 * routed experts over the data-parallel group (vLLM V1), or none. */
static enum scenario_field experts_knob(const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->dp_attention)
        return SF_DP_ATTENTION;
    if (e->experts_over_dp && e->experts_over_dp(s->engine.rule) && s->model.expert_params > 0)
        return SF_EXPERT_PARALLEL;
    return SF_COUNT;
}

/* An engine with DP attention that also places whole experts over the TP
 * ranks (SGLang's --ep-size), for a MoE model: the Experts row holds both,
 * bit 0 DP attention and bit 1 expert parallel. */
static bool experts_both(const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    return e->dp_attention && e->experts_over_tp && s->model.expert_params > 0;
}

static const char *const both_names[] = {"off", "DP attn", "EP", "DP attn + EP"};

bool control_load_visible(enum control c, const struct scenario *s)
{
    if (c == CTRL_PP) /* an engine that splits layers over every GPU has no stages to set */
        return !engine_desc(s->engine.kind)->splits_layers;
    if (c == CTRL_EXPERTS)
        return experts_knob(s) != SF_COUNT;
    return true;
}

const char *control_load_label(enum control c, const struct scenario *s)
{
    if (c == CTRL_EXPERTS)
        return experts_both(s)                      ? "DP attn/EP"
               : experts_knob(s) == SF_DP_ATTENTION ? "DP attn"
                                                    : "Expert par";
    return c == CTRL_PP            ? "Stages"
           : c == CTRL_CONCURRENCY ? "At once"
           : c == CTRL_OUTPUT      ? "Output"
                                   : "Prompt";
}

/* Whether a stage of `per` GPUs runs: the TP given, if it divides them and
 * splits the heads, else some TP that does (70B on 12 GPUs at one stage:
 * three replicas of TP 4) */
static bool stage_splits(const struct scenario *s, uint32_t per)
{
    if (s->tp)
        return per % s->tp == 0 && control_tp_even(s, s->tp);
    for (uint32_t t = per; t >= 1; t--)
        if (per % t == 0 && control_tp_even(s, t))
            return true;
    return false;
}

int control_load_values(enum control c, const struct scenario *s, uint64_t *v)
{
    int n = 0;
    switch (c) {
    case CTRL_PP: /* the divisors of the GPUs whose stages some TP splits the heads of */
        for (uint64_t p = 1; p <= s->gpus && n < CONTROL_VALUES_MAX; p++)
            if (s->gpus % p == 0 && (p == scenario_pp(s) || stage_splits(s, (uint32_t)(s->gpus / p))))
                v[n++] = p;
        break;
    case CTRL_EXPERTS:
        for (uint64_t k = 0; k < (experts_both(s) ? 4u : 2u); k++)
            v[n++] = k;
        break;
    case CTRL_CONCURRENCY: /* 0: as many as fit */
        v[n++] = 0;
        for (uint64_t u = 1; u <= 65536; u *= 2)
            v[n++] = u;
        if (s->concurrency > 65536)
            v[n++] = s->concurrency;
        break;
    case CTRL_PROMPT: /* 0: the whole context */
        v[n++] = 0;
        for (uint64_t t = 128; t < s->context_tokens && n < CONTROL_VALUES_MAX - 1; t *= 2)
            v[n++] = t;
        if (s->prompt_tokens && (s->prompt_tokens & (s->prompt_tokens - 1)))
            v[n++] = s->prompt_tokens;
        break;
    case CTRL_OUTPUT: { /* 0: the step alone; then what the context leaves after the prompt */
        uint64_t room = s->prompt_tokens && s->prompt_tokens < s->context_tokens
                            ? s->context_tokens - s->prompt_tokens : 0;
        v[n++] = 0;
        for (uint64_t t = 2; t <= room && n < CONTROL_VALUES_MAX - 1; t *= 2)
            v[n++] = t;
        if (s->output_tokens > 1 && (s->output_tokens & (s->output_tokens - 1)))
            v[n++] = s->output_tokens;
        break;
    }
    default:
        break;
    }
    return n;
}

uint64_t control_load_current(enum control c, const struct scenario *s)
{
    switch (c) {
    case CTRL_PP:
        return scenario_pp(s);
    case CTRL_EXPERTS:
        if (experts_both(s))
            return (uint64_t)s->dp_attention | (uint64_t)s->expert_parallel << 1;
        return experts_knob(s) == SF_DP_ATTENTION ? s->dp_attention : s->expert_parallel;
    case CTRL_CONCURRENCY:
        return s->concurrency;
    case CTRL_PROMPT:
        return s->prompt_tokens;
    case CTRL_OUTPUT:
        return s->output_tokens;
    default:
        return 0;
    }
}

void control_load_set(enum control c, struct scenario *s, uint64_t value)
{
    switch (c) {
    case CTRL_PP:
        s->pp = value > 1 ? (uint32_t)value : 0; /* 0 (a reset): the default */
        if (value == 1 && scenario_pp(s) > 1)
            s->pp = 1; /* one stage where the default adds stages: as asked */
        if (s->tp && s->gpus % (s->tp * scenario_pp(s)) != 0)
            s->tp = 0; /* the split no longer divides: the default (scenario_tp) */
        break;
    case CTRL_EXPERTS:
        if (experts_both(s)) {
            s->dp_attention = (value & 1) != 0;
            s->expert_parallel = (value & 2) != 0;
        } else if (experts_knob(s) == SF_DP_ATTENTION)
            s->dp_attention = value != 0;
        else if (experts_knob(s) == SF_EXPERT_PARALLEL)
            s->expert_parallel = value != 0;
        break;
    case CTRL_CONCURRENCY:
        s->concurrency = value;
        break;
    case CTRL_PROMPT:
        s->prompt_tokens = value >= s->context_tokens ? 0 : value;
        if (s->prompt_tokens == 0 || s->prompt_tokens + s->output_tokens > s->context_tokens)
            s->output_tokens = 0; /* no room after the prompt: the step alone */
        break;
    case CTRL_OUTPUT:
        s->output_tokens = value == 1 ? 2 : value;
        break;
    default:
        break;
    }
}

void control_load_reset(enum control c, struct scenario *s)
{
    if (c == CTRL_EXPERTS)
        s->dp_attention = s->expert_parallel = false;
    else
        control_load_set(c, s, 0);
}

void control_load_format(enum control c, const struct scenario *s, char *buf, size_t size)
{
    char t[32];
    switch (c) {
    case CTRL_PP:
        snprintf(buf, size, scenario_pp(s) > 1 ? "%u x TP %u" : "%u", scenario_pp(s),
                 scenario_tp(s));
        break;
    case CTRL_EXPERTS:
        if (experts_both(s))
            snprintf(buf, size, "%s", both_names[control_load_current(c, s) & 3]);
        else
            snprintf(buf, size, "%s", control_load_current(c, s) ? "on" : "off");
        break;
    case CTRL_CONCURRENCY:
        if (s->concurrency)
            snprintf(buf, size, "%llu user%s", (unsigned long long)s->concurrency,
                     s->concurrency == 1 ? "" : "s");
        else
            snprintf(buf, size, "all that fit");
        break;
    case CTRL_PROMPT:
        if (s->prompt_tokens)
            snprintf(buf, size, "%s", units_format_tokens_short(s->prompt_tokens, t, sizeof t));
        else
            snprintf(buf, size, "= context");
        break;
    case CTRL_OUTPUT: /* --output-len: the closed loop's decode */
        if (s->output_tokens)
            snprintf(buf, size, "%s, loop", units_format_tokens_short(s->output_tokens, t, sizeof t));
        else
            snprintf(buf, size, "step alone");
        break;
    default:
        buf[0] = '\0';
        break;
    }
}

bool control_on_off(const char *text, bool *on, struct diag *in)
{
    *on = strcmp(text, "on") == 0 || strcmp(text, "1") == 0;
    if (!*on && strcmp(text, "off") != 0 && strcmp(text, "0") != 0)
        return diag_fail(in, "'%s' is not on or off", text);
    return true;
}

bool control_load_parse(enum control c, struct scenario *s, const char *text, struct diag *in)
{
    uint64_t n = 0;
    bool on = false;
    if (c == CTRL_EXPERTS && experts_both(s)) {
        for (uint64_t k = 0; k < 4; k++)
            if (strcmp(text, both_names[k]) == 0 || (text[0] == '0' + (int)k && !text[1])) {
                control_load_set(c, s, k);
                return true;
            }
        return diag_fail(in, "'%s' is not off, DP attn, EP or DP attn + EP (0 to 3)", text);
    }
    if (c == CTRL_EXPERTS) {
        if (!control_on_off(text, &on, in))
            return false;
        control_load_set(c, s, on);
        return true;
    }
    bool ok = c == CTRL_PROMPT || c == CTRL_OUTPUT ? units_parse_tokens(text, true, &n, in)
              : c == CTRL_PP   ? units_parse_count(text, 1, GPUS_MAX, &n, in)
                               : units_parse_count(text, 0, 100000000, &n, in);
    if (!ok)
        return false;
    if (c == CTRL_PROMPT)
        s->prompt_tokens = n; /* one longer than the context: refused, said */
    else if (c == CTRL_OUTPUT)
        s->output_tokens = n; /* 1, or past the context: refused, said */
    else
        control_load_set(c, s, n);
    return true;
}
