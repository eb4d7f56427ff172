/* benchresult: a serving benchmark's whole result, to set beside kvplan
 * simulate's prediction (kvplan simulate --compare FILE).
 *
 * Two outputs, found from their content (io/benchlog_json.c reads the
 * documents):
 *   vllm bench serve --save-result   one JSON document (or, with
 *       --append-result, one a line): num_prompts, request_rate ("inf"),
 *       burstiness, max_concurrency, completed, duration, the throughputs,
 *       mean_/median_/p90_/p95_/p99_ ttft, tpot, itl, e2el _ms; with
 *       --save-detailed the per-request input_lens and output_lens
 *       (vllm-project/vllm vllm/benchmarks/serve.py, main and benchmark)
 *   sglang.bench_serving --output-file   one JSON object a line, a run each:
 *       dataset_name, request_rate (Infinity), max_concurrency,
 *       random_input_len, random_output_len, random_range_ratio, and its own
 *       names for some figures: mean_e2e_latency_ms, p99_e2e_latency_ms, no
 *       num_prompts (sgl-project/sglang python/sglang/bench_serving.py,
 *       benchmark, at commit 0033168f)
 * A file of several runs gives its last (both tools append). */
#ifndef KVPLAN_IO_BENCHRESULT_H
#define KVPLAN_IO_BENCHRESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/diag.h"
#include "io/benchlog.h"

enum bench_latency_kind { BENCH_TTFT, BENCH_TPOT, BENCH_ITL, BENCH_E2EL, BENCH_LATENCIES };
enum bench_stat { BENCH_MEAN, BENCH_MEDIAN, BENCH_P90, BENCH_P95, BENCH_P99, BENCH_STATS };

/* Where the run's lengths come from. */
enum bench_lengths {
    BENCH_LENGTHS_NONE,    /* the file gives none */
    BENCH_LENGTHS_DATASET, /* its random dataset's options */
    BENCH_LENGTHS_MEANS    /* the means of what it sent and received */
};

/* Every figure < 0 when the file does not give it. */
struct bench_result {
    enum bench_format format; /* BENCH_VLLM_JSON or BENCH_SGLANG_JSONL */
    int line;                 /* the run's line (1: a whole document) */
    int runs;                 /* runs in the file; the last is this one */
    /* the workload */
    double num_prompts;
    double request_rate;      /* INFINITY: all at once */
    double burstiness;
    double max_concurrency;   /* 0: none (null) */
    double input_len, output_len; /* the lengths' centres, whole tokens */
    double range_ratio;       /* in vLLM's sense: [len x (1 - F), len x (1 + F)] */
    enum bench_lengths lengths;
    /* the measurement */
    double completed, duration, request_throughput, output_throughput, total_token_throughput;
    double latency_ms[BENCH_LATENCIES][BENCH_STATS];
    char model[128], backend[32], dataset[32];
};

/* "ttft", "tpot", "itl", "e2el"; "mean", "median", "p90", "p95", "p99". */
const char *bench_latency_name(enum bench_latency_kind k);
const char *bench_stat_name(enum bench_stat s);

/* Reads the run of the text of file `path`; false with d naming the file,
 * line and field when it is of neither tool or a figure is impossible. */
bool bench_result_read(const char *path, const char *text, size_t len, struct bench_result *r,
                       struct diag *d);

#endif
