/* slo_search: the fewest GPUs, and their layout (replicas x TP), whose
 * simulated run (core/sim.h) of one stream of requests keeps a service
 * level: at least a share of the requests meet every objective given
 * (vllm bench serve's --goodput: TTFT, TPOT, E2EL).
 *
 * Each candidate layout is planned (its KV pool, its step time) and, when
 * it fits, simulated on the same requests (the same workload and seed for
 * every layout). The search goes tensor-parallel size by size, from 1 up;
 * at each it looks for the fewest replicas by doubling (or, after a run over
 * capacity, jumping to the replicas its served rate says the stream needs,
 * when that is more) and then bisection,
 * which assumes that more replicas never serve a fixed stream worse (each
 * runs its own scheduler on its own pool, and the router sends a request to
 * the least loaded). A size is searched only below the fewest GPUs found so
 * far, so the sizes after the first answer cost a few runs each. Then every
 * layout of that GPU count is run, so that the answer lists them all, and
 * the best of them (the largest share, then the lowest p95 TTFT) is the
 * answer.
 *
 * Pipeline stages are not searched: the simulator does not model their
 * batches in flight. Pure: the requests come from the caller, sim_run
 * allocates its own state and frees it. */
#ifndef KVPLAN_CORE_SLO_SEARCH_H
#define KVPLAN_CORE_SLO_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "sim.h"
#include "workload.h"

/* The largest tensor-parallel size tried. */
#define SLO_MAX_TP 64

/* What a layout did. */
enum slo_verdict {
    SLO_MEETS,         /* goodput share at least the target */
    SLO_MISSES,        /* runs, below the target */
    SLO_OVER_CAPACITY, /* the queue grows through the run: past what it serves */
    SLO_CLIENT,        /* the client's --max-concurrency sent slower than the rate */
    SLO_MEMORY,        /* the weights leave no KV pool, or the pool holds no longest request */
    SLO_RUN_FAILED     /* the run passed the simulator's caps on steps or time */
};

struct slo_layout {
    uint32_t gpus, tp, replicas;
    enum slo_verdict verdict;
    double share;        /* good / requests; 0 when not run */
    double usd_per_hour; /* all its GPUs; < 0 unknown */
    /* Its throughput at steady state: the rate offered when it keeps up
     * (meets or SLO), else the run's own (to its last token); offered says
     * which. */
    double request_throughput, output_throughput;
    bool offered;
    double usd_per_million_output; /* at that output throughput; < 0 unknown */
    double usd_per_million_input;  /* at its input throughput, taken as the output's; < 0 unknown */
    struct sim_result out; /* zero when not run */
};

struct slo_search {
    const struct scenario *base; /* its GPU, model, engine; gpus, tp and pp are the search's */
    const struct workload_request *reqs;
    size_t nreqs;
    uint64_t max_concurrency; /* the client's cap; 0: none */
    double slo_ttft, slo_tpot, slo_e2el; /* seconds; < 0: not given */
    double target;      /* the share of requests that must keep them, (0, 1] */
    uint32_t max_gpus;  /* the most GPUs a layout may have */
    uint32_t max_runs;  /* simulations in all; the search stops at it */
    struct slo_layout *tried; /* room for max_runs layouts, in the order run */
};

struct slo_answer {
    bool solved;
    bool out_of_runs; /* stopped at max_runs before the search ended */
    uint32_t gpus;    /* the fewest that keep it; 0 when not solved */
    size_t best;      /* its layout in tried */
    size_t ntried;
};

/* Searches; the layouts run are in q->tried[0 .. ntried). */
struct slo_answer slo_search_run(const struct slo_search *q);

/* A verdict holds for the steady state when the stream is sent for at
 * least this many times the answer's mean E2EL: a shorter run ends while
 * the running batch still fills, and can meet a rate it falls behind later. */
#define SLO_STEADY_LATENCIES 10

/* The requests a stream of the rate needs for a's answer to be judged at
 * steady state: rate x SLO_STEADY_LATENCIES x its mean E2EL, at least
 * q->nreqs, at most SIM_MAX_REQUESTS; q->nreqs when a is not solved. */
uint64_t slo_steady_prompts(const struct slo_search *q, const struct slo_answer *a, double rate);

/* Plans and runs one layout (tp x replicas GPUs) into *out; false (and
 * nothing run) when the engine refuses it: the plan is refused, or TP does
 * not divide the heads. */
bool slo_search_layout(const struct slo_search *q, uint32_t tp, uint32_t replicas,
                       struct slo_layout *out);

/* The longest request of the stream, in tokens (prompt and output); and
 * whether c's pool holds it and its context takes it, as simulate asks. */
uint64_t slo_longest_request(const struct slo_search *q);
bool slo_holds_longest(const struct sim_config *c, uint64_t longest);

/* out's verdict, share and throughputs from its run out->out (and its
 * price, usd_per_hour): as slo_search_layout judges every layout. */
void slo_layout_judge(const struct slo_search *q, struct slo_layout *out);

/* The word for a verdict: "meets", "SLO", "over capacity", "client", "memory", "run". */
const char *slo_verdict_name(enum slo_verdict v);

#endif
