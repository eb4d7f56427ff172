/* calibrate: the parts of kvplan calibrate, for a startup log
 * (cmd_calibrate.c), for benchmarks (cmd_calibrate_bench.c) and for reading
 * one or several benchmark outputs as one (cmd_calibrate_files.c). */
#ifndef KVPLAN_CLI_CALIBRATE_H
#define KVPLAN_CLI_CALIBRATE_H

#include "cli/options.h"
#include "core/dtype.h"
#include "core/scenario.h"
#include "core/speedfit.h"
#include "io/benchlog.h"
#include "io/calibration.h"
#include "io/catalog.h"

/* "(use: kvplan plan --model ID --gpu G ... --calibration FILE)": every option
 * the calibration of s depends on, quoted for the shell. */
void calibrate_print_use(const struct scenario *s, const char *save);

/* The options of a plan line that a calibration of s depends on: the GPU,
 * the engine (with `engine`), the precisions given, the GPUs and the layout
 * fitted (--tp always when above 1: without it a plan may choose another). */
struct shell_line;
void calibrate_plan_options(struct shell_line *l, const struct scenario *s, bool engine);

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

/* The model preset a benchmark's output names (calibrate_model.c): how it
 * was matched ("its Hugging Face id", "its file name"), from what words, the
 * weight precision the file name gives (DTYPE_AUTO: none), and the presets
 * of its size when they differ in architecture (none taken). */
struct bench_model {
    const char *id, *how;
    bool base; /* a fine-tune of the preset's Hugging Face id */
    char said[320];
    enum dtype weight;
    char candidates[256];
};
bool calibrate_model_match(const struct catalog *cat, const struct bench_log *b,
                           struct bench_model *m);

/* The model preset a startup log names (its launch line's --model, vLLM's
 * model=, a GGUF file name), as calibrate_model_match: false when it names
 * none or none matches. */
bool calibrate_log_model(const struct catalog *cat, const struct engine_log *log,
                         struct bench_model *m);

/* Why no preset matched, naming what the file said: "the file names the
 * model 'llama 8B Q4_0', 8.03 B params, which matches no model preset". */
void calibrate_model_unmatched(const struct bench_log *b, const struct bench_model *m, char *buf,
                               size_t size);

/* A fit's own band (calibrate_band.c), decode and first token, from the
 * residuals of its n points; and the lines calibrate prints of it. */
void calibrate_fit_bands(const struct fit_result *f, unsigned fixed, const struct fit_point *pts,
                         int n, struct calibration_band bands[2]);
void calibrate_print_bands(const struct calibration_band bands[2]);

#endif
