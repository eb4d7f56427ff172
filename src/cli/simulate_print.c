/* simulate's two formats: a table a serving engineer reads at a glance, and
 * the plan's JSON snapshot with result.simulation, whose keys are those of
 * vllm bench serve's result file (vllm/benchmarks/serve.py benchmark():
 * duration, completed, ..., mean_ttft_ms, p99_itl_ms) and the queue's. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/simulate.h"
#include "core/engine_desc.h"
#include "core/loadband.h"
#include "core/units.h"
#include "core/version.h"
#include "io/jsonout.h"
#include "io/report.h"
#include "io/snapshot.h"

static const char *arrivals_words(const struct workload_params *w, char *buf, size_t size)
{
    if (isinf(w->request_rate))
        return "all at once";
    if (w->burstiness == 1.0)
        snprintf(buf, size, "%g req/s (Poisson)", w->request_rate);
    else if (isinf(w->burstiness))
        snprintf(buf, size, "%g req/s (evenly spaced)", w->request_rate);
    else
        snprintf(buf, size, "%g req/s (gamma, burstiness %g)", w->request_rate, w->burstiness);
    return buf;
}

void simulate_workload_lengths(FILE *out, const struct simulate_run *sr)
{
    const struct workload_params *w = &sr->w;
    char a[32], b[32], c[32];
    units_format_int(w->num_prompts, a, sizeof a);
    units_format_int(w->input_len, b, sizeof b);
    units_format_int(w->output_len, c, sizeof c);
    const char *many = w->num_prompts == 1 ? "request" : "requests";
    if (w->profile) {
        char f[32];
        units_format_int(sr->fit.count, f, sizeof f);
        fprintf(out, "Workload    %s %s drawn from %s (%s: means %s + %s tokens over the "
                     "%s that fit)", a, many, w->profile->name, w->profile->title, b, c, f);
    } else if (sr->dataset_path) {
        fprintf(out, "Workload    %s %s from %s (means %s + %s tokens)", a, many,
                sr->dataset_path, b, c);
    } else {
        fprintf(out, "Workload    %s %s of %s + %s tokens", a, many, b, c);
    }
}

/* vLLM V1's hybrid pool: its groups, and what a request holds in the others */
static void pool_groups_line(FILE *out, const struct sim_config *c)
{
    if (c->full_groups == 0)
        return;
    uint64_t windows = 0, states = 0;
    for (uint32_t k = 0; k < c->nwindows; k++)
        *(c->windows[k].fixed ? &states : &windows) += c->windows[k].groups;
    fprintf(out, "            in %llu groups: %u of full attention",
            (unsigned long long)(c->full_groups + windows + states), c->full_groups);
    if (windows)
        fprintf(out, ", %llu windowed (a request holds its window's blocks there)",
                (unsigned long long)windows);
    if (states)
        fprintf(out, ", %llu of state (a block a request)", (unsigned long long)states);
    fprintf(out, ",\n");
}

static void head(FILE *out, const struct simulate_run *sr)
{
    const struct scenario *s = &sr->s;
    const struct workload_params *w = &sr->w;
    char a[32], rate[96], ctx[32];
    const struct engine_sched *t = &engine_desc(s->engine.kind)->sched;
    char engine[64]; /* the release, as plan's title ends: "vLLM 0.15" */
    engine_version_title(s->engine.kind, s->engine.rule, engine, sizeof engine);
    fprintf(out, "Simulated %s%s%s%s on %u x %s, %s, context %s, %s\n", t->title,
            t->capacity ? " (" : "", t->capacity ? sim_capacity_name(sr->c.capacity) : "",
            t->capacity ? ")" : "", s->gpus, s->gpu.name, s->model.name,
            units_format_tokens_short(s->context_tokens, ctx, sizeof ctx), engine);
    simulate_workload_lengths(out, sr);
    if (w->range_ratio > 0)
        fprintf(out, ", lengths +-%g%%", w->range_ratio * 100);
    if (w->prefix_len) {
        char pre[32];
        fprintf(out, " after a %s-token prefix", units_format_int(w->prefix_len, pre, sizeof pre));
    }
    if (sr->trace_arrivals)
        fprintf(out, ", at the trace's arrival times");
    else
        fprintf(out, ", %s, seed %llu", arrivals_words(w, rate, sizeof rate),
                (unsigned long long)w->seed);
    if (sr->c.max_concurrency)
        fprintf(out, ", at most %llu in flight", (unsigned long long)sr->c.max_concurrency);
    fputc('\n', out);
    units_format_int(sr->c.blocks, a, sizeof a);
    if (engine_desc(s->engine.kind)->splits_layers) /* llama.cpp: whole layers a GPU */
        fprintf(out, "Engine      %u server%s, %s layers split over %u GPU%s: %s KV ",
                sr->c.replicas, sr->c.replicas == 1 ? "" : "s",
                sr->c.replicas == 1 ? "its" : "each one's", sr->r.placement.tp,
                sr->r.placement.tp == 1 ? "" : "s", a);
    else
        fprintf(out, "Engine      %u replica%s of TP %u: %s KV ", sr->c.replicas,
                sr->c.replicas == 1 ? "" : "s", sr->r.placement.tp, a);
    if (sr->c.block_tokens == 1)
        fprintf(out, "tokens,\n");
    else
        fprintf(out, "blocks of %llu tokens each,\n", (unsigned long long)sr->c.block_tokens);
    pool_groups_line(out, &sr->c);
    fprintf(out, "            %s %u, %s %llu", t->seqs_name, sr->c.max_num_seqs, t->tokens_name,
            (unsigned long long)sr->c.max_num_batched_tokens);
    if (t->ubatch_name)
        fprintf(out, ", %s %llu", t->ubatch_name, (unsigned long long)sr->c.ubatch);
    if (sr->router_given)
        fprintf(out, ", router %s", sim_router_name(sr->c.router));
    if (sr->c.recv_interval > 1)
        fprintf(out, ", scheduler-recv-interval %u", sr->c.recv_interval);
    if (sr->c.max_prefill_tokens)
        fprintf(out, ", max-prefill-tokens %" PRIu64, sr->c.max_prefill_tokens);
    if (sr->c.warm_requests)
        fprintf(out, ", warm prompts %" PRIu64, sr->c.warm_requests);
    fprintf(out, "\n\n");
}

static void latency_row(FILE *out, const char *name, const struct sim_stats *st)
{
    fprintf(out, "%-11s %10.2f %10.2f %10.2f %10.2f %10.2f\n", name, st->mean * 1e3,
            st->median * 1e3, st->p90 * 1e3, st->p95 * 1e3, st->p99 * 1e3);
}

static void goodput_line(FILE *out, const struct simulate_run *sr)
{
    const struct sim_result *r = &sr->out;
    const struct sim_config *c = &sr->c;
    char a[32], b[32], slo[128] = "";
    size_t n = 0;
    const char *names[3] = {"ttft", "tpot", "e2el"};
    const double v[3] = {c->slo_ttft, c->slo_tpot, c->slo_e2el};
    for (int i = 0; i < 3; i++)
        if (v[i] >= 0)
            n += (size_t)snprintf(slo + n, sizeof slo - n, "%s%s %g ms", n ? ", " : "",
                                  names[i], v[i] * 1e3);
    fprintf(out, "Goodput     %.2f req/s: %s of %s requests (%.1f%%) within %s\n",
            r->request_goodput, units_format_int(r->good, a, sizeof a),
            units_format_int(r->completed, b, sizeof b),
            r->completed ? 100.0 * (double)r->good / (double)r->completed : 0, slo);
}

double simulate_output_cost(const struct plan_result *r, const struct sim_result *o)
{
    return price_per_million_tokens(r->price_usd_per_hour, o->output_throughput);
}

double simulate_input_cost(const struct plan_result *r, const struct sim_result *o)
{
    double rate = o->duration > 0 ? (double)o->total_input / o->duration : 0;
    return price_per_million_tokens(r->price_usd_per_hour, rate);
}

/* "Cost        $0.3972 per 1M output tokens, $0.0441 per 1M input at this
 * run's throughput ($2.69/h per GPU x 1 GPU, the preset's price)" */
static void cost_line(FILE *out, const struct simulate_run *sr)
{
    char basis[128], a[32] = "n/a", b[32] = "n/a";
    price_basis_text(&sr->s, sr->r.gpus, basis, sizeof basis);
    double oc = simulate_output_cost(&sr->r, &sr->out), ic = simulate_input_cost(&sr->r, &sr->out);
    if (oc >= 0)
        snprintf(a, sizeof a, "$%.4f", oc);
    if (ic >= 0)
        snprintf(b, sizeof b, "$%.4f", ic);
    fprintf(out, "Cost        %s per 1M output tokens, %s per 1M input at this run's throughput "
            "(%s)\n", a, b, basis);
    /* the plan's own figure, which the JSON's result holds beside the run's */
    const struct speed_result *sp = &sr->r.speed;
    if (sr->r.cost_per_million_output_tokens >= 0)
        fprintf(out, "            static plan (not this run): $%.4f per 1M output tokens at %s "
                "user%s decoding at once\n", sr->r.cost_per_million_output_tokens,
                units_format_int(sp->concurrency, a, sizeof a), sp->concurrency == 1 ? "" : "s");
}

/* How far the means were off on the public runs of the plan's kind, GPU
 * family and engine (core/loadband.h): a line each, under the table. */
static void spread_lines(FILE *out, const struct simulate_run *sr)
{
    struct load_bands lb;
    char t[SPEEDBAND_GROUP_MAX * 3], p[SPEEDBAND_GROUP_MAX * 3];
    loadband_lookup(&sr->s, &lb);
    speedband_text(&lb.ttft, t, sizeof t);
    speedband_text(&lb.tpot, p, sizeof p);
    fprintf(out, "\nMeasured    mean TTFT %s\n", t);
    fprintf(out, "            mean TPOT %s\n", p);
    fprintf(out, "            (the measured time against the simulated, on public serving runs "
                 "below their knee: doc/LOAD-BANDS.md)\n");
}

bool simulate_print_text(FILE *out, const struct simulate_run *sr)
{
    const struct sim_result *r = &sr->out;
    char a[32], b[32];
    head(out, sr);
    fprintf(out, "Completed   %s requests in %.2f s\n",
            units_format_int(r->completed, a, sizeof a), r->duration);
    fprintf(out, "Throughput  %.2f req/s, %.1f output tok/s, %.1f total tok/s\n",
            r->request_throughput, r->output_throughput, r->total_token_throughput);
    cost_line(out, sr);
    if (r->over_capacity) {
        char served[128];
        bool queue = r->queue_growth_per_s * 2 >= r->system_growth_per_s;
        if (r->judged_requests) /* the run never filled: the stream continued said */
            snprintf(served, sizeof served, "the same stream continued to %llu requests "
                     "finishes %.2f req/s of the %g sent", (unsigned long long)r->judged_requests,
                     r->served_per_s, sr->w.request_rate);
        else if (r->measured)
            snprintf(served, sizeof served, "it finishes %.2f req/s of the %g sent",
                     r->served_per_s, sr->w.request_rate);
        else
            snprintf(served, sizeof served, "of the %g req/s sent, none finished in the "
                     "second half of the sending", sr->w.request_rate);
        fprintf(out, "\nThe %s by %.1f requests/s: over capacity (%s); latencies never "
                "settle, so none are given\n",
                queue ? "waiting queue grows" : "requests running and waiting grow",
                queue ? r->queue_growth_per_s : r->system_growth_per_s, served);
    } else {
        fprintf(out, "\n%-11s %10s %10s %10s %10s %10s\n", "(ms)", "mean", "median", "p90", "p95",
                "p99");
        latency_row(out, "TTFT", &r->ttft);
        latency_row(out, "TPOT", &r->tpot);
        latency_row(out, "ITL", &r->itl);
        latency_row(out, "E2EL", &r->e2el);
        spread_lines(out, sr);
    }
    fprintf(out, "\nRunning     mean %.1f, max %llu\n", r->mean_running,
            (unsigned long long)r->max_running);
    fprintf(out, "Waiting     mean %.1f, max %llu\n", r->mean_waiting,
            (unsigned long long)r->max_waiting);
    fprintf(out, "KV cache    peak %.1f%% of the pool, %s preemption%s, %s steps\n",
            r->peak_kv_usage * 100, units_format_int(r->preemptions, a, sizeof a),
            r->preemptions == 1 ? "" : "s", units_format_int(r->steps, b, sizeof b));
    if (r->goodput)
        goodput_line(out, sr);
    if (sr->compare_path)
        simulate_compare_text(out, sr);
    /* the plan's own warnings (a speed fitted on other builds, a model the engine
     * serves otherwise): the run rests on that plan */
    report_text_warnings(out, &sr->r);
    return true;
}

/* A number, or "inf" as vllm bench serve writes an infinite rate. */
static void number_or_inf(struct jsonout *o, const char *key, double v)
{
    if (isinf(v))
        jsonout_string(o, key, "inf");
    else
        jsonout_double(o, key, v);
}

static cJSON *workload_json(const struct simulate_run *sr)
{
    const struct workload_params *w = &sr->w;
    struct jsonout o = jsonout_begin();
    jsonout_uint(&o, "num_prompts", w->num_prompts);
    number_or_inf(&o, "request_rate", w->request_rate);
    number_or_inf(&o, "burstiness", w->burstiness);
    jsonout_uint(&o, "random_input_len", w->input_len);
    jsonout_uint(&o, "random_output_len", w->output_len);
    jsonout_double(&o, "random_range_ratio", w->range_ratio);
    jsonout_uint(&o, "random_prefix_len", w->prefix_len);
    jsonout_uint(&o, "seed", w->seed);
    /* a trace: its path, and whether its own arrivals were sent (the
     * random_ lengths are then its means) */
    if (sr->dataset_path) {
        jsonout_string(&o, "dataset", sr->dataset_path);
        jsonout_bool(&o, "dataset_arrivals", sr->trace_arrivals);
    } else if (w->profile) { /* a length profile: its name, and how many of its requests fit */
        jsonout_string(&o, "dataset", w->profile->name);
        jsonout_bool(&o, "dataset_arrivals", false);
        jsonout_uint(&o, "dataset_requests", w->profile->n);
        jsonout_uint(&o, "dataset_requests_fitting", sr->fit.count);
    }
    if (sr->c.max_concurrency)
        jsonout_uint(&o, "max_concurrency", sr->c.max_concurrency);
    else
        jsonout_null(&o, "max_concurrency");
    jsonout_uint(&o, "replicas", sr->c.replicas);
    jsonout_uint(&o, "kv_blocks_per_replica", sr->c.blocks);
    jsonout_uint(&o, "block_tokens", sr->c.block_tokens);
    if (sr->c.full_groups) {
        uint64_t windows = 0, states = 0;
        for (uint32_t k = 0; k < sr->c.nwindows; k++)
            *(sr->c.windows[k].fixed ? &states : &windows) += sr->c.windows[k].groups;
        jsonout_uint(&o, "kv_full_groups", sr->c.full_groups);
        jsonout_uint(&o, "kv_window_groups", windows);
        jsonout_uint(&o, "kv_state_groups", states);
    }
    jsonout_uint(&o, "max_num_seqs", sr->c.max_num_seqs);
    jsonout_uint(&o, "max_num_batched_tokens", sr->c.max_num_batched_tokens);
    jsonout_uint(&o, "max_model_len", sr->c.max_model_len);
    if (sr->router_given)
        jsonout_string(&o, "router", sim_router_name(sr->c.router));
    if (engine_desc(sr->s.engine.kind)->sched.capacity)
        jsonout_string(&o, "capacity_scheduler_policy", sim_capacity_name(sr->c.capacity));
    if (sr->c.recv_interval > 1)
        jsonout_uint(&o, "scheduler_recv_interval", sr->c.recv_interval);
    if (sr->c.max_prefill_tokens)
        jsonout_uint(&o, "max_prefill_tokens", sr->c.max_prefill_tokens);
    if (sr->c.warm_requests)
        jsonout_uint(&o, "warm_prompts", sr->c.warm_requests);
    return jsonout_end(&o);
}

/* mean_NAME_ms, median_, std_, p90_, p95_, p99_: null over capacity. */
/* One band: its ratios, runs and group, its words, and the mean times it
 * spans (null over capacity, where no mean is given). */
static cJSON *band_json(const struct speed_band *b, double mean_ms, bool shown)
{
    struct jsonout o = jsonout_begin();
    char words[SPEEDBAND_GROUP_MAX * 3], group[SPEEDBAND_GROUP_MAX];
    speedband_text(b, words, sizeof words);
    speedband_group(b, group, sizeof group);
    jsonout_double(&o, "low_ratio", b->low);
    jsonout_double(&o, "high_ratio", b->high);
    jsonout_uint(&o, "runs", b->cases);
    jsonout_string(&o, "group", group);
    jsonout_double_or_null(&o, "mean_ms_low", mean_ms * b->low, shown);
    jsonout_double_or_null(&o, "mean_ms_high", mean_ms * b->high, shown);
    jsonout_string(&o, "text", words);
    return jsonout_end(&o);
}

/* result.simulation.measured_spread: the means' bands (core/loadband.h) */
static cJSON *spread_json(const struct simulate_run *sr, bool shown)
{
    struct load_bands lb;
    loadband_lookup(&sr->s, &lb);
    struct jsonout o = jsonout_begin();
    jsonout_object(&o, "ttft", band_json(&lb.ttft, sr->out.ttft.mean * 1e3, shown));
    jsonout_object(&o, "tpot", band_json(&lb.tpot, sr->out.tpot.mean * 1e3, shown));
    return jsonout_end(&o);
}

static void stats_json(struct jsonout *o, const char *name, const struct sim_stats *st, bool shown)
{
    static char keys[4][6][24]; /* cJSON keeps the key's pointer: static names */
    static const char *const what[6] = {"mean", "median", "std", "p90", "p95", "p99"};
    static const char *const names[4] = {"ttft", "tpot", "itl", "e2el"};
    int k = 0;
    while (k < 3 && strcmp(names[k], name) != 0)
        k++;
    const double v[6] = {st->mean, st->median, st->std, st->p90, st->p95, st->p99};
    for (int i = 0; i < 6; i++) {
        snprintf(keys[k][i], sizeof keys[k][i], "%s_%s_ms", what[i], name);
        jsonout_double_or_null(o, keys[k][i], v[i] * 1e3, shown);
    }
}

cJSON *simulate_simulation_json(const struct simulate_run *sr)
{
    const struct sim_result *r = &sr->out;
    bool shown = !r->over_capacity;
    struct jsonout o = jsonout_begin();
    jsonout_object(&o, "workload", workload_json(sr));
    /* as vllm bench serve's result file has them, beside the workload */
    const struct workload_params *w = &sr->w;
    jsonout_uint(&o, "num_prompts", w->num_prompts);
    number_or_inf(&o, "request_rate", w->request_rate);
    number_or_inf(&o, "burstiness", w->burstiness);
    if (sr->c.max_concurrency)
        jsonout_uint(&o, "max_concurrency", sr->c.max_concurrency);
    else
        jsonout_null(&o, "max_concurrency");
    jsonout_double(&o, "duration", r->duration);
    jsonout_uint(&o, "completed", r->completed);
    jsonout_uint(&o, "failed", 0);
    jsonout_uint(&o, "total_input_tokens", r->total_input);
    jsonout_uint(&o, "total_output_tokens", r->total_output);
    jsonout_double(&o, "request_throughput", r->request_throughput);
    jsonout_double_or_null(&o, "request_goodput", r->request_goodput, r->goodput);
    jsonout_double(&o, "output_throughput", r->output_throughput);
    jsonout_double(&o, "total_token_throughput", r->total_token_throughput);
    /* the price of every GPU an hour over this run's own throughput */
    double oc = simulate_output_cost(&sr->r, r), ic = simulate_input_cost(&sr->r, r);
    jsonout_double_or_null(&o, "price_usd_per_hour", sr->r.price_usd_per_hour,
                           sr->r.price_usd_per_hour >= 0);
    jsonout_double_or_null(&o, "cost_per_million_output_tokens", oc, oc >= 0);
    jsonout_double_or_null(&o, "cost_per_million_input_tokens", ic, ic >= 0);
    stats_json(&o, "ttft", &r->ttft, shown);
    stats_json(&o, "tpot", &r->tpot, shown);
    stats_json(&o, "itl", &r->itl, shown);
    stats_json(&o, "e2el", &r->e2el, shown);
    if (shown) /* the runs were below their knee: none over capacity */
        jsonout_object(&o, "measured_spread", spread_json(sr, shown));
    else
        jsonout_null(&o, "measured_spread");
    jsonout_double(&o, "request_overhead_seconds", sr->c.request_overhead_s);
    jsonout_double_or_null(&o, "goodput_share",
                           r->completed ? (double)r->good / (double)r->completed : 0, r->goodput);
    jsonout_double(&o, "mean_running", r->mean_running);
    jsonout_uint(&o, "max_running", r->max_running);
    jsonout_double(&o, "mean_waiting", r->mean_waiting);
    jsonout_uint(&o, "max_waiting", r->max_waiting);
    jsonout_double(&o, "peak_kv_usage", r->peak_kv_usage);
    jsonout_uint(&o, "preemptions", r->preemptions);
    jsonout_uint(&o, "steps", r->steps);
    jsonout_bool(&o, "over_capacity", r->over_capacity);
    jsonout_double(&o, "queue_growth_per_s", r->queue_growth_per_s);
    jsonout_double(&o, "system_growth_per_s", r->system_growth_per_s);
    jsonout_double(&o, "served_per_s", r->served_per_s);
    jsonout_uint(&o, "served_requests", r->measured);
    /* the run never filled: the requests of the continued stream that decided it */
    if (r->judged_requests)
        jsonout_uint(&o, "judged_requests", r->judged_requests);
    else
        jsonout_null(&o, "judged_requests");
    if (sr->compare_path)
        jsonout_object(&o, "compare", simulate_compare_json(sr));
    return jsonout_end(&o);
}

static cJSON *own_simulation(const void *sr)
{
    return simulate_simulation_json(sr);
}

bool simulate_print_json(FILE *out, const struct simulate_run *sr)
{
    return simulate_print_snapshot(out, sr, own_simulation, sr);
}

bool simulate_print_snapshot(FILE *out, const struct simulate_run *sr,
                             struct cJSON *(*simulation)(const void *ctx), const void *ctx)
{
    char *text = snapshot_to_json(&sr->s, &sr->r, &sr->x, KVPLAN_GENERATOR);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *result = root ? cJSON_GetObjectItemCaseSensitive(root, "result") : NULL;
    cJSON *sim = result ? simulation(ctx) : NULL;
    if (sim == NULL || !cJSON_AddItemToObject(result, "simulation", sim)) {
        cJSON_Delete(sim);
        cJSON_Delete(root);
        return false;
    }
    char *printed = jsonout_print(root);
    cJSON_Delete(root);
    if (printed == NULL)
        return false;
    fputs(printed, out);
    free(printed);
    return true;
}
