/* TTFT under a closed-loop client (`vllm bench serve --max-concurrency C`):
 * a request is sent when another finishes, so it meets C - 1 requests that
 * decode, and what its first token waits for is each engine's rule for
 * taking a new prompt in among them. Worked timelines on test_sim.c's fixed
 * 10 ms steps (every step as long, whatever it runs), three requests, the
 * first two sent at once:
 *  - vLLM V1 (Scheduler.schedule in vllm/v1/core/sched/scheduler.py, read
 *    at vllm-project/vllm 00024d31): the running requests take the step's
 *    token budget first, a decode 1 token each; the new prompt gets what is
 *    left, a chunk, and its first token comes with its last chunk;
 *  - SGLang (Scheduler.get_next_batch_to_run in
 *    python/sglang/srt/managers/scheduler.py): a prefill batch runs alone,
 *    the running requests' decode paused for it; with
 *    --scheduler-recv-interval N the new request reaches the scheduler only
 *    at its next poll (Scheduler.recv_requests behind
 *    SchedulerRecvSkipper.handle, scheduler_recv_skipper.py at
 *    sgl-project/sglang 70310f05: a counter grown by 1 a decode, 1000 after
 *    any other batch, polled at N), so it waits for the decodes before it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sim.h"
#include "core/workload.h"
#include "sim_fixture.h"

/* Three requests sent at once (the client's cap spaces them): outputs of
 * 2, 6 and 2 tokens. */
static struct sim_result closed_loop(struct sim_config *c, uint64_t prompt, uint64_t cap)
{
    const struct workload_request q[3] = {{0, prompt, 2}, {0, prompt, 6}, {0, prompt, 2}};
    memset(c->ctx, 0, sizeof(struct trace));
    c->max_concurrency = cap;
    struct sim_result r;
    assert_int_equal(sim_run(c, q, 3, &r), SIM_OK);
    return r;
}

/* The time of request v's k-th token (0: the first) in the trace. */
static double token_at(const struct trace *tr, size_t v, uint64_t k)
{
    for (size_t i = 0; i < tr->tokens; i++)
        if (tr->req[i] == v && tr->index[i] == k)
            return tr->t[i];
    fail_msg("request %zu has no token %llu", v, (unsigned long long)k);
    return -1;
}

/* The three requests' first tokens came at a, b and c seconds. */
static void firsts(const struct trace *tr, double a, double b, double c)
{
    assert_true(near(token_at(tr, 0, 0), a));
    assert_true(near(token_at(tr, 1, 0), b));
    assert_true(near(token_at(tr, 2, 0), c));
}

static void vllm_prefill_shares_the_budget_with_decodes(void **state)
{
    (void)state;
    /* Prompts of 8 tokens, a budget of 8. One in flight: each prompt is one
     * step alone, TTFT 10 ms each. Two in flight: A's prompt takes [0, 10]
     * whole (TTFT 10); at 10 A decodes (1 token) and B gets the 7 left; at 20
     * A is done, C is sent, B's last token and 7 of C's run [20, 30] (B's
     * TTFT 30); C's last token beside B's decode [30, 40] (C's TTFT 40 - 20 =
     * 20). Mean (10 + 30 + 20) / 3 = 20 ms against 10. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    struct sim_result one = closed_loop(&c, 8, 1);
    assert_true(near(one.ttft.mean, 0.010));
    struct sim_result two = closed_loop(&c, 8, 2);
    firsts(&tr, 0.010, 0.030, 0.040);
    assert_true(near(two.ttft.mean, 0.020));
    seq_is(&tr, 1, 0, 8, 1); /* step [10, 20]: A's decode, then B's chunk of 7 */
    seq_is(&tr, 1, 1, 0, 7);
}

static void sglang_prefill_pauses_the_decodes(void **state)
{
    (void)state;
    /* Prompts of 4 tokens, every step polling (the default). Two in flight:
     * A and B prefill together [0, 10]; both decode [10, 20]; A is done at
     * 20 and C, sent then, prefills alone [20, 30] (TTFT 10), B's decode
     * paused: B's tokens at 10, 20, then 40. TTFT 10 ms for all three, as
     * with one in flight. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.sched = SIM_SCHED_SGLANG;
    struct sim_result two = closed_loop(&c, 4, 2);
    assert_true(near(two.ttft.mean, 0.010));
    firsts(&tr, 0.010, 0.010, 0.030);
    assert_true(near(token_at(&tr, 1, 1), 0.020));
    assert_true(near(token_at(&tr, 1, 2), 0.040));
    assert_int_equal(tr.n[2], 1); /* [20, 30]: C's prefill, nothing else */
    seq_is(&tr, 2, 0, 0, 4);
}

static void sglang_recv_interval_makes_ttft_grow_with_concurrency(void **state)
{
    (void)state;
    /* --scheduler-recv-interval 3, prompts of 4. One in flight: each request
     * comes to an idle scheduler, which polls at once: TTFT 10 ms each. Two
     * in flight: A and B come to an idle scheduler [0, 10] (TTFT 10 each);
     * the poll after that prefill takes 1000 (polls, counter 0); decode
     * [10, 20]; at 20 A is done and C sent, the poll's counter 1: not taken;
     * B decodes [20, 30] (counter 2) and [30, 40] (counter 3: taken at 40);
     * C prefills [40, 50]: TTFT 50 - 20 = 30 ms. Mean 50 / 3 ms. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.sched = SIM_SCHED_SGLANG;
    c.recv_interval = 3;
    struct sim_result one = closed_loop(&c, 4, 1);
    assert_true(near(one.ttft.mean, 0.010));
    struct sim_result two = closed_loop(&c, 4, 2);
    firsts(&tr, 0.010, 0.010, 0.050);
    assert_true(near(token_at(&tr, 1, 2), 0.030)); /* B decodes while C waits */
    assert_true(near(token_at(&tr, 1, 3), 0.040));
    assert_true(near(two.ttft.mean, 0.050 / 3));
    assert_true(two.ttft.mean > one.ttft.mean);
    /* every step polling, C is prefilled at once: 10 ms (the test above) */
    c.recv_interval = 1;
    assert_true(near(closed_loop(&c, 4, 2).ttft.mean, 0.010));
}

/* --warm-prompts: the first requests find their prompt in vLLM's prefix
 * cache, left by an earlier run on the same server (the same seed's
 * prompts), the hit its whole blocks but the last token's
 * (KVCacheManager.get_computed_blocks caps it at prompt - 1,
 * vllm/v1/core/kv_cache_manager.py at vllm-project/vllm 003df296); the
 * scheduler then counts only the rest against the budget
 * (Scheduler.schedule's num_new_tokens = num_tokens - num_computed_tokens,
 * vllm/v1/core/sched/scheduler.py at 00024d31). */
static void vllm_warm_prompts_skip_their_cached_blocks(void **state)
{
    (void)state;
    /* Three prompts of 8 tokens sent at once, outputs of 2, blocks of 4, a
     * budget of 8. Cold: A's 8 [0, 10]; A's decode and B's 7 [10, 20]; B's
     * last and C's 7 [20, 30]; C's last [30, 40]: TTFT 10, 30, 40, mean
     * 80 / 3 ms. A and B warm: each finds (8 - 1) / 4 = 1 whole block, 4
     * tokens, and computes the other 4: both [0, 10] (TTFT 10, 10); their
     * decodes and C's 6 [10, 20]; C's last 2 [20, 30]: TTFT 30, mean
     * 50 / 3 ms. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    const struct workload_request q[3] = {{0, 8, 2}, {0, 8, 2}, {0, 8, 2}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, q, 3, &r), SIM_OK);
    firsts(&tr, 0.010, 0.030, 0.040);
    assert_true(near(r.ttft.mean, 0.080 / 3));
    memset(&tr, 0, sizeof tr);
    c.warm_requests = 2;
    assert_int_equal(sim_run(&c, q, 3, &r), SIM_OK);
    firsts(&tr, 0.010, 0.010, 0.030);
    assert_true(near(r.ttft.mean, 0.050 / 3));
    seq_is(&tr, 0, 0, 4, 4); /* A from its cached block: 4 tokens over 4 */
    seq_is(&tr, 0, 1, 4, 4);
    seq_is(&tr, 1, 2, 0, 6); /* C, cold, takes the 6 the decodes leave */
    assert_int_equal(r.total_input, 24); /* the benchmark still counts every prompt token */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_prefill_shares_the_budget_with_decodes),
        cmocka_unit_test(sglang_prefill_pauses_the_decodes),
        cmocka_unit_test(sglang_recv_interval_makes_ttft_grow_with_concurrency),
        cmocka_unit_test(vllm_warm_prompts_skip_their_cached_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
