/* slo_search: the fewest GPUs whose simulated run keeps a service level
 * (see slo_search.h). */
#include "slo_search.h"

#include <math.h>
#include <string.h>

#include "price.h"

const char *slo_verdict_name(enum slo_verdict v)
{
    switch (v) {
    case SLO_MEETS:
        return "meets";
    case SLO_MISSES:
        return "SLO";
    case SLO_OVER_CAPACITY:
        return "over capacity";
    case SLO_CLIENT:
        return "client";
    case SLO_MEMORY:
        return "memory";
    case SLO_RUN_FAILED:
        return "run";
    }
    return "?";
}

/* The longest request of the stream, in tokens (prompt and output). */
uint64_t slo_longest_request(const struct slo_search *q)
{
    uint64_t most = 0;
    for (size_t i = 0; i < q->nreqs; i++)
        if (q->reqs[i].prompt + q->reqs[i].output > most)
            most = q->reqs[i].prompt + q->reqs[i].output;
    return most;
}

/* The pool holds the longest request (its last token is never cached) and
 * the context takes it, as simulate asks before it runs. */
bool slo_holds_longest(const struct sim_config *c, uint64_t longest)
{
    if (longest > c->max_model_len)
        return false;
    uint64_t need = sim_request_blocks(c, longest ? longest - 1 : 0);
    return need + sim_prefix_blocks(c) <= c->blocks;
}

/* The least share of the offered rate a client (held back by
 * --max-concurrency) must send at for its run to stand for the rate. */
#define CLIENT_KEEPS_UP 0.95

void slo_layout_judge(const struct slo_search *q, struct slo_layout *out)
{
    const struct sim_result *o = &out->out;
    out->share = q->nreqs ? (double)o->good / (double)q->nreqs : 0;
    if (o->status != SIM_OK)
        out->verdict = SLO_RUN_FAILED;
    else if (o->over_capacity)
        out->verdict = SLO_OVER_CAPACITY;
    else if (o->sent_per_s < CLIENT_KEEPS_UP * o->offered_per_s)
        out->verdict = SLO_CLIENT; /* the rate was not offered: it cannot be met */
    else
        out->verdict = out->share >= q->target ? SLO_MEETS : SLO_MISSES;
    /* A layout that keeps up serves what is offered: the run's own figures
     * count its drain, the last requests' answers after the sending ends. */
    out->offered = (out->verdict == SLO_MEETS || out->verdict == SLO_MISSES) &&
                   o->offered_per_s > 0 && o->completed > 0;
    out->request_throughput = out->offered ? o->offered_per_s : o->request_throughput;
    out->output_throughput = out->offered ? o->offered_per_s * (double)o->total_output /
                                                (double)o->completed
                                          : o->output_throughput;
    double input_throughput = out->offered ? o->offered_per_s * (double)o->total_input /
                                                 (double)o->completed
                              : o->duration > 0 ? (double)o->total_input / o->duration
                                                : 0;
    if (out->usd_per_hour >= 0 && out->output_throughput > 0)
        out->usd_per_million_output = out->usd_per_hour / (out->output_throughput *
                                                           PRICE_SECONDS_PER_HOUR) *
                                      PRICE_TOKENS_PER_MILLION;
    if (out->usd_per_hour >= 0 && input_throughput > 0)
        out->usd_per_million_input = out->usd_per_hour / (input_throughput *
                                                          PRICE_SECONDS_PER_HOUR) *
                                     PRICE_TOKENS_PER_MILLION;
}

bool slo_search_layout(const struct slo_search *q, uint32_t tp, uint32_t replicas,
                       struct slo_layout *out)
{
    memset(out, 0, sizeof *out);
    out->gpus = tp * replicas;
    out->tp = tp;
    out->replicas = replicas;
    out->usd_per_hour = out->usd_per_million_output = out->usd_per_million_input = -1;
    struct scenario s = *q->base;
    s.gpus = out->gpus;
    s.tp = tp;
    s.pp = 0;
    struct plan_result r;
    struct diag ignore = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &ignore) ||
        (r.warnings & WARN_HEADS_UNEVEN_SPLIT) || r.placement.replicas != replicas)
        return false;
    out->usd_per_hour = r.price_usd_per_hour;
    struct sim_config c;
    sim_config_of_plan(&s, &r, &c);
    if (!r.fits || c.blocks == 0 || !slo_holds_longest(&c, slo_longest_request(q))) {
        out->verdict = SLO_MEMORY;
        return true;
    }
    c.max_concurrency = q->max_concurrency;
    c.slo_ttft = q->slo_ttft;
    c.slo_tpot = q->slo_tpot;
    c.slo_e2el = q->slo_e2el;
    sim_run(&c, q->reqs, q->nreqs, &out->out);
    slo_layout_judge(q, out);
    return true;
}

/* The search's state: the answer so far, the layouts run. */
struct searcher {
    const struct slo_search *q;
    struct slo_answer *a;
};

/* Layout tp x replicas, run once: the earlier run when there is one. NULL
 * when the engine refuses it or no run is left (a->out_of_runs). */
static const struct slo_layout *run(struct searcher *m, uint32_t tp, uint32_t replicas)
{
    for (size_t i = 0; i < m->a->ntried; i++)
        if (m->q->tried[i].tp == tp && m->q->tried[i].replicas == replicas)
            return &m->q->tried[i];
    if (m->a->ntried >= m->q->max_runs) {
        m->a->out_of_runs = true;
        return NULL;
    }
    struct slo_layout *out = &m->q->tried[m->a->ntried];
    if (!slo_search_layout(m->q, tp, replicas, out))
        return NULL;
    m->a->ntried++;
    return out;
}

/* The stream's rate: the requests over the last one's arrival (the
 * workload ends them at N / R); 0 when they all come at once. */
static double stream_rate(const struct slo_search *q)
{
    double last = q->nreqs ? q->reqs[q->nreqs - 1].arrival : 0;
    return last > 0 ? (double)q->nreqs / last : 0;
}

/* The replicas to try after n missed: twice n, or more when n was over
 * capacity and finished s requests a second over its run against the
 * rate's r (n x r / s of them: the rate over what one served), at most
 * rmax. */
static uint32_t next_replicas(const struct slo_layout *l, double rate, uint32_t n, uint32_t rmax)
{
    double want = 2.0 * n;
    if (l->verdict == SLO_OVER_CAPACITY && l->out.request_throughput > 0 && rate > 0) {
        double need = ceil((double)n * rate / l->out.request_throughput);
        want = need > want ? need : want;
    }
    return want >= (double)rmax ? rmax : (uint32_t)want;
}

/* The fewest replicas of TP tp, up to rmax, that meet the target; 0 when
 * none does (or the engine refuses tp, or the weights do not fit). */
static uint32_t fewest_replicas(struct searcher *m, uint32_t tp, uint32_t rmax)
{
    uint32_t lo = 0, hi = 0; /* the most known to miss, the fewest known to meet */
    double rate = stream_rate(m->q);
    for (uint32_t n = 1;;) {
        const struct slo_layout *l = run(m, tp, n);
        if (l == NULL || l->verdict == SLO_MEMORY) /* more replicas leave each GPU the same */
            return 0;
        if (l->verdict == SLO_MEETS) {
            hi = n;
            break;
        }
        lo = n;
        if (n == rmax)
            return 0;
        n = next_replicas(l, rate, n, rmax);
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct slo_layout *l = run(m, tp, mid);
        if (l == NULL)
            return hi;
        if (l->verdict == SLO_MEETS)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Every layout of gpus GPUs run; the best that meets it into a->best. */
static void settle(struct searcher *m, uint32_t gpus)
{
    const struct slo_search *q = m->q;
    bool found = false;
    for (uint32_t tp = 1; tp <= SLO_MAX_TP && tp <= gpus; tp++)
        if (gpus % tp == 0 && gpus / tp <= SIM_MAX_REPLICAS)
            (void)run(m, tp, gpus / tp);
    for (size_t i = 0; i < m->a->ntried; i++) {
        const struct slo_layout *l = &q->tried[i], *b = &q->tried[m->a->best];
        if (l->gpus != gpus || l->verdict != SLO_MEETS)
            continue;
        if (!found || l->share > b->share ||
            (l->share == b->share && l->out.ttft.p95 < b->out.ttft.p95)) {
            m->a->best = i;
            found = true;
        }
    }
    m->a->solved = found;
}

struct slo_answer slo_search_run(const struct slo_search *q)
{
    struct slo_answer a = {0};
    struct searcher m = {q, &a};
    uint32_t fewest = 0;
    for (uint32_t tp = 1; tp <= SLO_MAX_TP && tp <= q->max_gpus && !a.out_of_runs; tp++) {
        uint32_t limit = fewest ? fewest - 1 : q->max_gpus;
        uint32_t rmax = limit / tp < SIM_MAX_REPLICAS ? limit / tp : SIM_MAX_REPLICAS;
        if (rmax == 0)
            continue;
        uint32_t n = fewest_replicas(&m, tp, rmax);
        if (n)
            fewest = tp * n;
    }
    if (fewest && !a.out_of_runs)
        settle(&m, fewest);
    if (a.out_of_runs)
        a.solved = false; /* not every smaller layout was run: the count is not the fewest */
    a.gpus = a.solved ? fewest : 0;
    return a;
}

uint64_t slo_steady_prompts(const struct slo_search *q, const struct slo_answer *a, double rate)
{
    if (!a->solved || !(rate > 0))
        return q->nreqs;
    double need = ceil(rate * SLO_STEADY_LATENCIES * q->tried[a->best].out.e2el.mean);
    if (!(need < SIM_MAX_REQUESTS))
        return SIM_MAX_REQUESTS > q->nreqs ? SIM_MAX_REQUESTS : q->nreqs;
    return need > (double)q->nreqs ? (uint64_t)need : q->nreqs;
}
