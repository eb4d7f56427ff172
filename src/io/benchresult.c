/* benchresult: vllm bench serve's --save-result JSON and sglang.bench_serving's
 * JSONL, read whole: the workload the run was and every figure it measured. */
#include "io/benchresult.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "benchlog_parts.h"

static const char *const latency_names[BENCH_LATENCIES] = {"ttft", "tpot", "itl", "e2el"};
static const char *const stat_names[BENCH_STATS] = {"mean", "median", "p90", "p95", "p99"};

const char *bench_latency_name(enum bench_latency_kind k)
{
    return latency_names[k];
}

const char *bench_stat_name(enum bench_stat s)
{
    return stat_names[s];
}

struct reading {
    const char *path;
    int line;
    const cJSON *o;
    struct diag *d;
};

/* key's number into *out, -1 when absent or null; false when it is another
 * type, not finite or below 0. */
static bool number(const struct reading *g, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g->o, key);
    *out = -1;
    if (v == NULL || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return diag_fail(g->d, "%s:%d: %s: not a number of 0 or more", g->path, g->line, key);
    *out = v->valuedouble;
    return true;
}

static void text(const struct reading *g, const char *key, char *out, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g->o, key);
    if (cJSON_IsString(v))
        snprintf(out, size, "%s", v->valuestring);
}

/* request_rate: a number above 0, "inf" (vLLM) or null (sglang's Infinity). */
static bool rate(const struct reading *g, struct bench_result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g->o, "request_rate");
    r->request_rate = -1;
    if (v == NULL)
        return true;
    if (cJSON_IsNull(v) || (cJSON_IsString(v) && strcmp(v->valuestring, "inf") == 0)) {
        r->request_rate = INFINITY;
        return true;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
        return diag_fail(g->d, "%s:%d: request_rate: not a rate above 0 nor \"inf\"", g->path,
                         g->line);
    r->request_rate = v->valuedouble;
    return true;
}

/* A count: a whole number of at least `least`, or absent. */
static bool count(const struct reading *g, const char *key, double least, double *out)
{
    if (!number(g, key, out))
        return false;
    if (*out >= 0 && (*out < least || *out != floor(*out) || *out > 1e12))
        return diag_fail(g->d, "%s:%d: %s: not a whole number of at least %g", g->path, g->line,
                         key, least);
    return true;
}

/* The mean of a per-request array (--save-detailed's input_lens), -1 when
 * absent. */
static bool array_mean(const struct reading *g, const char *key, double *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(g->o, key);
    *out = -1;
    if (a == NULL || cJSON_IsNull(a))
        return true;
    if (!cJSON_IsArray(a))
        return diag_fail(g->d, "%s:%d: %s: not an array of token counts", g->path, g->line, key);
    double sum = 0;
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
            return diag_fail(g->d, "%s:%d: %s: not an array of token counts", g->path, g->line,
                             key);
        sum += v->valuedouble;
        n++;
    }
    if (n > 0)
        *out = sum / n;
    return true;
}

/* The figures both tools name alike, and the latencies under each one's names. */
static bool figures(const struct reading *g, struct bench_result *r)
{
    const char *keys[] = {"duration", "request_throughput", "output_throughput",
                          "total_token_throughput"};
    double *into[] = {&r->duration, &r->request_throughput, &r->output_throughput,
                      &r->total_token_throughput};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!number(g, keys[i], into[i]))
            return false;
    if (r->total_token_throughput < 0 && !number(g, "total_throughput", &r->total_token_throughput))
        return false;
    bool sglang = r->format == BENCH_SGLANG_JSONL;
    for (int k = 0; k < BENCH_LATENCIES; k++)
        for (int s = 0; s < BENCH_STATS; s++) {
            char key[40];
            if (k == BENCH_E2EL && sglang)
                snprintf(key, sizeof key, "%s_e2e_latency_ms", stat_names[s]);
            else
                snprintf(key, sizeof key, "%s_%s_ms", stat_names[s], latency_names[k]);
            if (!number(g, key, &r->latency_ms[k][s]))
                return false;
        }
    return true;
}

/* sglang's random dataset draws the input from [max(floor(L x r), 1), L]
 * and the output from [floor(O x r), O] (bench_serving.py
 * sample_random_requests): kvplan's centre and ratio for the same range,
 * the ratio at most 0.99 (sglang's r = 0 reaches down to 1 token). */
static void sglang_lengths(double in, double out, double ratio, struct bench_result *r)
{
    if (ratio < 0 || ratio > 1)
        ratio = 0;
    r->input_len = round(in * (1 + ratio) / 2);
    r->output_len = round(out * (1 + ratio) / 2);
    double f = (1 - ratio) / (1 + ratio);
    r->range_ratio = f > 0.99 ? 0.99 : f;
    r->lengths = BENCH_LENGTHS_DATASET;
}

static bool lengths(const struct reading *g, struct bench_result *r)
{
    double in = -1, out = -1, ratio = -1;
    if (r->format == BENCH_SGLANG_JSONL && strncmp(r->dataset, "random", 6) == 0) {
        if (!number(g, "random_input_len", &in) || !number(g, "random_output_len", &out) ||
            !number(g, "random_range_ratio", &ratio))
            return false;
        if (in >= 1 && out >= 1) {
            sglang_lengths(in, out, ratio, r);
            return true;
        }
    }
    double tin, tout;
    if (!array_mean(g, "input_lens", &in) || !array_mean(g, "output_lens", &out) ||
        !number(g, "total_input_tokens", &tin) || !number(g, "total_output_tokens", &tout))
        return false;
    if (in < 0 && tin >= 0)
        in = tin / r->completed;
    if (out < 0 && tout >= 0)
        out = tout / r->completed;
    if (in >= 0.5 && out >= 0.5) {
        r->input_len = round(in);
        r->output_len = round(out);
        r->lengths = BENCH_LENGTHS_MEANS;
    }
    return true;
}

static bool workload(const struct reading *g, struct bench_result *r)
{
    if (!rate(g, r) || !number(g, "burstiness", &r->burstiness) ||
        !count(g, "num_prompts", 1, &r->num_prompts) ||
        !count(g, "max_concurrency", 1, &r->max_concurrency))
        return false;
    if (r->burstiness == 0)
        return diag_fail(g->d, "%s:%d: burstiness: not above 0", g->path, g->line);
    if (r->max_concurrency < 0)
        r->max_concurrency = 0; /* null: no cap */
    return lengths(g, r);
}

struct result_ctx {
    struct bench_result *r;
    int runs;
};

static void result_clear(struct bench_result *r)
{
    memset(r, 0, sizeof *r);
    double *all[] = {&r->num_prompts, &r->request_rate, &r->burstiness, &r->max_concurrency,
                     &r->input_len, &r->output_len, &r->range_ratio, &r->completed,
                     &r->duration, &r->request_throughput, &r->output_throughput,
                     &r->total_token_throughput};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        *all[i] = -1;
}

static bool one_run(const char *path, const cJSON *o, int line, bool whole, void *ctx,
                    struct diag *d)
{
    (void)whole;
    struct result_ctx *k = ctx;
    enum bench_format f = bench_json_kind(o);
    if (f != BENCH_VLLM_JSON && f != BENCH_SGLANG_JSONL)
        return diag_fail(d, "%s:%d: not a run of vllm bench serve --save-result nor of "
                         "sglang.bench_serving (no mean_ttft_ms)", path, line);
    if (k->runs > 0 && f != k->r->format)
        return diag_fail(d, "%s:%d: runs of two benchmarks in one file", path, line);
    struct bench_result r;
    result_clear(&r);
    r.format = f;
    r.line = line;
    struct reading g = {path, line, o, d};
    text(&g, "model_id", r.model, sizeof r.model);
    text(&g, "backend", r.backend, sizeof r.backend);
    text(&g, "dataset_name", r.dataset, sizeof r.dataset);
    if (!count(&g, "completed", 0, &r.completed))
        return false;
    if (!(r.completed >= 1))
        return diag_fail(d, "%s:%d: completed: %s", path, line,
                         r.completed < 0 ? "missing: the run's completed requests"
                                         : "no request completed");
    if (!figures(&g, &r) || !workload(&g, &r))
        return false;
    if (f == BENCH_SGLANG_JSONL && r.num_prompts < 0)
        r.num_prompts = r.completed; /* sglang writes no num_prompts */
    r.runs = ++k->runs;
    *k->r = r;
    return true;
}

bool bench_result_read(const char *path, const char *text, size_t len, struct bench_result *r,
                       struct diag *d)
{
    struct result_ctx k = {r, 0};
    bool json;
    if (!bench_json_each(path, text, len, one_run, &k, &json, d))
        return false;
    if (!json || k.runs == 0)
        return diag_fail(d, "%s: not vllm bench serve's --save-result JSON nor "
                         "sglang.bench_serving's JSONL output", path);
    return true;
}
