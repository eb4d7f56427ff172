/* benchlog_json: the JSON outputs of the benchmarks: vllm bench serve
 * --save-result (and --append-result, a document a line), sglang.bench_serving's
 * JSONL, llama-bench -o json / jsonl and genai-perf's JSON export. */
#include "benchlog_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "io/jsonread.h"

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : -1;
}

static void str(const cJSON *o, const char *key, char *out, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(v) && !out[0])
        snprintf(out, size, "%s", v->valuestring);
}

/* genai-perf: a metric's mean ({"unit": "ms", "avg": ...}). */
static double avg(const cJSON *o, const char *metric)
{
    return num(cJSON_GetObjectItemCaseSensitive(o, metric), "avg");
}

/* genai-perf's concurrency: input_config.concurrency, or deeper in newer
 * releases (perf_analyzer.stimulus.concurrency). */
static double find_concurrency(const cJSON *o, int depth)
{
    if (!cJSON_IsObject(o) || depth > 3)
        return -1;
    double c = num(o, "concurrency");
    for (const cJSON *i = o->child; c < 0 && i; i = i->next)
        c = find_concurrency(i, depth + 1);
    return c;
}

static enum bench_format kind_of(const cJSON *o)
{
    if (cJSON_IsArray(o))
        return cJSON_IsObject(o->child) && cJSON_HasObjectItem(o->child, "avg_ts")
                   ? BENCH_LLAMA_JSON
                   : BENCH_UNKNOWN;
    if (!cJSON_IsObject(o))
        return BENCH_UNKNOWN;
    if (cJSON_HasObjectItem(o, "avg_ts") && cJSON_HasObjectItem(o, "n_prompt"))
        return BENCH_LLAMA_JSON;
    if (cJSON_HasObjectItem(o, "time_to_first_token") &&
        cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "time_to_first_token")))
        return BENCH_GENAI_JSON;
    if (!cJSON_HasObjectItem(o, "mean_ttft_ms"))
        return BENCH_UNKNOWN;
    /* sglang.bench_serving writes mean_e2e_latency_ms and dataset_name; vLLM mean_e2el_ms */
    return cJSON_HasObjectItem(o, "mean_e2e_latency_ms") || cJSON_HasObjectItem(o, "dataset_name")
               ? BENCH_SGLANG_JSONL
               : BENCH_VLLM_JSON;
}

/* A time the run gives (-1 when absent): false with d when it is there but
 * no number, or not positive. Python's NaN reads as 0 (a TPOT of runs of one
 * output token): absent, where zero_absent. */
static bool time_field(const char *path, const cJSON *o, int line, const char *key,
                       bool zero_absent, double *ms, struct diag *d)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *ms = -1;
    if (v == NULL || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return diag_fail(d, "%s:%d: %s is not a number of milliseconds", path, line, key);
    if (v->valuedouble == 0 && zero_absent)
        return true;
    if (!(v->valuedouble > 0))
        return diag_fail(d, "%s:%d: %s is %g: a measured time is positive", path, line, key,
                         v->valuedouble);
    *ms = v->valuedouble;
    return true;
}

/* A request concurrency (max_concurrency): absent or null (no limit, as
 * vllm bench serve writes it), or a whole number of 1 or more. */
static bool concurrency_field(const char *path, const cJSON *o, int line, const char *key,
                              double *out, struct diag *d)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = -1;
    if (v == NULL || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 1 ||
        v->valuedouble != floor(v->valuedouble))
        return diag_fail(d, "%s:%d: %s is not a number of requests in flight (1 or more, or null "
                         "for no limit)", path, line, key);
    *out = v->valuedouble;
    return true;
}

static bool serving_run(const char *path, const cJSON *o, int line, uint64_t concurrency,
                        struct bench_log *b, struct diag *d)
{
    struct bench_run r;
    bench_run_init(&r);
    r.line_ttft = r.line_tpot = r.line_conc = line;
    if (!time_field(path, o, line, "mean_ttft_ms", false, &r.ttft_ms, d) ||
        !time_field(path, o, line, "mean_tpot_ms", true, &r.tpot_ms, d) ||
        !time_field(path, o, line, "mean_itl_ms", true, &r.itl_ms, d))
        return false;
    r.ttft_name = "mean_ttft_ms";
    r.tpot_name = "mean_tpot_ms";
    if (!concurrency_field(path, o, line, "max_concurrency", &r.max_concurrency, d))
        return false;
    r.mean_concurrency = num(o, "concurrency");
    r.completed = num(o, "completed");
    r.input_tokens = num(o, "total_input_tokens");
    r.output_tokens = num(o, "total_output_tokens");
    r.request_rate = num(o, "request_throughput");
    r.e2el_ms = num(o, "mean_e2el_ms") > 0 ? num(o, "mean_e2el_ms") : num(o, "mean_e2e_latency_ms");
    str(o, "model_id", b->model, sizeof b->model);
    str(o, "model_path", b->model, sizeof b->model); /* other writers' names for it */
    str(o, "model", b->model, sizeof b->model);
    str(o, "tokenizer_id", b->model, sizeof b->model);
    str(o, "date", b->date, sizeof b->date);
    str(o, "backend", b->backend, sizeof b->backend);
    if (num(o, "spec_decode_acceptance_rate") >= 0 || num(o, "accept_length") > 0)
        b->speculative = true;
    return bench_add_run(path, &r, concurrency, b, d);
}

static bool llama_row(const char *path, const cJSON *o, int line, struct bench_log *b,
                      struct diag *d)
{
    str(o, "model_type", b->model, sizeof b->model);
    str(o, "model_filename", b->model_file, sizeof b->model_file);
    if (num(o, "model_n_params") > 0 && b->params <= 0)
        b->params = num(o, "model_n_params");
    str(o, "gpu_info", b->gpu, sizeof b->gpu);
    str(o, "test_time", b->date, sizeof b->date);
    double build = num(o, "build_number");
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(o, "build_commit");
    if (build > 0 && !b->engine_version[0])
        snprintf(b->engine_version, sizeof b->engine_version, "b%.0f%s%s%s", build,
                 cJSON_IsString(commit) ? " (" : "",
                 cJSON_IsString(commit) ? commit->valuestring : "", cJSON_IsString(commit) ? ")" : "");
    double depth = num(o, "n_depth");
    return bench_add_llama(path, line, num(o, "n_prompt"), num(o, "n_gen"), depth > 0 ? depth : 0,
                           num(o, "avg_ts"), b, d);
}

static bool genai_run(const char *path, const cJSON *o, uint64_t concurrency, struct bench_log *b,
                      struct diag *d)
{
    struct bench_run r;
    bench_run_init(&r);
    r.completed = 1; /* the means are given */
    r.ttft_ms = avg(o, "time_to_first_token");
    r.tpot_ms = avg(o, "inter_token_latency"); /* per request: (latency - TTFT) / (tokens - 1) */
    r.ttft_name = "time_to_first_token avg";
    r.tpot_name = "inter_token_latency avg";
    r.mean_input = avg(o, "input_sequence_length");
    r.mean_output = avg(o, "output_sequence_length");
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "input_config");
    r.max_concurrency = find_concurrency(cfg, 0);
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(cfg, "model");
    if (cJSON_IsArray(model) && cJSON_IsString(model->child))
        snprintf(b->model, sizeof b->model, "%s", model->child->valuestring);
    return bench_add_run(path, &r, concurrency, b, d);
}

/* One document: a run (or llama-bench's rows) of the format it is. */
static bool document(const char *path, const cJSON *o, int line, uint64_t concurrency,
                     struct bench_log *b, struct diag *d)
{
    enum bench_format f = kind_of(o);
    if (f == BENCH_UNKNOWN || (b->format != BENCH_UNKNOWN && f != b->format))
        return diag_fail(d, "%s:%d: %s", path, line,
                         f == BENCH_UNKNOWN ? "a JSON document of no benchmark kvplan reads"
                                            : "documents of two benchmarks in one file");
    b->format = f;
    if (f == BENCH_LLAMA_JSON && cJSON_IsArray(o)) {
        for (const cJSON *row = o->child; row; row = row->next)
            if (!cJSON_IsObject(row) || !llama_row(path, row, line, b, d))
                return cJSON_IsObject(row) ? false
                                           : diag_fail(d, "%s: a llama-bench row is not an object",
                                                       path);
        return true;
    }
    if (f == BENCH_LLAMA_JSON)
        return llama_row(path, o, line, b, d);
    if (f == BENCH_GENAI_JSON)
        return genai_run(path, o, concurrency, b, d);
    return serving_run(path, o, line, concurrency, b, d);
}

/* The first character that is not a blank. */
static char first_char(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            return text[i];
    return '\0';
}

/* Python's json writes inf and nan as Infinity and NaN (sglang.bench_serving's
 * "request_rate": Infinity): not JSON. Outside strings they become null, in
 * place, so lines and columns stay where they were. */
static void python_numbers(char *t, size_t len)
{
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '"' && (i == 0 || t[i - 1] != '\\'))
            quoted = !quoted;
        if (quoted)
            continue;
        if (len - i >= 8 && memcmp(t + i, "Infinity", 8) == 0) {
            memcpy(t + i, "null    ", 8);
            if (i > 0 && t[i - 1] == '-')
                t[i - 1] = ' ';
        } else if (len - i >= 3 && memcmp(t + i, "NaN", 3) == 0) {
            memcpy(t + i, "0  ", 3); /* 0: not a figure the runs take */
        }
    }
}

/* The calibration's reading of one document: a benchmark's whole-file
 * document of no known kind is no benchmark (true, nothing read); one of a
 * document a line must be a run. */
struct calibration_ctx {
    uint64_t concurrency;
    struct bench_log *b;
};

static bool calibration_document(const char *path, const cJSON *o, int line, bool whole,
                                 void *ctx, struct diag *d)
{
    struct calibration_ctx *k = ctx;
    if (whole && kind_of(o) == BENCH_UNKNOWN)
        return true;
    return document(path, o, line, k->concurrency, k->b, d);
}

bool bench_parse_json(const char *path, const char *text, size_t len, uint64_t concurrency,
                      struct bench_log *b, struct diag *d)
{
    struct calibration_ctx k = {concurrency, b};
    bool json;
    return bench_json_each(path, text, len, calibration_document, &k, &json, d);
}

enum bench_format bench_json_kind(const cJSON *o)
{
    return kind_of(o);
}

static bool each_line(const char *path, char *text, size_t len, bench_json_fn fn, void *ctx,
                      bool *json, struct diag *d);

bool bench_json_each(const char *path, const char *text, size_t len, bench_json_fn fn, void *ctx,
                     bool *json, struct diag *d)
{
    *json = false;
    char c = first_char(text, len);
    if (c != '{' && c != '[')
        return true;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return diag_fail(d, "%s: out of memory", path);
    memcpy(copy, text, len);
    copy[len] = '\0';
    python_numbers(copy, len);
    struct diag why = {0};
    /* llama-bench -o json is an array, which jsonread_parse does not take */
    const char *stop = NULL;
    cJSON *whole = c == '[' ? cJSON_ParseWithLengthOpts(copy, len + 1, &stop, true)
                            : jsonread_parse(path, copy, len, &why);
    bool ok;
    if (whole) {
        *json = true;
        ok = fn(path, whole, 1, true, ctx, d);
        cJSON_Delete(whole);
    } else {
        ok = each_line(path, copy, len, fn, ctx, json, d);
        /* neither one document nor one a line, yet it opens as JSON does: a
         * truncated or broken file, said where the parser stopped (no
         * engine's log or text output begins with '{' or '[') */
        if (ok && !*json) {
            if (c == '[') {
                size_t off = stop && stop >= copy ? (size_t)(stop - copy) : 0;
                int line = 1, col = 1;
                for (size_t i = 0; i < off && i < len; i++, col++)
                    if (copy[i] == '\n') {
                        line++;
                        col = 0;
                    }
                size_t last = len;
                while (last > 0 && strchr(" \t\r\n", copy[last - 1]) != NULL)
                    last--;
                ok = diag_fail(d, "%s:%d:%d: not valid JSON (%s)", path, line, col,
                               off >= len || last == 0 || copy[last - 1] != ']'
                                   ? "it ends too early: truncated?"
                                   : "the parser stopped here");
            } else {
                ok = diag_fail(d, "%s", why.message);
            }
        }
    }
    free(copy);
    return ok;
}

/* A document a line: --append-result, sglang's JSONL, llama-bench -o jsonl.
 * A first line that is no JSON leaves *json false: a text format may read it. */
static bool each_line(const char *path, char *text, size_t len, bench_json_fn fn, void *ctx,
                      bool *json, struct diag *d)
{
    size_t at = 0;
    int line = 0;
    while (at < len) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        line++;
        if (first_char(text + at, end - at) != '\0') {
            struct diag bad = {0};
            char keep = text[end];
            text[end] = '\0'; /* the parser wants the line to end in a NUL */
            cJSON *o = jsonread_parse(path, text + at, end - at, &bad);
            text[end] = keep;
            if (o == NULL) {
                if (!*json)
                    return true;
                return diag_fail(d, "%s:%d: not one JSON document a line", path, line);
            }
            *json = true;
            bool ok = fn(path, o, line, false, ctx, d);
            cJSON_Delete(o);
            if (!ok)
                return false;
        }
        at = end + 1;
    }
    return true;
}
