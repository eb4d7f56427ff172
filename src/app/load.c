/* load: the Load screen's settings and runs (load.h). */
#include "app/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/planner.h"
#include "io/report_load.h"
#include "io/trace.h"

static struct load_settings *settings(struct planner *p)
{
    return &p->slots[p->current].load;
}

/* The value as `%g` writes it and strtod reads it back, so the screen's
 * run and the command line it shows run the same number. */
static double as_written(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%g", v);
    return strtod(text, NULL);
}

/* The next value of v on a grid of two significant figures (1.0, 1.1, ...
 * 9.9, 10, 11, ...); a big step doubles or halves it. */
static double grid_step(double v, int delta, bool big)
{
    if (big)
        v = delta > 0 ? v * 2 : v / 2;
    double unit = pow(10.0, floor(log10(delta > 0 ? v : v * (1 - 1e-9))) - 1);
    double k = v / unit;
    if (!big)
        k = delta > 0 ? floor(k + 1e-9) + 1 : ceil(k - 1e-9) - 1;
    return as_written(round(k) * unit);
}

/* The config and workload of n requests at the settings; false with the
 * reason in the view's error. */
static bool prepared(struct planner *p, uint64_t n, struct sim_config *c,
                     struct workload_params *w)
{
    struct diag d = {0};
    if (load_prepare(&p->load.s, &p->load.r, settings(p), n, c, w, &d))
        return true;
    snprintf(p->load.error, sizeof p->load.error, "%s", d.message);
    return false;
}

static void run_point(struct planner *p, uint64_t n)
{
    struct load_view *v = &p->load;
    struct sim_config c;
    struct workload_params w;
    v->point_n = 0;
    if (!prepared(p, n, &c, &w))
        return;
    v->fit = workload_profile_fit(&w);
    if (load_run(&c, &w, &v->point) == SIM_OK)
        v->point_n = n;
    else
        snprintf(v->error, sizeof v->error, "the run did not finish (steps or time)");
}

static void run_sweep(struct planner *p, uint64_t n)
{
    struct load_view *v = &p->load;
    struct sim_config c;
    struct workload_params w;
    v->sweep_n = 0;
    if (prepared(p, n, &c, &w) && load_sweep_run(&c, &w, settings(p), &v->sweep))
        v->sweep_n = n;
    if (v->sweep_n == LOAD_QUICK_SWEEP) /* what the default rate is taken from */
        v->quick_capacity = v->sweep.capacity;
}

void load_open(struct planner *p)
{
    struct load_view *v = &p->load;
    struct load_settings *ls = settings(p);
    struct diag d = {0};
    v->planned = false;
    v->sweep_n = v->point_n = 0;
    v->error[0] = '\0';
    v->idle = false;
    v->undo_count = v->redo_count = 0; /* z undoes what changed since the screen opened */
    v->dragging = false;
    v->chart_drag = -1;
    load_scenario(&p->slots[p->current].scenario, &v->s);
    if (!plan_compute(&v->s, PLAN_NUMBERS, NULL, &v->r, &d) || !load_check_plan(&v->s, &v->r, &d)) {
        snprintf(v->error, sizeof v->error, "%s", d.message);
        return;
    }
    v->planned = true;
    if (!(ls->rate > 0)) {
        load_defaults(&v->s, ls);
        ls->rate = 1; /* the sweep does not read it */
        run_sweep(p, LOAD_QUICK_SWEEP);
        ls->rate = as_written(load_default_rate(v->sweep.capacity));
    } else {
        run_sweep(p, LOAD_QUICK_SWEEP);
    }
    run_point(p, LOAD_QUICK_REQUESTS);
    v->idle = true;
}

/* The next length profile after (delta > 0) or before the one set, NULL
 * (the random dataset's lengths) first and last. */
static const struct workload_profile *next_profile(const struct workload_profile *now, int delta)
{
    size_t n = 0, at = 0;
    while (trace_profile_at(n))
        n++;
    for (size_t i = 0; i < n; i++)
        if (trace_profile_at(i) == now)
            at = i + 1;
    at = (at + (delta > 0 ? 1 : n)) % (n + 1); /* n steps forward: one back */
    return at ? trace_profile_at(at - 1) : NULL;
}

/* The setting c of ls stepped; false when it cannot move that way. */
static bool stepped(struct load_settings *ls, enum load_control c, int delta, bool big)
{
    if (c == LOAD_LENGTHS) {
        ls->profile = next_profile(ls->profile, delta);
        return true;
    }
    uint64_t *count[] = {[LOAD_INPUT] = &ls->input_len, [LOAD_OUTPUT] = &ls->output_len,
                         [LOAD_CONCURRENCY] = &ls->max_concurrency};
    double *ms[] = {[LOAD_RATE] = &ls->rate, [LOAD_SLO_TTFT] = &ls->slo_ttft_ms,
                    [LOAD_SLO_TPOT] = &ls->slo_tpot_ms};
    if (c == LOAD_RATE || c == LOAD_SLO_TTFT || c == LOAD_SLO_TPOT) {
        double next = grid_step(*ms[c], delta, big);
        if (!(next >= 0.01) || next > 1e6)
            return false;
        *ms[c] = next;
        return true;
    }
    uint64_t now = *count[c], next;
    if (now == 0) /* the cap: none, then 1 */
        next = delta > 0 ? 1 : 0;
    else
        next = (uint64_t)llround(grid_step((double)now, delta, big));
    if (c == LOAD_CONCURRENCY && delta < 0 && now == 1)
        next = 0;
    if (next == now || (next == 0 && c != LOAD_CONCURRENCY) || next > SIM_MAX_REQUESTS)
        return false;
    *count[c] = next;
    return true;
}

/* The runs settings that differ from was need, quickly, and the full one
 * when idle: a length or the cap moves the sweep, the rate or an objective
 * only the current rate's run and the knee. */
static void rerun(struct planner *p, const struct load_settings *was)
{
    struct load_view *v = &p->load;
    const struct load_settings *ls = settings(p);
    v->error[0] = '\0';
    if (ls->input_len != was->input_len || ls->output_len != was->output_len ||
        ls->profile != was->profile || ls->max_concurrency != was->max_concurrency)
        run_sweep(p, LOAD_QUICK_SWEEP);
    else
        v->sweep.knee = load_knee(&v->sweep, ls);
    run_point(p, LOAD_QUICK_REQUESTS);
    v->idle = true;
}

static bool same(const struct load_settings *a, const struct load_settings *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static void push(struct load_settings *stack, int *count, const struct load_settings *ls)
{
    if (*count == LOAD_UNDO) { /* the oldest change is forgotten */
        memmove(stack, stack + 1, (LOAD_UNDO - 1) * sizeof *stack);
        (*count)--;
    }
    stack[(*count)++] = *ls;
}

/* The settings changed from was: kept when the simulation takes them (an
 * undo entry, the redo dropped, the runs), else put back with the reason. */
static void commit(struct planner *p, const struct load_settings *was)
{
    struct load_view *v = &p->load;
    struct sim_config cfg;
    struct workload_params w;
    struct diag d = {0};
    if (same(was, settings(p)))
        return;
    if (!load_prepare(&v->s, &v->r, settings(p), LOAD_QUICK_REQUESTS, &cfg, &w, &d)) {
        *settings(p) = *was; /* refused: the settings and the runs stay */
        snprintf(p->status, sizeof p->status, "%s", d.message);
        return;
    }
    push(v->undo, &v->undo_count, was);
    v->redo_count = 0;
    rerun(p, was);
}

void load_step(struct planner *p, enum load_control c, int delta, bool big)
{
    if (!p->load.planned)
        return;
    struct load_settings was = *settings(p);
    if ((c == LOAD_INPUT || c == LOAD_OUTPUT) && was.profile) {
        snprintf(p->status, sizeof p->status, "%s gives each request's lengths: set Lengths to "
                 "random to choose them", was.profile->name);
        return;
    }
    if (stepped(settings(p), c, delta, big))
        commit(p, &was);
}

void load_reset(struct planner *p, enum load_control c)
{
    struct load_view *v = &p->load;
    if (!v->planned)
        return;
    struct load_settings def, *ls = settings(p), was = *ls;
    load_defaults(&v->s, &def);
    if (c == LOAD_RATE) /* the quick sweep's, as on opening, whether or not the full one ran */
        ls->rate = as_written(load_default_rate(v->quick_capacity));
    else if (c == LOAD_LENGTHS)
        ls->profile = NULL;
    else if (c == LOAD_INPUT)
        ls->input_len = def.input_len;
    else if (c == LOAD_OUTPUT)
        ls->output_len = def.output_len;
    else if (c == LOAD_CONCURRENCY)
        ls->max_concurrency = 0;
    else if (c == LOAD_SLO_TTFT)
        ls->slo_ttft_ms = def.slo_ttft_ms;
    else
        ls->slo_tpot_ms = def.slo_tpot_ms;
    commit(p, &was);
}

void load_set_rate(struct planner *p, double rate)
{
    if (!p->load.planned || !(rate > 0))
        return;
    /* two significant figures, as the steps' grid has them */
    double unit = pow(10.0, floor(log10(rate)) - 1);
    rate = as_written(fmax(round(rate / unit) * unit, 0.01));
    struct load_settings was = *settings(p);
    settings(p)->rate = rate;
    commit(p, &was);
}

/* The top of one stack becomes the settings, which go on the other. */
static bool travel(struct planner *p, struct load_settings *from, int *nfrom,
                   struct load_settings *to, int *nto)
{
    if (!p->load.planned || *nfrom == 0)
        return false;
    struct load_settings now = *settings(p);
    *settings(p) = from[--*nfrom];
    push(to, nto, &now);
    rerun(p, &now);
    return true;
}

bool load_undo(struct planner *p)
{
    struct load_view *v = &p->load;
    return travel(p, v->undo, &v->undo_count, v->redo, &v->redo_count);
}

bool load_redo(struct planner *p)
{
    struct load_view *v = &p->load;
    return travel(p, v->redo, &v->redo_count, v->undo, &v->undo_count);
}

bool load_idle(struct planner *p)
{
    struct load_view *v = &p->load;
    if (!v->idle)
        return false;
    v->idle = false;
    if (!v->planned)
        return false;
    if (v->sweep_n != LOAD_FULL_REQUESTS)
        run_sweep(p, LOAD_FULL_REQUESTS);
    if (v->point_n != LOAD_FULL_REQUESTS)
        run_point(p, LOAD_FULL_REQUESTS);
    return true;
}

void load_command_line(const struct planner *p, char *buf, size_t size)
{
    const struct load_settings *ls = &p->slots[p->current].load;
    char line[PLANNER_COPY_MAX];
    buf[0] = '\0';
    /* the plan's own workload and targets are simulate's refused options (its
     * requests' are the settings: --random-input-len, --max-concurrency,
     * --goodput): the scenario without them */
    struct scenario s = *planner_scenario(p);
    s.prompt_tokens = 0;
    s.output_tokens = 0;
    s.concurrency = 0;
    s.min_tokens_per_s = 0;
    s.max_ttft_seconds = 0;
    planner_command_line_of(p, &s, line, sizeof line);
    const char *rest = strncmp(line, "kvplan plan", 11) == 0 ? line + 11 : NULL;
    if (rest == NULL)
        return;
    char cap[48] = "";
    if (ls->max_concurrency)
        snprintf(cap, sizeof cap, " --max-concurrency %llu",
                 (unsigned long long)ls->max_concurrency);
    char lengths[96];
    if (ls->profile)
        snprintf(lengths, sizeof lengths, "--dataset %s", ls->profile->name);
    else
        snprintf(lengths, sizeof lengths, "--random-input-len %llu --random-output-len %llu",
                 (unsigned long long)ls->input_len, (unsigned long long)ls->output_len);
    size_t n = (size_t)snprintf(buf, size,
                                "kvplan simulate%s --request-rate %g %s%s --goodput ttft:%g "
                                "tpot:%g", rest, ls->rate, lengths, cap, ls->slo_ttft_ms,
                                ls->slo_tpot_ms);
    if (n >= size)
        buf[0] = '\0';
}

const char *load_label(enum load_control c)
{
    static const char *const labels[LOAD_CONTROLS] = {
        "Rate", "Lengths", "Input", "Output", "Concurrency", "SLO TTFT", "SLO TPOT"};
    return (unsigned)c < LOAD_CONTROLS ? labels[c] : "";
}

void load_value_text(const struct load_settings *ls, const struct workload_fit *fit,
                     enum load_control c, char *buf, size_t size)
{
    if ((c == LOAD_INPUT || c == LOAD_OUTPUT) && ls->profile) {
        if (fit && fit->count && c == LOAD_INPUT && fit->count < ls->profile->n)
            snprintf(buf, size, "mean %.0f, %.0f%% fit", fit->mean_input, /* the rest too long */
                     floor(100.0 * (double)fit->count / (double)ls->profile->n));
        else if (fit && fit->count)
            snprintf(buf, size, "mean %.0f tokens",
                     c == LOAD_INPUT ? fit->mean_input : fit->mean_output);
        else
            snprintf(buf, size, "the profile's");
        return;
    }
    switch (c) {
    case LOAD_RATE:
        snprintf(buf, size, "%g req/s", ls->rate);
        break;
    case LOAD_LENGTHS:
        snprintf(buf, size, "%s", ls->profile ? ls->profile->name : "random");
        break;
    case LOAD_INPUT:
        snprintf(buf, size, "%llu tokens", (unsigned long long)ls->input_len);
        break;
    case LOAD_OUTPUT:
        snprintf(buf, size, "%llu tokens", (unsigned long long)ls->output_len);
        break;
    case LOAD_CONCURRENCY:
        if (ls->max_concurrency)
            snprintf(buf, size, "at most %llu", (unsigned long long)ls->max_concurrency);
        else
            snprintf(buf, size, "no cap");
        break;
    case LOAD_SLO_TTFT:
        snprintf(buf, size, "%g ms", ls->slo_ttft_ms);
        break;
    default:
        snprintf(buf, size, "%g ms", ls->slo_tpot_ms);
        break;
    }
}

void load_markdown(struct planner *p, FILE *out)
{
    if (!(p->slots[p->current].load.rate > 0))
        return;
    load_open(p);
    load_idle(p);
    if (p->load.point_n == 0)
        return; /* it cannot run (the screen says why): no section */
    char command[PLANNER_COPY_MAX];
    load_command_line(p, command, sizeof command);
    struct load_sweep none = {.knee = -1};
    struct report_load l = {&p->slots[p->current].load, &p->load.point,
                            p->load.sweep_n ? &p->load.sweep : &none, command, &p->load.s};
    report_markdown_load(out, &l);
}
