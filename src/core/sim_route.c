/* sim_route: the replica an arriving request goes to (core/sim.h), by the
 * router the config names; ties to the first. */
#include <stdint.h>

#include "sim_internal.h"

/* The requests a replica holds: waiting (received or not) and running. */
static uint64_t outstanding(const struct sim_replica *r)
{
    return (uint64_t)sim_pending(r) + r->nrun;
}

/* vLLM's DPLBAsyncMPClient.get_core_engine_for_request
 * (vllm/v1/engine/core_client.py): the least 4 x waiting + running, the
 * counts read at once, not 100 ms late. */
static uint32_t dplb(const struct sim *m)
{
    uint32_t best = 0;
    uint64_t score = UINT64_MAX;
    for (uint32_t i = 0; i < m->c->replicas; i++) {
        const struct sim_replica *r = &m->rep[i];
        uint64_t s = 4 * (uint64_t)sim_pending(r) + r->nrun;
        if (s < score) {
            score = s;
            best = i;
        }
    }
    return best;
}

static uint32_t least_outstanding(const struct sim *m)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < m->c->replicas; i++)
        if (outstanding(&m->rep[i]) < outstanding(&m->rep[best]))
            best = i;
    return best;
}

/* SGLang's router, cache-aware (sgl-router, CacheAwarePolicy, its command
 * line's defaults: cache_threshold 0.3, balance_abs_threshold 64,
 * balance_rel_threshold 1.5): when the loads (requests in flight) are apart
 * by more than 64 and 1.5 times, the least loaded; else the replica whose
 * tree matches the prompt best when it matches more than 0.3 of it, else
 * the one whose tree holds the fewest tokens. A prompt's only match is the
 * shared prefix, held by every replica that was sent one; kvplan takes the
 * first of them. */
static uint32_t prefix_aware(const struct sim *m, const struct sim_rq *q)
{
    const struct sim_replica *rep = m->rep;
    uint32_t n = m->c->replicas, lo = least_outstanding(m), hi = 0, holder = n, small = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (outstanding(&rep[i]) > outstanding(&rep[hi]))
            hi = i;
        if (holder == n && rep[i].has_prefix)
            holder = i;
        if (rep[i].tree_tokens < rep[small].tree_tokens)
            small = i;
    }
    uint64_t max = outstanding(&rep[hi]), min = outstanding(&rep[lo]);
    if (max - min > 64 && (double)max > 1.5 * (double)min)
        return lo;
    double match = (double)m->c->prefix_tokens / (double)q->prompt;
    return holder < n && match > 0.3 ? holder : small;
}

uint32_t sim_route(struct sim *m, size_t v)
{
    const struct sim_rq *q = &m->rq[v];
    uint32_t ri = 0;
    switch (m->c->router) {
    case SIM_ROUTE_ROUND_ROBIN:
        ri = (uint32_t)(m->turn++ % m->c->replicas);
        break;
    case SIM_ROUTE_LEAST_OUTSTANDING:
        ri = least_outstanding(m);
        break;
    case SIM_ROUTE_PREFIX_AWARE:
        ri = prefix_aware(m, q);
        break;
    case SIM_ROUTE_DPLB:
    case SIM_ROUTE_COUNT:
        ri = dplb(m);
        break;
    }
    /* the router's tree takes the prompt: the prefix once */
    struct sim_replica *r = &m->rep[ri];
    r->tree_tokens += q->prompt - (r->has_prefix ? m->c->prefix_tokens : 0);
    r->has_prefix = r->has_prefix || m->c->prefix_tokens > 0;
    return ri;
}

const char *sim_router_name(enum sim_router r)
{
    static const char *const names[SIM_ROUTE_COUNT] = {
        [SIM_ROUTE_DPLB] = "dplb",
        [SIM_ROUTE_ROUND_ROBIN] = "round-robin",
        [SIM_ROUTE_LEAST_OUTSTANDING] = "least-outstanding",
        [SIM_ROUTE_PREFIX_AWARE] = "prefix-aware",
    };
    return r < SIM_ROUTE_COUNT ? names[r] : "dplb";
}
