/* benchlog: what a serving benchmark measured, read from its own output.
 *
 * The format is found from the content, never the file name:
 *   vllm bench serve     the printed summary ("Mean TPOT (ms):") and its
 *                        --save-result JSON (mean_tpot_ms, max_concurrency,
 *                        ...; --append-result: one JSON object a line)
 *   sglang.bench_serving the printed summary and its JSONL output
 *   llama-bench          the Markdown table (the default, -o md) and -o json /
 *                        -o jsonl (pp512 / tg128 rows, t/s)
 *   genai-perf           profile_export_genai_perf.csv and .json
 * Each run gives its decode figure (TPOT, else ITL: seconds per output token
 * at a concurrency) and its first-token figure (TTFT), with the mean input
 * and output lengths; llama-bench's rows give a prefill (ppN) or a decode
 * (tgN at batch 1). tests/data/bench/README.md names the source files and
 * releases these formats follow. */
#ifndef KVPLAN_IO_BENCHLOG_H
#define KVPLAN_IO_BENCHLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/speedfit.h"

enum bench_format {
    BENCH_UNKNOWN,
    BENCH_VLLM_TEXT,
    BENCH_VLLM_JSON,
    BENCH_SGLANG_TEXT,
    BENCH_SGLANG_JSONL,
    BENCH_LLAMA_MD,
    BENCH_LLAMA_JSON,
    BENCH_GENAI_CSV,
    BENCH_GENAI_JSON,
    BENCH_FORMAT_COUNT
};

/* One measured figure: the step it is, and where the file says it. */
struct bench_point {
    struct fit_point fit;      /* kind, seconds, concurrency, lengths */
    char figure[48];           /* "Mean TPOT (ms)", "tg128 t/s" */
    int line;                  /* of the file (1 for a JSON document) */
    bool concurrency_estimated; /* no concurrency given: Little's law, or 1 */
    bool littles_law;           /* estimated as requests a second x seconds a request */
};

struct bench_log {
    enum bench_format format;
    int npoints;
    struct bench_point points[FIT_POINTS_MAX];
    /* what the file says of its run, "" when nothing */
    char model[128], gpu[128], engine_version[64], date[32], backend[32];
    /* a name that holds the model's: llama-bench's model_filename (a GGUF
     * file), genai-perf's artifact folder ("meta-llama_Llama-3.1-8B-Instruct-
     * openai-chat-concurrency8"); "" when none */
    char model_file[160];
    double params; /* llama-bench's model_n_params (or the params column); 0: not given */
    int runs;
    bool speculative; /* it reports speculative decoding: kvplan times the model's step alone */
};

/* "vllm bench serve", "sglang.bench_serving", "llama-bench", "genai-perf". */
const char *bench_tool_name(enum bench_format f);

/* "printed summary", "--save-result JSON", "JSONL", "Markdown table", "-o json", "CSV", "JSON". */
const char *bench_output_name(enum bench_format f);

/* Reads a benchmark's output (any bytes). False, with d naming the file
 * (path) and line, when it is a benchmark with an impossible figure; a text
 * of no known benchmark is BENCH_UNKNOWN, true. `concurrency` (0: none)
 * stands for the concurrency the file does not give. */
bool bench_parse(const char *path, const char *text, size_t len, uint64_t concurrency,
                 struct bench_log *b, struct diag *d);

#endif
