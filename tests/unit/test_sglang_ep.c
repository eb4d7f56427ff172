/* SGLang's expert parallel: kvplan's --enable-expert-parallel under SGLang is
 * its --ep-size equal to the TP size (python/sglang/srt/server_args.py, 0.5:
 * ServerArgs.ep_size, --ep-size / --expert-parallel-size; --enable-ep-moe
 * deprecated since 0.4.10 for "--ep-size the same value as --tp-size"): whole
 * routed experts on each TP rank instead of a slice of every expert, the same
 * bytes a GPU, the experts a multiple of the ranks (layers/moe/
 * fused_moe_triton/layer.py, FusedMoE.__init__: assert num_experts %
 * moe_ep_size == 0). The descriptor's experts_over_tp says so. */
#include <string.h>

#include "app/controls.h"
#include "model_fixture.h"

static struct explain rows;

static struct plan_result explained(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

/* DeepSeek-V3 (256 routed experts) on 8 H200s under SGLang: TP 8. */
static struct scenario dsv3_sglang(void)
{
    struct gpu_spec g = preset_gpu("h200");
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    s.engine.kind = ENGINE_SGLANG;
    return s;
}

static void the_launch_line_names_the_ep_size(void **state)
{
    (void)state;
    struct scenario s = dsv3_sglang();
    struct plan_result off = explained(&s);
    s.expert_parallel = true;
    struct plan_result on = explained(&s);
    assert_non_null(strstr(on.engine.launch, " --tp 8 --ep-size 8"));
    assert_null(strstr(off.engine.launch, "--ep-size"));
    /* 256 experts / 8 ranks: 32 whole experts a GPU, the bytes of 1/8 of each */
    assert_int_equal(on.weights_bytes_per_gpu, off.weights_bytes_per_gpu);
    assert_int_equal(on.users_per_replica, off.users_per_replica);
    s.dp_attention = true;
    on = explained(&s);
    assert_non_null(strstr(on.engine.launch, "--enable-dp-attention --dp 8 --ep-size 8"));
}

static void one_rank_or_uneven_experts_are_refused(void **state)
{
    (void)state;
    struct scenario s = dsv3_sglang();
    s.expert_parallel = true;
    s.gpus = 1;
    struct diag d = {0};
    enum scenario_field f;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_EXPERT_PARALLEL);
    assert_non_null(strstr(d.message, "above 1"));
    s = dsv3_sglang();
    s.expert_parallel = true;
    s.tp = 8; /* pinned: since the layout merge the default layout need not be TP 8 */
    s.model.experts = 260; /* not a multiple of 8 */
    s.tp = 8;              /* the default layout would take one that divides them */
    memset(&d, 0, sizeof d);
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_non_null(strstr(d.message, "the 260 routed experts"));
}

/* Stepping to SGLang keeps it; to an engine without it drops it. */
static void engines_keep_it_by_their_descriptor(void **state)
{
    (void)state;
    struct scenario s = dsv3_sglang();
    scenario_set_engine(&s, ENGINE_VLLM, RULE_CURRENT);
    s.expert_parallel = true;
    scenario_set_engine(&s, ENGINE_SGLANG, RULE_CURRENT);
    assert_true(s.expert_parallel);
    scenario_set_engine(&s, ENGINE_TRTLLM, RULE_CURRENT);
    assert_false(s.expert_parallel);
}

/* The planner's Experts row under SGLang for a MoE model: off, DP attention,
 * EP, both. */
static void the_experts_row_steps_through_both(void **state)
{
    (void)state;
    struct scenario s = dsv3_sglang();
    uint64_t v[CONTROL_VALUES_MAX];
    assert_int_equal(control_load_values(CTRL_EXPERTS, &s, v), 4);
    control_load_set(CTRL_EXPERTS, &s, 2);
    assert_true(s.expert_parallel && !s.dp_attention);
    char buf[32];
    control_load_format(CTRL_EXPERTS, &s, buf, sizeof buf);
    assert_string_equal(buf, "EP");
    control_load_set(CTRL_EXPERTS, &s, 3);
    assert_true(s.expert_parallel && s.dp_attention);
    struct diag d = {0};
    assert_true(control_load_parse(CTRL_EXPERTS, &s, "DP attn", &d));
    assert_true(s.dp_attention && !s.expert_parallel);
    assert_string_equal(control_load_label(CTRL_EXPERTS, &s), "DP attn/EP");
    /* a dense model: DP attention alone, as before */
    s.model = llama31_8b();
    assert_int_equal(control_load_values(CTRL_EXPERTS, &s, v), 2);
    assert_string_equal(control_load_label(CTRL_EXPERTS, &s), "DP attn");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_launch_line_names_the_ep_size),
        cmocka_unit_test(one_rank_or_uneven_experts_are_refused),
        cmocka_unit_test(engines_keep_it_by_their_descriptor),
        cmocka_unit_test(the_experts_row_steps_through_both),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
