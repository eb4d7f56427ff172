/* simulate --disaggregated's two formats: a table of the disaggregated run
 * beside the aggregated deployment of the same GPUs, then each pool's
 * figures and the link's; and the decode pool's plan snapshot whose
 * result.simulation has vllm bench serve's keys of the whole deployment,
 * with prefill_pool, decode_pool, kv_transfer and aggregated (its own run
 * under the same keys) beside them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli/simulate_disagg.h"
#include "core/engine_desc.h"
#include "core/price.h"
#include "core/units.h"
#include "io/jsonout.h"

const char *disagg_ratio(double a, double b, char *buf, size_t size)
{
    if (!(a > 0) || !isfinite(b / a))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, "%.2fx", b / a);
    return buf;
}

/* "xPyD": prefill instances, decode instances (NVIDIA Dynamo's words). */
static void xpyd(const struct disagg_run *dr, char *buf, size_t size)
{
    snprintf(buf, size, "%uP%uD", dr->c.prefill.replicas, dr->c.decode.replicas);
}

static void head(FILE *out, const struct disagg_run *dr)
{
    const struct scenario *p = &dr->pre.s, *d = &dr->dec.s;
    const struct workload_params *w = &dr->dec.w;
    char a[32], ctx[32], name[16], bw[48];
    xpyd(dr, name, sizeof name);
    char engine[64]; /* the release, as plan's title ends: "vLLM 0.15" */
    engine_version_title(d->engine.kind, d->engine.rule, engine, sizeof engine);
    fprintf(out, "Simulated %s, disaggregated %s: %s, context %s, %s\n",
            engine_desc(d->engine.kind)->sched.title, name, d->model.name,
            units_format_tokens_short(d->context_tokens, ctx, sizeof ctx), engine);
    fprintf(out, "Prefill     %u x %s, %u instance%s of TP %u\n", p->gpus, p->gpu.name,
            dr->c.prefill.replicas, dr->c.prefill.replicas == 1 ? "" : "s", p->tp);
    fprintf(out, "Decode      %u x %s, %u instance%s of TP %u\n", d->gpus, d->gpu.name,
            dr->c.decode.replicas, dr->c.decode.replicas == 1 ? "" : "s", d->tp);
    if (isinf(dr->c.link_bytes_per_s))
        snprintf(bw, sizeof bw, "at once");
    else
        snprintf(bw, sizeof bw, "%g GB/s a GPU", dr->c.link_bytes_per_s / 1e9);
    fprintf(out, "KV link     %s, %s after %g ms; %s a token on the busier end\n",
            sim_link_title(dr->pools.link), bw, dr->c.link_latency * 1e3,
            units_format_bytes(dr->c.kv_bytes_per_token, d->units, a, sizeof a));
    simulate_workload_lengths(out, &dr->dec);
    if (dr->dec.trace_arrivals)
        fprintf(out, ", at the trace's arrival times\n");
    else if (isinf(w->request_rate))
        fprintf(out, ", all at once, seed %llu\n", (unsigned long long)w->seed);
    else
        fprintf(out, ", %g req/s, seed %llu\n", w->request_rate, (unsigned long long)w->seed);
    if (dr->agg_ok)
        fprintf(out, "Aggregated  %u x %s, %u replica%s of TP %u, the same requests\n",
                dr->agg.s.gpus, dr->agg.s.gpu.name, dr->agg.c.replicas,
                dr->agg.c.replicas == 1 ? "" : "s", dr->agg.s.tp);
    else
        fprintf(out, "Aggregated  not run: %s\n", dr->agg_why);
    fputc('\n', out);
}

/* One latency's mean, p50, p95 and p99 (ms), "over" past capacity. */
static void cells(FILE *out, const struct sim_stats *st, bool over)
{
    if (over) {
        fprintf(out, " %8s %8s %8s %8s", "over", "", "", "");
        return;
    }
    fprintf(out, " %8.2f %8.2f %8.2f %8.2f", st->mean * 1e3, st->median * 1e3, st->p95 * 1e3,
            st->p99 * 1e3);
}

static void latency_rows(FILE *out, const struct disagg_run *dr)
{
    const struct sim_result *x = &dr->out.all, *y = &dr->agg.out;
    const char *names[4] = {"TTFT", "TPOT", "ITL", "E2EL"};
    const struct sim_stats *sx[4] = {&x->ttft, &x->tpot, &x->itl, &x->e2el};
    const struct sim_stats *sy[4] = {&y->ttft, &y->tpot, &y->itl, &y->e2el};
    fprintf(out, "%-8s %-35s  %s\n", "", "disaggregated", dr->agg_ok ? "aggregated" : "");
    fprintf(out, "%-8s %8s %8s %8s %8s", "(ms)", "mean", "p50", "p95", "p99");
    if (dr->agg_ok)
        fprintf(out, "  %8s %8s %8s %8s", "mean", "p50", "p95", "p99");
    fputc('\n', out);
    for (int i = 0; i < 4; i++) {
        fprintf(out, "%-8s", names[i]);
        cells(out, sx[i], x->over_capacity);
        if (dr->agg_ok) {
            fputc(' ', out);
            cells(out, sy[i], y->over_capacity);
        }
        fputc('\n', out);
    }
}

static void throughput_row(FILE *out, const char *name, double x, double y, bool agg)
{
    fprintf(out, "%-19s %14.2f", name, x);
    if (agg)
        fprintf(out, " %14.2f", y);
    fputc('\n', out);
}

static void throughputs(FILE *out, const struct disagg_run *dr)
{
    const struct sim_result *x = &dr->out.all, *y = &dr->agg.out;
    fprintf(out, "\n%-19s %14s", "", "disaggregated");
    if (dr->agg_ok)
        fprintf(out, " %14s", "aggregated");
    fputc('\n', out);
    throughput_row(out, "req/s", x->request_throughput, y->request_throughput, dr->agg_ok);
    throughput_row(out, "output tok/s", x->output_throughput, y->output_throughput, dr->agg_ok);
    if (x->goodput)
        throughput_row(out, "goodput req/s", x->request_goodput, y->request_goodput, dr->agg_ok);
    fprintf(out, "%-19s %14llu", "preemptions", (unsigned long long)x->preemptions);
    if (dr->agg_ok)
        fprintf(out, " %14llu", (unsigned long long)y->preemptions);
    fputc('\n', out);
    if (x->over_capacity || (dr->agg_ok && y->over_capacity))
        fprintf(out, "over capacity: %s%s%s (a queue grows; its latencies never settle)\n",
                x->over_capacity ? "disaggregated" : "",
                x->over_capacity && dr->agg_ok && y->over_capacity ? " and " : "",
                dr->agg_ok && y->over_capacity ? "aggregated" : "");
}

static void pool_line(FILE *out, const char *name, const struct sim_pool_figures *p)
{
    char a[32], b[32];
    fprintf(out, "%-11s busy %.1f%%, running mean %.1f max %llu, waiting mean %.1f max %llu, "
            "KV peak %.1f%%, %s preemption%s, %s steps\n", name, p->utilisation * 100,
            p->mean_running, (unsigned long long)p->max_running, p->mean_waiting,
            (unsigned long long)p->max_waiting, p->peak_kv_usage * 100,
            units_format_int(p->preemptions, a, sizeof a), p->preemptions == 1 ? "" : "s",
            units_format_int(p->steps, b, sizeof b));
}

static void versus(FILE *out, const struct disagg_run *dr)
{
    const struct sim_result *x = &dr->out.all, *y = &dr->agg.out;
    char a[16], b[16], c[16], name[16];
    if (!dr->agg_ok || x->over_capacity || y->over_capacity)
        return;
    xpyd(dr, name, sizeof name);
    fprintf(out, "Versus      %s against aggregated: p95 TTFT %s, p95 TPOT %s, output tok/s %s\n",
            name, disagg_ratio(y->ttft.p95, x->ttft.p95, a, sizeof a),
            disagg_ratio(y->tpot.p95, x->tpot.p95, b, sizeof b),
            disagg_ratio(y->output_throughput, x->output_throughput, c, sizeof c));
}

/* Both pools' GPUs an hour (-1: a price unknown), and the deployment's
 * costs a million tokens at its own throughput over them. */
static double both_pools_price(const struct disagg_run *dr)
{
    double a = dr->pre.r.price_usd_per_hour, b = dr->dec.r.price_usd_per_hour;
    return a >= 0 && b >= 0 ? a + b : -1;
}

static void price_json(cJSON *sim, const char *key, double v)
{
    cJSON *n = v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    if (n && !cJSON_ReplaceItemInObjectCaseSensitive(sim, key, n))
        cJSON_Delete(n);
}

bool simulate_disagg_text(FILE *out, const struct disagg_run *dr)
{
    char a[32];
    head(out, dr);
    latency_rows(out, dr);
    throughputs(out, dr);
    fputc('\n', out);
    pool_line(out, "Prefill", &dr->out.prefill);
    pool_line(out, "Decode", &dr->out.decode);
    uint64_t moved = dr->out.bytes_moved < 1.8e19 ? (uint64_t)dr->out.bytes_moved : UINT64_MAX;
    fprintf(out, "KV moved    %s, a request's in %.3f ms on average, p95 %.3f ms\n",
            units_format_bytes(moved, dr->dec.s.units, a, sizeof a),
            dr->out.transfer.mean * 1e3, dr->out.transfer.p95 * 1e3);
    double price = both_pools_price(dr);
    double oc = price_per_million_tokens(price, dr->dec.out.output_throughput);
    double ac = dr->agg_ok ? price_per_million_tokens(dr->agg.r.price_usd_per_hour,
                                                      dr->agg.out.output_throughput)
                           : -1;
    if (oc >= 0) { /* both pools' GPUs over the run's own throughput */
        fprintf(out, "Cost        $%.2f an hour (prefill $%.2f + decode $%.2f), $%.4f per 1M "
                "output tokens at this run's throughput", price, dr->pre.r.price_usd_per_hour,
                dr->dec.r.price_usd_per_hour, oc);
        if (ac >= 0)
            fprintf(out, "; aggregated $%.2f an hour, $%.4f", dr->agg.r.price_usd_per_hour, ac);
        fputc('\n', out);
    }
    versus(out, dr);
    return true;
}

static cJSON *pool_json(const struct simulate_run *sr, const struct sim_pool_figures *p)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "gpu", sr->s.gpu.id);
    jsonout_uint(&o, "gpus", sr->s.gpus);
    jsonout_uint(&o, "tp", sr->s.tp);
    jsonout_uint(&o, "replicas", p->replicas);
    jsonout_uint(&o, "kv_blocks_per_replica", sr->c.blocks);
    jsonout_double(&o, "utilisation", p->utilisation);
    jsonout_double(&o, "mean_running", p->mean_running);
    jsonout_uint(&o, "max_running", p->max_running);
    jsonout_double(&o, "mean_waiting", p->mean_waiting);
    jsonout_uint(&o, "max_waiting", p->max_waiting);
    jsonout_double(&o, "peak_kv_usage", p->peak_kv_usage);
    jsonout_uint(&o, "preemptions", p->preemptions);
    jsonout_uint(&o, "steps", p->steps);
    jsonout_double(&o, "mean_time_in_pool_ms", p->mean_sojourn * 1e3);
    return jsonout_end(&o);
}

static cJSON *transfer_json(const struct disagg_run *dr)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "kv_link", sim_link_name(dr->pools.link));
    jsonout_double_or_null(&o, "kv_transfer_bandwidth_gb_s", dr->c.link_bytes_per_s / 1e9,
                           isfinite(dr->c.link_bytes_per_s));
    jsonout_double(&o, "kv_transfer_latency_ms", dr->c.link_latency * 1e3);
    jsonout_uint(&o, "kv_bytes_per_token", dr->c.kv_bytes_per_token);
    jsonout_double(&o, "mean_transfer_ms", dr->out.transfer.mean * 1e3);
    jsonout_double(&o, "p95_transfer_ms", dr->out.transfer.p95 * 1e3);
    jsonout_double(&o, "bytes_moved", dr->out.bytes_moved);
    return jsonout_end(&o);
}

static cJSON *aggregated_json(const struct disagg_run *dr)
{
    if (!dr->agg_ok) {
        struct jsonout o = jsonout_begin();
        jsonout_string(&o, "not_run", dr->agg_why);
        return jsonout_end(&o);
    }
    cJSON *a = simulate_simulation_json(&dr->agg);
    if (a == NULL)
        return NULL;
    cJSON_AddStringToObject(a, "gpu", dr->agg.s.gpu.id);
    cJSON_AddNumberToObject(a, "gpus", dr->agg.s.gpus);
    cJSON_AddNumberToObject(a, "tp", dr->agg.s.tp);
    return a;
}

/* The deployment's keys, the pools', the link's and the aggregated run's. */
static cJSON *disagg_json(const void *ctx)
{
    const struct disagg_run *dr = ctx;
    cJSON *sim = simulate_simulation_json(&dr->dec);
    if (sim) { /* the deployment's price is both pools', not the decode pool's alone */
        const struct sim_result *o = &dr->dec.out;
        double price = both_pools_price(dr);
        double in = o->duration > 0 ? (double)o->total_input / o->duration : 0;
        price_json(sim, "price_usd_per_hour", price);
        price_json(sim, "cost_per_million_output_tokens",
                   price_per_million_tokens(price, o->output_throughput));
        price_json(sim, "cost_per_million_input_tokens", price_per_million_tokens(price, in));
    }
    char name[16];
    xpyd(dr, name, sizeof name);
    if (sim == NULL || !cJSON_AddStringToObject(sim, "disaggregated", name) ||
        !cJSON_AddItemToObject(sim, "prefill_pool", pool_json(&dr->pre, &dr->out.prefill)) ||
        !cJSON_AddItemToObject(sim, "decode_pool", pool_json(&dr->dec, &dr->out.decode)) ||
        !cJSON_AddItemToObject(sim, "kv_transfer", transfer_json(dr)) ||
        !cJSON_AddItemToObject(sim, "aggregated", aggregated_json(dr))) {
        cJSON_Delete(sim);
        return NULL;
    }
    return sim;
}

bool simulate_disagg_json(FILE *out, const struct disagg_run *dr)
{
    return simulate_print_snapshot(out, &dr->dec, disagg_json, dr);
}
