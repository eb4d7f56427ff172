/* The simulator's pool of vLLM V1's hybrid groups: each window group frees
 * the blocks behind its window before it allocates
 * (v1/core/single_type_kv_cache_manager.py, SlidingWindowManager
 * get_num_skipped_tokens and remove_skipped_blocks, called by
 * v1/core/kv_cache_manager.py KVCacheManager.allocate_slots, first thing,
 * with the computed tokens; read at vllm-project/vllm 002f3491, where
 * remove_skipped_blocks frees the blocks before (computed - window + 1) //
 * block and get_num_blocks_to_allocate counts ceil(tokens / block) less
 * those held, the freed ones held as null blocks), each state
 * group keeps its fixed blocks (MambaManager), the full groups every block;
 * a timeline worked by hand, and a real plan's pool running the users its
 * plan says fit. */
#include "engine_fixture.h"
#include "sim_fixture.h"

/* Blocks of 4 tokens, a full group and a window group of 8 tokens, a batch
 * of 8 tokens a step, a pool of 11 blocks. One request, 16 + 6 tokens:
 *   step 1: 0 -> 8:  full 2, window 2 (nothing behind it)          4
 *   step 2: 8 -> 16: full 4, window 4 (8 + 1 - 8 = 1 skipped: none) 8
 *   step 3: 16 -> 17: full 5, window 5 - 9 / 4 = 3                  8
 *   step 4: 17 -> 18: 5 + (5 - 10 / 4 = 3)                           8
 *   step 5: 18 -> 19: 5 + (5 - 11 / 4 = 3)                           8
 *   step 6: 19 -> 20: 5 + (5 - 12 / 4 = 2)                           7
 *   step 7: 20 -> 21: 6 + (6 - 13 / 4 = 3)                           9
 * The pool's fullest 9 of 11; counted as full attention (both groups every
 * block: 12 at the end) the request would not fit. The longest request the
 * pool takes alone: its window at most min(8 - 1 + 8, tokens) in blocks and
 * one more (SlidingWindowSpec.max_memory_usage_bytes). */
static void a_window_group_frees_what_falls_behind(void **state)
{
    (void)state;
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.blocks = 11;
    c.full_groups = 1;
    c.nwindows = 1;
    c.windows[0] = (struct engine_window){.groups = 1, .window = 8, .block = 4};
    assert_int_equal(sim_request_blocks(&c, 21), 6 + 5);
    struct workload_request reqs[] = {{0, 16, 6}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 1, &r), SIM_OK);
    assert_int_equal(r.completed, 1);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(tr.steps, 7);
    assert_true(near(r.peak_kv_usage, 9.0 / 11.0));
    /* the same pool as every layer's blocks: 6 of 11 at the end (the old count) */
    struct trace tr2 = {0};
    struct sim_config flat = fixed_step(&tr2);
    flat.blocks = 11;
    assert_int_equal(sim_run(&flat, reqs, 1, &r), SIM_OK);
    assert_true(near(r.peak_kv_usage, 6.0 / 11.0));
}

/* A state group keeps its blocks whatever the length: 2 of them (a running
 * state and one speculative token's) beside the full group's. */
static void a_state_group_keeps_its_blocks(void **state)
{
    (void)state;
    struct trace tr = {0};
    struct sim_config c = fixed_step(&tr);
    c.blocks = 100;
    c.full_groups = 1;
    c.nwindows = 1;
    c.windows[0] = (struct engine_window){.groups = 3, .fixed = 2};
    assert_int_equal(sim_request_blocks(&c, 21), 6 + 3 * 2);
    struct workload_request reqs[] = {{0, 16, 6}};
    struct sim_result r;
    assert_int_equal(sim_run(&c, reqs, 1, &r), SIM_OK);
    assert_true(near(r.peak_kv_usage, 12.0 / 100.0)); /* 6 + 3 x 2 at 21 tokens */
}

/* Gemma 3 27B at 8k on one H100 under vLLM: its plan says 11 users (13,370
 * blocks less one prefill's 2,688, 902 a user: test_vllm_log_rule.c works
 * the same rows); 11 requests of 8,000 + 100 sent at once all run at once,
 * none preempted, where the pool counted as every layer's (1,910 blocks of
 * all 7 groups, 507 a request) runs 4 at most, preempting. */
static void a_plans_users_run_at_once(void **state)
{
    (void)state;
    struct gpu_spec g = preset_gpu("h100-sxm");
    struct model_spec m = preset_model("gemma-3-27b");
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 8192;
    static struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.users_per_replica, 11);
    struct sim_config c;
    sim_config_of_plan(&s, &r, &c);
    assert_int_equal(c.blocks, 13370);
    assert_int_equal(c.full_groups, 1);
    assert_int_equal(c.nwindows, 1);
    assert_int_equal(c.windows[0].groups, 6);
    assert_int_equal(c.windows[0].window, 1024);
    struct workload_request reqs[11];
    for (size_t i = 0; i < 11; i++)
        reqs[i] = (struct workload_request){0, 8000, 100};
    struct sim_result out;
    assert_int_equal(sim_run(&c, reqs, 11, &out), SIM_OK);
    assert_int_equal(out.completed, 11);
    assert_int_equal(out.max_running, 11);
    assert_int_equal(out.preemptions, 0);
    c.full_groups = 0;
    c.nwindows = 0;
    c.blocks = r.kv_tokens_per_replica / c.block_tokens; /* 30,560 / 16 */
    assert_int_equal(c.blocks, 1910);
    assert_int_equal(sim_run(&c, reqs, 11, &out), SIM_OK);
    assert_int_equal(out.max_running, 4);
    assert_true(out.preemptions > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_window_group_frees_what_falls_behind),
        cmocka_unit_test(a_state_group_keeps_its_blocks),
        cmocka_unit_test(a_plans_users_run_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
