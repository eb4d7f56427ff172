#include "planner.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void compute_curve(struct planner *p)
{
    /* The curve spans every context: a change of context alone only moves
     * its marker, so it is computed again only when something else changed. */
    struct scenario key = p->scenario;
    key.context_tokens = 0;
    key.units = UNITS_GIB;
    if (p->curve_valid && memcmp(&key, &p->curve_of, sizeof key) == 0)
        return;
    p->curve_of = key;
    p->curve_valid = true;
    struct users_curve *c = &p->curve;
    struct scenario s = p->scenario;
    c->max_users = 0;
    for (int i = 0; i < CHART_POINTS; i++) {
        /* 2^10 .. 2^20 tokens in equal steps of log2 */
        double exp2 = 10.0 + 10.0 * i / (CHART_POINTS - 1);
        uint64_t ctx = (uint64_t)(pow(2.0, exp2) + 0.5);
        s.context_tokens = ctx;
        s.avg_context_tokens = p->scenario.avg_context_tokens < ctx ? p->scenario.avg_context_tokens : 0;
        static struct plan_result r; /* numbers only: its explain rows are never touched */
        struct diag d = {0};
        c->context_tokens[i] = ctx;
        /* a context no longer than the shared prefix is not a scenario: no column */
        c->users[i] = s.prefix_tokens < ctx && plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d)
                          ? r.max_users
                          : 0;
        if (c->users[i] > c->max_users)
            c->max_users = c->users[i];
    }
}

bool planner_apply(struct planner *p, const struct scenario *next)
{
    struct diag d = {0};
    /* validated first, so the plan is computed in place (no copy of its rows) */
    if (!scenario_validate(next, control_field_names, NULL, &d)) {
        snprintf(p->error, sizeof p->error, "%s", d.message);
        return false;
    }
    if (!plan_compute(next, PLAN_EXPLAIN, control_field_names, &p->result, &d)) {
        snprintf(p->error, sizeof p->error, "%s", d.message);
        struct diag again = {0};
        plan_compute(&p->scenario, PLAN_EXPLAIN, control_field_names, &p->result, &again);
        return false;
    }
    p->scenario = *next;
    p->error[0] = '\0';
    if (!control_visible(p->focus, &p->scenario))
        p->focus = CTRL_ENGINE;
    compute_curve(p);
    return true;
}

void planner_init(struct planner *p, const struct catalog *c, const struct scenario *s)
{
    memset(p, 0, sizeof *p);
    p->catalog = c;
    p->scenario = *s;
    p->focus = CTRL_CONTEXT;
    planner_apply(p, s);
}

int planner_controls(const struct planner *p, enum control *out)
{
    int n = 0;
    for (int c = 0; c < CTRL_COUNT; c++)
        if (control_visible((enum control)c, &p->scenario))
            out[n++] = (enum control)c;
    return n;
}

static int current_index(const uint64_t *v, int n, uint64_t cur)
{
    int best = 0;
    for (int i = 0; i < n; i++)
        if (v[i] <= cur)
            best = i;
    return best;
}

static void set_value(struct planner *p, enum control c, uint64_t value)
{
    struct scenario s = p->scenario;
    control_set(c, &s, p->catalog, value);
    planner_apply(p, &s);
}

void planner_step(struct planner *p, enum control c, int delta, bool big)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, &p->scenario, &p->result, p->catalog, v);
    if (n == 0)
        return;
    int i = current_index(v, n, control_current(c, &p->scenario, &p->result, p->catalog));
    int stride = big ? (n / 8 > 2 ? n / 8 : 2) : 1;
    if (control_kind(c) == CK_SLIDER) {
        i += delta * stride;
        i = i < 0 ? 0 : i >= n ? n - 1 : i;
    } else {
        i = ((i + delta * stride) % n + n) % n; /* lists wrap around */
    }
    set_value(p, c, v[i]);
}

void planner_to_end(struct planner *p, enum control c, bool last)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, &p->scenario, &p->result, p->catalog, v);
    if (n > 0)
        set_value(p, c, v[last ? n - 1 : 0]);
}

void planner_set_fraction(struct planner *p, enum control c, double f)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, &p->scenario, &p->result, p->catalog, v);
    if (n == 0)
        return;
    int i = (int)(f * (n - 1) + 0.5);
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    if (v[i] != control_current(c, &p->scenario, &p->result, p->catalog))
        set_value(p, c, v[i]);
}

double planner_control_fraction(const struct planner *p, enum control c)
{
    if (control_kind(c) != CK_SLIDER)
        return -1;
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, &p->scenario, &p->result, p->catalog, v);
    if (n < 2)
        return -1;
    return (double)current_index(v, n, control_current(c, &p->scenario, &p->result, p->catalog)) / (n - 1);
}

void planner_reset(struct planner *p, enum control c)
{
    struct scenario s = p->scenario;
    control_reset(c, &s);
    planner_apply(p, &s);
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

int planner_picker_matches(const struct planner *p, int *out, int max)
{
    bool gpu = p->picker_for == CTRL_GPU;
    size_t n = gpu ? p->catalog->gpu_count : p->catalog->model_count;
    int k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        const char *id = gpu ? p->catalog->gpus[i].spec.id : p->catalog->models[i].spec.id;
        const char *name = gpu ? p->catalog->gpus[i].spec.name : p->catalog->models[i].spec.name;
        if (p->filter[0] == '\0' || contains_nocase(id, p->filter) || contains_nocase(name, p->filter))
            out[k++] = (int)i;
    }
    return k;
}

void planner_export_name(const struct planner *p, char *buf, size_t size)
{
    char t[32];
    snprintf(buf, size, "kvplan-%s-%s-%s.json", p->scenario.model.id, p->scenario.gpu.id,
             units_format_tokens_short(p->scenario.context_tokens, t, sizeof t));
}
