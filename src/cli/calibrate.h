/* calibrate: the parts of kvplan calibrate, for a startup log
 * (cmd_calibrate.c) and for a benchmark (cmd_calibrate_bench.c). */
#ifndef KVPLAN_CLI_CALIBRATE_H
#define KVPLAN_CLI_CALIBRATE_H

#include "cli/options.h"
#include "io/benchlog.h"

/* "(use: kvplan plan --model ID --calibration FILE)", quoted for the shell. */
void calibrate_print_use(const char *model, const char *save);

/* Fits MBU, MFU and the step overhead on the benchmark b read from path
 * (shown: its printable name), the scenario from the options as for plan;
 * prints what each fitted value comes from and the residuals, and saves
 * with --save. Returns the exit status. */
int calibrate_bench(const struct options *o, const struct bench_log *b, const char *path,
                    const char *shown);

#endif
