/* The serving simulator: hand-checked timelines on a step of fixed length
 * (two requests through a budget of 8 tokens, a preemption when the blocks
 * run out), and properties of runs on a real plan: no request lost, Little's
 * law, first-token percentiles that rise with the load, the single-request
 * times of the plan at a rate near zero. The generator: the same seed gives
 * the same requests, the lengths stay in vLLM's ranges, the arrivals end at
 * N / R. */
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

static void two_requests_through_a_budget_of_8(void **state)
{
    (void)state;
    /* A: 10-token prompt, 3 out; B: 6-token prompt, 2 out; both at 0.
     * step 1: A prefills 8 of its 10 (the budget), B waits;
     * step 2: A's last 2, then B's 6: both first tokens at 20 ms;
     * step 3: both decode; B's second token ends it at 30 ms;
     * step 4: A decodes its third at 40 ms. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    struct workload_request reqs[] = {{0, 10, 3}, {0, 6, 2}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(tr.steps, 4);
    assert_int_equal(tr.n[0], 1);
    seq_is(&tr, 0, 0, 0, 8);
    assert_int_equal(tr.n[1], 2);
    seq_is(&tr, 1, 0, 8, 2);
    seq_is(&tr, 1, 1, 0, 6);
    assert_int_equal(tr.n[2], 2);
    seq_is(&tr, 2, 0, 10, 1);
    seq_is(&tr, 2, 1, 6, 1);
    assert_int_equal(tr.n[3], 1);
    seq_is(&tr, 3, 0, 11, 1);
    for (size_t i = 0; i < 4; i++) {
        assert_true(near(tr.start[i], 0.01 * (double)i));
        assert_true(near(tr.seconds[i], 0.01));
    }
    /* the tokens: A at 20, 30, 40 ms; B at 20, 30 ms */
    assert_int_equal(tr.tokens, 5);
    size_t want_req[] = {0, 1, 0, 1, 0};
    double want_t[] = {0.02, 0.02, 0.03, 0.03, 0.04};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(tr.req[i], want_req[i]);
        assert_true(near(tr.t[i], want_t[i]));
    }
    assert_int_equal(r.completed, 2);
    assert_int_equal(r.total_input, 16);
    assert_int_equal(r.total_output, 5);
    assert_true(near(r.duration, 0.04));
    assert_true(near(r.ttft.mean, 0.02));
    assert_true(near(r.e2el.mean, 0.035));
    assert_true(near(r.e2el.median, 0.035));
    assert_true(near(r.e2el.p90, 0.03 + 0.9 * 0.01));
    assert_true(near(r.tpot.mean, 0.01));
    assert_true(near(r.itl.mean, 0.01));
    assert_true(near(r.itl.p99, 0.01));
    assert_true(near(r.request_throughput, 2 / 0.04));
    assert_true(near(r.output_throughput, 5 / 0.04));
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.max_running, 2);
    assert_int_equal(r.max_waiting, 2);
    /* waiting: 2 from 0 to 10 ms (both), 1 from... none after step 2:
     * 2 x 10 ms + 0 = B alone waits 0-10 ms after A joins at 0 */
    assert_true(near(r.mean_waiting, (0.01 * 1) / 0.04));
    assert_true(near(r.mean_running + r.mean_waiting, r.request_throughput * r.e2el.mean));
}

static void a_preemption_when_the_blocks_run_out(void **state)
{
    (void)state;
    /* Blocks of 4 tokens, 5 in the pool. A and B: 8-token prompts, 6 out.
     * step 1: both prefill, 2 blocks each, 1 left; first tokens at 10 ms;
     * step 2: A's 9th token takes the last block; B's needs one more: B,
     *   the newest, is preempted (its 2 blocks freed, its 8 tokens lost);
     * steps 3-6: A alone (B's 9 tokens need 3 blocks, 2 are free), its
     *   12th token a 4th block at step 6, its last token at 60 ms frees 4;
     * step 7: B computes its 8 + 1 tokens again: its 2nd token at 70 ms;
     * steps 8-11: B decodes, its 6th token at 110 ms. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.blocks = 5;
    c.max_num_batched_tokens = 16;
    struct workload_request reqs[] = {{0, 8, 6}, {0, 8, 6}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(tr.steps, 11);
    assert_int_equal(tr.n[1], 1);
    seq_is(&tr, 1, 0, 8, 1);
    assert_int_equal(tr.n[6], 1);
    seq_is(&tr, 6, 0, 0, 9);
    /* B's tokens */
    double b[6];
    size_t k = 0;
    for (size_t i = 0; i < tr.tokens; i++)
        if (tr.req[i] == 1)
            b[k++] = tr.t[i];
    assert_int_equal(k, 6);
    double want[] = {0.01, 0.07, 0.08, 0.09, 0.10, 0.11};
    for (size_t i = 0; i < 6; i++)
        assert_true(near(b[i], want[i]));
    assert_true(near(r.duration, 0.11));
    assert_true(near(r.peak_kv_usage, 0.8)); /* after step 1: 4 of 5 */
    /* ITL: A's 5 of 10 ms, B's 60 ms gap and 4 of 10 ms */
    assert_true(near(r.itl.mean, (9 * 0.01 + 0.06) / 10));
    assert_true(near(r.itl.median, 0.01));
    assert_true(r.itl.p99 > 0.05);
    assert_true(near(r.mean_running + r.mean_waiting, r.request_throughput * r.e2el.mean));
}

static void max_num_seqs_and_the_client_cap_hold(void **state)
{
    (void)state;
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.max_num_seqs = 1;
    struct workload_request reqs[] = {{0, 4, 2}, {0, 4, 2}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.max_running, 1);
    assert_true(near(r.duration, 0.04));
    /* the client sends one at a time: the second's times count from 20 ms */
    memset(&tr, 0, sizeof tr);
    c.max_num_seqs = 8;
    c.max_concurrency = 1;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_true(near(r.duration, 0.04));
    assert_true(near(r.ttft.mean, 0.01));
    assert_true(near(r.e2el.mean, 0.02));
    assert_int_equal(r.max_waiting, 1);
}

static void goodput_counts_the_requests_within_every_objective(void **state)
{
    (void)state;
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    struct workload_request reqs[] = {{0, 10, 3}, {0, 6, 2}};
    struct sim_result r;
    c.slo_e2el = 0.035; /* B (30 ms) keeps it, A (40 ms) not */
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_true(r.goodput);
    assert_int_equal(r.good, 1);
    assert_true(near(r.request_goodput, 1 / 0.04));
    c.slo_e2el = -1;
    c.slo_ttft = 0.02; /* at most: both */
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.good, 2);
}

static void percentiles_interpolate_as_numpy(void **state)
{
    (void)state;
    double v[] = {1, 2, 3, 4};
    /* numpy.percentile([1,2,3,4], 90) = 3.7, 50 = 2.5, 99 = 3.97 */
    assert_true(near(sim_percentile(v, 4, 90), 3.7));
    assert_true(near(sim_percentile(v, 4, 50), 2.5));
    assert_true(near(sim_percentile(v, 4, 99), 3.97));
    assert_true(near(sim_percentile(v, 1, 99), 1));
    assert_true(sim_percentile(v, 0, 50) == 0);
}

/* The generator. */

static struct workload_params params(uint64_t n, double rate)
{
    return (struct workload_params){.num_prompts = n, .request_rate = rate, .burstiness = 1,
                                    .input_len = 1024, .output_len = 128, .range_ratio = 0,
                                    .seed = 0};
}

static void the_same_seed_gives_the_same_requests(void **state)
{
    (void)state;
    enum { N = 500 };
    static struct workload_request a[N], b[N];
    struct workload_params p = params(N, 4);
    p.range_ratio = 0.5;
    workload_generate(&p, a);
    workload_generate(&p, b);
    assert_memory_equal(a, b, sizeof a);
    p.seed = 1;
    workload_generate(&p, b);
    assert_true(memcmp(a, b, sizeof a) != 0);
    /* the rate moves the arrivals, never the lengths */
    p.seed = 0;
    p.request_rate = 8;
    workload_generate(&p, b);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(a[i].prompt, b[i].prompt);
        assert_int_equal(a[i].output, b[i].output);
        assert_true(near(b[i].arrival, a[i].arrival / 2));
    }
}

static void lengths_stay_in_vllms_ranges(void **state)
{
    (void)state;
    enum { N = 20000 };
    static struct workload_request q[N];
    struct workload_params p = params(N, INFINITY);
    p.input_len = 100;
    p.output_len = 3;
    p.range_ratio = 0.25;
    p.prefix_len = 7;
    struct workload_bounds b = workload_bounds(&p);
    /* [floor(75), ceil(125)], [floor(2.25), ceil(3.75)] */
    assert_int_equal(b.in_lo, 75);
    assert_int_equal(b.in_hi, 125);
    assert_int_equal(b.out_lo, 2);
    assert_int_equal(b.out_hi, 4);
    workload_generate(&p, q);
    uint64_t lo = UINT64_MAX, hi = 0;
    double sum = 0;
    for (size_t i = 0; i < N; i++) {
        assert_true(q[i].arrival == 0);
        lo = q[i].prompt < lo ? q[i].prompt : lo;
        hi = q[i].prompt > hi ? q[i].prompt : hi;
        sum += (double)q[i].prompt;
        assert_in_range(q[i].output, 2, 4);
    }
    assert_int_equal(lo, 7 + 75);
    assert_int_equal(hi, 7 + 125);
    assert_true(fabs(sum / N - 107) < 0.5);
    /* an output of 1 token at most: never 0 */
    p.output_len = 1;
    p.range_ratio = 0.9;
    assert_int_equal(workload_bounds(&p).out_lo, 1);
}

static void arrivals_end_at_n_over_r_with_the_gaps_of_a_gamma(void **state)
{
    (void)state;
    enum { N = 20000 };
    static struct workload_request q[N];
    for (int k = 0; k < 3; k++) {
        double shape[] = {1.0, 0.25, 4.0};
        struct workload_params p = params(N, 5);
        p.burstiness = shape[k];
        workload_generate(&p, q);
        assert_true(near(q[N - 1].arrival, N / 5.0));
        /* the gaps' squared coefficient of variation is 1 / shape */
        double mean = q[N - 1].arrival / N, sq = 0, prev = 0;
        for (size_t i = 0; i < N; i++) {
            double g = q[i].arrival - prev;
            assert_true(g >= 0);
            sq += (g - mean) * (g - mean);
            prev = q[i].arrival;
        }
        double cv2 = sq / N / (mean * mean);
        assert_true(fabs(cv2 - 1 / shape[k]) < 0.1 / shape[k]);
    }
    struct workload_params p = params(4, 2);
    p.burstiness = INFINITY;
    workload_generate(&p, q);
    assert_true(near(q[0].arrival, 0.5) && near(q[3].arrival, 2.0));
}

/* Properties on a plan: Llama 3.1 8B on one H100 under vLLM. */

static void no_request_is_lost_and_littles_law_holds(void **state)
{
    (void)state;
    struct sim_config c = plan_config(ENGINE_VLLM, 8192);
    double rates[] = {2, 10, 30, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        struct workload_params p = params(400, rates[i]);
        p.range_ratio = 0.5;
        struct sim_result r = run_at(&c, p);
        assert_int_equal(r.completed, 400);
        assert_true(r.total_output >= 400 * 64);
        double in_system = r.mean_running + r.mean_waiting;
        /* the engine holds a request for its E2EL less the time outside the steps */
        double little = r.request_throughput * (r.e2el.mean - c.request_overhead_s);
        assert_true(fabs(in_system - little) <= 0.02 * little);
    }
}

static void preemptions_in_a_small_pool_lose_no_request(void **state)
{
    (void)state;
    struct sim_config c = plan_config(ENGINE_VLLM, 8192);
    c.blocks = 3000; /* 48k tokens for 200 requests of up to 3k */
    struct workload_params p = params(200, INFINITY);
    p.input_len = 1500;
    p.output_len = 1000;
    p.range_ratio = 0.5;
    struct sim_result r = run_at(&c, p);
    assert_int_equal(r.completed, 200);
    assert_true(r.preemptions > 0);
    assert_true(r.peak_kv_usage > 0.95 && r.peak_kv_usage <= 1.0);
    double little = r.request_throughput * r.e2el.mean;
    assert_true(fabs(r.mean_running + r.mean_waiting - little) <= 0.02 * little);
}

static void first_tokens_wait_longer_as_the_load_rises(void **state)
{
    (void)state;
    struct sim_config c = plan_config(ENGINE_VLLM, 8192);
    double rates[] = {1, 4, 8, 12};
    struct sim_result prev = {0};
    for (size_t i = 0; i < 4; i++) {
        struct sim_result r = run_at(&c, params(1000, rates[i]));
        assert_false(r.over_capacity);
        if (i > 0) {
            assert_true(r.ttft.median >= prev.ttft.median);
            assert_true(r.ttft.p90 >= prev.ttft.p90);
            assert_true(r.ttft.p99 >= prev.ttft.p99);
            assert_true(r.tpot.mean >= prev.tpot.mean);
        }
        prev = r;
    }
}

static void a_rate_past_capacity_is_said(void **state)
{
    (void)state;
    struct sim_config c = plan_config(ENGINE_VLLM, 8192);
    struct sim_result r = run_at(&c, params(2000, 500));
    assert_true(r.over_capacity);
    assert_true(r.queue_growth_per_s > 100);
}

/* 300 requests of 100 + 2,000 tokens: each takes longer than half the sending
 * (over 20 s against 30 s at 5 a second), so the system never fills and a
 * growing one may be its filling; the same stream continued says. At 5 a
 * second it keeps up (600 requests show it); at 8 it does not (1,200). */
static void a_run_too_short_to_fill_is_continued(void **state)
{
    (void)state;
    struct sim_config c = plan_config(ENGINE_VLLM, 8192);
    struct workload_params p = params(300, 5);
    p.input_len = 100;
    p.output_len = 2000;
    struct sim_result r = run_at(&c, p);
    assert_true(r.unjudged);
    assert_false(r.over_capacity);
    assert_int_equal(r.judged_requests, 600);
    assert_int_equal(r.completed, 300); /* the figures are the run's own */
    p.request_rate = 8;
    r = run_at(&c, p);
    assert_true(r.unjudged && r.over_capacity);
    assert_int_equal(r.judged_requests, 1200);
    assert_true(r.served_per_s < 8);
    /* a continued run is judged as it is: no further continuing */
    c.no_continue = true;
    r = run_at(&c, p);
    assert_true(r.unjudged && !r.over_capacity && r.judged_requests == 0);
}

static void near_zero_rate_gives_the_plans_single_request_times(void **state)
{
    (void)state;
    /* alone, a request's first token is the plan's prefill of its prompt, and
     * each next token a decode step of one user at its context */
    struct scenario s;
    static struct plan_result plan;
    lone_user_plan(ENGINE_VLLM, &s, &plan);
    struct sim_config c;
    sim_config_of_plan(&s, &plan, &c);
    struct sim_result r = run_at(&c, params(50, 0.01));
    /* ... plus vLLM's own time outside the steps (test_sim_request.c) */
    double ttft = plan.speed.ttft_seconds; /* its own term included */
    assert_true(fabs(r.ttft.mean - ttft) <= 0.02 * ttft);
    assert_true(fabs(r.tpot.mean - plan.speed.step_seconds) <= 0.02 * plan.speed.step_seconds);
    assert_true(r.max_running == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_requests_through_a_budget_of_8),
        cmocka_unit_test(a_preemption_when_the_blocks_run_out),
        cmocka_unit_test(max_num_seqs_and_the_client_cap_hold),
        cmocka_unit_test(goodput_counts_the_requests_within_every_objective),
        cmocka_unit_test(percentiles_interpolate_as_numpy),
        cmocka_unit_test(the_same_seed_gives_the_same_requests),
        cmocka_unit_test(lengths_stay_in_vllms_ranges),
        cmocka_unit_test(arrivals_end_at_n_over_r_with_the_gaps_of_a_gamma),
        cmocka_unit_test(no_request_is_lost_and_littles_law_holds),
        cmocka_unit_test(preemptions_in_a_small_pool_lose_no_request),
        cmocka_unit_test(first_tokens_wait_longer_as_the_load_rises),
        cmocka_unit_test(a_rate_past_capacity_is_said),
        cmocka_unit_test(a_run_too_short_to_fill_is_continued),
        cmocka_unit_test(near_zero_rate_gives_the_plans_single_request_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
