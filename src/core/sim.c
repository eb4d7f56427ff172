#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_desc.h"
#include "sim_internal.h"
#include "speed_ttft.h"

/* Room for `need` elements of `size` bytes in *p (doubling); false when
 * out of memory. */
bool sim_grow(void **p, size_t *cap, size_t need, size_t size)
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

size_t sim_deque_front(const struct sim_deque *d)
{
    return d->v[d->head];
}

void sim_deque_pop_front(struct sim_deque *d)
{
    d->head = (d->head + 1) % d->cap;
    d->len--;
}

bool sim_deque_push_back(struct sim_deque *d, size_t x)
{
    if (!deque_reserve(d, d->len + 1))
        return false;
    d->v[(d->head + d->len) % d->cap] = x;
    d->len++;
    return true;
}

void sim_receive(struct sim *m, struct sim_replica *r)
{
    while (r->inbox.len > 0 && m->status == SIM_OK) {
        if (!sim_deque_push_back(&r->waiting, sim_deque_front(&r->inbox)))
            m->status = SIM_NO_MEMORY;
        sim_deque_pop_front(&r->inbox);
    }
}

bool sim_deque_push_front(struct sim_deque *d, size_t x)
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
    uint64_t own = all > prefix ? all - prefix : 0;
    if (c->full_groups == 0)
        return own;
    own *= c->full_groups;
    /* a window's most: a whole batch prefilled after the window less one
     * (SlidingWindowSpec.max_memory_usage_bytes), at most the request */
    for (uint32_t k = 0; k < c->nwindows; k++) {
        const struct engine_window *w = &c->windows[k];
        uint64_t peak = w->fixed;
        if (!w->fixed) {
            uint64_t span = w->chunked ? w->window + c->max_num_batched_tokens
                                       : w->window - 1 + c->max_num_batched_tokens;
            uint64_t t = span < tokens ? span : tokens, whole = (tokens + w->block - 1) / w->block;
            peak = (t + w->block - 1) / w->block + (w->chunked ? 0 : 1);
            peak = peak < whole ? peak : whole;
        }
        own += w->groups * peak;
    }
    return own;
}

uint64_t sim_prefix_blocks(const struct sim_config *c)
{
    uint64_t p = c->block_tokens ? c->prefix_tokens / c->block_tokens : 0;
    return c->full_groups ? p * c->full_groups : p;
}

uint64_t sim_most_tokens(const struct sim_config *c)
{
    if (c->full_groups == 0)
        return c->blocks * c->block_tokens + 1; /* sim_request_blocks(all - 1) <= blocks */
    uint64_t lo = 0, hi = c->blocks * c->block_tokens + 1; /* a hybrid request holds more */
    while (lo < hi) { /* the most `all` whose sim_request_blocks(all - 1) fits */
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (sim_request_blocks(c, mid - 1) <= c->blocks)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
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

/* get_computed_blocks: the last token is always computed, for its logits. */
uint64_t sim_prefix_hit(const struct sim_config *c, uint64_t tokens, uint64_t *blocks)
{
    uint64_t b = c->block_tokens;
    uint64_t whole = c->prefix_tokens / b, most = (tokens - 1) / b;
    *blocks = whole < most ? whole : most;
    return *blocks * b;
}

bool sim_sched_room(struct sim *m, struct sim_replica *r)
{
    if (!sim_grow((void **)&r->sched, &r->capsched, r->nsched + 1, sizeof *r->sched)) {
        m->status = SIM_NO_MEMORY;
        return false;
    }
    return true;
}

bool sim_admit(struct sim *m, struct sim_replica *r, uint64_t start, uint64_t shared,
               uint64_t need, uint64_t want)
{
    size_t v = sim_deque_front(&r->waiting);
    struct sim_rq *q = &m->rq[v];
    if (!sim_grow((void **)&r->running, &r->caprun, r->nrun + 1, sizeof *r->running)) {
        m->status = SIM_NO_MEMORY;
        return false;
    }
    sim_deque_pop_front(&r->waiting);
    r->running[r->nrun++] = v;
    q->state = RQ_RUNNING;
    q->computed = start;
    q->shared = shared;
    q->blocks = need;
    r->free -= need;
    m->nwait--;
    m->nrun++;
    return want == 0 || sim_sched_add(m, r, v, want);
}

size_t sim_preempt(struct sim *m, struct sim_replica *r, size_t i, bool front)
{
    size_t v = r->running[i];
    memmove(&r->running[i], &r->running[i + 1], (r->nrun - i - 1) * sizeof *r->running);
    r->nrun--;
    struct sim_rq *q = &m->rq[v];
    r->free += q->blocks;
    q->blocks = 0;
    q->computed = 0;
    q->remote = 0;
    q->state = RQ_WAITING;
    if (!(front ? sim_deque_push_front(&r->waiting, v) : sim_deque_push_back(&r->waiting, v)))
        m->status = SIM_NO_MEMORY;
    m->nrun--;
    m->nwait++;
    m->preemptions++;
    return v;
}

/* sim_make_room's preemptions: the newest until `need` fits; false when v
 * itself was the newest. */
bool sim_preempt_for(struct sim *m, struct sim_replica *r, size_t v, uint64_t need,
                     bool *preempted)
{
    bool self = false;
    while (need > r->free && !self) {
        self = sim_preempt(m, r, r->nrun - 1, true) == v;
        *preempted = true;
    }
    return !self;
}

static const struct sim_scheduler_ops *const schedulers[SIM_SCHED_COUNT] = {
    [SIM_SCHED_VLLM] = &sim_sched_vllm,
    [SIM_SCHED_SGLANG] = &sim_sched_sglang,
    [SIM_SCHED_SLOTS] = &sim_sched_slots,
    [SIM_SCHED_TRTLLM] = &sim_sched_trtllm,
};

static const struct sim_scheduler_ops *scheduler(const struct sim_config *c)
{
    return schedulers[c->sched < SIM_SCHED_COUNT ? c->sched : SIM_SCHED_VLLM];
}

/* The step's time: one pass over its sequences, or passes of at most
 * c->ubatch tokens in turn (a sequence split between two). */
static double step_seconds(struct sim *m, size_t n)
{
    const struct sim_config *c = m->c;
    if (c->ubatch == 0)
        return step_time(&c->model, &c->machine, m->seqs, n, NULL);
    if (!sim_grow((void **)&m->pass, &m->cappass, n, sizeof *m->pass)) {
        m->status = SIM_NO_MEMORY;
        return 0;
    }
    double dt = 0;
    size_t k = 0;
    uint64_t room = c->ubatch;
    for (size_t i = 0; i < n; i++) {
        struct step_seq s = m->seqs[i];
        while (s.tokens > 0) {
            uint64_t take = s.tokens < room ? s.tokens : room;
            m->pass[k++] = (struct step_seq){s.context, take};
            s.context += take;
            s.tokens -= take;
            room -= take;
            if (room == 0) {
                dt += step_time(&c->model, &c->machine, m->pass, k, NULL);
                k = 0;
                room = c->ubatch;
            }
        }
    }
    if (k)
        dt += step_time(&c->model, &c->machine, m->pass, k, NULL);
    return dt;
}

/* One step of replica ri from t: schedule it and time it; idle when there
 * is nothing to run. */
static void step_begin(struct sim *m, uint32_t ri, double t)
{
    const struct sim_config *c = m->c;
    struct sim_replica *r = &m->rep[ri];
    advance(m, t);
    r->nsched = 0;
    r->busy = false;
    scheduler(c)->schedule(m, r);
    peaks(m);
    if (r->nsched == 0 || m->status != SIM_OK)
        return;
    if (!sim_grow((void **)&m->seqs, &m->capseqs, r->nsched, sizeof *m->seqs)) {
        m->status = SIM_NO_MEMORY;
        return;
    }
    for (size_t i = 0; i < r->nsched; i++)
        m->seqs[i] = (struct step_seq){m->rq[r->sched[i].q].computed, r->sched[i].tokens};
    double dt = step_seconds(m, r->nsched);
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
    if (!sim_grow((void **)&m->itl, &m->capitl, m->nitl + 1, sizeof *m->itl)) {
        m->status = SIM_NO_MEMORY;
        return;
    }
    m->itl[m->nitl++] = (struct sim_itl){seconds, count};
}

/* The end of replica ri's step: each request's new tokens computed, a token
 * for each that caught up, the finished ones out (update_from_output). The
 * tokens of requests whose last came at the step's start share one
 * inter-token latency, the step's own; under a scheduler that groups gaps,
 * so do those whose last came at one same earlier time (decodes after a
 * prefill step). */
static void step_end(struct sim *m, uint32_t ri)
{
    const struct sim_config *c = m->c;
    struct sim_replica *r = &m->rep[ri];
    double t = r->end, gap_last = -1;
    uint64_t steady = 0, gap = 0;
    bool group = scheduler(c)->groups_gaps;
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
        else if (group && (gap == 0 || q->last == gap_last)) {
            gap_last = q->last;
            gap++;
        } else
            itl_add(m, t - q->last, 1);
        q->last = t;
        if (c->on_token)
            c->on_token(c->ctx, v, q->produced - 1, t);
        if (q->produced == q->output) {
            q->state = RQ_DONE;
            q->finish = t;
            if (c->kv_hold && c->kv_hold[v] > 0)
                sim_hold_push(m, ri, q->blocks, t + c->kv_hold[v]);
            else
                r->free += q->blocks;
            q->blocks = 0;
            m->nrun--;
            m->done++;
            m->inflight--;
            r->full = false;
        }
    }
    if (steady)
        itl_add(m, t - r->start, steady);
    if (gap)
        itl_add(m, t - gap_last, gap);
    size_t k = 0; /* the finished out of the running list, the order kept */
    for (size_t i = 0; i < r->nrun; i++)
        if (m->rq[r->running[i]].state != RQ_DONE)
            r->running[k++] = r->running[i];
    r->nrun = k;
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
        uint32_t ri = sim_route(m, v);
        advance(m, t);
        q->send = t;
        q->state = RQ_WAITING;
        q->replica = ri;
        struct sim_replica *r = &m->rep[ri];
        if (!sim_deque_push_back(m->c->recv_interval > 1 ? &r->inbox : &r->waiting, v))
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

/* Held blocks released by t (kv_hold), each idle replica given them
 * starting a step if it has requests waiting. */
static void release_due(struct sim *m, double t)
{
    while (sim_hold_next(m) <= t && m->status == SIM_OK) {
        double at = sim_hold_next(m);
        uint32_t ri = sim_hold_pop(m);
        if (!m->rep[ri].busy && sim_pending(&m->rep[ri]) > 0)
            step_begin(m, ri, at);
    }
}

/* The event loop: releases of held blocks, step ends and sends in time
 * order (at one time in that order); a replica starts its next step at
 * once, an idle one when a request reaches it or blocks come back. */
static void run_events(struct sim *m)
{
    const struct sim_config *c = m->c;
    while (m->status == SIM_OK) {
        double ts, ta = next_send(m);
        uint32_t ri = next_step(m, &ts);
        if (ri == c->replicas && isinf(ta) && m->nheld == 0)
            break;
        double t = ts <= ta ? ts : ta;
        if (m->nheld && sim_hold_next(m) <= t) {
            release_due(m, sim_hold_next(m));
            continue;
        }
        if (ts <= ta)
            step_end(m, ri);
        bool sent = send_due(m, t);
        if (ri < c->replicas && ts <= ta)
            step_begin(m, ri, t);
        for (uint32_t i = 0; sent && i < c->replicas && m->status == SIM_OK; i++)
            if (!m->rep[i].busy && sim_pending(&m->rep[i]) > 0)
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
        free(m->rep[i].inbox.v);
        free(m->rep[i].sched);
    }
    free(m->rep);
    free(m->rq);
    free(m->seqs);
    free(m->pass);
    free(m->itl);
    free(m->held);
}

/* A warm request's computed start: its prompt's whole blocks, the last
 * token's block left out (get_computed_blocks caps the hit at prompt - 1,
 * vllm/v1/core/kv_cache_manager.py at 003df296), as sim_prefix_hit. */
static uint64_t warm_tokens(const struct sim_config *c, size_t i, uint64_t prompt)
{
    uint64_t b = c->block_tokens ? c->block_tokens : 1;
    return i < c->warm_requests && prompt > 0 ? (prompt - 1) / b * b : 0;
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
    uint64_t prefix = sim_prefix_blocks(c);
    for (uint32_t i = 0; i < c->replicas; i++) {
        m->rep[i].free = c->blocks > prefix ? c->blocks - prefix : 0;
        m->rep[i].chunked = SIZE_MAX;
        if (scheduler(c)->init)
            scheduler(c)->init(m, &m->rep[i]);
    }
    for (size_t i = 0; i < n; i++)
        m->rq[i] = (struct sim_rq){.prompt = reqs[i].prompt, .output = reqs[i].output,
                                   .arrival = reqs[i].arrival,
                                   .remote = c->kv_arrives ? reqs[i].prompt - 1
                                                           : warm_tokens(c, i, reqs[i].prompt)};
    return true;
}

/* The run could not tell (sim_stats.c, capacity): the same stream continued,
 * its requests again after it at its rate, 2, 4 and 8 times as many until
 * one can (the system fills); over capacity as that run says, its growth and
 * what it served kept. */
static void continued(const struct sim_config *c, const struct workload_request *reqs, size_t n,
                      struct sim_result *out)
{
    double last = reqs[n - 1].arrival;
    if (n < 2 || !(last > 0))
        return;
    double span = last + last / (double)(n - 1); /* the next request a gap after the last */
    for (size_t k = 2; k <= SIM_CONTINUE_MAX && k * n <= SIM_MAX_REQUESTS; k *= 2) {
        struct workload_request *more = malloc(k * n * sizeof *more);
        struct sim_result *ext = malloc(sizeof *ext);
        bool judged = false;
        if (more && ext) {
            for (size_t t = 0; t < k; t++)
                for (size_t i = 0; i < n; i++) {
                    more[t * n + i] = reqs[i];
                    more[t * n + i].arrival += (double)t * span;
                }
            struct sim_config once = *c;
            once.no_continue = true;

            if (sim_run(&once, more, k * n, ext) == SIM_OK && !ext->unjudged) {
                judged = true;
                out->over_capacity = ext->over_capacity;
                out->queue_growth_per_s = ext->queue_growth_per_s;
                out->system_growth_per_s = ext->system_growth_per_s;
                out->served_per_s = ext->served_per_s;
                out->measured = ext->measured;
                out->judged_requests = k * n;
            }
        }
        free(more);
        free(ext);
        if (judged || more == NULL)
            return;
    }
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
    if (m.status == SIM_OK && m.done < n)
        m.status = SIM_STUCK;
    if (m.status == SIM_OK)
        sim_figures(&m, out);
    if (out->status == SIM_OK)
        out->status = m.status;
    sim_free(&m);
    /* a pool of a disaggregated deployment (its holds and hooks are its own
     * requests'), and a continued run, are judged as they are */
    if (out->status == SIM_OK && out->unjudged && !c->no_continue && c->kv_hold == NULL &&
        !c->kv_arrives && c->on_step == NULL && c->on_token == NULL)
        continued(c, reqs, n, out);
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
    const struct engine_sched *t = &engine_desc(s->engine.kind)->sched;
    c->sched = t->kind;
    c->router = t->router;
    if (e->full_groups && c->sched == SIM_SCHED_VLLM) {
        /* vLLM V1's hybrid pool as it allocates: a group's blocks (every
         * rank's under DP attention) */
        c->full_groups = e->full_groups;
        c->nwindows = e->nwindows;
        memcpy(c->windows, e->windows, sizeof c->windows);
        c->blocks = r->placement.dp_attention ? e->units * r->placement.tp : e->units;
    }
    c->request_overhead_s = speed_request_overhead_s(s);
    c->ubatch = t->ubatch;
    if (t->ubatch && engine_desc(s->engine.kind)->offloads) /* llama.cpp's --ubatch */
        c->ubatch = scenario_ubatch(s);
    if (c->max_num_batched_tokens == 0)
        c->max_num_batched_tokens = t->batch;
}
