/* sim_sched_slots: llama.cpp's server (core/sim.h), tools/server/server.cpp
 * read at ggml-org/llama.cpp commit aa6192d3, its defaults: --parallel
 * slots, each of its own context (no memory shared, none to run out); a
 * request waits, first come first served, for an idle slot
 * (get_available_slot: the one whose cached prompt is most alike when
 * more than slot_prompt_similarity, common/common.h's 0.1, of the prompt, else the least
 * recently used, a slot never used first); with cache_prompt on, a slot
 * keeps its last prompt, so one that served the shared prefix skips it
 * (at most all but the prompt's last token). Each step is one batch
 * (update_slots): every generating slot's next token, then the prompts'
 * tokens, slot by slot, while the batch holds fewer than n_batch; a slot's
 * first token comes from the batch that holds its prompt's last token.
 * llama_decode runs the batch in passes of n_ubatch tokens (the config's
 * ubatch). kvplan takes the slots in the order they were taken. */
#include <stdint.h>

#include "sim_internal.h"

/* Every slot's cache is its own: nothing is held for the prefix. */
static void init(struct sim *m, struct sim_replica *r)
{
    r->free = m->c->blocks;
}

/* The waiting requests take the idle slots, in order. */
static void launch(struct sim *m, struct sim_replica *r)
{
    const struct sim_config *c = m->c;
    while (r->waiting.len > 0 && r->nrun < c->max_num_seqs && m->status == SIM_OK) {
        const struct sim_rq *q = &m->rq[sim_deque_front(&r->waiting)];
        bool warm_idle = r->slots_used > r->nrun, cold_idle = r->slots_used < c->max_num_seqs;
        bool alike = 10 * c->prefix_tokens > q->prompt;
        bool warm = warm_idle && (alike || !cold_idle);
        if (!warm)
            r->slots_used++;
        uint64_t start = 0;
        if (warm)
            start = c->prefix_tokens < q->prompt - 1 ? c->prefix_tokens : q->prompt - 1;
        if (!sim_admit(m, r, start, 0, sim_blocks(c, start), 0))
            return;
    }
}

static void schedule(struct sim *m, struct sim_replica *r)
{
    const struct sim_config *c = m->c;
    launch(m, r);
    uint64_t batch = 0;
    for (size_t i = 0; i < r->nrun && m->status == SIM_OK; i++) {
        struct sim_rq *q = &m->rq[r->running[i]];
        if (q->produced == 0)
            continue;
        q->blocks = sim_blocks(c, q->computed + 1);
        sim_sched_add(m, r, r->running[i], 1);
        batch++;
    }
    for (size_t i = 0; i < r->nrun && batch < c->max_num_batched_tokens && m->status == SIM_OK;
         i++) {
        struct sim_rq *q = &m->rq[r->running[i]];
        if (q->produced > 0)
            continue;
        uint64_t want = q->prompt - q->computed, room = c->max_num_batched_tokens - batch;
        want = want < room ? want : room;
        q->blocks = sim_blocks(c, q->computed + want);
        sim_sched_add(m, r, r->running[i], want);
        batch += want;
    }
    uint64_t held = 0;
    for (size_t i = 0; i < r->nrun; i++)
        held += m->rq[r->running[i]].blocks;
    r->free = c->blocks > held ? c->blocks - held : 0;
}

const struct sim_scheduler_ops sim_sched_slots = {.init = init, .schedule = schedule,
                                                  .groups_gaps = true};
