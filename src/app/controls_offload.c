/* controls_offload: llama.cpp's placement of the model between the GPUs and
 * host memory (core/offload.h) as planner controls: GPU layers (-ngl),
 * CPU MoE layers (--n-cpu-moe) and the cache in host memory
 * (--no-kv-offload). Which engine has them is its descriptor's word
 * (engine_desc offloads). The layer controls' values are the count + 1, 0
 * being "auto": the split the fit search (or every layer, when the model
 * fits) chooses, shown with its result. The reasons a control is dimmed
 * are here too. */
#include "controls.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

bool control_is_offload(enum control c)
{
    return c == CTRL_NGL || c == CTRL_CPU_MOE || c == CTRL_KV_HOST;
}

static bool has_experts(const struct scenario *s)
{
    return s->model.experts > 0 && s->model.expert_params > 0;
}

bool control_offload_visible(enum control c, const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (!e->offloads || s->model.layers == 0)
        return false;
    /* an engine that places only the GPU layers (Ollama's num_gpu) has no
     * setting for the experts or the cache in host memory: none shown that
     * would do nothing (control_offload_fit drops them) */
    if (c != CTRL_NGL && e->refuses_offload)
        return false;
    return c != CTRL_CPU_MOE || has_experts(s);
}

const char *control_dim_reason(enum control c, const struct scenario *s)
{
    if (c == CTRL_HEADROOM && engine_desc(s->engine.kind)->server)
        return "engine budgets";
    if (c == CTRL_KV_HEADS && s->model.attention == ATTENTION_MLA)
        return "fixed"; /* MLA caches one latent: no KV heads to choose */
    /* a log's non-KV figure holds the GPU's part of the split already */
    if (control_is_offload(c) && (s->engine.non_kv_bytes || s->engine.kv_memory_bytes))
        return "a log gave it";
    return NULL;
}

/* The top of a layer control: -ngl counts the output layer as layer
 * n_layer (n_layer + 1 in all); --n-cpu-moe at most every layer. */
static uint32_t top_of(enum control c, const struct scenario *s)
{
    return c == CTRL_NGL ? s->model.layers + 1 : s->model.layers;
}

int control_offload_values(enum control c, const struct scenario *s, const struct plan_result *r,
                           uint64_t *v)
{
    int n = 0;
    if (c == CTRL_KV_HOST) {
        v[n++] = 0;
        v[n++] = 1;
        return n;
    }
    uint64_t top = top_of(c, s), now = control_offload_current(c, s, r);
    /* auto, then every count (a stride past CONTROL_VALUES_MAX - 3 of them),
     * the top and the count in use */
    uint64_t stride = top + 1 > CONTROL_VALUES_MAX - 3 ? (top + CONTROL_VALUES_MAX - 4) /
                                                             (CONTROL_VALUES_MAX - 3)
                                                       : 1;
    v[n++] = 0;
    for (uint64_t k = 0; k <= top && n < CONTROL_VALUES_MAX - 2; k += stride)
        v[n++] = k + 1;
    if (v[n - 1] != top + 1)
        v[n++] = top + 1;
    bool seen = false;
    for (int i = 0; i < n; i++)
        seen = seen || v[i] == now;
    if (!seen)
        v[n++] = now; /* control_values sorts them */
    return n;
}

/* The count the plan put in effect (its split), or -1 when it has none. */
static long in_use(enum control c, const struct plan_result *r)
{
    const struct offload_split *o = r ? &r->engine.offload : NULL;
    if (o == NULL || !o->placed)
        return -1;
    return c == CTRL_NGL ? (long)o->ngl : (long)o->n_cpu_moe;
}

uint64_t control_offload_current(enum control c, const struct scenario *s,
                                 const struct plan_result *r)
{
    const struct offload_opts *p = &s->offload;
    if (c == CTRL_KV_HOST)
        return p->no_kv_offload;
    uint32_t top = top_of(c, s);
    if (c == CTRL_NGL && p->ngl_given)
        return (p->ngl > top ? top : p->ngl) + 1u;
    if (c == CTRL_CPU_MOE && p->n_cpu_moe_given)
        return (p->n_cpu_moe > top ? top : p->n_cpu_moe) + 1u;
    long used = in_use(c, r); /* auto: the split's count, so a step goes from it */
    return used >= 0 ? (uint64_t)used + 1 : 0;
}

void control_offload_set(enum control c, struct scenario *s, uint64_t value)
{
    struct offload_opts *p = &s->offload;
    uint32_t top = top_of(c, s);
    uint32_t k = value == 0 ? 0 : value - 1 > top ? top : (uint32_t)(value - 1);
    switch (c) {
    case CTRL_NGL:
        p->ngl_given = value != 0;
        p->ngl = p->ngl_given ? k : 0;
        break;
    case CTRL_CPU_MOE:
        p->n_cpu_moe_given = value != 0;
        p->n_cpu_moe = p->n_cpu_moe_given ? k : 0;
        break;
    case CTRL_KV_HOST:
        p->no_kv_offload = value != 0;
        break;
    default:
        break;
    }
}

void control_offload_reset(enum control c, struct scenario *s)
{
    control_offload_set(c, s, 0);
}

/* Drops what an engine or model without them cannot take (the CLI refuses
 * them there: scenario_validate). */
void control_offload_fit(struct scenario *s)
{
    struct offload_opts *p = &s->offload;
    if (!engine_desc(s->engine.kind)->offloads) {
        p->ngl_given = p->n_cpu_moe_given = p->no_kv_offload = false;
        p->ngl = p->n_cpu_moe = 0;
    } else if (!has_experts(s)) {
        p->n_cpu_moe_given = false;
        p->n_cpu_moe = 0;
    }
}

void control_offload_format(enum control c, const struct scenario *s, const struct plan_result *r,
                            char *buf, size_t size)
{
    const struct offload_opts *p = &s->offload;
    if (c == CTRL_KV_HOST) {
        snprintf(buf, size, "%s", p->no_kv_offload ? "on" : "off");
        return;
    }
    bool given = c == CTRL_NGL ? p->ngl_given : p->n_cpu_moe_given;
    uint64_t now = control_offload_current(c, s, r);
    const struct offload_split *o = r ? &r->engine.offload : NULL;
    if (now == 0) {
        snprintf(buf, size, "auto");
        return;
    }
    const char *how = given ? "" : o && o->searched ? "fit " : "auto ";
    if (c == CTRL_NGL)
        snprintf(buf, size, "%s%llu of %u", how, (unsigned long long)(now - 1), top_of(c, s));
    else
        snprintf(buf, size, "%s%llu", how, (unsigned long long)(now - 1));
}

bool control_offload_parse(enum control c, struct scenario *s, const char *text, struct diag *in)
{
    bool on = false;
    if (c == CTRL_KV_HOST) {
        if (!control_on_off(text, &on, in))
            return false;
        control_offload_set(c, s, on);
        return true;
    }
    if (strcasecmp(text, "auto") == 0) {
        control_offload_set(c, s, 0);
        return true;
    }
    uint32_t top = top_of(c, s);
    uint64_t n = top;
    if (!(c == CTRL_NGL && strcasecmp(text, "all") == 0) &&
        !units_parse_count(text, 0, top, &n, in))
        return false;
    control_offload_set(c, s, n + 1);
    return true;
}
