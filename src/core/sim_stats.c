/* The figures of a finished run, as vLLM's benchmark computes them
 * (vllm/benchmarks/serve.py calculate_metrics): TTFT and E2EL from when a
 * request was sent, TPOT (E2EL - TTFT) / (output - 1) over the requests of
 * more than one token, ITL every gap between two tokens of a request; means,
 * medians, population deviations and percentiles as numpy's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* numpy's _lerp: a + (b - a) t, from b's side past the middle. */
static double lerp(double a, double b, double t)
{
    double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

double sim_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    double h = (double)(n - 1) * (p / 100.0);
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return lerp(sorted[lo], sorted[lo + 1], h - (double)lo);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n values) and summarises it. */
struct sim_stats sim_summarise(double *v, size_t n)
{
    struct sim_stats st = {0};
    if (n == 0)
        return st;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    st.mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (v[i] - st.mean) * (v[i] - st.mean);
    st.std = sqrt(sq / (double)n);
    qsort(v, n, sizeof *v, cmp_double);
    st.median = sim_percentile(v, n, 50);
    st.p90 = sim_percentile(v, n, 90);
    st.p95 = sim_percentile(v, n, 95);
    st.p99 = sim_percentile(v, n, 99);
    return st;
}

static int cmp_itl(const void *a, const void *b)
{
    double x = ((const struct sim_itl *)a)->seconds, y = ((const struct sim_itl *)b)->seconds;
    return (x > y) - (x < y);
}

/* The value of rank k (0-based) of the sorted, counted values. */
static double itl_rank(const struct sim_itl *v, size_t n, uint64_t k, size_t *at, uint64_t *below)
{
    while (*at < n && *below + v[*at].count <= k) {
        *below += v[*at].count;
        (*at)++;
    }
    return *at < n ? v[*at].seconds : v[n - 1].seconds;
}

/* The percentile of the counted values as numpy's of them spelled out. */
static double itl_percentile(const struct sim_itl *v, size_t n, uint64_t total, double p)
{
    double h = (double)(total - 1) * (p / 100.0);
    uint64_t lo = (uint64_t)floor(h);
    size_t at = 0;
    uint64_t below = 0;
    double a = itl_rank(v, n, lo, &at, &below);
    if (lo + 1 >= total)
        return a;
    return lerp(a, itl_rank(v, n, lo + 1, &at, &below), h - (double)lo);
}

static struct sim_stats itl_stats(struct sim_itl *v, size_t n)
{
    struct sim_stats st = {0};
    uint64_t total = 0;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        total += v[i].count;
        sum += v[i].seconds * (double)v[i].count;
    }
    if (total == 0)
        return st;
    st.mean = sum / (double)total;
    for (size_t i = 0; i < n; i++)
        sq += (v[i].seconds - st.mean) * (v[i].seconds - st.mean) * (double)v[i].count;
    st.std = sqrt(sq / (double)total);
    qsort(v, n, sizeof *v, cmp_itl);
    st.median = itl_percentile(v, n, total, 50);
    st.p90 = itl_percentile(v, n, total, 90);
    st.p95 = itl_percentile(v, n, total, 95);
    st.p99 = itl_percentile(v, n, total, 99);
    return st;
}

/* Whether the server keeps up, judged on the second half of the sending
 * (a run's warm-up left out), in either of two ways:
 *  - the requests waiting at the server (sent, no first token yet) grew by
 *    at least 10 and by more than 5% of those sent meanwhile (those a
 *    --max-concurrency client holds back do not count: latencies count from
 *    the send, as vllm bench serve's do);
 *  - the requests in the system (running and waiting) grew so: those
 *    finished over the half fall short of those sent by 10, by 5% and by 3
 *    standard deviations of a Poisson count of them; judged only when the
 *    requests sent in the first half took less than half of it on average
 *    (the system filled before the half; a shorter run cannot tell a
 *    backlog among the running requests from its filling).
 * A burst at 0 has no rate to keep up with, and a client that caps the
 * requests in flight (--max-concurrency) no queue that can grow past it. */
static void capacity(const struct sim *m, struct sim_result *out)
{
    double end = 0;
    for (size_t i = 0; i < m->n; i++)
        end = m->rq[i].send > end ? m->rq[i].send : end;
    double half = end / 2, arrived = m->rq[m->n - 1].arrival;
    if (!(end > 0))
        return;
    out->sent_per_s = (double)m->n / end;
    out->offered_per_s = arrived > 0 ? (double)m->n / arrived : 0;
    uint64_t sent_half = 0, sent = 0, first_half = 0, first = 0, done_later = 0;
    double e2el_half = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct sim_rq *q = &m->rq[i];
        sent_half += q->send <= half;
        sent += q->send <= end;
        first_half += q->first <= half;
        first += q->first <= end;
        done_later += q->finish > half && q->finish <= end;
        e2el_half += q->send <= half ? q->finish - q->send : 0;
    }
    double growth = ((double)sent - (double)first) - ((double)sent_half - (double)first_half);
    double later = (double)(sent - sent_half), backlog = later - (double)done_later;
    bool filled = sent_half > 0 && 2 * e2el_half / (double)sent_half < half;
    bool queue = growth >= 10 && growth > 0.05 * later;
    bool system = filled && backlog >= 10 && backlog > 0.05 * later && backlog > 3 * sqrt(later);
    out->queue_growth_per_s = growth > 0 ? growth / (end - half) : 0;
    out->system_growth_per_s = backlog > 0 ? backlog / (end - half) : 0;
    out->served_per_s = (double)done_later / (end - half);
    out->measured = done_later;
    /* a --max-concurrency client keeps at most its cap at the server: what
     * waits there is bounded by it, and settles (vllm bench serve times a
     * request from its send; those the client holds back are not sent) */
    out->over_capacity = (queue || system) && m->c->max_concurrency == 0;
    /* the system grew as a backlog would but never filled: sim_run asks the
     * burst of the same requests what the deployment serves */
    out->unjudged = !filled && !out->over_capacity && m->c->max_concurrency == 0 &&
                  backlog >= 10 && backlog > 0.05 * later && backlog > 3 * sqrt(later);
    /* a pool that ran full and preempted, its stream sent, may be a backlog
     * too short to show: the continued stream says */
    if (!out->over_capacity && m->c->max_concurrency == 0 && m->preemptions > 0 &&
        m->peak_usage >= 0.99 && backlog > 0 && out->offered_per_s > 0)
        out->unjudged = true;
}

/* Goodput: the requests within every objective given (a TPOT of 0 for a
 * request of one token, as vLLM counts it). */
static void goodput(const struct sim *m, struct sim_result *out)
{
    const struct sim_config *c = m->c;
    out->goodput = c->slo_ttft >= 0 || c->slo_tpot >= 0 || c->slo_e2el >= 0;
    if (!out->goodput)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const struct sim_rq *q = &m->rq[i];
        double ttft = q->first - q->send + c->request_overhead_s;
        double e2el = q->finish - q->send + c->request_overhead_s;
        double tpot = q->output > 1 ? (e2el - ttft) / (double)(q->output - 1) : 0;
        out->good += (c->slo_ttft < 0 || ttft <= c->slo_ttft) &&
                     (c->slo_tpot < 0 || tpot <= c->slo_tpot) &&
                     (c->slo_e2el < 0 || e2el <= c->slo_e2el);
    }
    out->request_goodput = out->duration > 0 ? (double)out->good / out->duration : 0;
}

/* The per-request latencies, summarised; false when out of memory. */
static bool latencies(const struct sim *m, struct sim_result *out)
{
    double *v = malloc((m->n ? m->n : 1) * sizeof *v);
    if (v == NULL)
        return false;
    double fixed = m->c->request_overhead_s;
    for (size_t i = 0; i < m->n; i++)
        v[i] = m->rq[i].first - m->rq[i].send + fixed;
    out->ttft = sim_summarise(v, m->n);
    for (size_t i = 0; i < m->n; i++)
        v[i] = m->rq[i].finish - m->rq[i].send + fixed;
    out->e2el = sim_summarise(v, m->n);
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct sim_rq *q = &m->rq[i];
        if (q->output > 1)
            v[k++] = ((q->finish - q->send) - (q->first - q->send)) / (double)(q->output - 1);
    }
    out->tpot = sim_summarise(v, k);
    free(v);
    return true;
}

void sim_figures(const struct sim *m, struct sim_result *out)
{
    out->completed = m->done;
    out->steps = m->steps;
    out->preemptions = m->preemptions;
    double end = 0;
    for (size_t i = 0; i < m->n; i++) {
        out->total_input += m->rq[i].prompt;
        out->total_output += m->rq[i].produced;
        if (m->rq[i].finish > end)
            end = m->rq[i].finish;
    }
    out->duration = end;
    if (end > 0) {
        out->request_throughput = (double)out->completed / end;
        out->output_throughput = (double)out->total_output / end;
        out->total_token_throughput = (double)(out->total_input + out->total_output) / end;
        out->mean_running = m->area_run / end;
        out->mean_waiting = m->area_wait / end;
    }
    out->max_running = m->max_run;
    out->max_waiting = m->max_wait;
    out->peak_kv_usage = m->peak_usage;
    goodput(m, out);
    if (m->n)
        capacity(m, out);
    if (!latencies(m, out))
        out->status = SIM_NO_MEMORY;
    out->itl = itl_stats(m->itl, m->nitl);
}
