/* controls_set: a control's value written into the scenario (a step, a
 * typed value or a reset), and the knobs that follow a change of engine or
 * model. controls.c lists the values; controls_text.c reads and writes text. */
#include "controls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void control_set_fraction(struct scenario *s, double f)
{
    engine_option_set(&s->engine, control_option(CTRL_FRACTION, s), f);
}

void control_set_seqs(struct scenario *s, uint32_t n)
{
    engine_option_set(&s->engine, control_option(CTRL_SEQS, s), n);
}

void control_set_context(struct scenario *s, uint64_t tokens)
{
    s->context_tokens = tokens; /* the prefix: the planner holds it (planner_apply) */
    if (s->avg_context_tokens >= tokens)
        s->avg_context_tokens = 0;
}

/* The stages of the layout in use stay: TP 2 of 12 GPUs as TP 4 x PP 3 is
 * TP 2 x PP 3 (two replicas), not six replicas of TP 2. */
static void set_tp(struct scenario *s, uint32_t value)
{
    uint32_t pp = scenario_pp(s);
    s->tp = value >= s->gpus / pp ? 0 : value;
    if (s->tp && s->pp == 0 && pp > 1)
        s->pp = pp;
}

void control_set_gpus(struct scenario *s, uint32_t gpus)
{
    s->gpus = gpus;
    if (s->tp && gpus % (s->tp * scenario_pp(s)) != 0)
        s->tp = 0; /* the split no longer divides: the default (scenario_tp) */
}

/* The engine (and its version) at a step of the Engine control: the knobs
 * and layouts that belong to one engine go with it. */
static void control_set_engine(struct scenario *s, uint64_t value)
{
    scenario_set_engine(s, (enum engine_kind)(value % ENGINE_COUNT),
                        (enum engine_rule)(value / ENGINE_COUNT));
}

void control_set(enum control c, struct scenario *s, const struct catalog *cat, uint64_t value)
{
    switch (c) {
    case CTRL_GPU:
        if (value < cat->gpu_count)
            s->gpu = cat->gpus[value].spec;
        break;
    case CTRL_MODEL:
        if (value < cat->model_count) {
            s->model = cat->models[value].spec;
            s->kv_heads = 0; /* a new model brings its own heads */
            if (s->spec_method == SPEC_MTP && s->model.nextn_layers == 0)
                control_set_draft(s, cat, DRAFT_NONE);
        }
        break;
    case CTRL_GPUS:
        control_set_gpus(s, (uint32_t)value);
        break;
    case CTRL_TP:
        set_tp(s, (uint32_t)value);
        break;
    case CTRL_CONTEXT:
        control_set_context(s, value);
        break;
    case CTRL_KV_HEADS:
        s->kv_heads = value == s->model.kv_heads ? 0 : (uint32_t)value;
        break;
    case CTRL_KV_DTYPE:
        s->kv_dtype = control_dtype_at(CTRL_KV_DTYPE, value);
        break;
    case CTRL_WEIGHT_DTYPE:
        s->weight_dtype = control_dtype_at(CTRL_WEIGHT_DTYPE, value);
        break;
    case CTRL_PREFIX:
        s->prefix_tokens = value;
        if (s->avg_context_tokens && s->avg_context_tokens <= value)
            s->avg_context_tokens = 0;
        break;
    case CTRL_AVG:
        s->avg_context_tokens = value >= s->context_tokens ? 0 : value;
        break;
    case CTRL_ENGINE:
        control_set_engine(s, value);
        break;
    case CTRL_HEADROOM:
        s->headroom_percent = (double)value;
        break;
    case CTRL_FRACTION:
        control_set_fraction(s, (double)value / 1000.0);
        break;
    case CTRL_SPEED:
        s->min_tokens_per_s = (double)value;
        break;
    case CTRL_TTFT:
        s->max_ttft_seconds = (double)value / 1000.0;
        break;
    case CTRL_HOST_KV:
        s->host_kv_bytes = value;
        break;
    case CTRL_HIT_RATE:
        s->has_prefix_hit_rate = value != HIT_RATE_NONE;
        s->prefix_hit_rate = value != HIT_RATE_NONE ? (double)(value - 1) / 100.0 : 0;
        break;
    case CTRL_SEQS:
        control_set_seqs(s, (uint32_t)value);
        break;
    case CTRL_DRAFT:
        control_set_draft(s, cat, value);
        break;
    case CTRL_SPEC_TOKENS:
        s->spec_tokens = s->spec_method == SPEC_NONE ? 0 : (uint32_t)value;
        break;
    case CTRL_LORA:
        s->max_loras = (uint32_t)value;
        break;
    case CTRL_IMAGES:
        s->images = (uint32_t)value;
        if (value == 0)
            s->image_tokens = 0;
        break;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        control_load_set(c, s, value);
        break;
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        control_offload_set(c, s, value);
        break;
    case CTRL_COUNT:
        break;
    }
    /* a step past the model's longest context, or to a model or an engine
     * that refuses the context held (vLLM, SGLang: scenario_context_ceiling),
     * stops at the model's longest; a context typed past it is refused */
    uint64_t top = scenario_context_ceiling(s);
    if (top && s->context_tokens > top && (c == CTRL_CONTEXT || c == CTRL_MODEL || c == CTRL_ENGINE))
        control_set_context(s, top);
    control_fit_knobs(s);
}

void control_fit_knobs(struct scenario *s)
{
    /* slots go where the engine or the model has none to keep (core/lora.h) */
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->lora_none || s->model.attention == ATTENTION_MLA || s->model.state_layers > 0)
        s->max_loras = 0;
    if (s->model.experts > 0 && (s->lora_targets & LORA_MLP))
        s->lora_targets = 0;
    if (s->max_loras == 0)
        s->max_lora_rank = 0, s->lora_targets = 0;
    if (s->images && scenario_tokens_per_image(s) == 0)
        s->images = 0; /* a model without a size for them */
    control_offload_fit(s); /* llama.cpp's placement, where the engine and model take it */
    /* a cache type the engine has no kernels for goes back to the model's */
    if (s->kv_dtype != DTYPE_AUTO && !engine_supports(s->engine.kind, s->kv_dtype))
        s->kv_dtype = DTYPE_AUTO;
    /* a block the engine (at its release, for this model) does not start
     * with goes back to kvplan's default, the engine's own */
    char why[320];
    if (scenario_block_refusal(s, why, sizeof why)) {
        s->block_tokens = DEFAULT_BLOCK_TOKENS;
        s->block_given = false;
    }
    if (!e->v_dtype) /* a V type of its own only where the engine has one */
        s->engine.v_dtype = DTYPE_AUTO;
    /* what the engine has no setting for (Ollama: one server over every GPU,
     * no draft of one's own, only the GPU layers placed by hand) */
    if (e->refuses_tp)
        s->tp = 0;
    if (e->refuses_draft && s->spec_method == SPEC_DRAFT) {
        memset(&s->draft, 0, sizeof s->draft);
        s->spec_method = SPEC_NONE;
        s->spec_tokens = 0;
    }
    if (e->refuses_offload) {
        s->offload.n_cpu_moe_given = s->offload.no_kv_offload = false;
        s->offload.n_cpu_moe = 0;
    }
}

void control_set_draft(struct scenario *s, const struct catalog *cat, uint64_t value)
{
    memset(&s->draft, 0, sizeof s->draft);
    if (value == DRAFT_MTP && s->model.nextn_layers) {
        s->spec_method = SPEC_MTP;
    } else if (value >= DRAFT_MODEL_BASE && value - DRAFT_MODEL_BASE < cat->model_count) {
        s->spec_method = SPEC_DRAFT;
        s->draft = cat->models[value - DRAFT_MODEL_BASE].spec;
    } else {
        s->spec_method = SPEC_NONE;
        s->spec_tokens = 0;
    }
}

void control_reset(enum control c, struct scenario *s)
{
    switch (c) {
    case CTRL_GPUS:
        s->gpus = 1;
        s->tp = 0;
        break;
    case CTRL_TP:
        s->tp = 0;
        break;
    case CTRL_CONTEXT:
        control_set_context(s, s->model.max_context_tokens < 8192 ? s->model.max_context_tokens : 8192);
        break;
    case CTRL_KV_HEADS:
        s->kv_heads = 0;
        break;
    case CTRL_KV_DTYPE:
        s->kv_dtype = DTYPE_AUTO;
        break;
    case CTRL_WEIGHT_DTYPE:
        s->weight_dtype = DTYPE_AUTO;
        break;
    case CTRL_PREFIX:
        s->prefix_tokens = 0;
        break;
    case CTRL_AVG:
        s->avg_context_tokens = 0;
        break;
    case CTRL_ENGINE:
        s->engine.kind = ENGINE_GENERIC;
        s->engine.rule = RULE_CURRENT;
        break;
    case CTRL_HEADROOM:
        s->headroom_percent = 10;
        break;
    case CTRL_FRACTION:
        control_set_fraction(s, 0);
        break;
    case CTRL_SEQS:
        control_set_seqs(s, 0);
        break;
    case CTRL_SPEED:
        s->min_tokens_per_s = 0;
        break;
    case CTRL_TTFT:
        s->max_ttft_seconds = 0;
        break;
    case CTRL_DRAFT:
        s->spec_method = SPEC_NONE;
        memset(&s->draft, 0, sizeof s->draft);
        s->spec_tokens = 0;
        break;
    case CTRL_SPEC_TOKENS:
        s->spec_tokens = 0;
        break;
    case CTRL_HOST_KV:
        s->host_kv_bytes = 0;
        break;
    case CTRL_HIT_RATE:
        s->has_prefix_hit_rate = false;
        s->prefix_hit_rate = 0;
        break;
    case CTRL_LORA:
        s->max_loras = 0;
        control_fit_knobs(s);
        break;
    case CTRL_IMAGES:
        s->images = 0;
        s->image_tokens = 0;
        break;
    case CTRL_PP:
    case CTRL_EXPERTS:
    case CTRL_CONCURRENCY:
    case CTRL_PROMPT:
    case CTRL_OUTPUT:
        control_load_reset(c, s);
        break;
    case CTRL_NGL:
    case CTRL_CPU_MOE:
    case CTRL_KV_HOST:
        control_offload_reset(c, s);
        break;
    default:
        break;
    }
}
