#include "loadband.h"

#include <string.h>

#include "engine_desc.h"

void loadband_lookup(const struct scenario *s, struct load_bands *out)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    struct speedband_key key = {s->gpu.family, e->name, e->title,
                                s->model.experts > 0 &&
                                    s->model.experts_per_token < s->model.experts};
    memset(out, 0, sizeof *out);
    out->tpot = speedband_find(loadband_table, loadband_table_count, &key, SPEEDBAND_DECODE);
    out->ttft = speedband_find(loadband_table, loadband_table_count, &key, SPEEDBAND_TTFT);
    /* a fraction given on the command line: the band's runs were not
     * simulated with it (the words say "; MBU given", "; MFU given") */
    out->tpot.basis = s->mbu > 0 || s->has_step_overhead ? SPEEDBAND_GIVEN : SPEEDBAND_FITTED;
    out->tpot.overhead_given = s->has_step_overhead && !(s->mbu > 0);
    out->ttft.basis = s->mfu > 0 ? SPEEDBAND_GIVEN : SPEEDBAND_FITTED;
    speedband_of_scenario(&out->tpot, s);
    speedband_of_scenario(&out->ttft, s);
}
