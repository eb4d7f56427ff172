/* solve_disagg: the disaggregated half of solve's service-level answer
 * (core/slo_disagg.h): xPyD splits searched beside the aggregated layouts,
 * the aggregated layout of the same GPUs run beside the answer, and which
 * won and by how much, as text and as JSON (cmd_solve_disagg.c). */
#ifndef KVPLAN_CLI_SOLVE_DISAGG_H
#define KVPLAN_CLI_SOLVE_DISAGG_H

#include <stdbool.h>

#include "cli/options.h"
#include "cli/options_disagg.h"
#include "core/slo_disagg.h"
#include "io/jsonout.h"

struct solve_disagg {
    bool asked;     /* the splits are searched (not --no-disaggregated) */
    bool only;      /* --disaggregated: the answer is theirs */
    struct disagg_pools pools; /* each pool's GPU, the link */
    struct slo_disagg_search s;
    struct slo_disagg_answer a;
    struct slo_layout same; /* the aggregated layout of the answer's GPUs */
    bool same_ok;
};

/* The pools and the link from the options, on base (solve's scenario). */
bool solve_disagg_prepare(const struct options *o, const struct scenario *base,
                          struct solve_disagg *sd, struct diag *d);

/* Searches on the stream w (generated again) after the aggregated search q
 * answered a; false when out of memory. Frees nothing of q. */
bool solve_disagg_search(struct solve_disagg *sd, const struct workload_params *w,
                         struct slo_search *q, const struct slo_answer *a, struct diag *d);

/* The text after the aggregated layouts, and the exit status: 0 when the
 * answer (either kind, or only the disaggregated with --disaggregated) is
 * solved; agg_status is the aggregated search's. */
/* Whether the xPyD split won (searched, and fewer GPUs or the better run on
 * as many), with the sentence that says by how much in buf. */
bool solve_disagg_won(const struct solve_disagg *sd, const struct slo_search *q,
                      const struct slo_answer *a, char *buf, size_t size);
int solve_disagg_text(const struct solve_disagg *sd, const struct slo_search *q,
                      const struct slo_answer *a, int agg_status);

/* The "disaggregated" object and "winner" into jo; the exit status as
 * solve_disagg_text's. */
int solve_disagg_json(struct jsonout *jo, const struct solve_disagg *sd,
                      const struct slo_search *q, const struct slo_answer *a, int agg_status);

void solve_disagg_free(struct solve_disagg *sd);

#endif
