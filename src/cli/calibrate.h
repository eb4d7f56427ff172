/* calibrate: the parts of kvplan calibrate, for a startup log
 * (cmd_calibrate.c), for benchmarks (cmd_calibrate_bench.c) and for reading
 * one or several benchmark outputs as one (cmd_calibrate_files.c). */
#ifndef KVPLAN_CLI_CALIBRATE_H
#define KVPLAN_CLI_CALIBRATE_H

#include "cli/options.h"
#include "io/benchlog.h"

/* "(use: kvplan plan --model ID --calibration FILE)", quoted for the shell. */
void calibrate_print_use(const char *model, const char *save);

/* Benchmark outputs calibrated on as one (a sweep's runs at several
 * concurrencies): each file's, and all their figures in order with the
 * first's facts (model, GPU, engine, date). */
enum { BENCH_FILES_MAX = 16 };
struct bench_set {
    int n;
    const char *path[BENCH_FILES_MAX];
    char shown[BENCH_FILES_MAX][1024]; /* as printed: no controls in it */
    struct bench_log logs[BENCH_FILES_MAX];
    struct bench_log all;
    int file_of[FIT_POINTS_MAX]; /* the file of each of all's figures */
    char tools[160], outputs[160]; /* "vllm bench serve", "--save-result JSON, printed summary" */
};

/* The output of path, already parsed into set->logs[set->n] (shown: its
 * printable name), added to set: false with d naming the file when it is no
 * benchmark's, has no figure, names another model, GPU or engine than the
 * files before it, or passes FIT_POINTS_MAX figures in all. */
bool calibrate_set_add(struct bench_set *set, const char *path, const char *shown,
                       struct diag *d);

/* Reads the n files into set (one at least) and calibrates on them; the exit
 * status (2, naming the file, for one that cannot be read or parsed). */
int calibrate_files(const struct options *o, int n, char **paths);

/* Fits MBU, MFU and the step overhead on the benchmarks of set, the scenario
 * from the options as for plan; prints what each fitted value comes from and
 * the residuals, and saves with --save (every file named). Returns the exit
 * status. */
int calibrate_bench(const struct options *o, const struct bench_set *set);

#endif
