/* simulate: a run of `kvplan simulate` (cmd_simulate.c) and its two
 * formats (simulate_print.c). */
#ifndef KVPLAN_CLI_SIMULATE_H
#define KVPLAN_CLI_SIMULATE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/plan.h"
#include "core/sim.h"
#include "core/workload.h"
#include "io/benchresult.h"

struct simulate_run {
    struct scenario s;
    struct plan_result r;
    struct explain x;
    struct sim_config c;
    struct workload_params w;
    struct sim_result out;
    /* --compare: the measured run, and which of its workload's figures the
     * run took (the options gave the others) */
    const char *compare_path;
    struct bench_result bench;
    const char *from_file[8];
    int nfrom;
};

/* The run as a table; as the plan's JSON snapshot with result.simulation.
 * False when the JSON cannot be built. */
bool simulate_print_text(FILE *out, const struct simulate_run *sr);
bool simulate_print_json(FILE *out, const struct simulate_run *sr);

/* --compare (simulate_compare.c): the measurement beside the prediction,
 * figure by figure, as a table; as result.simulation.compare (NULL: out of
 * memory). */
void simulate_compare_text(FILE *out, const struct simulate_run *sr);
struct cJSON *simulate_compare_json(const struct simulate_run *sr);

#endif
