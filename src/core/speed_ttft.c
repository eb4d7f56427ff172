#include "speed_ttft.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"
#include "scenario.h"
#include "speed.h"

struct ttft_terms speed_ttft_terms(double prefill_s, double request_s, double decode_step_s,
                                   uint64_t users)
{
    struct ttft_terms t = {.prefill_s = prefill_s > 0 ? prefill_s : 0,
                           .request_s = request_s > 0 ? request_s : 0};
    /* a closed loop of one user sends its next request when the last one
     * ends: the engine is idle, the prefill starts at once. With others
     * running, the arrival falls uniformly within a step: the mean of the
     * rest of it is half the step. */
    if (users > 1 && decode_step_s > 0)
        t.wait_s = 0.5 * decode_step_s;
    t.total_s = t.prefill_s > 0 ? t.prefill_s + t.request_s + t.wait_s : 0;
    return t;
}

void speed_ttft_fill(struct speed_result *sp, double prefill_s, double request_s,
                     double decode_step_s, uint64_t users)
{
    struct ttft_terms t = speed_ttft_terms(prefill_s, request_s, decode_step_s, users);
    sp->ttft_prefill_seconds = t.prefill_s;
    sp->ttft_request_seconds = t.request_s;
    sp->ttft_wait_seconds = t.wait_s;
    sp->ttft_seconds = t.total_s;
}

/* Every engine's cases pooled (tools/fit_ttft.py, "every engine on ..."; make test
 * runs its --check against this table and the engines' request_overhead_s):
 * [vendor: NVIDIA, AMD][kind: other, DeepSeek-class]; 0 where none was
 * measured. */
static const double every_engine[2][2] = {{41.2e-3, 135.0e-3}, {0, 374.9e-3}};

enum overhead_source { FROM_NONE, FROM_ENGINE, FROM_EVERY_ENGINE, FROM_NVIDIA };

/* 1 for a model of DeepSeek-R1's kind, the only MoE the serving benchmarks
 * measured: MLA attention over fine-grained routed experts; 0 for every
 * other (dense, Mixtral's or Qwen3's MoE): tools/fit_ttft.py kind(). */
static int overhead_kind(const struct model_spec *m)
{
    return m->attention == ATTENTION_MLA && m->experts > SPEED_MOE_FINE_EXPERTS;
}

static enum overhead_source overhead_of(const struct scenario *s, double *out)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct model_spec *m = &s->model;
    int amd = strcmp(s->gpu.vendor, "AMD") == 0;
    int moe = overhead_kind(m);
    bool any = false;
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 2; k++)
            any = any || e->request_overhead_s[v][k] > 0;
    *out = 0;
    if (!any)
        return FROM_NONE;
    if ((*out = e->request_overhead_s[amd][moe]) > 0)
        return FROM_ENGINE;
    if ((*out = every_engine[amd][moe]) > 0)
        return FROM_EVERY_ENGINE;
    *out = every_engine[0][moe];
    return FROM_NVIDIA;
}

double speed_request_overhead_s(const struct scenario *s)
{
    double t;
    overhead_of(s, &t);
    return t;
}

void speed_request_overhead_basis(const struct scenario *s, char *buf, size_t size)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct model_spec *m = &s->model;
    const char *kind = overhead_kind(m) ? "DeepSeek-class" : "non-DeepSeek";
    bool amd = strcmp(s->gpu.vendor, "AMD") == 0;
    const char *vendor = amd ? "AMD" : "NVIDIA";
    /* the ROCm runs' mean first token is lifted by a tail of slow ones */
    const char *tail = amd && overhead_kind(m) ? " (a mean lifted by a tail of slow first tokens: "
                                                 "their median is 100-170 ms)"
                                               : "";
    double t;
    switch (overhead_of(s, &t)) {
    case FROM_ENGINE:
        snprintf(buf, size, "fitted on %s's %s %s cases%s", e->title, kind, vendor, tail);
        break;
    case FROM_EVERY_ENGINE:
        snprintf(buf, size, "fitted on every engine's %s %s cases, none under %s%s", kind, vendor,
                 e->title, tail);
        break;
    case FROM_NVIDIA:
        snprintf(buf, size, "fitted on every engine's %s NVIDIA cases, none on %s", kind, vendor);
        break;
    default:
        buf[0] = '\0';
    }
}
