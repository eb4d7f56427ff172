/* sim_sched_trtllm: TensorRT-LLM's in-flight batching (core/sim.h), its
 * defaults: each step the capacity scheduler (cpp/tensorrt_llm/
 * batch_manager/capacityScheduler.cpp, read at NVIDIA/TensorRT-LLM commit
 * 02a10fed) picks the requests, the micro-batch scheduler
 * (microBatchScheduler.cpp, commit 0a949d31) fits them to max_num_tokens
 * and max_batch_size, in order, the requests that have started first; a
 * step holds prompts and decodes together. Without chunked prefill (the
 * default) a prompt runs whole in one step, and the first that does not fit
 * the tokens left waits, with all behind it.
 * GUARANTEED_NO_EVICT (the default, GuaranteedNoEvictScheduler::impl): the
 * started requests keep the blocks they need to finish (prompt and
 * max_new_tokens, getRemainingBlocksToCompletion); a new one starts only
 * when its own whole life fits what is left, the first that does not ends
 * the step's admissions; nothing is ever evicted.
 * MAX_UTILIZATION (MaxUtilizationScheduler): a step's blocks only; when a
 * started request's do not fit, the newest started one is paused (its
 * blocks freed, back to the waiting queue's front, computed again later)
 * until they do or it was itself the newest, and that step starts no new
 * request. Block reuse (the shared prefix) as vLLM's. */
#include <stdint.h>

#include "sim_internal.h"

/* The blocks q needs for `tokens` more. */
static uint64_t more_blocks(const struct sim_config *c, const struct sim_rq *q, uint64_t tokens)
{
    uint64_t all = sim_blocks(c, q->computed + tokens), held = q->blocks + q->shared;
    return all > held ? all - held : 0;
}

/* The waiting requests, whole prompts, while the tokens, max_batch_size, the
 * pool and (GUARANTEED_NO_EVICT) `avail`, the blocks no started request
 * will need, allow. */
static void start_new(struct sim *m, struct sim_replica *r, uint64_t *budget, uint64_t avail)
{
    const struct sim_config *c = m->c;
    bool no_evict = c->capacity == SIM_GUARANTEED_NO_EVICT;
    while (r->waiting.len > 0 && r->nrun < c->max_num_seqs && m->status == SIM_OK) {
        struct sim_rq *q = &m->rq[sim_deque_front(&r->waiting)];
        uint64_t tokens = q->prompt + q->produced, shared;
        uint64_t start = sim_start_hit(c, q, tokens, &shared), want = tokens - start;
        uint64_t need = sim_blocks(c, tokens) - shared, life = sim_blocks(c, q->prompt + q->output);
        if (no_evict ? life > avail : need > r->free)
            break;
        if (want > *budget || need > r->free)
            break;
        if (!sim_admit(m, r, start, shared, need, want))
            break;
        *budget -= want;
        avail -= no_evict ? life : 0;
    }
}

/* The started requests' next tokens; true when one was paused, or when the
 * tokens ran out (the micro-batch ends there: no new request either). */
static bool run_started(struct sim *m, struct sim_replica *r, uint64_t *budget)
{
    const struct sim_config *c = m->c;
    bool paused = false;
    for (size_t i = 0; i < r->nrun && m->status == SIM_OK; i++) {
        size_t v = r->running[i];
        struct sim_rq *q = &m->rq[v];
        uint64_t want = q->prompt + q->produced - q->computed;
        if (want > *budget)
            return true;
        uint64_t need = more_blocks(c, q, want);
        if (!sim_make_room(m, r, v, need, &paused) || !sim_sched_add(m, r, v, want))
            break;
        *budget -= want;
    }
    return paused;
}

static void schedule(struct sim *m, struct sim_replica *r)
{
    const struct sim_config *c = m->c;
    uint64_t budget = c->max_num_batched_tokens, reserved = 0;
    for (size_t i = 0; i < r->nrun; i++) {
        const struct sim_rq *q = &m->rq[r->running[i]];
        uint64_t life = sim_blocks(c, q->prompt + q->output), held = q->blocks + q->shared;
        reserved += life > held ? life - held : 0;
    }
    /* the blocks free before this step's, less what the started will need */
    uint64_t avail = r->free > reserved ? r->free - reserved : 0;
    if (!run_started(m, r, &budget))
        start_new(m, r, &budget, avail);
}

const struct sim_scheduler_ops sim_sched_trtllm = {.schedule = schedule, .groups_gaps = true};

const char *sim_capacity_name(enum sim_capacity p)
{
    return p == SIM_MAX_UTILIZATION ? "MAX_UTILIZATION" : "GUARANTEED_NO_EVICT";
}
