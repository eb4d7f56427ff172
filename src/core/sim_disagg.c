#include "sim_disagg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* A pool's run as the callbacks see it: its steps' seconds, and each
 * request's first and last token (index map[v] of the caller's requests,
 * v itself when map is NULL); the pool's own callbacks (c) after, with the
 * caller's index. */
struct pool_view {
    double busy;
    double *first, *last;
    const size_t *map;
    const struct sim_config *c;
};

static void on_step(void *ctx, uint32_t replica, double start, double seconds,
                    const struct step_seq *seqs, size_t n)
{
    struct pool_view *p = ctx;
    p->busy += seconds;
    if (p->c->on_step)
        p->c->on_step(p->c->ctx, replica, start, seconds, seqs, n);
}

static void on_token(void *ctx, size_t request, uint64_t index, double t)
{
    struct pool_view *p = ctx;
    size_t i = p->map ? p->map[request] : request;
    if (index == 0)
        p->first[i] = t;
    p->last[i] = t;
    if (p->c->on_token)
        p->c->on_token(p->c->ctx, i, index, t);
}

uint64_t sim_disagg_moved_tokens(const struct sim_disagg_config *c, uint64_t prompt)
{
    uint64_t shared;
    return prompt - sim_prefix_hit(&c->decode, prompt, &shared);
}

double sim_disagg_transfer_seconds(const struct sim_disagg_config *c, uint64_t prompt)
{
    double bytes = (double)sim_disagg_moved_tokens(c, prompt) * (double)c->kv_bytes_per_token;
    return c->link_latency + (isinf(c->link_bytes_per_s) ? 0 : bytes / c->link_bytes_per_s);
}

/* A request's arrival at the decode pool, for the sort. */
struct arrival {
    double t;
    size_t i;
};

/* Working memory: n of each. */
struct disagg_mem {
    double *hold, *prefill_end, *first, *last, *arrive;
    size_t *order;
    struct arrival *sorted;
    struct workload_request *reqs;
};

static void mem_free(struct disagg_mem *w)
{
    free(w->hold);
    free(w->prefill_end);
    free(w->first);
    free(w->last);
    free(w->arrive);
    free(w->order);
    free(w->sorted);
    free(w->reqs);
}

static bool mem_alloc(struct disagg_mem *w, size_t n)
{
    size_t k = n ? n : 1;
    memset(w, 0, sizeof *w);
    w->hold = malloc(k * sizeof *w->hold);
    w->prefill_end = malloc(k * sizeof *w->prefill_end);
    w->first = malloc(k * sizeof *w->first);
    w->last = malloc(k * sizeof *w->last);
    w->arrive = malloc(k * sizeof *w->arrive);
    w->order = malloc(k * sizeof *w->order);
    w->sorted = malloc(k * sizeof *w->sorted);
    w->reqs = malloc(k * sizeof *w->reqs);
    return w->hold && w->prefill_end && w->first && w->last && w->arrive && w->order &&
           w->sorted && w->reqs;
}

/* A pool's run of the n requests q: config pc with the view's callbacks,
 * no client cap and no objective; its figures into *p, a request's time in
 * the pool from arrive[i] to its last token there. */
static enum sim_status run_pool(struct sim_config pc, struct pool_view *v,
                                const struct workload_request *q, size_t n,
                                const double *arrive, struct sim_result *r,
                                struct sim_pool_figures *p)
{
    pc.max_concurrency = 0;
    pc.slo_ttft = pc.slo_tpot = pc.slo_e2el = -1;
    pc.on_step = on_step;
    pc.on_token = on_token;
    pc.ctx = v;
    enum sim_status st = sim_run(&pc, q, n, r);
    if (st != SIM_OK)
        return st;
    double sojourn = 0;
    for (size_t i = 0; i < n; i++)
        sojourn += v->last[i] - arrive[i];
    *p = (struct sim_pool_figures){
        .replicas = pc.replicas, .steps = r->steps, .preemptions = r->preemptions,
        .busy = v->busy, .mean_running = r->mean_running, .mean_waiting = r->mean_waiting,
        .max_running = r->max_running, .max_waiting = r->max_waiting,
        .peak_kv_usage = r->peak_kv_usage, .duration = r->duration,
        .mean_sojourn = n ? sojourn / (double)n : 0, .over_capacity = r->over_capacity,
        .served_per_s = r->served_per_s};
    return SIM_OK;
}

/* The prefill pool: every prompt to its first token (into w->prefill_end),
 * its blocks held for its transfer. */
static enum sim_status run_prefill(const struct sim_disagg_config *c,
                                   const struct workload_request *reqs, size_t n,
                                   struct disagg_mem *w, struct sim_disagg_result *out)
{
    struct sim_config pc = c->prefill;
    struct pool_view v = {.first = w->first, .last = w->prefill_end, .c = &c->prefill};
    for (size_t i = 0; i < n; i++) {
        w->reqs[i] = (struct workload_request){reqs[i].arrival, reqs[i].prompt, 1};
        w->hold[i] = sim_disagg_transfer_seconds(c, reqs[i].prompt);
        w->arrive[i] = reqs[i].arrival;
    }
    pc.kv_hold = w->hold;
    pc.kv_arrives = false;
    /* the client's figures (sent, offered) are the prefill pool's */
    return run_pool(pc, &v, w->reqs, n, w->arrive, &out->all, &out->prefill);
}

static int by_arrival(const void *a, const void *b)
{
    const struct arrival *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* The decode pool: each request when its KV has arrived, in that order. */
static enum sim_status run_decode(const struct sim_disagg_config *c,
                                  const struct workload_request *reqs, size_t n,
                                  struct disagg_mem *w, struct sim_result *r,
                                  struct sim_disagg_result *out)
{
    for (size_t i = 0; i < n; i++) {
        w->arrive[i] = w->prefill_end[i] + w->hold[i];
        w->sorted[i] = (struct arrival){w->arrive[i], i};
    }
    qsort(w->sorted, n, sizeof *w->sorted, by_arrival);
    for (size_t k = 0; k < n; k++) {
        size_t i = w->order[k] = w->sorted[k].i;
        w->reqs[k] = (struct workload_request){w->arrive[i], reqs[i].prompt, reqs[i].output};
    }
    struct sim_config dc = c->decode;
    struct pool_view v = {.first = w->first, .last = w->last, .map = w->order, .c = &c->decode};
    dc.kv_hold = NULL;
    dc.kv_arrives = true;
    return run_pool(dc, &v, w->reqs, n, w->arrive, r, &out->decode);
}

/* TTFT, E2EL and TPOT from each request's arrival (the client sends it
 * then), goodput by them; the transfer's seconds. The time outside the
 * steps (the engine's request_overhead_s) is the answering server's, the
 * decode pool's, counted once as the aggregated run counts it. */
static bool latencies(const struct sim_disagg_config *c, const struct workload_request *reqs,
                      size_t n, struct disagg_mem *w, struct sim_result *all)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return false;
    all->goodput = c->slo_ttft >= 0 || c->slo_tpot >= 0 || c->slo_e2el >= 0;
    all->good = 0;
    double fixed = c->decode.request_overhead_s;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double ttft = w->first[i] - reqs[i].arrival + fixed;
        double e2el = w->last[i] - reqs[i].arrival + fixed;
        double tpot = reqs[i].output > 1 ? (e2el - ttft) / (double)(reqs[i].output - 1) : 0;
        if (reqs[i].output > 1)
            v[k++] = tpot;
        all->good += all->goodput && (c->slo_ttft < 0 || ttft <= c->slo_ttft) &&
                     (c->slo_tpot < 0 || tpot <= c->slo_tpot) &&
                     (c->slo_e2el < 0 || e2el <= c->slo_e2el);
    }
    all->tpot = sim_summarise(v, k);
    for (size_t i = 0; i < n; i++)
        v[i] = w->first[i] - reqs[i].arrival + fixed;
    all->ttft = sim_summarise(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = w->last[i] - reqs[i].arrival + fixed;
    all->e2el = sim_summarise(v, n);
    free(v);
    return true;
}

/* The deployment's figures: the decode pool's tokens and ITL, the prefill
 * pool's client, both pools' steps and queues. */
static void combine(const struct sim_disagg_config *c, const struct sim_result *d,
                    struct sim_disagg_result *out)
{
    struct sim_result *a = &out->all, p = out->all;
    const struct sim_pool_figures *pp = &out->prefill, *dp = &out->decode;
    *a = *d;
    a->steps = p.steps + d->steps;
    a->preemptions = p.preemptions + d->preemptions;
    double end = d->duration;
    a->mean_running = end > 0 ? (pp->mean_running * pp->duration + dp->mean_running * end) / end
                              : 0;
    a->mean_waiting = end > 0 ? (pp->mean_waiting * pp->duration + dp->mean_waiting * end) / end
                              : 0;
    a->max_running = p.max_running > d->max_running ? p.max_running : d->max_running;
    a->max_waiting = p.max_waiting > d->max_waiting ? p.max_waiting : d->max_waiting;
    a->peak_kv_usage = fmax(p.peak_kv_usage, d->peak_kv_usage);
    a->over_capacity = p.over_capacity || d->over_capacity;
    a->queue_growth_per_s = p.queue_growth_per_s + d->queue_growth_per_s;
    a->system_growth_per_s = p.system_growth_per_s + d->system_growth_per_s;
    a->offered_per_s = p.offered_per_s;
    a->sent_per_s = p.sent_per_s;
    a->request_goodput = end > 0 ? (double)a->good / end : 0;
    out->prefill.utilisation =
        end > 0 ? pp->busy / ((double)c->prefill.replicas * end) : 0;
    out->decode.utilisation = end > 0 ? dp->busy / ((double)c->decode.replicas * end) : 0;
}

enum sim_status sim_disagg_run(const struct sim_disagg_config *c,
                               const struct workload_request *reqs, size_t n,
                               struct sim_disagg_result *out)
{
    struct disagg_mem w;
    struct sim_result d;
    memset(out, 0, sizeof *out);
    if (!mem_alloc(&w, n)) {
        mem_free(&w);
        return out->all.status = SIM_NO_MEMORY;
    }
    enum sim_status st = run_prefill(c, reqs, n, &w, out);
    if (st == SIM_OK)
        st = run_decode(c, reqs, n, &w, &d, out);
    if (st == SIM_OK && !latencies(c, reqs, n, &w, &d))
        st = SIM_NO_MEMORY;
    if (st == SIM_OK) {
        combine(c, &d, out);
        for (size_t i = 0; i < n; i++)
            out->bytes_moved += (double)sim_disagg_moved_tokens(c, reqs[i].prompt) *
                                (double)c->decode_bytes_per_token * (double)c->decode_gpus;
        out->transfer = sim_summarise(w.hold, n);
    }
    mem_free(&w);
    out->all.status = st;
    return st;
}

void sim_disagg_config_of_plans(const struct scenario *sp, const struct plan_result *rp,
                                const struct scenario *sd, const struct plan_result *rd,
                                double bytes_per_s, double latency, struct sim_disagg_config *c)
{
    memset(c, 0, sizeof *c);
    sim_config_of_plan(sp, rp, &c->prefill);
    sim_config_of_plan(sd, rd, &c->decode);
    uint64_t p = rp->cost.bytes_per_token, d = rd->cost.bytes_per_token;
    c->kv_bytes_per_token = p > d ? p : d;
    c->decode_bytes_per_token = d;
    c->decode_gpus = rd->placement.tp * (rd->placement.pp ? rd->placement.pp : 1);
    c->link_bytes_per_s = bytes_per_s;
    c->link_latency = latency;
    c->slo_ttft = c->slo_tpot = c->slo_e2el = -1;
}

/* 400 Gb/s a GPU: DGX H100's and B200's ConnectX-7 compute NICs, one a
 * GPU, InfiniBand NDR or 400 GbE for RoCE; bytes a second, each way. */
#define NIC_400G_BYTES_PER_S 50e9

static const struct {
    const char *name, *title;
    double latency; /* seconds */
} links[SIM_LINK_COUNT] = {
    [SIM_LINK_NVLINK] = {"nvlink", "NVLink", 5e-6},
    [SIM_LINK_IB] = {"ib", "InfiniBand", 10e-6},
    [SIM_LINK_ROCE] = {"roce", "RoCE", 20e-6},
};

void sim_link_figures(enum sim_link k, const struct gpu_spec *a, const struct gpu_spec *b,
                      double *bytes_per_s, double *latency)
{
    *latency = links[k < SIM_LINK_COUNT ? k : SIM_LINK_IB].latency;
    if (k != SIM_LINK_NVLINK) {
        *bytes_per_s = NIC_400G_BYTES_PER_S;
        return;
    }
    uint64_t x = a->link_bytes_per_s, y = b->link_bytes_per_s;
    *bytes_per_s = (double)(x < y ? x : y);
}

const char *sim_link_name(enum sim_link k)
{
    return k < SIM_LINK_COUNT ? links[k].name : "?";
}

const char *sim_link_title(enum sim_link k)
{
    return k < SIM_LINK_COUNT ? links[k].title : "?";
}

enum sim_link sim_link_parse(const char *word)
{
    for (int k = 0; k < SIM_LINK_COUNT; k++)
        if (strcmp(word, links[k].name) == 0)
            return (enum sim_link)k;
    return SIM_LINK_COUNT;
}
