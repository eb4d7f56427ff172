#include "speed_ttft.h"

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

double speed_request_overhead_s(const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->request_overhead_amd_s > 0 && strcmp(s->gpu.vendor, "AMD") == 0)
        return e->request_overhead_amd_s;
    return e->request_overhead_s;
}
