/* planner_engine: a step of the Engine control. What was chosen for one
 * engine (the cache precision, the knobs such as GPU util or Max seqs) is
 * carried to the next engine or release that has it, and kept in the slot
 * for a later one when this one has none; the status line says which. */
#include "planner.h"

#include <stdio.h>
#include <string.h>

/* The knobs kept for an engine that has them: chosen, less those the new
 * engine took a value of its own for (its knobs are the scenario's). */
static void keep_knobs(struct engine_flags *keep, const struct engine_flags *chosen,
                       const struct engine_flags *now)
{
    size_t n;
    const struct engine_option *o = engine_options(&n);
    *keep = *now;
    for (size_t i = 0; i < n; i++)
        if (engine_knob_any(o[i].offset) && !engine_option_given(now, &o[i]) &&
            engine_option_given(chosen, &o[i]))
            engine_option_set(keep, &o[i], engine_option_value(chosen, &o[i]));
}

static void say(char *status, size_t size, const char *text)
{
    size_t len = strlen(status);
    snprintf(status + len, size - len, "%s%s", len ? "; " : "", text);
}

void planner_engine_step(struct planner *p, const struct scenario *next)
{
    struct planner_slot *sl = &p->slots[p->current];
    enum dtype want = sl->kv_chosen, had = sl->scenario.kv_dtype;
    struct engine_flags chosen = sl->knobs_chosen;
    struct scenario s = *next;
    bool takes = want != DTYPE_AUTO && engine_supports(s.engine.kind, want);
    if (takes)
        s.kv_dtype = want;
    const struct engine_knob *off = engine_knobs_carry(&s.engine, &chosen);
    if (!planner_apply(p, &s))
        return;
    char engine[64], line[PLANNER_TEXT_MAX];
    engine_version_title(s.engine.kind, s.engine.rule, engine, sizeof engine);
    p->status[0] = '\0';
    if (want != DTYPE_AUTO && !takes) {
        sl->kv_chosen = want; /* kept for an engine that takes it */
        snprintf(line, sizeof line,
                 "the %s cache is off with this engine (%s has none): kept for the next that has it",
                 dtype_info(want)->name, engine);
        say(p->status, sizeof p->status, line);
    } else if (takes && had != want) {
        snprintf(line, sizeof line, "the %s cache is back with %s", dtype_info(want)->name,
                 engine);
        say(p->status, sizeof p->status, line);
    }
    keep_knobs(&sl->knobs_chosen, &chosen, &sl->scenario.engine);
    if (off) {
        snprintf(line, sizeof line, "%s is off with %s: kept for the next that has it",
                 off->label, engine);
        say(p->status, sizeof p->status, line);
    }
}
