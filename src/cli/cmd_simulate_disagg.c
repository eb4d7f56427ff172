/* simulate --disaggregated: the prefill and decode pools planned each on its
 * own GPU and layout, simulated with the KV moved between them
 * (core/sim_disagg.h), and the aggregated deployment of the same GPUs run on
 * the same requests beside it: parse, check, simulate, print
 * (simulate_disagg_print.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "cli/simulate_disagg.h"
#include "core/engine_desc.h"
#include "core/loadrun.h"

static const enum option_id pool_options[] = {
    OPT_PREFILL_GPU,  OPT_PREFILL_GPUS, OPT_PREFILL_TP, OPT_DECODE_GPU,
    OPT_DECODE_GPUS,  OPT_DECODE_TP,    OPT_KV_LINK,    OPT_KV_TRANSFER_BANDWIDTH,
    OPT_KV_TRANSFER_LATENCY};

enum option_id disagg_given(const struct options *o)
{
    for (size_t i = 0; i < sizeof pool_options / sizeof *pool_options; i++)
        if (o->given[pool_options[i]])
            return pool_options[i];
    return OPT_COUNT;
}

/* What --disaggregated does not take, and what it needs. */
static bool disagg_checks(const struct options *o, struct diag *d)
{
    const char *dis = OPTION_FLAG(OPT_DISAGGREGATED);
    enum option_id first = disagg_given(o);
    if (!o->given[OPT_DISAGGREGATED])
        return diag_fail(d, "%s needs %s", OPTION_FLAG(first), dis);
    if (o->given[OPT_MAX_CONCURRENCY])
        return diag_fail(d, "%s: %s is not simulated with %s (the client's cap would tie the "
                         "two pools' clocks together)", dis, OPTION_FLAG(OPT_MAX_CONCURRENCY),
                         dis);
    if (o->given[OPT_COMPARE])
        return diag_fail(d, "%s: %s takes one deployment's measurement, not two pools'", dis,
                         OPTION_FLAG(OPT_COMPARE));
    return true;
}

/* Plans pool s (named for messages) into sr and makes its config, with
 * the options' scheduler settings and objectives. */
static bool plan_pool(const struct options *o, const char *name, const struct scenario *s,
                      struct simulate_run *sr, struct diag *d)
{
    struct diag in = {0};
    sr->s = *s;
    sr->x.deferred = false;
    if (!plan_compute(&sr->s, &sr->x, NULL, &sr->r, &in) ||
        !simulate_config(&sr->s, &sr->r, &sr->c, &in) ||
        !simulate_sched_options(o, &sr->s, &sr->c, &in))
        return diag_fail(d, "%s (%u x %s, TP %u): %s", name, s->gpus, s->gpu.name, s->tp,
                         in.message);
    sr->router_given = o->given[OPT_ROUTER];
    double *slo[3] = {&sr->c.slo_ttft, &sr->c.slo_tpot, &sr->c.slo_e2el};
    for (int i = 0; i < 3; i++)
        *slo[i] = o->goodput_set[i] ? o->goodput_ms[i] / 1000.0 : -1;
    return true;
}

/* The aggregated deployment's TP for `gpus` GPUs: the decode pool's, else
 * the prefill pool's, else 1, whichever divides them first. */
static uint32_t aggregated_tp(const struct disagg_pools *p, uint32_t gpus)
{
    if (gpus % p->decode.tp == 0)
        return p->decode.tp;
    return gpus % p->prefill.tp == 0 ? p->prefill.tp : 1;
}

/* The aggregated deployment of the same GPUs, on the same requests; a
 * refusal is said in dr->agg_why, not an error. */
static void run_aggregated(const struct options *o, const struct workload_request *q,
                           struct disagg_run *dr)
{
    struct scenario s = dr->pools.decode;
    struct diag d = {0};
    s.gpus = dr->pools.prefill.gpus + dr->pools.decode.gpus;
    s.tp = aggregated_tp(&dr->pools, s.gpus);
    dr->agg.w = dr->dec.w;
    dr->agg.fit = dr->dec.fit;
    dr->agg_ok = plan_pool(o, "aggregated", &s, &dr->agg, &d) &&
                 load_check_workload(&dr->agg.w, &dr->agg.c, &d);
    if (dr->agg_ok) {
        enum sim_status st = sim_run(&dr->agg.c, q, (size_t)dr->agg.w.num_prompts, &dr->agg.out);
        dr->agg_ok = !simulate_run_failed(st, &d);
    }
    if (!dr->agg_ok)
        snprintf(dr->agg_why, sizeof dr->agg_why, "%s", d.message);
}

/* Loads, plans both pools and checks the workload on each. */
static bool prepare(const struct options *o, struct disagg_run *dr, struct diag *d)
{
    struct catalog cat;
    struct scenario base, s;
    if (!disagg_checks(o, d) || !options_load(o, &cat, &base, d))
        return false;
    load_scenario(&base, &s);
    bool ok = disagg_pools_of_options(o, &cat, &s, &dr->pools, d);
    catalog_free(&cat);
    if (!ok)
        return false;
    const struct engine_desc *e = engine_desc(s.engine.kind);
    if (e->simulated && e->sched.kind == SIM_SCHED_SLOTS)
        return diag_fail(d, "%s: %s's server has no disaggregated prefill and decode "
                         "(vLLM, SGLang and TensorRT-LLM have)", OPTION_FLAG(OPT_DISAGGREGATED),
                         e->title);
    if (!plan_pool(o, "the prefill pool", &dr->pools.prefill, &dr->pre, d) ||
        !plan_pool(o, "the decode pool", &dr->pools.decode, &dr->dec, d))
        return false;
    dr->dec.w = simulate_workload(o, &dr->dec.s);
    dr->pre.w = dr->dec.w;
    if (o->dataset_path && !dr->dec.w.profile) {
        /* a trace: each request checked against both pools, by its line */
        if (!simulate_dataset(o, &dr->pre, d) || !simulate_dataset(o, &dr->dec, d))
            return false;
    } else if (!load_check_workload(&dr->dec.w, &dr->dec.c, d) ||
               !load_check_workload(&dr->pre.w, &dr->pre.c, d)) {
        return false;
    }
    if (dr->dec.w.profile) { /* a length profile: what both pools take */
        struct workload_params *w = &dr->dec.w;
        const struct workload_params *p = &dr->pre.w;
        w->most_total = p->most_total < w->most_total ? p->most_total : w->most_total;
        if (p->most_prompt && (!w->most_prompt || p->most_prompt < w->most_prompt))
            w->most_prompt = p->most_prompt;
        if (workload_profile_fit(w).count == 0)
            return diag_fail(d, "%s %s: none of its requests fits both pools",
                             OPTION_FLAG(OPT_DATASET), w->profile->name);
        simulate_profile_fit(w, &dr->dec.fit, dr->dec.c.max_model_len);
        dr->pre.w = *w;
    }
    sim_disagg_config_of_plans(&dr->pre.s, &dr->pre.r, &dr->dec.s, &dr->dec.r,
                               dr->pools.bytes_per_s, dr->pools.latency, &dr->c);
    dr->c.prefill = dr->pre.c; /* with the options' scheduler settings */
    dr->c.decode = dr->dec.c;
    dr->c.slo_ttft = dr->dec.c.slo_ttft;
    dr->c.slo_tpot = dr->dec.c.slo_tpot;
    dr->c.slo_e2el = dr->dec.c.slo_e2el;
    return true;
}

static bool run(const struct options *o, struct disagg_run *dr, struct diag *d)
{
    if (!prepare(o, dr, d))
        return false;
    size_t n = (size_t)dr->dec.w.num_prompts;
    struct workload_request *q = malloc(n * sizeof *q);
    if (q == NULL)
        return diag_fail(d, "out of memory for %zu requests", n);
    workload_generate(&dr->dec.w, q);
    simulate_trace_requests(&dr->dec, q);
    enum sim_status st = sim_disagg_run(&dr->c, q, n, &dr->out);
    if (st == SIM_OK)
        run_aggregated(o, q, dr);
    free(q);
    dr->dec.out = dr->out.all;
    return !simulate_run_failed(st, d);
}

int simulate_disagg(const struct options *o)
{
    static struct disagg_run dr; /* three plans' explain rows */
    struct diag d = {0};
    memset(&dr, 0, sizeof dr);
    bool ran = run(o, &dr, &d);
    trace_free(&dr.pre.trace);
    trace_free(&dr.dec.trace);
    if (!ran)
        return cli_fail(d.message);
    bool ok = o->format == FORMAT_JSON ? simulate_disagg_json(stdout, &dr)
                                       : simulate_disagg_text(stdout, &dr);
    if (!ok)
        return cli_fail("cannot build the JSON (out of memory)");
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return 0;
}
