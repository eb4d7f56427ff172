/* simulate_disagg: `kvplan simulate --disaggregated` (cmd_simulate_disagg.c)
 * and its two formats (simulate_disagg_print.c): the disaggregated run
 * (core/sim_disagg.h) beside the aggregated deployment of the same GPUs. */
#ifndef KVPLAN_CLI_SIMULATE_DISAGG_H
#define KVPLAN_CLI_SIMULATE_DISAGG_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options_disagg.h"
#include "cli/simulate.h"
#include "core/sim_disagg.h"

struct disagg_run {
    /* the pools' plans, each a simulate_run of its own; dec.out holds the
     * deployment's figures (vllm bench serve's), dec.c the decode pool's */
    struct simulate_run pre, dec;
    struct disagg_pools pools;
    struct sim_disagg_config c;
    struct sim_disagg_result out;
    /* the aggregated deployment of the same GPUs (the decode pool's GPU);
     * agg_ok false with agg_why saying why it was not run */
    struct simulate_run agg;
    bool agg_ok;
    char agg_why[256];
};

/* The two formats; false when the JSON cannot be built. */
bool simulate_disagg_text(FILE *out, const struct disagg_run *dr);
bool simulate_disagg_json(FILE *out, const struct disagg_run *dr);

/* The ratio b / a of two figures as text ("1.32x", "n/a" for none). */
const char *disagg_ratio(double a, double b, char *buf, size_t size);

#endif
