/* controls: the table of the planner's controls (controls.h): each one's
 * label, the scenario field it sets and its kind, and when it is shown.
 * The values it steps through are in controls_values.c. */
#include "controls.h"

const char *const control_field_names[SF_COUNT] = {
    [SF_GPU] = "GPU",
    [SF_MODEL] = "Model",
    [SF_GPUS] = "GPUs",
    [SF_TP] = "TP",
    [SF_ENGINE] = "Engine",
    [SF_CONTEXT] = "Context",
    [SF_PREFIX] = "Prefix",
    [SF_AVG] = "In use",
    [SF_BLOCK] = "Block size",
    [SF_HEADROOM] = "Headroom",
    [SF_KV_HEADS] = "KV heads",
    [SF_KV_DTYPE] = "KV cache",
    [SF_WEIGHT_DTYPE] = "Weights",
    [SF_VRAM] = "Memory (--vram)",
    [SF_WEIGHTS] = "Weights size (--weights)",
    [SF_PRICE] = "Price (--price)",
    [SF_GPU_MEMORY_UTILIZATION] = "GPU util",
    [SF_MEM_FRACTION_STATIC] = "Mem static",
    [SF_FREE_GPU_MEMORY_FRACTION] = "Free frac",
    [SF_PARALLEL] = "Slots -np",
    [SF_MAX_NUM_SEQS] = "Max seqs",
    [SF_MAX_NUM_BATCHED_TOKENS] = "Batched tokens",
    [SF_LOGGED] = "Logged memory",
    [SF_CONCURRENCY] = "Concurrency",
    [SF_PROMPT] = "Prompt",
    [SF_OUTPUT] = "Output",
    [SF_MIN_TOK_S] = "Speed",
    [SF_MAX_TTFT] = "First token",
    [SF_MBU] = "MBU",
    [SF_MFU] = "MFU",
    [SF_PP] = "Pipeline stages",
    [SF_DP_ATTENTION] = "DP attention",
    [SF_EXPERT_PARALLEL] = "Expert parallel",
    [SF_SPEC_METHOD] = "Draft",
    [SF_DRAFT_MODEL] = "Draft",
    [SF_SPEC_TOKENS] = "Spec tokens",
    [SF_HOST_KV] = "Host KV",
    [SF_PREFIX_HIT_RATE] = "Hit rate",
    [SF_MAX_LORAS] = "LoRA",
    [SF_MAX_LORA_RANK] = "LoRA rank",
    [SF_LORA_TARGETS] = "LoRA modules",
    [SF_IMAGES] = "Images",
    [SF_IMAGE_TOKENS] = "Image tokens",
    [SF_STEP_OVERHEAD] = "Step overhead (--step-overhead)",
    [SF_N_GPU_LAYERS] = "GPU layers (-ngl)",
    [SF_N_CPU_MOE] = "CPU MoE layers (--n-cpu-moe)",
    [SF_NO_KV_OFFLOAD] = "KV in host (--no-kv-offload)",
    [SF_UBATCH] = "Micro-batch (--ubatch)",
    [SF_HOST_MEMORY] = "Host memory (--host-memory)",
    [SF_HOST_BANDWIDTH] = "Host bandwidth (--host-bandwidth)",
    [SF_WIRED_LIMIT] = "Wired limit (--wired-limit-mb)",
    [SF_ALLOW_LONG_CONTEXT] = "Long context (--allow-long-context)",
};

static const struct {
    const char *label;
    enum scenario_field field;
    enum control_kind kind;
} table[CTRL_COUNT] = {
    [CTRL_GPU] = {"GPU", SF_GPU, CK_PICKER},
    [CTRL_GPUS] = {"GPUs", SF_GPUS, CK_SLIDER},
    [CTRL_TP] = {"TP", SF_TP, CK_SLIDER},
    [CTRL_PP] = {"Stages", SF_PP, CK_SLIDER},
    [CTRL_EXPERTS] = {"Experts", SF_EXPERT_PARALLEL, CK_LIST},
    [CTRL_MODEL] = {"Model", SF_MODEL, CK_PICKER},
    [CTRL_CONTEXT] = {"Context", SF_CONTEXT, CK_SLIDER},
    [CTRL_KV_HEADS] = {"KV heads", SF_KV_HEADS, CK_SLIDER},
    [CTRL_KV_DTYPE] = {"KV cache", SF_KV_DTYPE, CK_LIST},
    [CTRL_WEIGHT_DTYPE] = {"Weights", SF_WEIGHT_DTYPE, CK_LIST},
    [CTRL_PREFIX] = {"Prefix", SF_PREFIX, CK_SLIDER},
    [CTRL_AVG] = {"In use", SF_AVG, CK_SLIDER},
    [CTRL_ENGINE] = {"Engine", SF_ENGINE, CK_LIST},
    [CTRL_HEADROOM] = {"Headroom", SF_HEADROOM, CK_SLIDER},
    [CTRL_FRACTION] = {"Mem frac", SF_GPU_MEMORY_UTILIZATION, CK_SLIDER},
    [CTRL_SEQS] = {"Max seqs", SF_MAX_NUM_SEQS, CK_SLIDER},
    [CTRL_NGL] = {"GPU layers", SF_N_GPU_LAYERS, CK_SLIDER},
    [CTRL_CPU_MOE] = {"CPU MoE", SF_N_CPU_MOE, CK_SLIDER},
    [CTRL_KV_HOST] = {"KV in host", SF_NO_KV_OFFLOAD, CK_LIST},
    [CTRL_SPEED] = {"Speed", SF_MIN_TOK_S, CK_SLIDER},
    [CTRL_TTFT] = {"First token", SF_MAX_TTFT, CK_SLIDER},
    [CTRL_CONCURRENCY] = {"At once", SF_CONCURRENCY, CK_SLIDER},
    [CTRL_PROMPT] = {"Prompt", SF_PROMPT, CK_SLIDER},
    [CTRL_OUTPUT] = {"Output", SF_OUTPUT, CK_SLIDER},
    [CTRL_DRAFT] = {"Draft", SF_DRAFT_MODEL, CK_LIST},
    [CTRL_SPEC_TOKENS] = {"Spec tokens", SF_SPEC_TOKENS, CK_SLIDER},
    [CTRL_HOST_KV] = {"Host KV", SF_HOST_KV, CK_SLIDER},
    [CTRL_HIT_RATE] = {"Hit rate", SF_PREFIX_HIT_RATE, CK_SLIDER},
    [CTRL_LORA] = {"LoRA", SF_MAX_LORAS, CK_SLIDER},
    [CTRL_IMAGES] = {"Images", SF_IMAGES, CK_SLIDER},
};

enum control_kind control_kind(enum control c)
{
    return c >= 0 && c < CTRL_COUNT ? table[c].kind : CK_LIST;
}

/* The engine's knob in the fraction or the sequence row, or NULL. */
const struct engine_knob *control_knob_of(enum control c, const struct scenario *s)
{
    return engine_knob_role(engine_desc(s->engine.kind),
                            c == CTRL_FRACTION ? KNOB_FRACTION
                            : c == CTRL_SEQS   ? KNOB_SEQS
                                               : KNOB_OTHER);
}

const struct engine_option *control_option(enum control c, const struct scenario *s)
{
    const struct engine_knob *k = control_knob_of(c, s);
    const struct engine_option *o = k ? engine_option_at(k->offset) : NULL;
    return o ? o : engine_option_of(table[c].field);
}

const char *control_label(enum control c, const struct scenario *s)
{
    if (c < 0 || c >= CTRL_COUNT)
        return "";
    if (control_is_load(c))
        return control_load_label(c, s);
    if (c == CTRL_SEQS || c == CTRL_FRACTION) {
        const struct engine_knob *k = control_knob_of(c, s);
        return k ? k->label : control_field_names[table[c].field];
    }
    return table[c].label;
}

int control_of_field(enum scenario_field f)
{
    for (int c = 0; c < CTRL_COUNT; c++)
        if (table[c].field == f)
            return c;
    /* another engine's knob in the same row (SGLang's static fraction, llama.cpp's slots) */
    const struct engine_option *o = engine_option_of(f);
    const struct engine_knob *k = o ? engine_knob_any(o->offset) : NULL;
    return k && k->role == KNOB_FRACTION ? CTRL_FRACTION : k && k->role == KNOB_SEQS ? CTRL_SEQS : -1;
}

bool control_visible(enum control c, const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (c == CTRL_FRACTION || c == CTRL_SEQS)
        return control_knob_of(c, s) != NULL;
    if (control_is_load(c))
        return control_load_visible(c, s);
    if (control_is_offload(c))
        return control_offload_visible(c, s);
    /* an engine budgets by its own rule: the headroom slider gives its row
     * to the engine's knobs (CONTROLS_VISIBLE_MAX rows at most) */
    if (c == CTRL_HEADROOM)
        return !e->server;
    if (c == CTRL_SPEC_TOKENS)
        return s->spec_method != SPEC_NONE;
    if (c == CTRL_HIT_RATE)
        return s->host_kv_bytes > 0;
    /* LoRA slots where they are modelled (core/lora.h): llama.cpp keeps none */
    if (c == CTRL_LORA)
        return e->lora_none == NULL && s->model.attention != ATTENTION_MLA &&
               s->model.state_layers == 0;
    /* images for a model whose config sizes them, or once given */
    if (c == CTRL_IMAGES)
        return s->model.image_tokens_per_image > 0 || s->images > 0 || s->image_tokens > 0;
    return c >= 0 && c < CTRL_COUNT;
}

/* thousandths of a memory fraction, and its default */
double control_fraction_of(const struct scenario *s)
{
    return engine_option_value(&s->engine, control_option(CTRL_FRACTION, s));
}
