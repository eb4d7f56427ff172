/* The default layout (core/scenario_layout.c) serves the most users of the
 * layouts the engine runs, so one GPU more never serves fewer, but where no
 * layout of all the GPUs runs as well: the falls listed, each with why.
 * Before, the "3/4-of-budget rule" kept replicas once the cache had a
 * quarter of the budget: Llama 3.1 70B on 12 H100s was 3 x TP 4 (186 users)
 * against 238 on 11 (TP 1 x PP 11), 15 GPUs 5 x TP 1 x PP 3 (165) against
 * 332 on 14. */
#include <string.h>

#include "core/engine_desc.h"
#include "model_fixture.h"

static const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32, 64};
static const char *const models[] = {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                                     "qwen3-235b-a22b"};

/* Where a count serves fewer than the one before it, and why. Under vLLM:
 * its ParallelConfig.__post_init__ (vllm/config/parallel.py, 0.11 and
 * later) asserts world_size % nnodes == 0, so a replica past a node of 8
 * spreads evenly over its nodes or does not run: 9, 11, 13, 15 GPUs have
 * no stages of one replica over 8 + n, and serve as replicas within a node
 * or not at all. The generic rule at 13: a prime count, TP 1 x PP 13 only,
 * its stages ceil(80 / 13) = 7 of Llama 70B's layers (12: TP 4 x PP 3, 27
 * layers over 4 GPUs, 6.75 a GPU). */
static const struct fall {
    const char *model;
    enum engine_kind engine;
    uint32_t gpus;
} falls[] = {
    {"llama-3.1-8b", ENGINE_GENERIC, 13},   {"llama-3.1-70b", ENGINE_GENERIC, 13},
    {"llama-3.1-8b", ENGINE_VLLM, 11},      {"llama-3.1-8b", ENGINE_VLLM, 13},
    {"llama-3.1-70b", ENGINE_VLLM, 9},      {"llama-3.1-70b", ENGINE_VLLM, 11},
    {"llama-3.1-70b", ENGINE_VLLM, 13},     {"llama-3.1-70b", ENGINE_VLLM, 15},
    {"llama-3.1-405b", ENGINE_VLLM, 13},    {"llama-3.1-405b", ENGINE_VLLM, 15},
    {"qwen3-235b-a22b", ENGINE_VLLM, 11},   {"qwen3-235b-a22b", ENGINE_VLLM, 13},
};

static bool listed(const char *model, enum engine_kind engine, uint32_t gpus)
{
    for (size_t i = 0; i < sizeof falls / sizeof falls[0]; i++)
        if (strcmp(falls[i].model, model) == 0 && falls[i].engine == engine && falls[i].gpus == gpus)
            return true;
    return false;
}

static uint64_t users_on(const char *model, enum engine_kind engine, uint32_t gpus)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = preset_model(model);
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = engine;
    s.gpus = gpus;
    struct plan_result r = fixture_plan(&s);
    return r.speed.users_at_service_level;
}

static void one_gpu_more_never_serves_fewer(void **state)
{
    (void)state;
    static const enum engine_kind engines[] = {ENGINE_GENERIC, ENGINE_VLLM};
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
        for (size_t e = 0; e < 2; e++) {
            uint64_t before = 0;
            for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
                uint64_t u = users_on(models[m], engines[e], counts[i]);
                bool fell = u < before;
                if (fell != listed(models[m], engines[e], counts[i]))
                    fail_msg("%s under %s on %u GPUs: %llu users after %llu (%s)", models[m],
                             engine_desc(engines[e])->name, counts[i], (unsigned long long)u,
                             (unsigned long long)before, fell ? "a fall not listed" : "listed, no fall");
                before = u;
            }
        }
}

/* The worked cases of the issue, Llama 3.1 70B in bf16 on H100s under the
 * generic rule: 12 GPUs TP 4 x PP 3, 27 layers a stage over 4 GPUs, 287
 * users (3 x TP 4 held 186); 15 GPUs TP 1 x PP 15 (335; 5 x TP 1 x PP 3
 * held 165). Under vLLM 12 GPUs are TP 2 x PP 6: TP 4 x PP 3 would put
 * one and a half stages on each node of 6. */
static void twelve_and_fifteen_gpus_serve_the_most(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 12;
    assert_int_equal(scenario_tp(&s), 4);
    assert_int_equal(scenario_pp(&s), 3);
    assert_true(users_on("llama-3.1-70b", ENGINE_GENERIC, 12) >
                users_on("llama-3.1-70b", ENGINE_GENERIC, 11));
    s.gpus = 15;
    assert_int_equal(scenario_tp(&s), 1);
    assert_int_equal(scenario_pp(&s), 15);
    s.gpus = 12;
    s.engine.kind = ENGINE_VLLM;
    assert_false(scenario_layout_runs(&s, 4, 3));
    assert_int_equal(scenario_tp(&s), 2);
    assert_int_equal(scenario_pp(&s), 6);
}

/* 13 GPUs over nodes of 8 and 5: vLLM and SGLang spread a replica evenly
 * over its nodes (vLLM's ParallelConfig asserts world_size % nnodes == 0;
 * SGLang's _launch_subprocesses gives each node pp_size // nnodes stages),
 * so TP 1 x PP 13 does not run under them and is not chosen; TensorRT-LLM's
 * mpirun takes hosts of unequal slots (-H node1:8,node2:5). */
static void thirteen_gpus_over_uneven_nodes(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 13;
    s.engine.kind = ENGINE_VLLM;
    assert_false(scenario_layout_runs(&s, 1, 13));
    assert_int_not_equal(scenario_pp(&s), 13);
    s.engine.kind = ENGINE_SGLANG;
    assert_false(scenario_layout_runs(&s, 1, 13));
    s.engine.kind = ENGINE_TRTLLM;
    assert_true(scenario_layout_runs(&s, 1, 13));
    assert_int_equal(scenario_pp(&s), 13);
    /* 16 under vLLM: two nodes of 8, one stage each */
    s.gpus = 16;
    s.engine.kind = ENGINE_VLLM;
    assert_true(scenario_layout_runs(&s, 8, 2));
}

/* TP before stages within a node, unless TP serves no one: Llama 3.1 70B
 * on 2 H100s under vLLM at 14k, TP 2 holds no user (its profile peak and
 * both halves of the weights on each GPU leave less than one 14k request),
 * TP 1 x PP 2 one; at 8k TP 2 holds one and stays the default (PP 2 two, at
 * half the speed). */
static void stages_where_tp_serves_no_one(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 2;
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 14 * 1024;
    struct scenario t = s;
    t.tp = 2;
    assert_int_equal(fixture_plan(&t).max_users, 0);
    assert_int_equal(scenario_tp(&s), 1);
    assert_int_equal(scenario_pp(&s), 2);
    assert_true(fixture_plan(&s).max_users >= 1);
    s.context_tokens = 8 * 1024;
    assert_int_equal(scenario_tp(&s), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_gpu_more_never_serves_fewer),
        cmocka_unit_test(twelve_and_fifteen_gpus_serve_the_most),
        cmocka_unit_test(thirteen_gpus_over_uneven_nodes),
        cmocka_unit_test(stages_where_tp_serves_no_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
