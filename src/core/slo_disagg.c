/* slo_disagg: the fewest GPUs of an xPyD split that keep a service level
 * (see slo_disagg.h). */
#include "slo_disagg.h"

#include <math.h>
#include <string.h>

/* Plans one pool of n instances of TP tp on base; false when refused. */
static bool plan_pool(const struct scenario *base, uint32_t n, uint32_t tp, struct scenario *s,
                      struct plan_result *r)
{
    struct diag ignore = {0};
    *s = *base;
    s->gpus = n * tp;
    s->tp = tp;
    s->pp = 0;
    return plan_compute(s, PLAN_NUMBERS, NULL, r, &ignore) &&
           !(r->warnings & WARN_HEADS_UNEVEN_SPLIT) && r->placement.replicas == n;
}

bool slo_disagg_layout(const struct slo_disagg_search *s, uint32_t tp, uint32_t x, uint32_t y,
                       struct slo_disagg_layout *out)
{
    static struct plan_result rp, rd; /* large */
    struct scenario sp, sd;
    const struct slo_search *q = s->q;
    memset(out, 0, sizeof *out);
    out->prefill = x;
    out->decode = y;
    out->l = (struct slo_layout){.gpus = (x + y) * tp, .tp = tp, .replicas = x + y,
                                 .usd_per_hour = -1, .usd_per_million_output = -1,
                                 .usd_per_million_input = -1};
    if (!plan_pool(s->prefill_base, x, tp, &sp, &rp) || !plan_pool(s->decode_base, y, tp, &sd, &rd))
        return false;
    if (rp.price_usd_per_hour >= 0 && rd.price_usd_per_hour >= 0)
        out->l.usd_per_hour = rp.price_usd_per_hour + rd.price_usd_per_hour;
    struct sim_disagg_config c;
    sim_disagg_config_of_plans(&sp, &rp, &sd, &rd, s->bytes_per_s, s->latency, &c);
    uint64_t longest = slo_longest_request(q);
    if (!rp.fits || !rd.fits || c.prefill.blocks == 0 || c.decode.blocks == 0 ||
        !slo_holds_longest(&c.prefill, longest) || !slo_holds_longest(&c.decode, longest)) {
        out->l.verdict = SLO_MEMORY;
        return true;
    }
    c.slo_ttft = q->slo_ttft;
    c.slo_tpot = q->slo_tpot;
    c.slo_e2el = q->slo_e2el;
    sim_disagg_run(&c, q->reqs, q->nreqs, &out->out);
    out->l.out = out->out.all;
    slo_layout_judge(q, &out->l);
    return true;
}

/* The search's state: its answer so far, and the most instances of each
 * pool known to fall behind. The prefill pool runs the same whatever the
 * decode pool does (its transfers wait for nothing), so a prefill pool over
 * capacity is so beside any decode pool; a decode pool over capacity behind
 * a prefill pool that keeps up is taken to be so behind any (more
 * instances never serve a stream worse, as slo_search assumes). */
struct searcher {
    const struct slo_disagg_search *s;
    struct slo_disagg_answer *a;
    uint32_t tp;
    double rate; /* the stream's, requests a second */
    uint32_t x_short, y_short;
    bool memory; /* a pool's instance holds no longest request: none will */
};

/* The most instances of a pool known to fall behind, after k of them fell
 * behind serving `served` requests a second of the stream's `rate`: k, or
 * more when k saturated instances served well short of it (k' serve at most
 * k' / k of what k did; under 95% of the rate its queue grows, section 13's
 * verdict), at most `known` less. */
static uint32_t short_of(const struct searcher *m, uint32_t k, double served, uint32_t known)
{
    uint32_t most = k;
    if (served > 0 && m->rate > 0) {
        double need = ceil(0.95 * (double)k * m->rate / served) - 1;
        if (need > (double)most)
            most = need < (double)UINT32_MAX ? (uint32_t)need : UINT32_MAX;
    }
    return most > known ? most : known;
}

/* Every split of n instances of TP m->tp not known to fall behind, run;
 * true when one meets the target. */
static bool run_count(struct searcher *m, uint32_t n)
{
    const struct slo_disagg_search *s = m->s;
    bool met = false;
    for (uint32_t x = m->x_short + 1; x + m->y_short < n && !m->memory; x++) {
        uint32_t y = n - x;
        if (x > SIM_MAX_REPLICAS || y > SIM_MAX_REPLICAS)
            continue;
        if (m->a->ntried >= s->max_runs) {
            m->a->out_of_runs = true;
            return met;
        }
        struct slo_disagg_layout *l = &s->tried[m->a->ntried];
        if (!slo_disagg_layout(s, m->tp, x, y, l))
            continue;
        m->a->ntried++;
        met |= l->l.verdict == SLO_MEETS;
        m->memory = l->l.verdict == SLO_MEMORY;
        if (l->l.verdict == SLO_OVER_CAPACITY && l->out.prefill.over_capacity)
            m->x_short = short_of(m, x, l->out.prefill.served_per_s, m->x_short);
        else if (l->l.verdict == SLO_OVER_CAPACITY && l->out.decode.over_capacity)
            m->y_short = short_of(m, y, l->out.decode.served_per_s, m->y_short);
    }
    return met;
}

/* The fewest instances of TP tp, up to `most`, of which a split meets the
 * target; 0 when none does. */
static uint32_t fewest_instances(struct searcher *m, uint32_t most)
{
    for (uint32_t n = 2; n <= most && !m->a->out_of_runs && !m->memory; n++)
        if (run_count(m, n))
            return n;
    return 0;
}

/* The best layout of gpus GPUs that meets the target. */
static void settle(const struct slo_disagg_search *s, uint32_t gpus, struct slo_disagg_answer *a)
{
    for (size_t i = 0; i < a->ntried; i++) {
        const struct slo_layout *l = &s->tried[i].l, *b = &s->tried[a->best].l;
        if (l->gpus != gpus || l->verdict != SLO_MEETS)
            continue;
        if (!a->solved || l->share > b->share ||
            (l->share == b->share && l->out.ttft.p95 < b->out.ttft.p95)) {
            a->best = i;
            a->solved = true;
        }
    }
    a->gpus = a->solved ? gpus : 0;
}

struct slo_disagg_answer slo_disagg_run(const struct slo_disagg_search *s)
{
    struct slo_disagg_answer a = {0};
    uint32_t fewest = 0;
    double last = s->q->nreqs ? s->q->reqs[s->q->nreqs - 1].arrival : 0;
    double rate = last > 0 ? (double)s->q->nreqs / last : 0;
    for (uint32_t tp = 1; tp <= SLO_MAX_TP && !a.out_of_runs; tp++) {
        uint32_t limit = fewest ? fewest - 1 : s->max_gpus;
        uint32_t most = limit / tp < 2 * SIM_MAX_REPLICAS ? limit / tp : 2 * SIM_MAX_REPLICAS;
        if (most < 2)
            break; /* a larger TP has fewer instances still */
        struct searcher m = {.s = s, .a = &a, .tp = tp, .rate = rate};
        uint32_t n = fewest_instances(&m, most);
        if (n)
            fewest = n * tp;
    }
    if (fewest)
        settle(s, fewest, &a);
    return a;
}
