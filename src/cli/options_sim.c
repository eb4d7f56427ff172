/* options_sim: simulate's workload options, as vllm bench serve spells and
 * bounds them (vllm/benchmarks/serve.py add_cli_args, check_goodput_args). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options_table.h"

#define FIELD_AT(type, o, row) ((type *)(void *)((char *)(o) + (row)->offset))

/* A number strtod reads whole, finite or "inf". */
static bool read_number(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end != '\0' || errno == ERANGE || isnan(v))
        return false;
    *out = v;
    return true;
}

/* --request-rate and --burstiness: above 0, or inf. */
bool opt_rate(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    double v;
    if (!read_number(arg, &v))
        return diag_fail(d, "%s: '%s' is not a number (a positive number, or inf)", row->flag,
                         arg);
    if (!(v > 0))
        return diag_fail(d, "%s: '%s' is not above 0 (a positive number, or inf)", row->flag,
                         arg);
    *FIELD_AT(double, o, row) = isinf(v) ? INFINITY : v;
    return true;
}

/* --random-range-ratio: [0, 1), as RandomDataset.get_sampling_params asks. */
bool opt_range_ratio(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    double v;
    if (!read_number(arg, &v) || !(v >= 0 && v < 1))
        return diag_fail(d, "%s: '%s' is not in [0, 1): the lengths range over "
                         "[len x (1 - F), len x (1 + F)]", row->flag, arg);
    *FIELD_AT(double, o, row) = v;
    return true;
}

/* --goodput KEY:MS, KEY one of ttft, tpot, e2el, MS more than 0; each key
 * once. */
bool opt_goodput(const struct option_row *row, const char *arg, struct options *o,
                 struct diag *d)
{
    static const char *const keys[3] = {"ttft", "tpot", "e2el"};
    const char *colon = strchr(arg, ':');
    size_t n = colon ? (size_t)(colon - arg) : 0;
    int k = -1;
    for (int i = 0; i < 3 && colon; i++)
        if (n == strlen(keys[i]) && strncmp(arg, keys[i], n) == 0)
            k = i;
    double ms;
    if (k < 0)
        return diag_fail(d, "%s: '%s' is not KEY:MS with KEY ttft, tpot or e2el", row->flag,
                         arg);
    if (!read_number(colon + 1, &ms) || !(ms > 0) || isinf(ms)) /* 0: no request keeps it */
        return diag_fail(d, "%s: '%s': the objective is milliseconds, more than 0", row->flag,
                         arg);
    if (o->goodput_set[k])
        return diag_fail(d, "%s: %s is given twice", row->flag, keys[k]);
    o->goodput_ms[k] = ms;
    o->goodput_set[k] = true;
    return true;
}

/* --goodput-target: a share of the requests, (0, 1]. */
bool opt_share(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    double v;
    if (!read_number(arg, &v) || !(v > 0 && v <= 1))
        return diag_fail(d, "%s: '%s' is not a share above 0 and at most 1 (0.95: 95%% of the "
                         "requests)", row->flag, arg);
    *FIELD_AT(double, o, row) = v;
    return true;
}

bool opt_sim_format(const struct option_row *row, const char *arg, struct options *o,
                    struct diag *d)
{
    if (strcmp(arg, "text") == 0 || strcmp(arg, "json") == 0) {
        o->format = arg[0] == 'j' ? FORMAT_JSON : FORMAT_TEXT;
        return true;
    }
    return diag_fail(d, "%s: simulate writes text or json, not '%s'", row->flag, arg);
}

/* --router: how several replicas share the requests (core/sim.h). */
bool opt_router(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    static const struct {
        const char *name;
        enum sim_router router;
    } routers[] = {{"round-robin", SIM_ROUTE_ROUND_ROBIN},
                   {"least-outstanding", SIM_ROUTE_LEAST_OUTSTANDING},
                   {"prefix-aware", SIM_ROUTE_PREFIX_AWARE}};
    for (size_t i = 0; i < sizeof routers / sizeof *routers; i++)
        if (strcmp(arg, routers[i].name) == 0) {
            o->router = routers[i].router;
            return true;
        }
    return diag_fail(d, "%s: '%s' is not a router: round-robin, least-outstanding or "
                     "prefix-aware", row->flag, arg);
}

/* --capacity-scheduler-policy: TensorRT-LLM's, as its scheduler_config spells it. */
bool opt_capacity_policy(const struct option_row *row, const char *arg, struct options *o,
                         struct diag *d)
{
    for (enum sim_capacity p = SIM_GUARANTEED_NO_EVICT; p <= SIM_MAX_UTILIZATION; p++)
        if (strcmp(arg, sim_capacity_name(p)) == 0) {
            o->capacity = p;
            return true;
        }
    return diag_fail(d, "%s: '%s' is not a policy: GUARANTEED_NO_EVICT or MAX_UTILIZATION",
                     row->flag, arg);
}
