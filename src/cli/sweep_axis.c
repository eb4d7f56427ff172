/* sweep_axis: the axes of a sweep (--vary): parsed, their values made once,
 * and a value set in a scenario. */
#include "cli/sweep_axis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options_table.h"
#include "core/sim.h"
#include "core/units.h"
#include "io/calibration.h"
#include "io/catalog.h"

void sweep_axis_kv(struct axis *ax, enum engine_kind engine)
{
    ax->count = 0;
    for (int t = DTYPE_AUTO + 1; t < DTYPE_COUNT; t++)
        if (engine_supports(engine, (enum dtype)t) && t != DTYPE_Q6_K && t != DTYPE_Q5_K_M &&
            t != DTYPE_Q4_K_M)
            ax->kv[ax->count++] = (enum dtype)t;
}

/* One value of a workload axis's list or range: a rate above 0 (or inf in
 * a list), a cap of requests in flight. */
static bool workload_value(const struct axis *ax, const char *text, bool list, double *out,
                           struct diag *d)
{
    if (ax->kind == AXIS_MAX_CONCURRENCY) {
        uint64_t n;
        if (!units_parse_count(text, 1, SIM_MAX_REQUESTS, &n, d))
            return false;
        *out = (double)n;
        return true;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v > 0) || (isinf(v) && !list))
        return diag_fail(d, "'%s' is not a rate above 0%s", text, list ? " (or inf)" : "");
    *out = v;
    return true;
}

/* request-rate=FROM..TO (every whole step of 1 from FROM), FROM..TO:POINTS
 * (evenly spaced), or a list A,B,C; max-concurrency=FROM..TO (powers of two
 * from FROM) or a list. */
static bool workload_axis_parse(const char *vary, const char *range, struct axis *ax,
                                struct diag *d)
{
    const char *vary_flag = OPTION_FLAG(OPT_VARY);
    char a[32] = "", b[32] = "", pts[16] = "";
    struct diag in = {0};
    double lo, hi;
    if (strstr(range, "..") == NULL) { /* a list */
        char copy[64];
        snprintf(copy, sizeof copy, "%s", range);
        ax->listed = true;
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            if (ax->count == AXIS_LIST_MAX)
                return diag_fail(d, "%s: '%s': at most %d values in a list", vary_flag, vary,
                                 AXIS_LIST_MAX);
            if (!workload_value(ax, t, true, &ax->list[ax->count], &in))
                return diag_fail(d, "%s: '%s': %s", vary_flag, vary, in.message);
            ax->count++;
        }
        if (ax->count == 0)
            return diag_fail(d, "%s: '%s' needs values: FROM..TO or a list A,B,C", vary_flag,
                             vary);
        return true;
    }
    if (sscanf(range, "%31[^.]..%31[^:]:%15s", a, b, pts) < 2 ||
        !workload_value(ax, a, false, &lo, &in) || !workload_value(ax, b, false, &hi, &in) ||
        lo > hi)
        return diag_fail(d, "%s: '%s': %s", vary_flag, vary,
                         in.failed ? in.message : "needs FROM..TO with FROM at most TO");
    ax->lo = (uint64_t)lo;
    ax->hi = (uint64_t)hi;
    uint64_t p = 0;
    if (pts[0] && (ax->kind != AXIS_REQUEST_RATE || !units_parse_count(pts, 2, 100000, &p, &in)))
        return diag_fail(d, ax->kind != AXIS_REQUEST_RATE
                                ? "%s: '%s': :POINTS applies only to request-rate and "
                                  "context (give a "
                                  "list A,B,C or FROM..TO)"
                                : "%s: '%s': POINTS is a whole number from 2 to 100000",
                         vary_flag, vary);
    ax->points = (uint32_t)p;
    ax->list[0] = lo;
    ax->list[1] = hi;
    if (ax->kind == AXIS_REQUEST_RATE)
        ax->count = p ? p : (size_t)floor(hi - lo + 1e-9) + 1;
    else
        for (uint64_t v = ax->lo; v <= ax->hi; v *= 2)
            ax->count++;
    return true;
}

bool sweep_axis_parse(const char *vary, const struct catalog *cat, struct axis *ax,
                      struct diag *d)
{
    const char *vary_flag = OPTION_FLAG(OPT_VARY);
    char name[32], range[64] = "";
    memset(ax, 0, sizeof *ax);
    if (sscanf(vary, "%31[^=]=%63s", name, range) < 1)
        return diag_fail(d, "%s: expected AXIS=RANGE, such as context=1k..1M", vary_flag);
    if (strcmp(name, "context") == 0)
        ax->kind = AXIS_CONTEXT;
    else if (strcmp(name, "gpus") == 0)
        ax->kind = AXIS_GPUS;
    else if (strcmp(name, "kv-dtype") == 0)
        ax->kind = AXIS_KV_DTYPE;
    else if (strcmp(name, "gpu") == 0)
        ax->kind = AXIS_GPU;
    else if (strcmp(name, "model") == 0)
        ax->kind = AXIS_MODEL;
    else if (strcmp(name, "concurrency") == 0)
        ax->kind = AXIS_CONCURRENCY;
    else if (strcmp(name, "request-rate") == 0)
        ax->kind = AXIS_REQUEST_RATE;
    else if (strcmp(name, "max-concurrency") == 0)
        ax->kind = AXIS_MAX_CONCURRENCY;
    else
        return diag_fail(d, "%s: '%s' is not context, gpus, concurrency, kv-dtype, gpu, model, "
                         "request-rate or max-concurrency", vary_flag, name);
    if (ax->kind == AXIS_REQUEST_RATE || ax->kind == AXIS_MAX_CONCURRENCY)
        return workload_axis_parse(vary, range, ax, d);
    if (ax->kind == AXIS_CONTEXT || ax->kind == AXIS_GPUS || ax->kind == AXIS_CONCURRENCY) {
        char a[32], b[32], pts[16] = "";
        if (sscanf(range, "%31[^.]..%31[^:]:%15s", a, b, pts) < 2)
            return diag_fail(d, "%s: '%s' needs a range FROM..TO (context may add :POINTS)",
                             vary_flag, vary);
        struct diag in = {0};
        bool counted = ax->kind != AXIS_CONTEXT; /* GPUs or users: their own words for 0 */
        if (!units_parse_tokens(a, counted, &ax->lo, &in) ||
            !units_parse_tokens(b, counted, &ax->hi, &in) || ax->lo > ax->hi)
            return diag_fail(d, "%s: '%s': %s", vary_flag, vary,
                             in.failed ? in.message : "FROM is above TO");
        if (counted && ax->lo == 0)
            return diag_fail(d, "%s: '%s': the %s must be at least 1", vary_flag, vary,
                             ax->kind == AXIS_GPUS ? "GPU count" : "number of users");
        if (ax->kind == AXIS_GPUS && ax->hi > GPUS_MAX)
            return diag_fail(d, "%s: at most %d GPUs", vary_flag, GPUS_MAX);
        if (pts[0]) {
            uint64_t p;
            if (ax->kind != AXIS_CONTEXT || !units_parse_count(pts, 2, 100000, &p, &in))
                return diag_fail(d, ax->kind != AXIS_CONTEXT
                                        ? "%s: '%s': :POINTS applies only to request-rate "
                                          "and context (give a "
                                          "list A,B,C or FROM..TO)"
                                        : "%s: '%s': POINTS is a whole number from 2 to 100000",
                                 vary_flag, vary);
            ax->points = (uint32_t)p;
            ax->count = ax->points;
        } else if (ax->kind == AXIS_CONTEXT || ax->kind == AXIS_CONCURRENCY) {
            /* powers of two from FROM: 1, 2, 4 ... users, or 1k, 2k ... tokens */
            for (uint64_t v = ax->lo; v <= ax->hi && v > 0; v *= 2)
                ax->count++;
        } else {
            ax->count = ax->hi - ax->lo + 1;
        }
    } else {
        if (strcmp(range, "all") != 0 && range[0] != '\0')
            return diag_fail(d, "%s: '%s': only 'all' is supported for %s", vary_flag, vary, name);
        ax->count = ax->kind == AXIS_GPU     ? cat->gpu_count
                    : ax->kind == AXIS_MODEL ? cat->model_count
                                             : (size_t)(DTYPE_COUNT - 1);
    }
    return true;
}

bool sweep_rows_allowed(const struct axis *axes, int n, uint64_t max, struct diag *d)
{
    uint64_t rows = 1;
    for (int i = 0; i < n; i++)
        rows = axes[i].count && rows > UINT64_MAX / axes[i].count ? UINT64_MAX
                                                                  : rows * axes[i].count;
    if (rows <= max)
        return true;
    char shown[32], cap[32];
    units_format_int(rows, shown, sizeof shown);
    units_format_int(max, cap, sizeof cap);
    return diag_fail(d, "sweep: %s rows, over the cap of %s; vary fewer values, or allow them "
                        "with --max-rows %llu",
                     shown, cap, (unsigned long long)rows);
}

/* Value i of a numeric axis (context, gpus, concurrency) and its label. */
static uint64_t axis_value(const struct axis *ax, size_t i, char *label, size_t size)
{
    uint64_t v;
    switch (ax->kind) {
    case AXIS_CONTEXT:
        if (ax->points)
            v = (uint64_t)llround(exp(log((double)ax->lo) +
                                      (log((double)ax->hi) - log((double)ax->lo)) * (double)i /
                                          (double)(ax->points - 1)));
        else
            v = ax->lo << i;
        units_format_tokens_arg(v, label, size); /* also a CSV field: no grouping comma */
        return v;
    case AXIS_CONCURRENCY:
        v = ax->lo << i;
        snprintf(label, size, "%llu user%s", (unsigned long long)v, v == 1 ? "" : "s");
        return v;
    default: /* AXIS_GPUS */
        v = ax->lo + i;
        snprintf(label, size, "%u", (unsigned)v);
        return v;
    }
}

/* Value i of a workload axis: a list's, evenly spaced points, steps of 1
 * from FROM, or powers of two; its label. */
static double workload_axis_value(const struct axis *ax, size_t i, char *label, size_t size)
{
    double v = ax->listed                          ? ax->list[i]
               : ax->kind == AXIS_MAX_CONCURRENCY ? (double)(ax->lo << i)
               : ax->points ? ax->list[0] + (ax->list[1] - ax->list[0]) * (double)i /
                                                (double)(ax->points - 1)
                            : ax->list[0] + (double)i;
    if (ax->kind == AXIS_REQUEST_RATE)
        snprintf(label, size, "%g req/s", v);
    else
        snprintf(label, size, "%.0f in flight", v);
    return v;
}

/* The tables of the numeric axes; false on out of memory. */
bool sweep_axis_tables(struct axis *ax)
{
    if (ax->kind == AXIS_REQUEST_RATE || ax->kind == AXIS_MAX_CONCURRENCY) {
        ax->rates = malloc(ax->count * sizeof *ax->rates + 1);
        ax->labels = malloc(ax->count * sizeof *ax->labels + 1);
        if (ax->rates == NULL || ax->labels == NULL)
            return false;
        for (size_t i = 0; i < ax->count; i++)
            ax->rates[i] = workload_axis_value(ax, i, ax->labels[i], sizeof ax->labels[i]);
        return true;
    }
    if (ax->kind != AXIS_CONTEXT && ax->kind != AXIS_GPUS && ax->kind != AXIS_CONCURRENCY)
        return true;
    ax->values = malloc(ax->count * sizeof *ax->values + 1);
    ax->labels = malloc(ax->count * sizeof *ax->labels + 1);
    if (ax->values == NULL || ax->labels == NULL)
        return false;
    for (size_t i = 0; i < ax->count; i++)
        ax->values[i] = axis_value(ax, i, ax->labels[i], sizeof ax->labels[i]);
    return true;
}

const char *sweep_axis_apply(const struct axis *ax, size_t i, const struct catalog *cat,
                             const struct scenario *base, struct scenario *s)
{
    switch (ax->kind) {
    case AXIS_CONTEXT: { /* a prefix that reaches the context is held to it less one
                          * token (scenario_prefix_within); an average past it: none */
        uint64_t v = ax->values[i];
        s->context_tokens = v;
        s->prefix_tokens = scenario_prefix_within(base->prefix_tokens, v);
        s->avg_context_tokens = base->avg_context_tokens < v ? base->avg_context_tokens : 0;
        break;
    }
    case AXIS_CONCURRENCY:
        s->concurrency = ax->values[i];
        break;
    case AXIS_GPUS: {
        struct scenario before = *s;
        s->gpus = (uint32_t)ax->values[i]; /* --tp stays: counts it does not divide are refused */
        calibration_follow(cat, &before, s); /* a logged cache of another split */
        break;
    }
    case AXIS_GPU: {
        struct scenario before = *s;
        s->gpu = cat->gpus[i].spec;
        calibration_follow(cat, &before, s); /* a logged cache measured on another GPU */
        return s->gpu.id;
    }
    case AXIS_MODEL:
        s->model = cat->models[i].spec;
        s->kv_heads = 0;
        return s->model.id;
    case AXIS_KV_DTYPE:
        s->kv_dtype = ax->kv[i];
        return dtype_info(s->kv_dtype)->name;
    case AXIS_REQUEST_RATE:
    case AXIS_MAX_CONCURRENCY:
        break; /* the workload's, not the scenario's: the simulated rows read ax->rates */
    }
    return ax->labels[i];
}

void sweep_axis_free(struct axis *ax)
{
    free(ax->values);
    free(ax->labels);
    free(ax->rates);
    ax->rates = NULL;
    ax->values = NULL;
    ax->labels = NULL;
}
