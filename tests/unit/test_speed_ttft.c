/* The first token as a benchmark client measures it (core/speed_ttft.h):
 * the prompt's prefill, the engine's per-request time outside the steps,
 * and the wait for the step in progress when other users decode. Numbers
 * worked by hand. The schedulers admit a request only between steps: vLLM
 * V1 v1/engine/core.py EngineCoreProc.run_busy_loop (_process_input_queue,
 * then _process_engine_step: EngineCore.step's schedule, execute_model,
 * update_from_output) and SGLang python/sglang/srt/managers/scheduler.py
 * event_loop_normal (recv_requests, process_input_requests,
 * get_next_batch_to_run, run_batch), both at their 2025-2026 releases
 * (vLLM 0.11, SGLang 0.5). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/scenario.h"
#include "core/speed.h"
#include "core/speed_ttft.h"
#include "model_fixture.h"

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void alone_the_first_token_is_the_prefill_and_the_request(void **state)
{
    (void)state;
    /* 24.26 ms of prefill + SGLang's 135.7 ms: 159.96 ms; nothing waited for */
    struct ttft_terms t = speed_ttft_terms(0.02426, 0.1357, 0.0218, 1);
    assert_true(t.wait_s == 0);
    assert_true(close_to(t.total_s, 0.15996));
}

static void with_others_it_waits_half_their_step(void **state)
{
    (void)state;
    /* 64 users at a 21.8 ms step: 10.9 ms waited; 24.26 + 135.7 + 10.9 = 170.86 ms */
    struct ttft_terms t = speed_ttft_terms(0.02426, 0.1357, 0.0218, 64);
    assert_true(close_to(t.wait_s, 0.0109));
    assert_true(close_to(t.total_s, 0.17086));
    /* two users: the same half step, whatever the count */
    assert_true(close_to(speed_ttft_terms(0.02426, 0.1357, 0.0218, 2).wait_s, 0.0109));
    /* no prefill figure (no compute figure for the GPU): no time to give */
    assert_true(speed_ttft_terms(0, 0.1357, 0.0218, 64).total_s == 0);
}

static struct plan_result plan_of(enum engine_kind e, uint64_t users, double max_ttft)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = e;
    s.context_tokens = 8192;
    s.prompt_tokens = 1024;
    s.concurrency = users;
    s.max_ttft_seconds = max_ttft;
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&s, NULL, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

static void the_plan_adds_the_engines_term_and_the_wait(void **state)
{
    (void)state;
    /* vLLM's per-request term (policy_vllm.c, tools/fit_ttft.py) on top of
     * the same prefill; at 16 users half their decode step too */
    double own = engine_desc(ENGINE_VLLM)->request_overhead_s[0][0]; /* dense, NVIDIA */
    struct plan_result one = plan_of(ENGINE_VLLM, 1, 0);
    assert_true(own > 0);
    assert_true(close_to(one.speed.ttft_request_seconds, own));
    assert_true(one.speed.ttft_wait_seconds == 0);
    assert_true(close_to(one.speed.ttft_seconds, one.speed.ttft_prefill_seconds + own));
    struct plan_result many = plan_of(ENGINE_VLLM, 16, 0);
    assert_true(close_to(many.speed.ttft_prefill_seconds, one.speed.ttft_prefill_seconds));
    assert_true(close_to(many.speed.ttft_wait_seconds, 0.5 * many.speed.step_seconds));
    assert_true(close_to(many.speed.ttft_seconds,
                         one.speed.ttft_seconds + 0.5 * many.speed.step_seconds));
    /* the prefill rate is the prompt over its prefill alone, not the first token */
    assert_true(close_to(many.speed.prefill_tokens_per_s,
                         1024.0 / many.speed.ttft_prefill_seconds));
}

static void max_ttft_counts_the_wait_of_the_users_it_keeps(void **state)
{
    (void)state;
    /* a limit just above one user's first token and below it plus half the
     * step of every user that fits: fewer users keep it than fit, and the
     * ones it keeps hold it, wait included */
    struct plan_result all = plan_of(ENGINE_VLLM, 0, 0);
    double alone = plan_of(ENGINE_VLLM, 1, 0).speed.ttft_seconds;
    double limit = alone + 0.25 * all.speed.step_seconds;
    struct plan_result r = plan_of(ENGINE_VLLM, 0, limit);
    uint64_t n = r.speed.users_at_service_level;
    assert_true(n > 1 && n < all.max_users);
    assert_true(r.speed.ttft_seconds <= limit);
    assert_true(plan_of(ENGINE_VLLM, n + 1, 0).speed.ttft_seconds > limit);
    /* the first token holds the count, not the speed (there is no speed target) */
    assert_int_equal(r.speed.binding, BIND_PREFILL);
}

static void the_per_request_term_is_the_engines_on_the_gpus_vendor(void **state)
{
    (void)state;
    /* tools/fit_ttft.py fits the term by engine, GPU vendor and model kind:
     * SGLang's on DeepSeek-R1 (MoE), 126.4 ms on NVIDIA and 374.9 ms on AMD
     * (policy_sglang.c); vLLM's on Qwen3-8B on H100 (dense), 41.2 ms
     * (policy_vllm.c). Where an engine has none of a vendor and kind it takes
     * every engine's cases pooled (speed_ttft.c every_engine): a dense model
     * under SGLang on NVIDIA 41.2 ms, a MoE under vLLM on NVIDIA 135.0 ms;
     * dense on AMD, measured under no engine, NVIDIA's 41.2 ms. */
    struct gpu_spec g = h100_sxm();
    struct model_spec dense = llama31_8b();
    struct model_spec moe = llama31_8b();
    moe.experts = 256;
    moe.experts_per_token = 8;
    moe.attention = ATTENTION_MLA; /* DeepSeek's kind: MLA over fine-grained experts */
    struct scenario s;
    char basis[128];
    scenario_default(&s, &g, &moe);
    s.engine.kind = ENGINE_SGLANG;
    assert_true(close_to(speed_request_overhead_s(&s), 0.1264));
    speed_request_overhead_basis(&s, basis, sizeof basis);
    assert_string_equal(basis, "fitted on SGLang's DeepSeek-class NVIDIA cases");
    snprintf(s.gpu.vendor, sizeof s.gpu.vendor, "AMD");
    assert_true(close_to(speed_request_overhead_s(&s), 0.3749));
    s.engine.kind = ENGINE_VLLM; /* vLLM, MoE on AMD: every engine's (SGLang's) */
    assert_true(close_to(speed_request_overhead_s(&s), 0.3749));
    snprintf(s.gpu.vendor, sizeof s.gpu.vendor, "NVIDIA");
    assert_true(close_to(speed_request_overhead_s(&s), 0.1350));
    speed_request_overhead_basis(&s, basis, sizeof basis);
    assert_string_equal(basis,
                        "fitted on every engine's DeepSeek-class NVIDIA cases, none under vLLM");
    /* a MoE of another kind (Qwen3's, Mixtral's: no MLA) takes the other models' term */
    struct model_spec qwen = llama31_8b();
    qwen.experts = 128;
    qwen.experts_per_token = 8;
    scenario_default(&s, &g, &qwen);
    s.engine.kind = ENGINE_SGLANG;
    assert_true(close_to(speed_request_overhead_s(&s), 0.0412));
    scenario_default(&s, &g, &dense);
    s.engine.kind = ENGINE_VLLM;
    assert_true(close_to(speed_request_overhead_s(&s), 0.0412));
    s.engine.kind = ENGINE_SGLANG;
    assert_true(close_to(speed_request_overhead_s(&s), 0.0412));
    s.engine.kind = ENGINE_TRTLLM;
    snprintf(s.gpu.vendor, sizeof s.gpu.vendor, "AMD");
    assert_true(close_to(speed_request_overhead_s(&s), 0.0412));
    speed_request_overhead_basis(&s, basis, sizeof basis);
    assert_string_equal(basis, "fitted on every engine's non-DeepSeek NVIDIA cases, none on AMD");
    /* llama.cpp and the generic rule fit none: no term */
    s.engine.kind = ENGINE_LLAMACPP;
    assert_true(speed_request_overhead_s(&s) == 0);
    speed_request_overhead_basis(&s, basis, sizeof basis);
    assert_string_equal(basis, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alone_the_first_token_is_the_prefill_and_the_request),
        cmocka_unit_test(with_others_it_waits_half_their_step),
        cmocka_unit_test(the_plan_adds_the_engines_term_and_the_wait),
        cmocka_unit_test(max_ttft_counts_the_wait_of_the_users_it_keeps),
        cmocka_unit_test(the_per_request_term_is_the_engines_on_the_gpus_vendor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
