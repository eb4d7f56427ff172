/* loadrun: a plan under a stream of requests, as `kvplan simulate` runs it
 * (core/sim.h), for the planner's Load screen and simulate alike: the
 * checks of what the simulator models, the run at one rate, and a sweep of
 * rates from a tenth of what the deployment serves to past it, with the
 * knee (the first rate whose p95 TTFT or TPOT passes its objective, or
 * whose queue grows).
 *
 * The settings are the options of `kvplan simulate` that the Load screen
 * has: the rate, the lengths, the client's cap, the two objectives; the
 * number of requests and the seed complete a run. One settings and one
 * plan give the same run, byte for byte, here and in simulate. */
#ifndef KVPLAN_CORE_LOADRUN_H
#define KVPLAN_CORE_LOADRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* The Load screen's sweep: rates, and requests in a full run and while
 * keys repeat (the current rate's, and each point of the sweep's, which a
 * key of a length runs 13 times). */
enum {
    LOAD_SWEEP_POINTS = 12,
    LOAD_FULL_REQUESTS = WORKLOAD_DEFAULT_PROMPTS,
    LOAD_QUICK_REQUESTS = 200,
    LOAD_QUICK_SWEEP = 100
};

struct load_settings {
    double rate;              /* requests a second, > 0 */
    uint64_t input_len;       /* --random-input-len */
    uint64_t output_len;      /* --random-output-len */
    uint64_t max_concurrency; /* 0: no cap */
    double slo_ttft_ms;       /* goodput's objectives, milliseconds, > 0 */
    double slo_tpot_ms;
    uint64_t seed;
    /* --dataset NAME: a length profile's requests in place of the random
     * dataset's lengths (input_len and output_len then kept for when it is
     * set back to NULL) */
    const struct workload_profile *profile;
};

/* Settings from the scenario: its prompt (or 1,024 tokens) and vLLM's 128
 * output tokens, kept within its context; the objectives from its service
 * level (--max-ttft, --min-tok-s) or 1 s and 50 ms; rate 0 (the caller
 * picks one from the sweep: load_default_rate). */
void load_defaults(const struct scenario *s, struct load_settings *ls);

/* A scenario whose default layout has pipeline stages (3 GPUs of an 8B:
 * PP 3, the most users), which the simulator does not model, set to one
 * stage (replicas of TP); true when it was. A --pp given is kept (and
 * refused by load_check_plan). */
bool load_without_stages(struct scenario *s);

/* The scenario simulate runs for s: a generic rule's on vLLM V1 at its
 * current rule (simulate's default engine), one stage where its default
 * layout had more, else s as it is. */
void load_scenario(const struct scenario *s, struct scenario *out);

/* Why the plan r of s cannot be simulated (the engine, speculative
 * decoding, stages, a host tier, images, too many replicas, no step time),
 * in simulate's words; true when it can. */
bool load_check_plan(const struct scenario *s, const struct plan_result *r, struct diag *d);

/* The longest request must fit the context and the pool, and the shortest
 * hold a token; under an engine without chunked prefill the longest prompt
 * a step's tokens; false with d saying which. A length profile's bounds
 * are set from them instead (its requests beyond them left out, as vllm
 * bench serve leaves out a dataset's that do not fit), and one at least
 * must be within. */
bool load_check_workload(struct workload_params *p, const struct sim_config *c, struct diag *d);

/* The scheduler's own checks on a config from sim_config_of_plan: a KV
 * pool, and (vLLM) max_num_batched_tokens at least max_num_seqs. */
bool load_check_config(const struct plan_result *r, const struct sim_config *c, struct diag *d);

/* The run's config and workload for n requests of settings ls on the plan
 * (already checked by load_check_plan), every check simulate makes; false
 * with d saying why. */
bool load_prepare(const struct scenario *s, const struct plan_result *r,
                  const struct load_settings *ls, uint64_t n, struct sim_config *c,
                  struct workload_params *w, struct diag *d);

/* Generates w's requests and runs them on c; the status of sim_run. */
enum sim_status load_run(const struct sim_config *c, const struct workload_params *w,
                         struct sim_result *out);

/* One rate of a sweep: its percentiles, milliseconds, and the queue. */
struct load_point {
    double rate;
    double ttft_p50, ttft_p95, tpot_p50, tpot_p95;
    double served;     /* requests a second */
    bool over;         /* the queue grows */
    bool ok;           /* the run finished */
};

struct load_sweep {
    double capacity;   /* requests a second the deployment serves with every
                        * request sent at once */
    int count;
    struct load_point pt[LOAD_SWEEP_POINTS];
    int knee;          /* the first point past an objective or the queue, or -1 */
};

/* The sweep at n requests a point: the capacity from a run with every
 * request at once, then rates from capacity / 8 to 1.5 x capacity; the
 * knee from the objectives of ls. False when even the first run fails. */
bool load_sweep_run(const struct sim_config *c, const struct workload_params *w,
                    const struct load_settings *ls, struct load_sweep *out);

/* The knee of a sweep for the objectives of ls (-1: none). */
int load_knee(const struct load_sweep *sw, const struct load_settings *ls);

/* A rate of two significant figures near half the capacity (1 when none). */
double load_default_rate(double capacity);

/* The half-width of an approximate 95% interval of a p95 from n requests,
 * from the percentiles st has (p90, p95, p99): the values at the ranks
 * n x 0.95 +- 1.96 sqrt(n x 0.95 x 0.05), read off those percentiles. */
double load_p95_spread(const struct sim_stats *st, uint64_t n);

#endif
