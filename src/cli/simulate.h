/* simulate: a run of `kvplan simulate` (cmd_simulate.c) and its two
 * formats (simulate_print.c). */
#ifndef KVPLAN_CLI_SIMULATE_H
#define KVPLAN_CLI_SIMULATE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "core/plan.h"
#include "core/sim.h"
#include "core/workload.h"
#include "io/benchresult.h"
#include "io/trace.h"

struct simulate_run {
    struct scenario s;
    struct plan_result r;
    struct explain x;
    struct sim_config c;
    struct workload_params w;
    struct sim_result out;
    bool router_given;   /* --router: named in the output */
    /* --compare: the measured run, and which of its workload's figures the
     * run took (the options gave the others) */
    const char *compare_path;
    struct bench_result bench;
    const char *from_file[8];
    int nfrom;
    /* --dataset: a request trace (io/trace.h) in place of the random
     * lengths, and its arrivals unless --request-rate */
    const char *dataset_path;
    struct trace trace;
    bool trace_arrivals;     /* the trace's own arrival times are sent */
    /* --dataset NAME: a length profile's requests (w.profile), and what of
     * it the context and the pool leave */
    struct workload_fit fit;
};

/* The run as a table; as the plan's JSON snapshot with result.simulation.
 * False when the JSON cannot be built. */
/* A million output and input tokens at a run's own throughput (its output
 * tokens, and its prompt tokens, over its duration) and the plan's price
 * an hour for every GPU; < 0 when the price or the throughput is none. */
double simulate_output_cost(const struct plan_result *r, const struct sim_result *o);
double simulate_input_cost(const struct plan_result *r, const struct sim_result *o);

bool simulate_print_text(FILE *out, const struct simulate_run *sr);
/* "Workload    1,000 requests drawn from azure-conv-2023 (...)": the count
 * and the lengths, a profile's, a trace's or the random dataset's (no end
 * of line), for simulate and simulate --disaggregated alike. */
void simulate_workload_lengths(FILE *out, const struct simulate_run *sr);
bool simulate_print_json(FILE *out, const struct simulate_run *sr);

/* cmd_simulate.c, for every command that simulates (simulate, solve and
 * sweep). The words after the options: further --goodput pairs, else an
 * unexpected argument. */
bool simulate_goodput_words(int argc, char **argv, struct options *o, struct diag *d);
/* Without --engine (or a snapshot's), vLLM V1. */
void simulate_default_engine(struct options *o);
/* A plan's workload options where requests are simulated (--prompt,
 * --output-len, --concurrency): refused, naming the simulated requests' own
 * (--random-input-len, --random-output-len, --max-concurrency). */
bool simulate_plan_workload_refused(const struct options *o, struct diag *d);
/* --dataset NAME: the length profile it names (io/trace.h), or NULL (a
 * file, or none given). A name has no '/' and no '.'; a file named like a
 * profile is ./NAME. */
const struct workload_profile *simulate_profile(const struct options *o);
/* With --dataset: the random dataset's lengths refused (the profile or the
 * trace gives them), a name that is neither refused, and so is a trace
 * where command (solve, sweep; NULL for simulate) takes profiles alone.
 * simulate_profile_fit, after load_check_workload: the workload's lengths
 * set to what of the profile fits (its means), *fit that, and a note on
 * stderr of the requests left out. */
bool simulate_profile_lengths(const struct options *o, const char *command, struct diag *d);
void simulate_profile_fit(struct workload_params *w, struct workload_fit *fit, uint64_t context);
/* The note (a warning past half) of p's requests beyond most tokens (the
 * context's, or the KV pool's when fewer than context), fitting of them
 * kept; where ("the widest row: ") before the count. */
void simulate_profile_left_out(const struct workload_profile *p, size_t fitting, uint64_t most,
                               uint64_t context, bool prompts, const char *where);
/* --dataset FILE: the trace read into sr (its first --num-prompts requests),
 * each checked against sr's context and pool by its line; sr->w's lengths
 * its means, its arrivals the trace's unless --request-rate. */
bool simulate_dataset(const struct options *o, struct simulate_run *sr, struct diag *d);
/* The trace's lengths (and its own arrivals) into the generated requests q;
 * nothing without a trace. */
void simulate_trace_requests(const struct simulate_run *sr, struct workload_request *q);
/* The checks of load_check_plan (core/loadrun.h), then the plan's config
 * and load_check_config's. */
bool simulate_config(const struct scenario *s, const struct plan_result *r, struct sim_config *c,
                     struct diag *d);
/* The workload of the options, vLLM's defaults where none is given. */
struct workload_params simulate_workload(const struct options *o, const struct scenario *s);
/* --router and --capacity-scheduler-policy into c (s's engine's); false
 * when the engine has no such policy. */
bool simulate_sched_options(const struct options *o, const struct scenario *s,
                            struct sim_config *c, struct diag *d);
/* simulate_print.c: result.simulation, vllm bench serve's keys (NULL: out
 * of memory); the plan's snapshot of sr with simulation(ctx) as its
 * result.simulation, printed (false when the JSON cannot be built). */
struct cJSON *simulate_simulation_json(const struct simulate_run *sr);
bool simulate_print_snapshot(FILE *out, const struct simulate_run *sr,
                             struct cJSON *(*simulation)(const void *ctx), const void *ctx);
/* cmd_simulate_disagg.c: simulate --disaggregated, its exit status; the
 * first of the pools' and link's options given (OPT_COUNT: none). */
int simulate_disagg(const struct options *o);
enum option_id disagg_given(const struct options *o);
/* True (d says why) when a run stopped short. */
bool simulate_run_failed(enum sim_status st, struct diag *d);
/* --compare (simulate_compare.c): the measurement beside the prediction,
 * figure by figure, as a table; as result.simulation.compare (NULL: out of
 * memory). */
void simulate_compare_text(FILE *out, const struct simulate_run *sr);
struct cJSON *simulate_compare_json(const struct simulate_run *sr);

#endif
