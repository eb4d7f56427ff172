/* simulate --compare: a benchmark's measured run beside kvplan's simulation
 * of the same workload, figure by figure (measured, predicted, error). */
#include <math.h>
#include <string.h>

#include <cJSON.h>

#include "cli/simulate.h"
#include "io/jsonout.h"

/* One figure: vLLM's key for it, how the table names it, both values. */
struct compare_row {
    char key[24], label[40];
    double measured, predicted;
    bool shown; /* a prediction: the latencies have none over capacity */
};

enum { COMPARE_ROWS = 5 + BENCH_LATENCIES * BENCH_STATS };

static const struct sim_stats *stats_of(const struct sim_result *r, int k)
{
    const struct sim_stats *all[BENCH_LATENCIES] = {&r->ttft, &r->tpot, &r->itl, &r->e2el};
    return all[k];
}

static double stat_of(const struct sim_stats *st, int s)
{
    const double v[BENCH_STATS] = {st->mean, st->median, st->p90, st->p95, st->p99};
    return v[s];
}

static void row_add(struct compare_row *rows, int *n, const char *key, const char *label,
                    double measured, double predicted)
{
    if (measured < 0)
        return;
    struct compare_row *w = &rows[(*n)++];
    snprintf(w->key, sizeof w->key, "%s", key);
    snprintf(w->label, sizeof w->label, "%s", label);
    w->measured = measured;
    w->predicted = predicted;
    w->shown = true;
}

/* The figures the file measured, in vllm bench serve's order. */
static int compare_rows(const struct simulate_run *sr, struct compare_row *rows)
{
    const struct bench_result *b = &sr->bench;
    const struct sim_result *r = &sr->out;
    int n = 0;
    row_add(rows, &n, "completed", "Completed (requests)", b->completed, (double)r->completed);
    row_add(rows, &n, "duration", "Duration (s)", b->duration, r->duration);
    row_add(rows, &n, "request_throughput", "Requests (req/s)", b->request_throughput,
            r->request_throughput);
    row_add(rows, &n, "output_throughput", "Output (tok/s)", b->output_throughput,
            r->output_throughput);
    row_add(rows, &n, "total_token_throughput", "Total (tok/s)", b->total_token_throughput,
            r->total_token_throughput);
    static const char *const upper[BENCH_LATENCIES] = {"TTFT", "TPOT", "ITL", "E2EL"};
    static const char *const stat_label[BENCH_STATS] = {"Mean", "Median", "P90", "P95", "P99"};
    for (int k = 0; k < BENCH_LATENCIES; k++)
        for (int s = 0; s < BENCH_STATS; s++) {
            char key[24], label[40];
            snprintf(key, sizeof key, "%s_%s_ms", bench_stat_name((enum bench_stat)s),
                     bench_latency_name((enum bench_latency_kind)k));
            snprintf(label, sizeof label, "%s %s (ms)", stat_label[s], upper[k]);
            int before = n;
            row_add(rows, &n, key, label, b->latency_ms[k][s], stat_of(stats_of(r, k), s) * 1e3);
            if (n > before)
                rows[before].shown = !r->over_capacity;
        }
    return n;
}

/* (predicted - measured) / measured, percent; false when there is none. */
static bool error_pct(const struct compare_row *w, double *pct)
{
    if (!w->shown || !(w->measured > 0))
        return false;
    *pct = (w->predicted - w->measured) / w->measured * 100;
    return true;
}

static const char *lengths_words(enum bench_lengths l)
{
    return l == BENCH_LENGTHS_DATASET ? "dataset" : l == BENCH_LENGTHS_MEANS ? "means" : NULL;
}

void simulate_compare_text(FILE *out, const struct simulate_run *sr)
{
    const struct bench_result *b = &sr->bench;
    fprintf(out, "\nCompared with %s (%s %s", sr->compare_path, bench_tool_name(b->format),
            bench_output_name(b->format));
    if (b->runs > 1)
        fprintf(out, ", the last of %d runs: line %d", b->runs, b->line);
    fprintf(out, ")\n");
    fprintf(out, "From it     ");
    for (int i = 0; i < sr->nfrom; i++)
        fprintf(out, "%s%s", i ? ", " : "", sr->from_file[i]);
    bool ours = sr->w.profile || sr->dataset_path; /* --dataset's lengths, not the run's */
    fprintf(out, "%s%s\n", sr->nfrom ? "" : "nothing (the options give the workload)",
            ours ? "; lengths: --dataset's, not the measured run's"
            : b->lengths == BENCH_LENGTHS_MEANS ? " (lengths: the run's means)" : "");
    struct compare_row rows[COMPARE_ROWS];
    int n = compare_rows(sr, rows);
    fprintf(out, "\n%-22s %12s %12s %9s\n", "", "measured", "predicted", "error");
    for (int i = 0; i < n; i++) {
        double pct;
        fprintf(out, "%-22s %12.2f ", rows[i].label, rows[i].measured);
        if (rows[i].shown)
            fprintf(out, "%12.2f ", rows[i].predicted);
        else
            fprintf(out, "%12s ", "-");
        if (error_pct(&rows[i], &pct))
            fprintf(out, "%+8.1f%%\n", pct);
        else
            fprintf(out, "%9s\n", "-");
    }
}

static cJSON *metrics_json(const struct simulate_run *sr)
{
    static struct compare_row rows[COMPARE_ROWS]; /* cJSON keeps the key's pointer */
    int n = compare_rows(sr, rows);
    struct jsonout o = jsonout_begin();
    for (int i = 0; i < n; i++) {
        double pct = 0;
        bool has = error_pct(&rows[i], &pct);
        struct jsonout m = jsonout_begin();
        jsonout_double(&m, "measured", rows[i].measured);
        jsonout_double_or_null(&m, "predicted", rows[i].predicted, rows[i].shown);
        jsonout_double_or_null(&m, "error_pct", pct, has);
        jsonout_object(&o, rows[i].key, jsonout_end(&m));
    }
    return jsonout_end(&o);
}

cJSON *simulate_compare_json(const struct simulate_run *sr)
{
    const struct bench_result *b = &sr->bench;
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "file", sr->compare_path);
    jsonout_string(&o, "tool", bench_tool_name(b->format));
    jsonout_string(&o, "output", bench_output_name(b->format));
    jsonout_uint(&o, "line", (uint64_t)b->line);
    jsonout_uint(&o, "runs", (uint64_t)b->runs);
    cJSON *from = cJSON_CreateArray();
    for (int i = 0; from && i < sr->nfrom; i++)
        cJSON_AddItemToArray(from, cJSON_CreateString(sr->from_file[i]));
    jsonout_object(&o, "workload_from_file", from);
    if (lengths_words(b->lengths))
        jsonout_string(&o, "lengths", lengths_words(b->lengths));
    else
        jsonout_null(&o, "lengths");
    jsonout_object(&o, "metrics", metrics_json(sr));
    return jsonout_end(&o);
}
