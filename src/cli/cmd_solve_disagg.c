/* solve's disaggregated layouts (solve_disagg.h): the xPyD search after the
 * aggregated one, on the same stream, and the comparison of the two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "cli/solve_disagg.h"
#include "cli/solve_slo.h"
#include "core/engine_desc.h"

static const enum option_id link_options[] = {OPT_PREFILL_GPU, OPT_DECODE_GPU, OPT_KV_LINK,
                                              OPT_KV_TRANSFER_BANDWIDTH,
                                              OPT_KV_TRANSFER_LATENCY};

bool solve_disagg_prepare(const struct options *o, const struct scenario *base,
                          struct solve_disagg *sd, struct diag *d)
{
    const bool *g = o->given;
    memset(sd, 0, sizeof *sd);
    if (g[OPT_DISAGGREGATED] && g[OPT_NO_DISAGGREGATED])
        return diag_fail(d, "solve: %s and %s: give one of them", OPTION_FLAG(OPT_DISAGGREGATED),
                         OPTION_FLAG(OPT_NO_DISAGGREGATED));
    sd->asked = !g[OPT_NO_DISAGGREGATED];
    sd->only = g[OPT_DISAGGREGATED];
    for (size_t i = 0; i < sizeof link_options / sizeof *link_options; i++)
        if (g[link_options[i]] && !sd->asked)
            return diag_fail(d, "solve: %s is for the disaggregated layouts, which %s leaves out",
                             OPTION_FLAG(link_options[i]), OPTION_FLAG(OPT_NO_DISAGGREGATED));
    if (g[OPT_MAX_CONCURRENCY] && sd->asked) {
        enum option_id first = g[OPT_DISAGGREGATED] ? OPT_DISAGGREGATED : OPT_COUNT;
        for (size_t i = 0; i < sizeof link_options / sizeof *link_options; i++)
            if (g[link_options[i]] && first == OPT_COUNT)
                first = link_options[i];
        if (first != OPT_COUNT)
            return diag_fail(d, "solve %s: %s is not simulated with disaggregated layouts (the "
                             "client's cap would tie the two pools' clocks together)",
                             OPTION_FLAG(first), OPTION_FLAG(OPT_MAX_CONCURRENCY));
        sd->asked = false; /* the client's cap: the aggregated layouts alone */
    }
    const struct engine_desc *e = engine_desc(base->engine.kind);
    if (e->sched.kind == SIM_SCHED_SLOTS) {
        if (sd->only)
            return diag_fail(d, "solve %s: %s's server has no disaggregated prefill and decode",
                             OPTION_FLAG(OPT_DISAGGREGATED), e->title);
        sd->asked = false; /* nothing to search: the aggregated answer alone */
    }
    if (!sd->asked)
        return true;
    struct catalog cat;
    catalog_init(&cat);
    if (!options_load_catalog(o, &cat, d))
        return false;
    bool ok = disagg_pools_of_options(o, &cat, base, &sd->pools, d);
    catalog_free(&cat);
    return ok;
}

/* The aggregated layout of the disaggregated answer's GPUs: the search's
 * run of it, or one run now. */
static void same_gpus(struct solve_disagg *sd, const struct slo_search *q,
                      const struct slo_answer *a)
{
    uint32_t gpus = sd->a.gpus, tp = sd->s.tried[sd->a.best].l.tp;
    for (size_t i = 0; i < a->ntried; i++)
        if (q->tried[i].gpus == gpus && q->tried[i].tp == tp) {
            sd->same = q->tried[i];
            sd->same_ok = true;
            return;
        }
    sd->same_ok = gpus / tp <= SIM_MAX_REPLICAS && slo_search_layout(q, tp, gpus / tp, &sd->same);
}

bool solve_disagg_search(struct solve_disagg *sd, const struct workload_params *w,
                         struct slo_search *q, const struct slo_answer *a, struct diag *d)
{
    if (!sd->asked)
        return true;
    struct workload_request *reqs = malloc((size_t)w->num_prompts * sizeof *reqs);
    sd->s = (struct slo_disagg_search){
        .q = q, .prefill_base = &sd->pools.prefill, .decode_base = &sd->pools.decode,
        .bytes_per_s = sd->pools.bytes_per_s, .latency = sd->pools.latency,
        .max_gpus = a->solved && !sd->only ? a->gpus : q->max_gpus,
        .max_runs = q->max_runs};
    sd->s.tried = calloc(q->max_runs, sizeof *sd->s.tried);
    if (reqs == NULL || sd->s.tried == NULL) {
        free(reqs);
        return diag_fail(d, "out of memory for the disaggregated layouts");
    }
    workload_generate(w, reqs);
    q->reqs = reqs;
    q->nreqs = (size_t)w->num_prompts;
    sd->a = slo_disagg_run(&sd->s);
    if (sd->a.solved)
        same_gpus(sd, q, a);
    free(reqs);
    q->reqs = NULL;
    return true;
}

void solve_disagg_free(struct solve_disagg *sd)
{
    free(sd->s.tried);
    sd->s.tried = NULL;
}

static void xpyd(const struct slo_disagg_layout *l, char *buf, size_t size)
{
    snprintf(buf, size, "%uP%uD", l->prefill, l->decode);
}

enum winner { WIN_NONE, WIN_AGGREGATED, WIN_DISAGGREGATED };

/* Which answer won, and a sentence of by how much. */
static enum winner winner(const struct solve_disagg *sd, const struct slo_search *q,
                          const struct slo_answer *a, char *buf, size_t size)
{
    const struct slo_disagg_layout *dl = &sd->s.tried[sd->a.best];
    const struct slo_layout *al = &q->tried[a->best];
    char name[24];
    if (!sd->a.solved && !a->solved) {
        if (sd->a.out_of_runs || a->out_of_runs)
            snprintf(buf, size, "none yet: the search stopped at --max-plans before a layout "
                     "kept it (allow more with --max-plans N)");
        else
            snprintf(buf, size, "neither keeps it: no aggregated layout or xPyD split of up to "
                     "%u GPUs", q->max_gpus);
        return WIN_NONE;
    }
    if (!sd->a.solved) {
        snprintf(buf, size, "aggregated, %u GPUs: no xPyD split of up to %u GPUs keeps it%s",
                 a->gpus, sd->s.max_gpus, sd->a.out_of_runs ? " (stopped at --max-plans)" : "");
        return WIN_AGGREGATED;
    }
    xpyd(dl, name, sizeof name);
    if (!a->solved && a->out_of_runs) {
        /* the aggregated search was cut short: what it had found */
        uint32_t met = 0;
        for (size_t i = 0; i < a->ntried; i++)
            if (q->tried[i].verdict == SLO_MEETS && (met == 0 || q->tried[i].gpus < met))
                met = q->tried[i].gpus;
        int n = snprintf(buf, size, "disaggregated %s, %u GPUs; the aggregated search stopped at "
                         "--max-plans", name, sd->a.gpus);
        if (met && n > 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, " (%u GPUs kept it; layouts of fewer not all tried)", met);
        return WIN_DISAGGREGATED;
    }
    if (!a->solved) {
        snprintf(buf, size, "disaggregated %s, %u GPUs: no aggregated layout of up to %u keeps it",
                 name, sd->a.gpus, q->max_gpus);
        return WIN_DISAGGREGATED;
    }
    if (sd->a.gpus != a->gpus) {
        bool dis = sd->a.gpus < a->gpus;
        uint32_t more = dis ? a->gpus : sd->a.gpus, fewer = dis ? sd->a.gpus : a->gpus;
        snprintf(buf, size, "%s%s, %u GPUs against %s's %u: %u fewer (%.0f%%)",
                 dis ? "disaggregated " : "aggregated", dis ? name : "", fewer,
                 dis ? "aggregated" : name, more, more - fewer,
                 100.0 * (double)(more - fewer) / (double)more);
        return dis ? WIN_DISAGGREGATED : WIN_AGGREGATED;
    }
    bool dis = dl->l.share > al->share ||
               (dl->l.share == al->share && dl->l.out.ttft.p95 < al->out.ttft.p95);
    const struct slo_layout *w = dis ? &dl->l : al, *l = dis ? al : &dl->l;
    snprintf(buf, size, "%s%s, on the same %u GPUs: goodput %.1f%% against %s's %.1f%%, "
             "p95 TTFT %.1f ms against %.1f ms", dis ? "disaggregated " : "aggregated",
             dis ? name : "", a->gpus, w->share * 100, dis ? "aggregated" : name,
             l->share * 100, w->out.ttft.p95 * 1e3, l->out.ttft.p95 * 1e3);
    return dis ? WIN_DISAGGREGATED : WIN_AGGREGATED;
}

bool solve_disagg_won(const struct solve_disagg *sd, const struct slo_search *q,
                      const struct slo_answer *a, char *buf, size_t size)
{
    if (!sd->asked || winner(sd, q, a, buf, size) != WIN_DISAGGREGATED)
        return false;
    const struct slo_layout *l = &sd->s.tried[sd->a.best].l; /* its price beside it */
    size_t n = strlen(buf);
    if (l->usd_per_hour >= 0 && l->usd_per_million_output >= 0 && n < size)
        snprintf(buf + n, size - n, "; $%.2f an hour, $%.3f a million output tokens",
                 l->usd_per_hour, l->usd_per_million_output);
    return true;
}

static int status_of(const struct solve_disagg *sd, int agg_status)
{
    if (!sd->asked)
        return agg_status;
    if (sd->only)
        return sd->a.solved ? 0 : 1;
    return agg_status == 0 || sd->a.solved ? 0 : 1;
}

static void print_row(const struct slo_disagg_layout *l, bool best)
{
    struct slo_cells c;
    char name[24];
    xpyd(l, name, sizeof name);
    solve_slo_cells(&l->l, &c);
    printf("%c %7s %5u %4u %8s %10s %10s %10s %9s  %s\n", best ? '*' : ' ', name, l->l.gpus,
           l->l.tp, c.share, c.ttft, c.tpot, c.tok, c.cost, slo_verdict_name(l->l.verdict));
}

int solve_disagg_text(const struct solve_disagg *sd, const struct slo_search *q,
                      const struct slo_answer *a, int agg_status)
{
    if (!sd->asked)
        return agg_status;
    const struct disagg_pools *p = &sd->pools;
    char bw[48], why[256];
    if (p->bytes_per_s > 1e300)
        snprintf(bw, sizeof bw, "at once");
    else
        snprintf(bw, sizeof bw, "%g GB/s a GPU", p->bytes_per_s / 1e9);
    if (sd->a.ntried == 0) { /* no table of no rows */
        printf("\nDisaggregated layouts: none to simulate (xPyD, x prefill and y decode "
               "instances, needs room for both)\n");
    } else {
        printf("\nDisaggregated layouts simulated (%zu): xPyD, x prefill and y decode instances, "
               "prefill on %s, decode on %s, KV over %s (%s after %g ms):\n", sd->a.ntried,
               p->prefill.gpu.name, p->decode.gpu.name, sim_link_title(p->link), bw,
               p->latency * 1e3);
        printf("  %7s %5s %4s %8s %10s %10s %10s %9s  %s\n", "LAYOUT", "GPUS", "TP", "GOODPUT",
               "P95 TTFT", "P95 TPOT", "OUT TOK/S", "$/M OUT", "VERDICT");
    }
    for (size_t i = 0; i < sd->a.ntried; i++)
        print_row(&sd->s.tried[i], sd->a.solved && i == sd->a.best);
    if (sd->a.solved && sd->same_ok) {
        struct slo_cells c;
        solve_slo_cells(&sd->same, &c);
        printf("Same GPUs   aggregated %u x TP %u: goodput %s, p95 TTFT %s, p95 TPOT %s, %s\n",
               sd->same.replicas, sd->same.tp, c.share, c.ttft, c.tpot,
               slo_verdict_name(sd->same.verdict));
    }
    winner(sd, q, a, why, sizeof why);
    printf("Winner      %s\n", why);
    return status_of(sd, agg_status);
}

/* A split's keys; `kind` (not NULL) first, as the top level's answer has it */
static cJSON *layout_json(const struct slo_disagg_layout *l, bool verdict, const char *kind)
{
    char name[24];
    struct jsonout o = jsonout_begin();
    if (kind)
        jsonout_string(&o, "kind", kind);
    xpyd(l, name, sizeof name);
    jsonout_string(&o, "layout", name);
    jsonout_uint(&o, "prefill_instances", l->prefill);
    jsonout_uint(&o, "decode_instances", l->decode);
    solve_slo_layout_json(&o, &l->l);
    if (verdict)
        jsonout_string(&o, "verdict", slo_verdict_name(l->l.verdict));
    return jsonout_end(&o);
}

static cJSON *candidates_json(const struct solve_disagg *sd)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < sd->a.ntried && list; i++) {
        cJSON *item = layout_json(&sd->s.tried[i], true, NULL);
        if (item == NULL || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            cJSON_Delete(list);
            list = NULL;
        }
    }
    return list;
}

/* The top level's "answer": the winner's layout, named by its kind (the
 * top-level layout keys stay the aggregated answer's). */
static void answer_json(struct jsonout *jo, const struct solve_disagg *sd,
                        const struct slo_search *q, const struct slo_answer *a, enum winner w)
{
    if (w == WIN_DISAGGREGATED) {
        jsonout_object(jo, "answer", layout_json(&sd->s.tried[sd->a.best], false, "disaggregated"));
        return;
    }
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "kind", "aggregated");
    solve_slo_layout_json(&o, &q->tried[a->best]);
    jsonout_object(jo, "answer", jsonout_end(&o));
}

int solve_disagg_json(struct jsonout *jo, const struct solve_disagg *sd,
                      const struct slo_search *q, const struct slo_answer *a, int agg_status)
{
    if (!sd->asked) {
        if (a->solved)
            answer_json(jo, sd, q, a, WIN_AGGREGATED);
        return agg_status;
    }
    static const char *const words[3] = {NULL, "aggregated", "disaggregated"};
    char why[256];
    enum winner w = winner(sd, q, a, why, sizeof why);
    if (w != WIN_NONE)
        answer_json(jo, sd, q, a, w);
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "prefill_gpu", sd->pools.prefill.gpu.id);
    jsonout_string(&o, "decode_gpu", sd->pools.decode.gpu.id);
    jsonout_string(&o, "kv_link", sim_link_name(sd->pools.link));
    jsonout_double_or_null(&o, "kv_transfer_bandwidth_gb_s", sd->pools.bytes_per_s / 1e9,
                           sd->pools.bytes_per_s < 1e300);
    jsonout_double(&o, "kv_transfer_latency_ms", sd->pools.latency * 1e3);
    jsonout_uint(&o, "max_gpus", sd->s.max_gpus);
    jsonout_bool(&o, "solved", sd->a.solved);
    jsonout_bool(&o, "out_of_runs", sd->a.out_of_runs);
    if (sd->a.solved)
        jsonout_object(&o, "answer", layout_json(&sd->s.tried[sd->a.best], false, NULL));
    if (sd->a.solved && sd->same_ok) {
        struct jsonout s = jsonout_begin();
        solve_slo_layout_json(&s, &sd->same);
        jsonout_string(&s, "verdict", slo_verdict_name(sd->same.verdict));
        jsonout_object(&o, "aggregated_same_gpus", jsonout_end(&s));
    }
    jsonout_object(&o, "candidates", candidates_json(sd));
    jsonout_object(jo, "disaggregated", jsonout_end(&o));
    if (w == WIN_NONE)
        jsonout_null(jo, "winner");
    else
        jsonout_string(jo, "winner", words[w]);
    jsonout_string(jo, "winner_because", why);
    return status_of(sd, agg_status);
}
