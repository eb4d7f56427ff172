#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Room for `need` elements of `size` bytes in *p (doubling); false when
 * out of memory. */
static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (q == NULL)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static bool deque_reserve(struct sim_deque *d, size_t need)
{
    if (need <= d->cap)
        return true;
    size_t n = d->cap ? 2 * d->cap : 16;
    while (n < need)
        n *= 2;
    size_t *v = malloc(n * sizeof *v);
    if (v == NULL)
        return false;
    for (size_t i = 0; i < d->len; i++)
        v[i] = d->v[(d->head + i) % d->cap];
    free(d->v);
    d->v = v;
    d->cap = n;
    d->head = 0;
    return true;
}

static size_t deque_front(const struct sim_deque *d)
{
    return d->v[d->head];
}

static void deque_pop_front(struct sim_deque *d)
{
    d->head = (d->head + 1) % d->cap;
    d->len--;
}

static bool deque_push_back(struct sim_deque *d, size_t x)
{
    if (!deque_reserve(d, d->len + 1))
        return false;
    d->v[(d->head + d->len) % d->cap] = x;
    d->len++;
    return true;
}

static bool deque_push_front(struct sim_deque *d, size_t x)
{
    if (!deque_reserve(d, d->len + 1))
        return false;
    d->head = (d->head + d->cap - 1) % d->cap;
    d->v[d->head] = x;
    d->len++;
    return true;
}

uint64_t sim_request_blocks(const struct sim_config *c, uint64_t tokens)
{
    uint64_t b = c->block_tokens ? c->block_tokens : 1;
    uint64_t prefix = c->prefix_tokens / b, all = (tokens + b - 1) / b;
    return all > prefix ? all - prefix : 0;
}

/* The counts change at t: what they held until then is added up first. */
static void advance(struct sim *m, double t)
{
    double dt = t - m->last_t;
    if (dt > 0) {
        m->area_wait += (double)m->nwait * dt;
        m->area_run += (double)m->nrun * dt;
        m->last_t = t;
    }
}

static void peaks(struct sim *m)
{
    if (m->nwait > m->max_wait)
        m->max_wait = m->nwait;
    if (m->nrun > m->max_run)
        m->max_run = m->nrun;
}

/* The prefix cache's hit for a request of `tokens`: whole blocks of the
 * shared prefix, at most tokens - 1 (get_computed_blocks: the last token is
 * always computed, for its logits). */
static uint64_t prefix_hit(const struct sim_config *c, uint64_t tokens, uint64_t *blocks)
{
    uint64_t b = c->block_tokens;
    uint64_t whole = c->prefix_tokens / b, most = (tokens - 1) / b;
    *blocks = whole < most ? whole : most;
    return *blocks * b;
}

/* Request q joins r's step with `tokens` new tokens. */
static bool sched_add(struct sim *m, struct sim_replica *r, size_t q, uint64_t tokens)
{
    if (!grow((void **)&r->sched, &r->capsched, r->nsched + 1, sizeof *r->sched)) {
        m->status = SIM_NO_MEMORY;
        return false;
    }
    r->sched[r->nsched++] = (struct sim_sched){q, tokens};
    return true;
}

/* _preempt_request: the newest running request back to the front of the
 * waiting queue, its blocks freed and its computed tokens forgotten. */
static size_t preempt_newest(struct sim *m, struct sim_replica *r)
{
    size_t v = r->running[--r->nrun];
    struct sim_rq *q = &m->rq[v];
    r->free += q->blocks;
    q->blocks = 0;
    q->computed = 0;
    q->state = RQ_WAITING;
    if (!deque_push_front(&r->waiting, v))
        m->status = SIM_NO_MEMORY;
    m->nrun--;
    m->nwait++;
    m->preemptions++;
    return v;
}

/* The running requests, in order (schedule()'s first loop); true when one
 * was preempted. */
static bool schedule_running(struct sim *m, struct sim_replica *r, uint64_t *budget)
{
    const struct sim_config *c = m->c;
    bool preempted = false;
    for (size_t i = 0; i < r->nrun && *budget > 0 && m->status == SIM_OK; i++) {
        size_t v = r->running[i];
        struct sim_rq *q = &m->rq[v];
        uint64_t want = q->prompt + q->produced - q->computed;
        if (want > *budget)
            want = *budget;
        if (want > c->max_model_len - 1 - q->computed)
            want = c->max_model_len - 1 - q->computed;
        if (want == 0)
            continue;
        uint64_t held = q->blocks + q->shared;
        uint64_t all = (q->computed + want + c->block_tokens - 1) / c->block_tokens;
        uint64_t need = all > held ? all - held : 0;
        bool self = false;
        while (need > r->free && !self) {
            self = preempt_newest(m, r) == v;
            preempted = true;
        }
        if (self)
            break;
        r->free -= need;
        q->blocks += need;
        if (!sched_add(m, r, v, want))
            break;
        *budget -= want;
    }
    return preempted;
}

/* The waiting requests, in order, while the budget, max_num_seqs and the
 * pool allow (schedule()'s second loop). */
static void schedule_waiting(struct sim *m, struct sim_replica *r, uint64_t *budget)
{
    const struct sim_config *c = m->c;
    while (r->waiting.len > 0 && *budget > 0 && r->nrun < c->max_num_seqs &&
           m->status == SIM_OK) {
        size_t v = deque_front(&r->waiting);
        struct sim_rq *q = &m->rq[v];
        uint64_t tokens = q->prompt + q->produced, shared;
        uint64_t start = prefix_hit(c, tokens, &shared);
        uint64_t want = tokens - start;
        if (want > *budget)
            want = *budget;
        uint64_t all = (start + want + c->block_tokens - 1) / c->block_tokens;
        uint64_t need = all - shared;
        if (need > r->free)
            break;
        if (!grow((void **)&r->running, &r->caprun, r->nrun + 1, sizeof *r->running)) {
            m->status = SIM_NO_MEMORY;
            break;
        }
        deque_pop_front(&r->waiting);
        r->running[r->nrun++] = v;
        q->state = RQ_RUNNING;
        q->computed = start;
        q->shared = shared;
        q->blocks = need;
        r->free -= need;
        m->nwait--;
        m->nrun++;
        if (!sched_add(m, r, v, want))
            break;
        *budget -= want;
    }
}

/* One step of replica ri from t: schedule it and time it; idle when there
 * is nothing to run. */
static void step_begin(struct sim *m, uint32_t ri, double t)
{
    const struct sim_config *c = m->c;
    struct sim_replica *r = &m->rep[ri];
    uint64_t budget = c->max_num_batched_tokens;
    advance(m, t);
    r->nsched = 0;
    r->busy = false;
    if (!schedule_running(m, r, &budget))
        schedule_waiting(m, r, &budget);
    peaks(m);
    if (r->nsched == 0 || m->status != SIM_OK)
        return;
    if (!grow((void **)&m->seqs, &m->capseqs, r->nsched, sizeof *m->seqs)) {
        m->status = SIM_NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < r->nsched; i++)
        m->seqs[i] = (struct step_seq){m->rq[r->sched[i].q].computed, r->sched[i].tokens};
    double dt = step_time(&c->model, &c->machine, m->seqs, r->nsched, NULL);
    if (!(dt > 0)) {
        m->status = SIM_STALLED;
        return;
    }
    double used = (double)(c->blocks - r->free) / (double)c->blocks;
    if (used > m->peak_usage)
        m->peak_usage = used;
    r->busy = true;
    r->start = t;
    r->end = t + dt;
    m->steps++;
    if (c->on_step)
        c->on_step(c->ctx, ri, t, dt, m->seqs, r->nsched);
}

static void itl_add(struct sim *m, double seconds, uint64_t count)
{
    if (!grow((void **)&m->itl, &m->capitl, m->nitl + 1, sizeof *m->itl)) {
        m->status = SIM_NO_MEMORY;
        return;
    }
    m->itl[m->nitl++] = (struct sim_itl){seconds, count};
}

/* The end of replica ri's step: each request's new tokens computed, a token
 * for each that caught up, the finished ones out (update_from_output). The
 * tokens of requests whose last came at the step's start share one
 * inter-token latency, the step's own. */
static void step_end(struct sim *m, uint32_t ri)
{
    const struct sim_config *c = m->c;
    struct sim_replica *r = &m->rep[ri];
    double t = r->end;
    uint64_t steady = 0;
    advance(m, t);
    r->busy = false;
    for (size_t i = 0; i < r->nsched; i++) {
        size_t v = r->sched[i].q;
        struct sim_rq *q = &m->rq[v];
        q->computed += r->sched[i].tokens;
        if (q->computed < q->prompt + q->produced)
            continue; /* a chunk of a prefill: its token is not the next */
        q->produced++;
        if (q->produced == 1)
            q->first = t;
        else if (q->last == r->start)
            steady++;
        else
            itl_add(m, t - q->last, 1);
        q->last = t;
        if (c->on_token)
            c->on_token(c->ctx, v, q->produced - 1, t);
        if (q->produced == q->output) {
            q->state = RQ_DONE;
            q->finish = t;
            r->free += q->blocks;
            q->blocks = 0;
            m->nrun--;
            m->done++;
            m->inflight--;
        }
    }
    if (steady)
        itl_add(m, t - r->start, steady);
    size_t k = 0; /* the finished out of the running list, the order kept */
    for (size_t i = 0; i < r->nrun; i++)
        if (m->rq[r->running[i]].state != RQ_DONE)
            r->running[k++] = r->running[i];
    r->nrun = k;
}

/* DPLBAsyncMPClient.get_core_engine_for_request: the least 4 x waiting +
 * running. */
static uint32_t pick_replica(const struct sim *m)
{
    uint32_t best = 0;
    uint64_t score = UINT64_MAX;
    for (uint32_t i = 0; i < m->c->replicas; i++) {
        const struct sim_replica *r = &m->rep[i];
        uint64_t s = 4 * (uint64_t)r->waiting.len + r->nrun;
        if (s < score) {
            score = s;
            best = i;
        }
    }
    return best;
}

/* When the client sends its next request: on arrival, or once fewer than
 * max_concurrency are in flight; INFINITY when none is left or the cap
 * holds it back. */
static double next_send(const struct sim *m)
{
    if (m->next_send >= m->n)
        return INFINITY;
    if (m->c->max_concurrency && m->inflight >= m->c->max_concurrency)
        return INFINITY;
    return m->rq[m->next_send].arrival;
}

/* Every request the client sends by t, each to its replica's waiting queue;
 * true when one was sent. */
static bool send_due(struct sim *m, double t)
{
    bool sent = false;
    while (next_send(m) <= t && m->status == SIM_OK) {
        size_t v = m->next_send++;
        struct sim_rq *q = &m->rq[v];
        uint32_t ri = pick_replica(m);
        advance(m, t);
        q->send = t;
        q->state = RQ_WAITING;
        q->replica = ri;
        if (!deque_push_back(&m->rep[ri].waiting, v))
            m->status = SIM_NO_MEMORY;
        m->inflight++;
        m->nwait++;
        sent = true;
    }
    peaks(m);
    return sent;
}

/* The busy replica whose step ends first (the first of a tie), or
 * replicas when none is busy. */
static uint32_t next_step(const struct sim *m, double *t)
{
    uint32_t best = m->c->replicas;
    *t = INFINITY;
    for (uint32_t i = 0; i < m->c->replicas; i++)
        if (m->rep[i].busy && m->rep[i].end < *t) {
            *t = m->rep[i].end;
            best = i;
        }
    return best;
}

/* The event loop: step ends and sends in time order, a step's end before a
 * send at the same time; a replica starts its next step at once, an idle
 * one when a request reaches it. */
static void run_events(struct sim *m)
{
    const struct sim_config *c = m->c;
    while (m->status == SIM_OK) {
        double ts, ta = next_send(m);
        uint32_t ri = next_step(m, &ts);
        if (ri == c->replicas && isinf(ta))
            break;
        double t = ts <= ta ? ts : ta;
        if (ts <= ta)
            step_end(m, ri);
        bool sent = send_due(m, t);
        if (ri < c->replicas && ts <= ta)
            step_begin(m, ri, t);
        for (uint32_t i = 0; sent && i < c->replicas && m->status == SIM_OK; i++)
            if (!m->rep[i].busy && m->rep[i].waiting.len > 0)
                step_begin(m, i, t);
        if (m->status == SIM_OK && m->steps > c->max_steps)
            m->status = SIM_STEPS;
        if (m->status == SIM_OK && t > c->max_seconds)
            m->status = SIM_SECONDS;
    }
}

static void sim_free(struct sim *m)
{
    for (uint32_t i = 0; m->rep && i < m->c->replicas; i++) {
        free(m->rep[i].running);
        free(m->rep[i].waiting.v);
        free(m->rep[i].sched);
    }
    free(m->rep);
    free(m->rq);
    free(m->seqs);
    free(m->itl);
}

static bool sim_setup(struct sim *m, const struct sim_config *c,
                      const struct workload_request *reqs, size_t n)
{
    memset(m, 0, sizeof *m);
    m->c = c;
    m->n = n;
    m->rq = calloc(n ? n : 1, sizeof *m->rq);
    m->rep = calloc(c->replicas ? c->replicas : 1, sizeof *m->rep);
    if (m->rq == NULL || m->rep == NULL)
        return false;
    uint64_t prefix = c->block_tokens ? c->prefix_tokens / c->block_tokens : 0;
    for (uint32_t i = 0; i < c->replicas; i++)
        m->rep[i].free = c->blocks > prefix ? c->blocks - prefix : 0;
    for (size_t i = 0; i < n; i++)
        m->rq[i] = (struct sim_rq){.prompt = reqs[i].prompt, .output = reqs[i].output,
                                   .arrival = reqs[i].arrival};
    return true;
}

enum sim_status sim_run(const struct sim_config *c, const struct workload_request *reqs, size_t n,
                        struct sim_result *out)
{
    struct sim m;
    memset(out, 0, sizeof *out);
    if (!sim_setup(&m, c, reqs, n)) {
        sim_free(&m);
        return out->status = SIM_NO_MEMORY;
    }
    run_events(&m);
    if (m.status == SIM_OK)
        sim_figures(&m, out);
    if (out->status == SIM_OK)
        out->status = m.status;
    sim_free(&m);
    return out->status;
}

void sim_config_of_plan(const struct scenario *s, const struct plan_result *r,
                        struct sim_config *c)
{
    memset(c, 0, sizeof *c);
    struct speed_basis b = plan_speed_basis(r);
    speed_step_inputs(s, &b, &c->model, &c->machine);
    const struct engine_detail *e = &r->budget.engine;
    c->replicas = r->placement.replicas ? r->placement.replicas : 1;
    c->block_tokens = e->unit_tokens ? e->unit_tokens : 1;
    c->blocks = r->budget.kv_tokens_per_replica / c->block_tokens;
    c->prefix_tokens = s->prefix_tokens;
    c->max_num_seqs = e->max_num_seqs;
    c->max_num_batched_tokens = e->max_num_batched_tokens;
    c->max_model_len = s->context_tokens;
    c->max_steps = SIM_MAX_STEPS;
    c->max_seconds = SIM_MAX_SECONDS;
    c->slo_ttft = c->slo_tpot = c->slo_e2el = -1;
}
