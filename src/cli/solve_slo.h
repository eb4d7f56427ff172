/* solve_slo: `kvplan solve --request-rate R --goodput KEY:MS ...`, the
 * fewest GPUs whose simulated run keeps the objectives (core/slo_search.h),
 * and the JSON printing it shares with solve's other answers. */
#ifndef KVPLAN_CLI_SOLVE_SLO_H
#define KVPLAN_CLI_SOLVE_SLO_H

#include <stdbool.h>

#include "cli/options.h"
#include "core/slo_search.h"
#include "io/jsonout.h"

/* Whether the options ask solve the service-level question: a workload
 * option, --goodput or --goodput-target given. */
bool solve_slo_asked(const struct options *o);

/* Answers it: the exit status (0 solved, 1 not within the bounds, 2 bad
 * input). argc, argv: for the --goodput words after the options. */
int solve_slo(int argc, char **argv, struct options *o);

/* A layout's cells in solve's table: goodput share, p95 TTFT and TPOT,
 * output tok/s, $ a million output tokens ("-" where it has none). */
struct slo_cells {
    char share[16], ttft[24], tpot[24], tok[24], cost[24];
};
void solve_slo_cells(const struct slo_layout *l, struct slo_cells *c);

/* A layout's figures into jo, vllm bench serve's keys where it has them. */
void solve_slo_layout_json(struct jsonout *jo, const struct slo_layout *l);

/* Prints the document o ends and returns status; 2 when out of memory. */
int solve_json_print(struct jsonout *o, int status);

#endif
