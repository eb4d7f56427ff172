/* The layout a scenario without --tp and --pp runs (core/scenario_layout.c):
 * tensor parallel within a node as before when it holds the weights, and
 * pipeline stages over the GPUs when it does not, never replicas that hold
 * no one. */
#include "app/controls.h"
#include "model_fixture.h"

/* Llama 3 70B in bf16 (131.42 GiB of weights) under vLLM on n H100 SXM5s
 * (79.65 GiB each; nine tenths of it, 71.69 GiB, what the default budgets
 * keep for weights and cache). */
static struct scenario llama3_70b_on(uint32_t n)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = preset_model("llama-3-70b");
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = n;
    s.engine.kind = ENGINE_VLLM;
    return s;
}

/* 5 GPUs: 64 heads split over no group of 5, so TP 1 and 5 replicas of
 * 131.42 GiB each, over the 71.69; one stage a GPU, 131.42 / 5 = 26.28 GiB,
 * holds them: 1 x TP 1 x PP 5, and the plan fits users. */
static void five_gpus_run_five_stages(void **state)
{
    (void)state;
    struct scenario s = llama3_70b_on(5);
    assert_int_equal(scenario_tp(&s), 1);
    assert_int_equal(scenario_pp(&s), 5);
    assert_int_equal(scenario_replicas(&s), 1);
    struct plan_result r = fixture_plan(&s);
    assert_true(r.fits);
    assert_true(r.users_per_replica > 0);
    enum dtype used;
    uint64_t w = scenario_weights_bytes(&s, &used);
    assert_true((double)w > 0.9 * (double)scenario_gpu_memory(&s));     /* TP 1 cannot */
    assert_true((double)w / 5 <= 0.9 * (double)scenario_gpu_memory(&s)); /* PP 5 can */
}

/* 13 GPUs, a prime: 13 x TP 1 cannot hold 131.42 GiB; 13 stages hold
 * 131.42 / 13 = 10.11 GiB each, under an engine that runs a replica over
 * nodes of 8 and 5 (TensorRT-LLM under mpirun; vLLM does not:
 * test_layout_monotone.c). */
static void thirteen_gpus_run_thirteen_stages(void **state)
{
    (void)state;
    struct scenario s = llama3_70b_on(13);
    s.engine.kind = ENGINE_TRTLLM;
    assert_int_equal(scenario_tp(&s), 1);
    assert_int_equal(scenario_pp(&s), 13);
    assert_int_equal(scenario_replicas(&s), 1);
    struct plan_result r = fixture_plan(&s);
    assert_true(r.fits);
}

/* Within a node, tensor parallel rather than stages (vLLM's guide): 8 GPUs
 * TP 8 (16.43 GiB each), not TP 1 x PP 8; past a node, one replica of TP 8
 * a node, one stage each, where it serves the most: 16 GPUs TP 8 x PP 2
 * (one copy of the weights over 16 GPUs, where 2 x TP 8 hold two), 12 GPUs
 * TP 2 x PP 6 (two nodes of 6, three stages each; 3 x TP 4 held 186). */
static void tensor_parallel_that_holds_stays(void **state)
{
    (void)state;
    static const uint32_t gpus[] = {8, 16, 12}, tp[] = {8, 8, 2}, pp[] = {1, 2, 6};
    for (int i = 0; i < 3; i++) {
        struct scenario s = llama3_70b_on(gpus[i]);
        assert_int_equal(scenario_tp(&s), tp[i]);
        assert_int_equal(scenario_pp(&s), pp[i]);
        assert_int_equal(scenario_replicas(&s), 1);
    }
}

/* Llama 3.1 405B in bf16 on 16 H100s: 2 x TP 8 hold 1/8 each (over 94 GiB);
 * the fewest stages that hold it are 2, TP 8 x PP 2 as vLLM's distributed
 * serving guide runs it over two nodes. */
static void a_model_past_a_node_takes_two_stages(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = preset_model("llama-3.1-405b");
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 16;
    s.engine.kind = ENGINE_VLLM;
    assert_int_equal(scenario_tp(&s), 8);
    assert_int_equal(scenario_pp(&s), 2);
    assert_int_equal(scenario_replicas(&s), 1);
}

/* Given --tp or --pp, or one GPU, nothing is chosen for the user. */
static void a_given_layout_is_kept(void **state)
{
    (void)state;
    struct scenario s = llama3_70b_on(5);
    s.tp = 1;
    assert_int_equal(scenario_pp(&s), 1);
    assert_int_equal(scenario_replicas(&s), 5);
    s = llama3_70b_on(1);
    assert_int_equal(scenario_pp(&s), 1);
}

/* The planner's Stages row stepped to 1 where the default adds stages: one
 * stage, as asked (5 x TP 1), not the default's 5 again. */
static void the_stages_row_at_one_keeps_one(void **state)
{
    (void)state;
    struct scenario s = llama3_70b_on(5);
    control_load_set(CTRL_PP, &s, 1);
    assert_int_equal(scenario_pp(&s), 1);
    assert_int_equal(scenario_replicas(&s), 5);
    control_load_set(CTRL_PP, &s, 5);
    assert_int_equal(scenario_pp(&s), 5);
    control_load_reset(CTRL_PP, &s); /* r: the default, stages and all */
    assert_int_equal(scenario_pp(&s), 5);
    /* one stage asked is written (--pp 1, a snapshot's pp) where the default
     * differs, and only there, so a copied command or a saved file reads back */
    s.pp = 1;
    assert_true(scenario_pp_written(&s));
    s = llama3_70b_on(8);
    s.pp = 1;
    assert_false(scenario_pp_written(&s));
    s.pp = 0;
    assert_false(scenario_pp_written(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(five_gpus_run_five_stages),
        cmocka_unit_test(thirteen_gpus_run_thirteen_stages),
        cmocka_unit_test(tensor_parallel_that_holds_stays),
        cmocka_unit_test(a_model_past_a_node_takes_two_stages),
        cmocka_unit_test(a_given_layout_is_kept),
        cmocka_unit_test(the_stages_row_at_one_keeps_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
