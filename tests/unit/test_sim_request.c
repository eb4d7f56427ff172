/* The simulator's per-request term (an engine's request_overhead_s): the
 * time each request spends outside the GPU steps, added to its TTFT and its
 * end-to-end latency and not to its TPOT. Where it goes in the engines (read
 * for the releases tools/fit_ttft.py fits on, vLLM 0.11.0, SGLang 0.5.9 and
 * 0.5.12): vLLM's API server and AsyncLLM tokenize in the frontend process
 * and hand the request to EngineCoreProc over ZMQ (vllm/v1/engine/
 * core_client.py AsyncMPClient), and the output handler detokenizes the
 * first token on its way back (vllm/v1/engine/output_processor.py
 * OutputProcessor.process_outputs); SGLang's HTTP server tokenizes in the
 * TokenizerManager process (python/sglang/srt/managers/tokenizer_manager.py
 * TokenizerManager.generate_request), the Scheduler process takes it in
 * Scheduler.recv_requests (scheduler.py, every --scheduler-recv-interval
 * steps) and the DetokenizerManager process (detokenizer_manager.py
 * DetokenizerManager.event_loop) turns the token into text for the
 * TokenizerManager to send. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/speed_ttft.h"
#include "core/sim.h"
#include "core/workload.h"
#include "model_fixture.h"
#include "sim_fixture.h"

static void the_term_adds_to_ttft_and_e2el_not_tpot(void **state)
{
    (void)state;
    /* test_sim.c's two requests through a budget of 8 (10 ms steps): both
     * first tokens at 20 ms, A's last at 40 ms, B's at 30 ms. With 50 ms
     * outside the steps: TTFT 20 + 50 = 70 ms each; E2EL (40 + 30) / 2 + 50
     * = 85 ms; TPOT (E2EL - TTFT) / (out - 1) = 10 ms, as without; the steps
     * themselves the same four. */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.request_overhead_s = 0.05;
    struct workload_request reqs[] = {{0, 10, 3}, {0, 6, 2}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(tr.steps, 4);
    assert_true(near(r.ttft.mean, 0.07));
    assert_true(near(r.ttft.p99, 0.07));
    assert_true(near(r.e2el.mean, 0.085));
    assert_true(near(r.tpot.mean, 0.01));
    assert_true(near(r.itl.mean, 0.01));
    assert_true(near(r.duration, 0.04));
}

static void goodput_counts_the_term(void **state)
{
    (void)state;
    /* a 60 ms TTFT objective: both requests keep it at 20 ms, neither at 70 */
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.slo_ttft = 0.06;
    struct workload_request reqs[] = {{0, 10, 3}, {0, 6, 2}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.good, 2);
    c.request_overhead_s = 0.05;
    tr = (struct trace){0};
    assert_int_equal(sim_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(r.good, 0);
}

static void the_plan_takes_the_engines_term(void **state)
{
    (void)state;
    /* a lone request at a near-zero rate: its TTFT is the plan's prefill of
     * the prompt plus the engine's own term; the generic rule has none */
    const enum engine_kind kinds[] = {ENGINE_VLLM, ENGINE_SGLANG, ENGINE_TRTLLM, ENGINE_GENERIC};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        struct scenario s;
        static struct plan_result plan;
        lone_user_plan(kinds[k], &s, &plan);
        struct sim_config c;
        sim_config_of_plan(&s, &plan, &c);
        double own = speed_request_overhead_s(&s); /* the engine's, or every engine's */
        assert_true(near(c.request_overhead_s, own));
        assert_true(kinds[k] == ENGINE_GENERIC ? own == 0 : own > 0);
        if (kinds[k] == ENGINE_GENERIC)
            continue; /* not simulated */
        struct workload_params p = {.num_prompts = 20, .request_rate = 0.01, .burstiness = 1,
                                    .input_len = 1024, .output_len = 16};
        struct sim_result r = run_at(&c, p);
        /* the plan's first token holds the same term (core/speed_ttft.h) */
        assert_true(near(plan.speed.ttft_request_seconds, own));
        double want = plan.speed.ttft_seconds;
        if (fabs(r.ttft.mean - want) > 0.02 * want)
            fail_msg("engine %zu: TTFT %g s, want %g (plan's prefill %g + %g)", k, r.ttft.mean,
                     want, plan.speed.ttft_prefill_seconds, own);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_term_adds_to_ttft_and_e2el_not_tpot),
        cmocka_unit_test(goodput_counts_the_term),
        cmocka_unit_test(the_plan_takes_the_engines_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
