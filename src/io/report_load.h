/* report_load: the planner's Load screen in the Markdown report, after the
 * plan: its settings, the command line that runs them, the current rate's
 * percentiles (the p95 with its sampling spread), goodput and queue, and
 * the sweep of rates with the knee. */
#ifndef KVPLAN_IO_REPORT_LOAD_H
#define KVPLAN_IO_REPORT_LOAD_H

#include <stdio.h>

#include "core/loadrun.h"

struct report_load {
    const struct load_settings *settings;
    const struct sim_result *run;     /* the current rate's */
    const struct load_sweep *sweep;   /* count 0: none */
    const char *command;              /* `kvplan simulate ...`; "" none */
    const struct scenario *s;         /* the simulated plan's: its engine, its bands */
};

void report_markdown_load(FILE *out, const struct report_load *l);

#endif
