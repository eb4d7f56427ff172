/* engine_carry: the knobs chosen for one engine carried to the next. A step
 * of engine (or of release) keeps every knob the next one has too, within
 * its bounds; the others are left out and named, so the planner can keep
 * them for an engine that has them again. */
#include "engine_desc.h"

static bool knob_takes(const struct engine_knob *k, double v)
{
    return v >= k->min && (k->max <= 0 || v <= k->max);
}

const struct engine_knob *engine_knobs_carry(struct engine_flags *to,
                                             const struct engine_flags *chosen)
{
    const struct engine_desc *d = engine_desc(to->kind);
    const struct engine_knob *dropped = NULL;
    size_t n;
    const struct engine_option *o = engine_options(&n);
    for (size_t i = 0; i < n; i++) {
        const struct engine_knob *any = engine_knob_any(o[i].offset);
        if (!any)
            continue; /* no engine's knob: not the planner's to carry */
        const struct engine_knob *k = engine_knob(d, o[i].offset);
        if (!engine_option_given(chosen, &o[i])) {
            continue;
        }
        double v = engine_option_value(chosen, &o[i]);
        if (k && knob_takes(k, v)) {
            engine_option_set(to, &o[i], v);
        } else {
            engine_option_set(to, &o[i], 0);
            if (!dropped) {
                const struct engine_knob *own = engine_knob(engine_desc(chosen->kind), o[i].offset);
                dropped = own ? own : any;
            }
        }
    }
    return dropped;
}
