/* controls: the planner's controls as one table. Each control says how it
 * is labelled, which scenario field it sets (so an error names it), when it
 * is shown or dimmed, the values it steps through, and how a typed value is
 * read. The planner, the views and the help all read this table. */
#ifndef KVPLAN_APP_CONTROLS_H
#define KVPLAN_APP_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine_desc.h"
#include "core/plan.h"
#include "io/catalog.h"

enum control {
    CTRL_GPU,
    CTRL_GPUS,
    CTRL_TP,
    CTRL_PP,       /* pipeline stages of a replica (not with an engine that splits layers) */
    CTRL_EXPERTS,  /* the engine's DP attention (SGLang) or expert parallel (vLLM V1, MoE) */
    CTRL_MODEL,
    CTRL_CONTEXT,
    CTRL_KV_HEADS,
    CTRL_KV_DTYPE,
    CTRL_WEIGHT_DTYPE,
    CTRL_PREFIX,
    CTRL_AVG,
    CTRL_ENGINE,
    CTRL_HEADROOM,
    CTRL_FRACTION, /* vLLM utilisation, SGLang static fraction, TRT-LLM free fraction */
    CTRL_SEQS,     /* vLLM max-num-seqs, SGLang max-running-requests, TRT-LLM batch, llama.cpp -np */
    CTRL_NGL,      /* llama.cpp -ngl: 0 = auto (the fit's), else the count + 1 */
    CTRL_CPU_MOE,  /* llama.cpp --n-cpu-moe (a MoE model): 0 = auto, else the count + 1 */
    CTRL_KV_HOST,  /* llama.cpp --no-kv-offload: the cache in host memory, off or on */
    CTRL_SPEED,    /* the service level: tokens per second each user keeps */
    CTRL_TTFT,     /* the service level: the first token within this time (milliseconds) */
    CTRL_CONCURRENCY, /* users decoding at once, all replicas; 0 = as many as fit */
    CTRL_PROMPT,   /* the prompt timed to its first token; 0 = the context */
    CTRL_OUTPUT,   /* tokens a request generates: the closed loop's decode; 0 = the step alone */
    CTRL_DRAFT,    /* speculative decoding: none, the model's MTP layers, or a draft model */
    CTRL_SPEC_TOKENS, /* speculative tokens per step (with a draft only) */
    CTRL_HOST_KV,  /* the host memory tier: bytes of host memory per GPU, 0 = none */
    CTRL_HIT_RATE, /* with a host tier: the share of returning users found there; values are
                    * percent + 1, 0 = not given */
    CTRL_LORA,     /* LoRA slots (Left/Right) at a rank (typed: "8x64"); vLLM and SGLang */
    CTRL_IMAGES,   /* images a request (Left/Right) of a size (typed: "2x576"); vision models */
    CTRL_COUNT
};

/* The most controls shown at once: the headroom (generic rule) and the
 * engine's fraction and sequence knobs never appear together (LoRA shows
 * only with an engine that keeps slots, which has no headroom row). */
enum { CONTROLS_VISIBLE_MAX = CTRL_COUNT - 1 };

/* The hit rate control's value: 0 = not given, else percent + 1. */
enum { HIT_RATE_NONE = 0 };

/* Draft control values: none, MTP, then 2 + a catalogue model's index. */
enum { DRAFT_NONE = 0, DRAFT_MTP = 1, DRAFT_MODEL_BASE = 2 };

enum control_kind {
    CK_PICKER, /* GPU, Model: a searchable list */
    CK_LIST,   /* words (precisions, engines): arrows beside the value */
    CK_SLIDER  /* numbers: a track and a knob */
};

enum { CONTROL_VALUES_MAX = 128 };
enum { CONTROL_GPUS_STEP_TOP = 256 }; /* the most GPUs a step reaches, as solve searches */
enum { CONTROL_GPUS_TRACK = 64 }; /* the GPUs' track: 1 to 64, or to the count past it */

/* How the planner names each scenario field in messages. */
extern const char *const control_field_names[SF_COUNT];

enum control_kind control_kind(enum control c);

/* "Context", or for the engine knobs the engine's own word ("Max seqs"). */
const char *control_label(enum control c, const struct scenario *s);

/* Shown at all for this scenario (engine knobs only with their engine). */
bool control_visible(enum control c, const struct scenario *s);

/* Why the control has no effect now ("vllm budgets by its own rule"), or NULL. */
const char *control_dim_reason(enum control c, const struct scenario *s);

/* The values the control steps through, ascending; returns the count. r is
 * the scenario's plan: an engine knob left to its default steps from the
 * value the engine uses (r may be NULL elsewhere). */
int control_values(enum control c, const struct scenario *s, const struct plan_result *r,
                   const struct catalog *cat, uint64_t *v);

/* The top of the GPUs control's track, of the count alone: the same place
 * for the same count whatever the split (CONTROL_GPUS_TRACK, or the count
 * when more). */
uint64_t control_gpus_top(const struct scenario *s);

/* The current value in control_values' terms (an engine default: the value in use). */
uint64_t control_current(enum control c, const struct scenario *s, const struct plan_result *r,
                         const struct catalog *cat);

/* The Engine control's value of an engine at a version: each engine at its
 * latest first (its kind), then each older version pinned (vllm@0, ...). */
static inline uint64_t control_engine_value(enum engine_kind k, enum engine_rule r)
{
    return (uint64_t)r * ENGINE_COUNT + (uint64_t)k;
}

/* s with control c set to value (in control_values' terms). */
void control_set(enum control c, struct scenario *s, const struct catalog *cat, uint64_t value);

/* Speculative decoding from a Draft value (DRAFT_NONE, DRAFT_MTP, DRAFT_MODEL_BASE + index). */
void control_set_draft(struct scenario *s, const struct catalog *cat, uint64_t value);

/* s with control c back to its default. */
void control_reset(enum control c, struct scenario *s);

/* s with a typed value applied; false (d set, in the planner's words) when
 * the text is not a value of the control. */
bool control_parse(enum control c, struct scenario *s, const char *text, struct diag *d);

/* Drops LoRA settings the engine or model cannot keep (no slots under
 * llama.cpp, TensorRT-LLM or MLA; no MLP modules on MoE experts), and
 * images a model gives no size for. */
void control_fit_knobs(struct scenario *s);

/* The value as shown beside the control. */
void control_format(enum control c, const struct scenario *s, const struct plan_result *r,
                    char *buf, size_t size);

/* The control a scenario field belongs to, or -1. */
int control_of_field(enum scenario_field f);

/* The engine option the fraction or sequence row sets: the engine's knob of
 * that row (core/engine_desc.h), else --gpu-memory-utilization or
 * --max-num-seqs (an engine without the knob shows no such row). */
const struct engine_option *control_option(enum control c, const struct scenario *s);

/* Shared by controls.c and controls_values.c: the engine's knob in the
 * fraction or the sequence row, or NULL. */
const struct engine_knob *control_knob_of(enum control c, const struct scenario *s);

/* Shared by controls.c and controls_text.c: the engine's memory fraction in
 * use (0 = its default), and the setters that keep a scenario consistent. */
double control_fraction_of(const struct scenario *s);
void control_set_fraction(struct scenario *s, double f);
void control_set_seqs(struct scenario *s, uint32_t n);
void control_set_context(struct scenario *s, uint64_t tokens);
void control_set_gpus(struct scenario *s, uint32_t gpus);

/* A tensor-parallel size that splits the model's heads as engines take it
 * (core scenario_heads_split; any, when the engine splits layers). */
bool control_tp_even(const struct scenario *s, uint64_t tp);

/* The layout and load controls (controls_load.c): Stages, Experts, At once
 * and Prompt, each function as its control_ counterpart. */
bool control_is_load(enum control c);
bool control_load_visible(enum control c, const struct scenario *s);
const char *control_load_label(enum control c, const struct scenario *s);
int control_load_values(enum control c, const struct scenario *s, uint64_t *v);
uint64_t control_load_current(enum control c, const struct scenario *s);
void control_load_set(enum control c, struct scenario *s, uint64_t value);
void control_load_reset(enum control c, struct scenario *s);
void control_load_format(enum control c, const struct scenario *s, char *buf, size_t size);
bool control_load_parse(enum control c, struct scenario *s, const char *text, struct diag *in);
/* "on" or "1", "off" or "0" (d set otherwise) */
bool control_on_off(const char *text, bool *on, struct diag *in);

/* llama.cpp's placement controls (controls_offload.c): GPU layers, CPU
 * MoE layers and the cache in host memory, each function as its control_
 * counterpart; control_offload_fit drops them where they do not apply. */
bool control_is_offload(enum control c);
bool control_offload_visible(enum control c, const struct scenario *s);
int control_offload_values(enum control c, const struct scenario *s, const struct plan_result *r,
                           uint64_t *v);
uint64_t control_offload_current(enum control c, const struct scenario *s,
                                 const struct plan_result *r);
void control_offload_set(enum control c, struct scenario *s, uint64_t value);
void control_offload_reset(enum control c, struct scenario *s);
void control_offload_fit(struct scenario *s);
void control_offload_format(enum control c, const struct scenario *s, const struct plan_result *r,
                            char *buf, size_t size);
bool control_offload_parse(enum control c, struct scenario *s, const char *text, struct diag *in);

/* The precision at a step of the KV cache or weights control (its values
 * are indexes into the list the control steps through). */
enum dtype control_dtype_at(enum control c, uint64_t index);

#endif
