/* slo_disagg: disaggregated layouts for solve's service-level question
 * (core/slo_search.h), beside the aggregated ones: xPyD, x prefill and y
 * decode instances (NVIDIA Dynamo's and AIConfigurator's words), every
 * instance of one TP, each pool on its own GPU, the KV over one link
 * (core/sim_disagg.h).
 *
 * The search goes TP size by size, from 1 up, each below the fewest GPUs
 * found so far, and at each size instance count by count, from 2 up to
 * what max_gpus allows, and at each count runs every split (1 to N - 1 prefill instances) but
 * those with no more prefill instances than one whose prefill pool fell
 * behind, or no more decode instances than one whose decode pool did (nor
 * fewer than such a pool's instances x the stream's rate / what they served,
 * less 5%: saturated instances serve no more each when there are more); the
 * first count at which a split keeps the service level ends it, and the best
 * split of that count (the largest share, then the lowest p95 TTFT) is the
 * size's answer; the answer is the best of the fewest GPUs found. More instances of either pool never serve a stream worse, so no
 * smaller count's split keeps it. A pool whose instance holds no longest
 * request ends the search (every split's does the same); runs past max_runs
 * stop it. */
#ifndef KVPLAN_CORE_SLO_DISAGG_H
#define KVPLAN_CORE_SLO_DISAGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_disagg.h"
#include "slo_search.h"

struct slo_disagg_layout {
    uint32_t prefill, decode; /* instances */
    /* the deployment as one layout: gpus, tp, replicas (x + y), its verdict,
     * share, price (both pools) and throughputs, its run (l.out: the
     * deployment's vllm bench serve figures) */
    struct slo_layout l;
    struct sim_disagg_result out;
};

struct slo_disagg_search {
    const struct slo_search *q; /* the stream, the objectives, the target */
    const struct scenario *prefill_base, *decode_base; /* gpus and tp the search's */
    double bytes_per_s, latency; /* the link */
    uint32_t max_gpus;
    uint32_t max_runs;
    struct slo_disagg_layout *tried; /* room for max_runs layouts, in the order run */
};

struct slo_disagg_answer {
    bool solved;
    bool out_of_runs;
    uint32_t gpus; /* 0 when not solved */
    size_t best;
    size_t ntried;
};

/* Plans and runs x prefill and y decode instances of TP tp into *out;
 * false (and nothing run) when the engine refuses a pool's plan. */
bool slo_disagg_layout(const struct slo_disagg_search *s, uint32_t tp, uint32_t x, uint32_t y,
                       struct slo_disagg_layout *out);

/* Searches; the layouts run are in s->tried[0 .. ntried). */
struct slo_disagg_answer slo_disagg_run(const struct slo_disagg_search *s);

#endif
