/* sim_internal: the simulator's state, shared by its event loop (sim.c), its
 * engines' schedulers (sim_sched_*.c), its router (sim_route.c) and its
 * figures (sim_stats.c); nothing else includes it. */
#ifndef KVPLAN_CORE_SIM_INTERNAL_H
#define KVPLAN_CORE_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "sim.h"

enum sim_state { RQ_FUTURE, RQ_WAITING, RQ_RUNNING, RQ_DONE };

/* One request as the engine sees it. */
struct sim_rq {
    uint64_t prompt, output;  /* tokens */
    uint64_t computed;        /* tokens whose KV is in the cache */
    uint64_t produced;        /* tokens generated */
    uint64_t blocks;          /* private KV blocks held */
    uint64_t shared;          /* the prefix's whole blocks it uses */
    uint64_t remote;          /* tokens whose KV arrives with it (kv_arrives), until preempted */
    double arrival, send, first, last, finish;
    uint32_t replica;
    enum sim_state state;
};

/* The waiting queue: a ring of request indices, pushed at either end. */
struct sim_deque {
    size_t *v;
    size_t cap, head, len;
};

/* A request of a step and the tokens it computes. */
struct sim_sched {
    size_t q;
    uint64_t tokens;
};

struct sim_replica {
    size_t *running;          /* in the order they joined */
    size_t nrun, caprun;
    struct sim_deque waiting;
    struct sim_deque inbox;   /* sent, not yet received (config.recv_interval) */
    uint64_t free;            /* blocks */
    bool busy;
    double start, end;        /* the step in flight */
    struct sim_sched *sched;  /* the step's requests */
    size_t nsched, capsched;
    /* the schedulers' own state */
    double ratio;             /* SGLang's new_token_ratio */
    bool full;                /* SGLang's batch_is_full: no prefill until a request leaves */
    size_t chunked;           /* SGLang's chunked_req (its index), SIZE_MAX: none */
    uint64_t slots_used;      /* llama.cpp: slots that ever held a request */
    uint64_t recv_count;      /* SGLang's SchedulerRecvSkipper: its counter */
    bool decoded;             /* SGLang: the last step was a decode */
    /* the router's view: what its tree holds of this replica */
    uint64_t tree_tokens;
    bool has_prefix;
};

/* An inter-token latency and how many tokens had it. */
struct sim_itl {
    double seconds;
    uint64_t count;
};

/* Blocks a finished request holds until t (sim_hold.c). */
struct sim_release {
    double t;
    uint64_t seq;
    uint64_t blocks;
    uint32_t replica;
};

struct sim {
    const struct sim_config *c;
    struct sim_rq *rq;
    size_t n;
    struct sim_replica *rep;
    struct step_seq *seqs;    /* a step's batch, for step_time */
    size_t capseqs;
    struct step_seq *pass;    /* one pass of it (c->ubatch) */
    size_t cappass;
    size_t next_send;         /* the client: requests before it are sent */
    uint64_t inflight;
    uint64_t turn;            /* round robin's next replica */
    double last_t, area_wait, area_run;
    uint64_t nwait, nrun, max_wait, max_run;
    struct sim_itl *itl;
    size_t nitl, capitl;
    uint64_t steps, preemptions, done;
    double peak_usage;
    struct sim_release *held; /* kv_hold's releases to come, a heap */
    size_t nheld, capheld;
    uint64_t held_seq;
    enum sim_status status;
};

/* One engine's scheduler: schedule fills r->sched with the step's requests
 * and their new tokens (empty: nothing to run), taking and freeing blocks;
 * init (NULL: none) sets a replica up. groups_gaps: the inter-token
 * latencies of one step's tokens whose last came at one same earlier time
 * are kept as one record (vLLM's are kept one by one, as its runs always
 * were: the same figures, summed in their order). */
struct sim_scheduler_ops {
    void (*init)(struct sim *m, struct sim_replica *r);
    void (*schedule)(struct sim *m, struct sim_replica *r);
    bool groups_gaps;
};
extern const struct sim_scheduler_ops sim_sched_vllm, sim_sched_sglang, sim_sched_slots,
    sim_sched_trtllm;

/* sim.c: the pieces the schedulers share. */
bool sim_grow(void **p, size_t *cap, size_t need, size_t size);
bool sim_deque_push_back(struct sim_deque *d, size_t x);
bool sim_deque_push_front(struct sim_deque *d, size_t x);
size_t sim_deque_front(const struct sim_deque *d);
void sim_deque_pop_front(struct sim_deque *d);
/* r's inbox to the end of its waiting queue, in the order sent. */
void sim_receive(struct sim *m, struct sim_replica *r);
/* Requests r has to start: waiting, or sent to it and not yet received. */
static inline size_t sim_pending(const struct sim_replica *r)
{
    return r->waiting.len + r->inbox.len;
}
/* ceil(tokens / block) */
static inline uint64_t sim_blocks(const struct sim_config *c, uint64_t tokens)
{
    return (tokens + c->block_tokens - 1) / c->block_tokens;
}
/* The blocks a window or state kind w keeps of a request at `after` tokens,
 * `computed` of them before the step: vLLM's KVCacheManager.allocate_slots
 * frees what falls behind the window first (remove_skipped_blocks; the
 * skipped tokens computed - window + 1, or the chunks before the current
 * one), then allocates up to `after`. */
static inline uint64_t sim_window_blocks(const struct engine_window *w, uint64_t computed,
                                         uint64_t after)
{
    if (w->fixed)
        return w->fixed;
    uint64_t skip = w->chunked ? computed / w->window * w->window
                    : computed + 1 > w->window ? computed + 1 - w->window
                                               : 0;
    uint64_t all = (after + w->block - 1) / w->block, gone = skip / w->block;
    return all > gone ? all - gone : 0;
}
/* The private blocks a request holds at `after` tokens, `computed` of them
 * before the step and `shared` of the prefix's whole blocks found: every
 * full group's blocks but the prefix's, and each window or state group's. */
static inline uint64_t sim_own_blocks(const struct sim_config *c, uint64_t computed,
                                      uint64_t after, uint64_t shared)
{
    uint64_t all = sim_blocks(c, after), own = all > shared ? all - shared : 0;
    if (c->full_groups == 0)
        return own;
    own *= c->full_groups;
    for (uint32_t k = 0; k < c->nwindows; k++)
        own += c->windows[k].groups * sim_window_blocks(&c->windows[k], computed, after);
    return own;
}
/* The prefix cache's hit for a request of `tokens`: whole blocks of the
 * shared prefix, at most tokens - 1; their count in *blocks. */
uint64_t sim_prefix_hit(const struct sim_config *c, uint64_t tokens, uint64_t *blocks);
/* Where request q's prompt of `tokens` (and outputs) starts: the prefix
 * cache's hit, or the tokens whose KV came with it when more; the prefix's
 * blocks in *shared. */
static inline uint64_t sim_start_hit(const struct sim_config *c, const struct sim_rq *q,
                                     uint64_t tokens, uint64_t *shared)
{
    uint64_t start = sim_prefix_hit(c, tokens, shared);
    return q->remote > start && q->remote < tokens ? q->remote : start;
}
/* Request q joins r's step with `tokens` new tokens; false when out of memory.
 * (Inline, as the step's hot path: sim_sched_room grows the list.) */
bool sim_sched_room(struct sim *m, struct sim_replica *r);
static inline bool sim_sched_add(struct sim *m, struct sim_replica *r, size_t q, uint64_t tokens)
{
    if (r->nsched == r->capsched && !sim_sched_room(m, r))
        return false;
    r->sched[r->nsched++] = (struct sim_sched){q, tokens};
    return true;
}
/* The front of r's waiting queue runs from `start` computed tokens, `shared`
 * of the prefix's blocks and `need` blocks of its own, `want` tokens this step
 * (0: not in the step yet). */
bool sim_admit(struct sim *m, struct sim_replica *r, uint64_t start, uint64_t shared,
               uint64_t need, uint64_t want);
/* running[i] back to the waiting queue (its front, or its back), its blocks
 * freed and its computed tokens forgotten; its index. */
size_t sim_preempt(struct sim *m, struct sim_replica *r, size_t i, bool front);

/* Running request v takes `need` more blocks, the newest running request
 * preempted (to the waiting queue's front) until they fit, *preempted then
 * set; false when v itself was the newest. */
bool sim_preempt_for(struct sim *m, struct sim_replica *r, size_t v, uint64_t need,
                     bool *preempted);
static inline bool sim_make_room(struct sim *m, struct sim_replica *r, size_t v, uint64_t need,
                                 bool *preempted)
{
    if (need > r->free && !sim_preempt_for(m, r, v, need, preempted))
        return false;
    r->free -= need;
    m->rq[v].blocks += need;
    return true;
}

/* sim_hold.c: blocks held past a request's end, released at t. */
void sim_hold_push(struct sim *m, uint32_t ri, uint64_t blocks, double t);
static inline double sim_hold_next(const struct sim *m) /* INFINITY: none held */
{
    return m->nheld ? m->held[0].t : (double)INFINITY;
}
uint32_t sim_hold_pop(struct sim *m);      /* the earliest back to its pool; its replica */

/* sim_route.c: the replica a request goes to. */
uint32_t sim_route(struct sim *m, size_t v);

/* sim_stats.c: the figures of a finished run. */
void sim_figures(const struct sim *m, struct sim_result *out);
/* Sorts v (n values) and summarises it as numpy would. */
struct sim_stats sim_summarise(double *v, size_t n);

#endif
