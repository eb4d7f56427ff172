/* The plan's stages are functions of the scenario and of the results of the
 * stages before them (core/plan.c): run again on a plan's own results, the
 * budget, the speed and the host tier each give the plan's figures, and
 * leave the plan they read as it was. */
#include <string.h>

#include "core/policy.h"
#include "model_fixture.h"

static struct plan_result plan(const struct scenario *s) { return fixture_plan(s); }

/* Llama 3.1 70B under vLLM on 4 H100s: a shared prefix, LoRA slots and
 * fewer tokens in use than the context, so the budget reads every stage
 * before it. */
static struct scenario vllm_scenario(void)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 4;
    s.context_tokens = 32768;
    s.avg_context_tokens = 12000;
    s.prefix_tokens = 2000;
    s.engine.kind = ENGINE_VLLM;
    s.max_loras = 4;
    return s;
}

static void the_budget_runs_again_on_the_stages_before_it(void **state)
{
    (void)state;
    struct scenario s = vllm_scenario();
    struct plan_result r = plan(&s);
    struct plan_result before = r;
    struct plan_budget b;
    memset(&b, 0, sizeof b);
    struct policy_ctx c = {.s = &s,
                           .l = &r.placement,
                           .k = &r.cost,
                           .spec = &r.spec,
                           .lora = &r.lora,
                           .img = &r.image_counts,
                           .b = &b,
                           .x = PLAN_NUMBERS};
    engine_desc(s.engine.kind)->budget(&c);
    assert_true(r.users_per_replica > 0 && r.lora.bytes > 0 && r.prefix_bytes_per_gpu > 0);
    assert_memory_equal(&b, &r.budget, sizeof b);
    assert_memory_equal(&before, &r, sizeof r);
}

/* The speed at a service level, and the host tier, which computes a parked
 * cache again with what the speed reads. */
static void the_speed_and_host_tier_run_again_on_the_plans_own_results(void **state)
{
    (void)state;
    struct scenario s = vllm_scenario();
    s.min_tokens_per_s = 25;
    s.max_ttft_seconds = 5;
    s.host_kv_bytes = 256ull << 30;
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0.6;
    struct plan_result r = plan(&s);
    struct plan_result before = r;
    struct speed_basis basis = plan_speed_basis(&r);
    struct speed_result sp;
    struct host_tier h;
    memset(&sp, 0xA5, sizeof sp);
    memset(&h, 0xA5, sizeof h);
    speed_compute(&s, &basis, &sp, PLAN_NUMBERS);
    host_tier_compute(&s, &basis, &h, PLAN_NUMBERS);
    assert_true(r.speed.users_at_service_level > 0 && r.host.users > 0);
    assert_true(r.host.restore_seconds > 0);
    assert_memory_equal(&sp, &r.speed, sizeof sp);
    assert_memory_equal(&h, &r.host, sizeof h);
    assert_memory_equal(&before, &r, sizeof r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_budget_runs_again_on_the_stages_before_it),
        cmocka_unit_test(the_speed_and_host_tier_run_again_on_the_plans_own_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
