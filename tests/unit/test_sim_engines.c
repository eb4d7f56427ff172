/* Each engine's scheduler in the simulator (core/sim.h): hand-checked
 * timelines on a step of fixed length (10 ms whatever it runs), each read
 * from the engine's source, and properties of runs on each engine's real
 * plan: no request lost, Little's law, the plan's single-request times at a
 * rate near zero; and the routers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/sim.h"
#include "core/workload.h"
#include "model_fixture.h"
#include "sim_fixture.h"

/* The times of request q's tokens, in order; their count. */
static size_t tokens_of(const struct trace *tr, size_t q, double *t, size_t most)
{
    size_t k = 0;
    for (size_t i = 0; i < tr->tokens && k < most; i++)
        if (tr->req[i] == q)
            t[k++] = tr->t[i];
    return k;
}

static void times_are(const double *got, size_t n, const double *want)
{
    for (size_t i = 0; i < n; i++)
        if (!near(got[i], want[i]))
            fail_msg("token %zu at %g s, not %g s", i, got[i], want[i]);
}

/* llama.cpp's server of n slots on a step of fixed length. */
static struct sim_config llamacpp_slots(struct trace *tr, uint32_t n)
{
    struct sim_config c = fixed_step(tr);
    c.sched = SIM_SCHED_SLOTS;
    c.block_tokens = 1;
    c.max_num_seqs = n;
    return c;
}

static void a_llamacpp_request_waits_for_a_slot(void **state)
{
    (void)state;
    /* tools/server/server.cpp (ggml-org/llama.cpp aa6192d3), update_slots: a
     * task takes an idle slot; the batch holds every generating slot's token,
     * then prompt tokens slot by slot while it holds fewer than n_batch.
     * 2 slots, n_batch 8; A 6 + 2 tokens, B 4 + 3, C 2 + 1, all at 0:
     * step 1: A and B take the slots, C waits; A's 6 and B's first 2
     *   (the batch is full): A's first token at 10 ms;
     * step 2: A's token, B's last 2: A's last and B's first at 20 ms; A's
     *   slot is idle;
     * step 3: C takes it: B's token, C's 2: B's second, C's only token at 30;
     * step 4: B's last at 40 ms. */
    struct trace tr = {0};
    struct sim_config c = llamacpp_slots(&tr, 2);
    struct workload_request reqs[] = {{0, 6, 2}, {0, 4, 3}, {0, 2, 1}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 3, &r), SIM_OK);
    assert_int_equal(tr.steps, 4);
    assert_int_equal(tr.n[0], 2);
    seq_is(&tr, 0, 0, 0, 6);
    seq_is(&tr, 0, 1, 0, 2);
    seq_is(&tr, 1, 0, 6, 1);
    seq_is(&tr, 1, 1, 2, 2);
    seq_is(&tr, 2, 0, 4, 1);
    seq_is(&tr, 2, 1, 0, 2);
    assert_int_equal(tr.n[3], 1);
    seq_is(&tr, 3, 0, 5, 1);
    double t[4];
    assert_int_equal(tokens_of(&tr, 2, t, 4), 1);
    assert_true(near(t[0], 0.03)); /* C's first token waited for A's slot */
    assert_int_equal(tokens_of(&tr, 1, t, 4), 3);
    times_are(t, 3, (double[]){0.02, 0.03, 0.04});
    assert_int_equal(r.completed, 3);
    assert_int_equal(r.max_running, 2);
    assert_int_equal(r.max_waiting, 3);
    assert_int_equal(r.preemptions, 0);
    assert_true(near(r.duration, 0.04));
    /* llama_decode runs a batch in passes of n_ubatch: with 4, step 1's 8
     * tokens take two passes (20 ms), step 2's 3 one */
    memset(&tr, 0, sizeof tr);
    c.ubatch = 4;
    assert_int_equal(sim_run(&c, reqs, 3, &r), SIM_OK);
    assert_true(near(tr.seconds[0], 0.02));
    assert_true(near(tr.seconds[1], 0.01));
}

static void a_warm_llamacpp_slot_skips_the_prefix(void **state)
{
    (void)state;
    /* cache_prompt: a slot keeps its last prompt; get_available_slot takes the
     * idle slot whose prompt is most alike past slot_prompt_similarity 0.1.
     * One slot, a 6-token prefix in prompts of 8: A computes all 8; B, in
     * A's slot, only its last 2. */
    struct trace tr = {0};
    struct sim_config c = llamacpp_slots(&tr, 1);
    c.prefix_tokens = 6;
    struct workload_request reqs[] = {{0, 8, 1}, {0, 8, 1}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(tr.steps, 2);
    seq_is(&tr, 0, 0, 0, 8);
    seq_is(&tr, 1, 0, 6, 2);
    /* two slots, B sent after A ends: A's slot (a 4-token prefix of 20, a
     * likeness of 0.2) beats the never used one; below 0.1 (a 1-token
     * prefix) the least recently used, the never used, computes all 20 */
    uint64_t prefix[] = {4, 1}, start[] = {4, 0};
    for (size_t k = 0; k < 2; k++) {
        memset(&tr, 0, sizeof tr);
        c = llamacpp_slots(&tr, 2);
        c.max_num_batched_tokens = 32;
        c.prefix_tokens = prefix[k];
        struct workload_request two[] = {{0, 20, 1}, {0.015, 20, 1}};
        assert_int_equal(sim_run(&c, two, 2, &r), SIM_OK);
        assert_int_equal(tr.steps, 2);
        seq_is(&tr, 1, 0, start[k], 20 - start[k]);
    }
}

static struct sim_config trtllm_pool(struct trace *tr, enum sim_capacity policy)
{
    struct sim_config c = fixed_step(tr);
    c.sched = SIM_SCHED_TRTLLM;
    c.capacity = policy;
    c.blocks = 6;
    c.block_tokens = 4;
    c.max_num_batched_tokens = 16;
    return c;
}

static void trtllm_guaranteed_no_evict_refuses_what_max_utilization_admits(void **state)
{
    (void)state;
    /* cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp (NVIDIA/TensorRT-LLM
     * 02a10fed). 6 blocks of 4 tokens; A 8 + 8 tokens (a life of 4 blocks),
     * B 4 + 8 (3 blocks), both at 0, max_num_tokens 16.
     * GUARANTEED_NO_EVICT (GuaranteedNoEvictScheduler::impl): A starts (4 of
     * 6); B's 3 do not fit the 2 left, nor later beside A's reserve, so B
     * starts when A ends: A's tokens at 10..80 ms, B's first at 90, its last
     * at 160; nothing evicted. */
    struct trace tr = {0};
    struct sim_config c = trtllm_pool(&tr, SIM_GUARANTEED_NO_EVICT);
    struct workload_request reqs[] = {{0, 8, 8}, {0, 4, 8}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(tr.n[0], 1);
    seq_is(&tr, 0, 0, 0, 8);
    double t[8];
    assert_int_equal(tokens_of(&tr, 1, t, 8), 8);
    assert_true(near(t[0], 0.09) && near(t[7], 0.16));
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.max_running, 1);
    assert_true(near(r.duration, 0.16));
    /* MAX_UTILIZATION (MaxUtilizationScheduler): a step's blocks only, so B
     * starts at once beside A (both prompts in step 1: 8 + 4 tokens). At step
     * 6 A's 13th token takes the last free block and B's 9th finds none: B,
     * the last started, is paused (5 tokens out) and that step starts no one;
     * it computes its 4 + 5 again when A's end frees the pool, at 80 ms: its
     * tokens at 10..50, then 90, 100, 110 ms. */
    memset(&tr, 0, sizeof tr);
    c = trtllm_pool(&tr, SIM_MAX_UTILIZATION);
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(tr.n[0], 2);
    seq_is(&tr, 0, 0, 0, 8);
    seq_is(&tr, 0, 1, 0, 4);
    assert_int_equal(tokens_of(&tr, 1, t, 8), 8);
    times_are(t, 8, (double[]){0.01, 0.02, 0.03, 0.04, 0.05, 0.09, 0.10, 0.11});
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(tr.n[8], 1);
    seq_is(&tr, 8, 0, 0, 9);
    assert_true(near(r.duration, 0.11));
    /* a life of 5 blocks never starts in a pool of 4 under GUARANTEED_NO_EVICT,
     * though its tokens less the last fit (4 blocks): the run says so */
    c = trtllm_pool(&tr, SIM_GUARANTEED_NO_EVICT);
    c.blocks = 4;
    struct workload_request big = {0, 8, 9};
    assert_int_equal(sim_run(&c, &big, 1, &r), SIM_STUCK);
}

static void sglang_retracts_when_the_reserve_falls_short(void **state)
{
    (void)state;
    /* python/sglang/srt/managers/schedule_policy.py PrefillAdder (sgl-project/
     * sglang 00550cd1), scheduler.py update_running_batch, schedule_batch.py
     * retract_decode. 42 one-token blocks; A 4 + 20 tokens at 0, B 4 + 20 at
     * 15 ms; chunks of 64.
     * step 1, a prefill: A's 4 + 20 fit the 42 free: its first token at 10;
     * step 2, a decode (no one waits): A's second at 20 ms, the ratio decays
     *   to 0.7 - (0.7 - 0.098) / 600 = 0.698997;
     * step 3, a prefill: the free 37 less A's reserve, 18 x 0.698997 = 12.58,
     *   leave 24.42: B's 4 + 20 fit (with A's whole 18 they would not):
     *   B's first token at 30 ms, A waits;
     * steps 4-19, decodes of both, 2 tokens a step: after step 19 A holds
     *   4 + 17, B 4 + 16, 1 block free;
     * step 20: the decode needs 2: B, of the fewer tokens out (17 to A's 18),
     *   is retracted to the waiting queue, its 20 blocks freed; A's 19th;
     * step 21: B's 4 + 17 again and 20 out do not fit beside A (NO_TOKEN):
     *   A's last token at 210 ms, which clears batch_is_full;
     * step 22: B's 21 tokens computed again: its 18th token at 220 ms, then
     *   230, 240. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.sched = SIM_SCHED_SGLANG;
    c.blocks = 42;
    c.block_tokens = 1;
    c.max_num_batched_tokens = 64;
    struct workload_request reqs[] = {{0, 4, 20}, {0.015, 4, 20}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(tr.n[2], 1);
    seq_is(&tr, 2, 0, 0, 4); /* step 3: B's prefill alone */
    assert_int_equal(tr.n[3], 2);
    assert_int_equal(tr.n[19], 1); /* step 20: A alone */
    seq_is(&tr, 19, 0, 21, 1);
    seq_is(&tr, 21, 0, 0, 21); /* step 22: B again */
    double t[20];
    assert_int_equal(tokens_of(&tr, 1, t, 20), 20);
    assert_true(near(t[0], 0.03) && near(t[16], 0.19));
    times_are(t + 17, 3, (double[]){0.22, 0.23, 0.24});
    assert_int_equal(tokens_of(&tr, 0, t, 20), 20);
    assert_true(near(t[1], 0.02) && near(t[2], 0.04) && near(t[19], 0.21));
    assert_true(near(r.peak_kv_usage, 41.0 / 42));
    /* the same with a reserve of A's whole output (a ratio of 1) refuses B
     * at step 3; here a pool 1 block smaller makes 0.7's reserve refuse it
     * too, and B waits for A, with nothing retracted */
    memset(&tr, 0, sizeof tr);
    c.blocks = 41;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(tokens_of(&tr, 1, t, 20), 20);
    assert_true(t[0] > 0.2);
}

static void sglang_max_prefill_tokens_caps_a_prefill_batch(void **state)
{
    (void)state;
    /* schedule_policy.py PrefillAdder: rem_input_tokens starts at
     * --max-prefill-tokens (server_args.py default 16384) and add_one_req
     * stops when a request's extend is at least what is left, once one runs
     * (sgl-project/sglang 00550cd1). Three 10-token prompts at 0, 2 tokens
     * out each, 10 ms a step. By default one prefill takes all three: first
     * tokens at 10 ms. With 20: A (20 left, then 10), B refused (10 >= 10):
     * A alone at 10 ms; then B, then C, a prefill a step before any decode
     * (get_next_batch_to_run forms a prefill first): 20 and 30 ms. With 21:
     * A and B (1 left), C next: 10, 10, 20 ms. */
    struct workload_request reqs[] = {{0, 10, 2}, {0, 10, 2}, {0, 10, 2}};
    const uint64_t caps[] = {0, 20, 21};
    const double want[][3] = {{0.01, 0.01, 0.01}, {0.01, 0.02, 0.03}, {0.01, 0.01, 0.02}};
    for (size_t k = 0; k < 3; k++) {
        struct trace tr = {0};
        struct sim_config c = fixed_step(&tr);
        c.sched = SIM_SCHED_SGLANG;
        c.blocks = 1000;
        c.block_tokens = 1;
        c.max_num_batched_tokens = 64;
        c.max_prefill_tokens = caps[k];
        struct sim_result r;
        assert_int_equal(sim_run(&c, reqs, 3, &r), SIM_OK);
        double first[3];
        for (size_t q = 0; q < 3; q++) {
            double t[2];
            assert_int_equal(tokens_of(&tr, q, t, 2), 2);
            first[q] = t[0];
        }
        times_are(first, 3, want[k]);
    }
}

/* Properties on each engine's plan. */

static const enum engine_kind engines[] = {ENGINE_VLLM, ENGINE_SGLANG, ENGINE_LLAMACPP,
                                           ENGINE_TRTLLM};

static void every_engine_loses_no_request_and_keeps_littles_law(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        struct sim_config c = plan_config(engines[e], 8192);
        double rates[] = {2, 10, 30, INFINITY};
        for (size_t i = 0; i < 4; i++) {
            struct workload_params p = {.num_prompts = 400, .request_rate = rates[i],
                                        .burstiness = 1, .input_len = 1024, .output_len = 128,
                                        .range_ratio = 0.5};
            struct sim_result r = run_at(&c, p);
            assert_int_equal(r.completed, 400);
            /* the engine holds a request for its E2EL less its time outside the steps */
            double little = r.request_throughput * (r.e2el.mean - c.request_overhead_s);
            if (fabs(r.mean_running + r.mean_waiting - little) > 0.02 * little)
                fail_msg("engine %zu at %g req/s: %g in the system, Little's law %g", e,
                         rates[i], r.mean_running + r.mean_waiting, little);
        }
    }
}

static void every_engine_retracting_or_waiting_in_a_small_pool_loses_no_request(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        struct sim_config c = plan_config(engines[e], 8192);
        c.blocks = 48000 / c.block_tokens; /* 48k tokens for 200 requests of up to 3k */
        if (c.max_num_seqs > 64)
            c.max_num_seqs = 64;
        struct workload_params p = {.num_prompts = 200, .request_rate = INFINITY,
                                    .burstiness = 1, .input_len = 1500, .output_len = 1000,
                                    .range_ratio = 0.5};
        struct sim_result r = run_at(&c, p);
        assert_int_equal(r.completed, 200);
        assert_true(r.peak_kv_usage <= 1.0);
        double little = r.request_throughput * r.e2el.mean;
        assert_true(fabs(r.mean_running + r.mean_waiting - little) <= 0.02 * little);
    }
}

static void every_engine_near_zero_rate_gives_the_plans_single_request_times(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        struct scenario s;
        static struct plan_result plan;
        lone_user_plan(engines[e], &s, &plan);
        struct sim_config c;
        sim_config_of_plan(&s, &plan, &c);
        struct workload_params p = {.num_prompts = 50, .request_rate = 0.01, .burstiness = 1,
                                    .input_len = 1024, .output_len = 128};
        struct sim_result r = run_at(&c, p);
        /* the plan's first token holds the engine's per-request term, as the
         * simulated one does (test_sim_request.c, core/speed_ttft.h) */
        double ttft = plan.speed.ttft_seconds;
        double tpot = plan.speed.step_seconds;
        if (fabs(r.ttft.mean - ttft) > 0.02 * ttft || fabs(r.tpot.mean - tpot) > 0.02 * tpot)
            fail_msg("engine %zu: TTFT %g s (plan %g), TPOT %g s (plan %g)", e, r.ttft.mean, ttft,
                     r.tpot.mean, tpot);
        assert_true(r.max_running == 1);
    }
}

/* The routers. */

static struct sim_config four_replicas(struct trace *tr, enum sim_router router)
{
    struct sim_config c = fixed_step(tr);
    c.replicas = 4;
    c.router = router;
    c.on_step = NULL;
    c.on_token = NULL;
    return c;
}

static void the_routers_place_requests_their_way(void **state)
{
    (void)state;
    /* 8 requests at once: round robin 2 each; least outstanding too (each
     * goes to the emptiest, ties to the first); vLLM's DPLB as well. With a
     * prefix of 900 in prompts of 1000, SGLang's cache-aware router sends
     * every one to the replica holding the prefix (loads within 64): 1 step
     * a replica becomes all 8 on one. */
    struct trace tr = {0};
    struct workload_request reqs[8];
    for (size_t i = 0; i < 8; i++)
        reqs[i] = (struct workload_request){0, 1000, 1};
    enum sim_router routers[] = {SIM_ROUTE_ROUND_ROBIN, SIM_ROUTE_LEAST_OUTSTANDING,
                                 SIM_ROUTE_DPLB};
    for (size_t k = 0; k < 3; k++) {
        struct sim_config c = four_replicas(&tr, routers[k]);
        c.max_num_batched_tokens = 2000;
        struct sim_result r;
        assert_int_equal(sim_run(&c, reqs, 8, &r), SIM_OK);
        assert_int_equal(r.steps, 4); /* one step each: 2 prompts of 1000 */
    }
    struct sim_config c = four_replicas(&tr, SIM_ROUTE_PREFIX_AWARE);
    c.max_num_batched_tokens = 2000;
    c.prefix_tokens = 900;
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 8, &r), SIM_OK);
    assert_int_equal(r.steps, 1); /* all 8 on one replica: 8 x 100 new tokens, one step */
    assert_int_equal(r.max_running, 8);
    /* without a prefix it sends each to the smallest tree: spread out */
    c.prefix_tokens = 0;
    assert_int_equal(sim_run(&c, reqs, 8, &r), SIM_OK);
    assert_int_equal(r.steps, 4);
    assert_string_equal(sim_router_name(SIM_ROUTE_PREFIX_AWARE), "prefix-aware");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_llamacpp_request_waits_for_a_slot),
        cmocka_unit_test(a_warm_llamacpp_slot_skips_the_prefix),
        cmocka_unit_test(trtllm_guaranteed_no_evict_refuses_what_max_utilization_admits),
        cmocka_unit_test(sglang_retracts_when_the_reserve_falls_short),
        cmocka_unit_test(sglang_max_prefill_tokens_caps_a_prefill_batch),
        cmocka_unit_test(every_engine_loses_no_request_and_keeps_littles_law),
        cmocka_unit_test(every_engine_retracting_or_waiting_in_a_small_pool_loses_no_request),
        cmocka_unit_test(every_engine_near_zero_rate_gives_the_plans_single_request_times),
        cmocka_unit_test(the_routers_place_requests_their_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
