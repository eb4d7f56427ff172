/* sim_sched_sglang: SGLang's scheduler (core/sim.h), its defaults: a step is
 * a prefill batch when one can be formed (Scheduler.get_next_batch_to_run,
 * get_new_batch_prefill in python/sglang/srt/managers/scheduler.py), else a
 * decode of every running request (update_running_batch). The prefill batch
 * is PrefillAdder's (schedule_policy.py, read at sgl-project/sglang commit
 * 00550cd1): a chunked request's next chunk first, then the waiting
 * requests first come first served (schedule_policy fcfs), each charged its
 * prompt less the radix cache's hit and min(max_new_tokens, 4096) against
 * the free tokens less the running requests' reserve, min(max_new_tokens -
 * generated, 4096) x new_token_ratio each; a prompt longer than the chunk
 * left is cut (chunked_prefill_size) and goes on next step; max_prefill_tokens
 * 16384 a batch, at most max_running_requests running. When the pool runs out
 * (NO_TOKEN) or the requests reach max_running_requests, no prefill is tried
 * until one leaves (batch_is_full).
 * A decode that does not fit (check_decode_mem) retracts (retract_decode in
 * schedule_batch.py) the running request of the fewest generated tokens
 * (then the longest prompt, then the newest) until the rest fit, one at
 * least, none past the last, back to the end of the waiting queue, its cache
 * freed; new_token_ratio becomes min(1, (tokens generated + 20 x requests
 * left) / (their max_new_tokens + 1)); a decode that fits takes the ratio
 * down by (0.7 - 0.7 x 0.14) / 600, to 0.7 x 0.14 at least; an idle replica
 * resets it to 0.7 (environ.py: SGLANG_INIT_NEW_TOKEN_RATIO 0.7,
 * SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14, SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
 * 600, SGLANG_RETRACT_DECODE_STEPS 20, SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION
 * 4096).
 * With --scheduler-recv-interval N (default 1), a request reaches the
 * scheduler at its next poll: after N decodes, after a prefill batch, or at
 * once when it idles (Scheduler.recv_requests; SchedulerRecvSkipper.handle in
 * python/sglang/srt/managers/scheduler_recv_skipper.py, read at
 * sgl-project/sglang 70310f05, its weights environ.py's
 * SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DECODE 1 and _DEFAULT 1000). */
#include <stdint.h>

#include "sim_internal.h"

#define INIT_RATIO 0.7
#define MIN_RATIO (INIT_RATIO * 0.14)
#define RATIO_DECAY ((INIT_RATIO - MIN_RATIO) / 600)
#define RETRACT_STEPS 20
#define CLIP_NEW_TOKENS 4096
#define MAX_PREFILL_TOKENS 16384
#define RECV_WEIGHT_DECODE 1
#define RECV_WEIGHT_DEFAULT 1000

static void init(struct sim *m, struct sim_replica *r)
{
    (void)m;
    r->ratio = INIT_RATIO;
}

static double clip(uint64_t tokens)
{
    return (double)(tokens < CLIP_NEW_TOKENS ? tokens : CLIP_NEW_TOKENS);
}

/* The blocks q needs for `tokens` more. */
static uint64_t more_blocks(const struct sim_config *c, const struct sim_rq *q, uint64_t tokens)
{
    uint64_t all = sim_blocks(c, q->computed + tokens), held = q->blocks + q->shared;
    return all > held ? all - held : 0;
}

/* PrefillAdder's budgets through one prefill batch. */
struct adder {
    double rem_total;          /* free tokens less the reserve */
    int64_t rem_input, rem_chunk;
    size_t can_run;
};

/* add_chunked_req: the chunked request's next chunk; true when it runs. */
static bool add_chunked(struct sim *m, struct sim_replica *r, struct adder *a)
{
    size_t v = r->chunked;
    struct sim_rq *q = &m->rq[v];
    uint64_t rest = q->prompt + q->produced - q->computed;
    bool cut = rest > (uint64_t)a->rem_chunk;
    uint64_t want = cut ? (uint64_t)a->rem_chunk : rest, need = more_blocks(m->c, q, want);
    if (want == 0 || need > r->free)
        return false;
    r->free -= need;
    q->blocks += need;
    if (!sim_sched_add(m, r, v, want))
        return false;
    a->rem_total -= (double)want + (cut ? 0 : clip(q->output));
    a->rem_input -= (int64_t)want;
    a->rem_chunk -= (int64_t)want;
    a->can_run++;
    r->chunked = cut ? v : SIZE_MAX;
    return true;
}

/* add_one_req for the waiting queue's front; false when the batch ends. */
static bool add_one(struct sim *m, struct sim_replica *r, struct adder *a)
{
    const struct sim_config *c = m->c;
    size_t v = sim_deque_front(&r->waiting);
    struct sim_rq *q = &m->rq[v];
    uint64_t tokens = q->prompt + q->produced, shared;
    uint64_t start = sim_start_hit(c, q, tokens, &shared), extend = tokens - start;
    if ((double)extend + clip(q->output) >= a->rem_total) {
        r->full = true; /* NO_TOKEN */
        return false;
    }
    if ((int64_t)extend >= a->rem_input && a->can_run > 0)
        return false;
    bool cut = (int64_t)extend > a->rem_chunk;
    uint64_t want = cut ? (uint64_t)(a->rem_chunk > 0 ? a->rem_chunk : 0) : extend;
    uint64_t need = sim_blocks(c, start + want) - shared;
    if (want == 0 || need > r->free)
        return false;
    if (!sim_admit(m, r, start, shared, need, want))
        return false;
    a->rem_total -= (double)want + (cut ? 0 : clip(q->output));
    a->rem_input -= (int64_t)want;
    a->rem_chunk -= (int64_t)want;
    a->can_run++;
    if (cut)
        r->chunked = v;
    if (a->rem_total <= 0) {
        r->full = true;
        return false;
    }
    return a->rem_input > 0 && a->rem_chunk > 0;
}

/* PrefillAdder's rem_input_tokens: --max-prefill-tokens, else server_args.py's
 * default */
static int64_t max_prefill(const struct sim_config *c)
{
    return c->max_prefill_tokens ? (int64_t)c->max_prefill_tokens : MAX_PREFILL_TOKENS;
}

/* get_new_batch_prefill; true when it formed a batch. */
static bool prefill(struct sim *m, struct sim_replica *r)
{
    const struct sim_config *c = m->c;
    bool chunked = r->chunked != SIZE_MAX;
    size_t running = r->nrun - (chunked ? 1 : 0);
    if ((r->full || r->waiting.len == 0) && !chunked)
        return false;
    size_t room = c->max_num_seqs > running ? c->max_num_seqs - running : 0;
    struct adder a = {.rem_total = (double)r->free, .rem_input = max_prefill(c),
                      .rem_chunk = (int64_t)c->max_num_batched_tokens};
    for (size_t i = 0; i < r->nrun; i++) {
        const struct sim_rq *q = &m->rq[r->running[i]];
        if (r->running[i] != r->chunked)
            a.rem_total -= clip(q->output - q->produced) * r->ratio;
    }
    if (chunked && !add_chunked(m, r, &a))
        return r->nsched > 0;
    while (r->waiting.len > 0 && m->status == SIM_OK) {
        if (a.can_run >= room) {
            r->full = true;
            break;
        }
        if (!add_one(m, r, &a))
            break;
    }
    return r->nsched > 0;
}

/* The running request retract_decode takes first: the fewest generated
 * tokens, then the longest prompt, then the newest. */
static size_t retractee(const struct sim *m, const struct sim_replica *r)
{
    size_t best = SIZE_MAX;
    for (size_t i = r->nrun; i-- > 0;) {
        if (r->running[i] == r->chunked)
            continue;
        const struct sim_rq *q = &m->rq[r->running[i]];
        const struct sim_rq *b = best == SIZE_MAX ? NULL : &m->rq[r->running[best]];
        if (b == NULL || q->produced < b->produced ||
            (q->produced == b->produced && q->prompt > b->prompt))
            best = i;
    }
    return best;
}

/* The requests that decode (the running batch: all but a chunked one), and
 * the blocks their next tokens need. */
static size_t decoding(const struct sim_replica *r)
{
    return r->nrun - (r->chunked != SIZE_MAX ? 1 : 0);
}

static uint64_t decode_blocks(const struct sim *m, const struct sim_replica *r)
{
    uint64_t need = 0;
    for (size_t i = 0; i < r->nrun; i++)
        if (r->running[i] != r->chunked)
            need += more_blocks(m->c, &m->rq[r->running[i]], 1);
    return need;
}

/* update_running_batch, then the decode step. */
static void decode(struct sim *m, struct sim_replica *r)
{
    if (decoding(r) == 0) {
        r->ratio = INIT_RATIO; /* idle */
        return;
    }
    if (decode_blocks(m, r) > r->free) {
        while (decoding(r) > 1 && m->status == SIM_OK) {
            sim_preempt(m, r, retractee(m, r), false);
            if (decode_blocks(m, r) <= r->free)
                break;
        }
        double made = 0, most = 0;
        for (size_t i = 0; i < r->nrun; i++) {
            if (r->running[i] == r->chunked)
                continue;
            made += (double)m->rq[r->running[i]].produced;
            most += (double)m->rq[r->running[i]].output;
        }
        double ratio = (made + RETRACT_STEPS * (double)r->nrun) / (most + 1);
        r->ratio = ratio < 1 ? ratio : 1;
        r->full = false;
    } else {
        r->ratio = r->ratio - RATIO_DECAY > MIN_RATIO ? r->ratio - RATIO_DECAY : MIN_RATIO;
    }
    for (size_t i = 0; i < r->nrun && m->status == SIM_OK; i++) {
        size_t v = r->running[i];
        struct sim_rq *q = &m->rq[v];
        uint64_t need = more_blocks(m->c, q, 1);
        if (v == r->chunked || need > r->free)
            continue;
        r->free -= need;
        q->blocks += need;
        sim_sched_add(m, r, v, 1);
    }
}

/* recv_requests behind SchedulerRecvSkipper.handle: with
 * --scheduler-recv-interval N above 1 the scheduler takes what was sent to
 * it only when its counter reaches N, the counter growing by the last
 * batch's weight at each poll: 1 after a decode, 1000 after any other batch
 * (a prefill); an idle scheduler (nothing running) polls again at once, so
 * it takes a request as soon as it comes. */
static void receive(struct sim *m, struct sim_replica *r)
{
    if (m->c->recv_interval > 1 && r->nrun > 0) {
        r->recv_count += r->decoded ? RECV_WEIGHT_DECODE : RECV_WEIGHT_DEFAULT;
        if (r->recv_count < m->c->recv_interval)
            return;
    }
    r->recv_count = 0;
    sim_receive(m, r);
}

static void schedule(struct sim *m, struct sim_replica *r)
{
    receive(m, r);
    bool extend = prefill(m, r);
    if (!extend)
        decode(m, r);
    r->decoded = !extend && r->nsched > 0;
}

const struct sim_scheduler_ops sim_sched_sglang = {.init = init, .schedule = schedule,
                                                   .groups_gaps = true};
