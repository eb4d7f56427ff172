/* sim_sched_vllm: vLLM V1's scheduler (core/sim.h): Scheduler.schedule() in
 * vllm/v1/core/sched/scheduler.py and KVCacheManager.allocate_slots() in
 * vllm/v1/core/kv_cache_manager.py, read at vllm-project/vllm commits
 * 00024d31 and 003df296. */
#include <stdint.h>

#include "sim_internal.h"

/* The running requests, in order (schedule()'s first loop); true when one
 * was preempted: the newest (_preempt_request), until the blocks fit or the
 * request itself was the newest. */
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
        /* a window group's blocks behind its window freed, then the new ones */
        uint64_t own = sim_own_blocks(c, q->computed, q->computed + want, q->shared);
        if (own < q->blocks) {
            r->free += q->blocks - own;
            q->blocks = own;
        }
        uint64_t need = own - q->blocks;
        if (!sim_make_room(m, r, v, need, &preempted) || !sim_sched_add(m, r, v, want))
            break;
        *budget -= want;
    }
    return preempted;
}

/* The waiting requests, in order, while the budget, max_num_seqs and the
 * pool allow (schedule()'s second loop): each its prompt (resumed: and the
 * tokens it had generated) less the prefix cache's hit. */
static void schedule_waiting(struct sim *m, struct sim_replica *r, uint64_t *budget)
{
    const struct sim_config *c = m->c;
    while (r->waiting.len > 0 && *budget > 0 && r->nrun < c->max_num_seqs &&
           m->status == SIM_OK) {
        struct sim_rq *q = &m->rq[sim_deque_front(&r->waiting)];
        uint64_t tokens = q->prompt + q->produced, shared;
        uint64_t start = sim_start_hit(c, q, tokens, &shared);
        uint64_t want = tokens - start;
        if (want > *budget)
            want = *budget;
        uint64_t need = sim_own_blocks(c, start, start + want, shared);
        if (need > r->free)
            break;
        if (!sim_admit(m, r, start, shared, need, want))
            break;
        *budget -= want;
    }
}

/* A preemption ends the step's admissions. */
static void schedule(struct sim *m, struct sim_replica *r)
{
    uint64_t budget = m->c->max_num_batched_tokens;
    if (!schedule_running(m, r, &budget))
        schedule_waiting(m, r, &budget);
}

const struct sim_scheduler_ops sim_sched_vllm = {.schedule = schedule};
