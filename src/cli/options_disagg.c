/* options_disagg: --disaggregated's pools and link, read from the options
 * (options_disagg.h). */
#include "cli/options_disagg.h"

#include <math.h>
#include <string.h>

#include "cli/options.h"
#include "cli/options_table.h"

bool opt_kv_link(const struct option_row *row, const char *arg, struct options *o,
                 struct diag *d)
{
    enum sim_link k = sim_link_parse(arg);
    if (k == SIM_LINK_COUNT)
        return diag_fail(d, "%s: '%s' is not a link: nvlink, ib or roce", row->flag, arg);
    o->disagg.link = k;
    return true;
}

/* A pool's GPU: the preset id given, else the base's. */
static bool pool_gpu(const struct catalog *cat, const char *id, enum option_id opt,
                     struct scenario *s, struct diag *d)
{
    if (id == NULL)
        return true;
    const struct catalog_gpu *g = catalog_find_gpu(cat, id);
    if (g == NULL) {
        char near[256];
        catalog_suggest(cat, PRESET_GPU, id, near, sizeof near);
        return diag_fail(d, "%s: unknown GPU '%s' (closest: %s; see kvplan list gpus)",
                         OPTION_FLAG(opt), id, near);
    }
    s->gpu = g->spec;
    return true;
}

/* A pool of `gpus` (0: tp) instances of TP tp (0: the base's, else 1). */
static bool pool_layout(struct scenario *s, uint32_t gpus, uint32_t tp, enum option_id gopt,
                        enum option_id topt, struct diag *d)
{
    if (tp == 0)
        tp = s->tp ? s->tp : 1;
    if (gpus == 0)
        gpus = tp;
    if (gpus % tp != 0)
        return diag_fail(d, "%s: %u GPUs are not whole instances of %s %u", OPTION_FLAG(gopt),
                         gpus, OPTION_FLAG(topt), tp);
    if (gpus / tp > SIM_MAX_REPLICAS)
        return diag_fail(d, "%s: %u instances of TP %u: simulate takes at most %d a pool",
                         OPTION_FLAG(gopt), gpus / tp, tp, SIM_MAX_REPLICAS);
    s->gpus = gpus;
    s->tp = tp;
    s->pp = 1;
    return true;
}

bool disagg_pools_of_options(const struct options *o, const struct catalog *cat,
                             const struct scenario *base, struct disagg_pools *out,
                             struct diag *d)
{
    const struct disagg_options *g = &o->disagg;
    out->prefill = *base;
    out->decode = *base;
    if (!pool_gpu(cat, g->prefill_gpu, OPT_PREFILL_GPU, &out->prefill, d) ||
        !pool_gpu(cat, g->decode_gpu, OPT_DECODE_GPU, &out->decode, d))
        return false;
    if (!pool_layout(&out->prefill, g->prefill_gpus, g->prefill_tp, OPT_PREFILL_GPUS,
                     OPT_PREFILL_TP, d) ||
        !pool_layout(&out->decode, g->decode_gpus, g->decode_tp, OPT_DECODE_GPUS,
                     OPT_DECODE_TP, d))
        return false;
    out->link = o->given[OPT_KV_LINK] ? g->link : SIM_LINK_IB;
    sim_link_figures(out->link, &out->prefill.gpu, &out->decode.gpu, &out->bytes_per_s,
                     &out->latency);
    if (o->given[OPT_KV_TRANSFER_BANDWIDTH])
        out->bytes_per_s = isinf(g->bandwidth_gbs) ? INFINITY : g->bandwidth_gbs * 1e9;
    if (o->given[OPT_KV_TRANSFER_LATENCY])
        out->latency = g->latency_ms / 1e3;
    if (!(out->bytes_per_s > 0))
        return diag_fail(d, "%s nvlink: %s has no interconnect figure in its preset (give %s)",
                         OPTION_FLAG(OPT_KV_LINK),
                         out->prefill.gpu.link_bytes_per_s ? out->decode.gpu.name
                                                           : out->prefill.gpu.name,
                         OPTION_FLAG(OPT_KV_TRANSFER_BANDWIDTH));
    return true;
}
