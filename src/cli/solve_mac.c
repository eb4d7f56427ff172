/* solve_mac: the fit search's split on a Mac, under solve's answer. */
#include "cli/solve_mac.h"

#include <stdio.h>

#include "core/offload_fit.h"
#include "core/plan.h"

void solve_mac_note(const struct scenario *base)
{
    if (base->gpu.unified_bytes == 0)
        return;
    struct scenario s = *base;
    s.gpus = s.tp = 1;
    s.pp = 0;
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d) || !r.fits)
        return;
    const struct offload_split *o = &r.engine.offload;
    if (!o->active || !o->searched)
        return;
    char split[192];
    offload_sentence(o, split, sizeof split);
    printf("(%s: the fit search's %s", s.gpu.id, split);
    if (r.wired.split && r.wired.suggest_mb)
        printf("; `sudo sysctl iogpu.wired_limit_mb=%u` holds it all on the GPU", r.wired.suggest_mb);
    printf(")\n");
}
