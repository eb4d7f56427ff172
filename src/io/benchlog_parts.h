/* benchlog_parts: what the readers of each benchmark format share
 * (benchlog.c reads the printed ones, benchlog_json.c the JSON ones). */
#ifndef KVPLAN_IO_BENCHLOG_PARTS_H
#define KVPLAN_IO_BENCHLOG_PARTS_H

#include "io/benchlog.h"

/* One serving run's figures, milliseconds and tokens; < 0 when absent. */
struct bench_run {
    double ttft_ms, tpot_ms, itl_ms;
    double max_concurrency, mean_concurrency;
    double completed, input_tokens, output_tokens; /* totals */
    double mean_input, mean_output;                 /* genai-perf gives the means */
    double request_rate, e2el_ms;                    /* req/s, mean end-to-end ms */
    int line_ttft, line_tpot, line_conc;
    const char *tpot_name, *ttft_name;
};

/* A run with every figure absent. */
void bench_run_init(struct bench_run *r);

/* The run's decode and first-token points added to b; false with d when a
 * figure is impossible (negative, or a run of no request). */
bool bench_add_run(const char *path, const struct bench_run *r, uint64_t concurrency,
                   struct bench_log *b, struct diag *d);

/* A llama-bench row: n_prompt tokens in, n_gen out after depth, at avg t/s. */
bool bench_add_llama(const char *path, int line, double n_prompt, double n_gen, double depth,
                     double ts, struct bench_log *b, struct diag *d);

/* The JSON formats (benchlog_json.c): true when text is one of them (b's
 * format set), reading it whole. */
bool bench_parse_json(const char *path, const char *text, size_t len, uint64_t concurrency,
                      struct bench_log *b, struct diag *d);

/* Each JSON document of a benchmark's output: the whole text (whole true,
 * line 1), or one a line; Python's Infinity and NaN read as null and 0. fn's
 * false stops and is returned. *json is false when the text is no JSON (fn
 * never called): a printed format may read it. */
struct cJSON;
typedef bool (*bench_json_fn)(const char *path, const struct cJSON *o, int line, bool whole,
                              void *ctx, struct diag *d);
bool bench_json_each(const char *path, const char *text, size_t len, bench_json_fn fn, void *ctx,
                     bool *json, struct diag *d);

/* The benchmark a JSON document is the output of (BENCH_UNKNOWN: none). */
enum bench_format bench_json_kind(const struct cJSON *o);

#endif
