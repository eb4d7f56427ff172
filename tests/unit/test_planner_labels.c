/* The planner's labels and the rules under them, in-process: the attention's
 * name follows the KV heads, one layout title for every view, a price in
 * significant digits, each engine's releases together newest first, the
 * status row lent to the explain pane when it has nothing to say, and the
 * scenarios an export left behind counted one by one. */
#include "catalog_fixture.h"

#include "app/controls.h"
#include "app/layout.h"
#include "app/planner.h"
#include "core/engine_desc.h"
#include "core/explain.h"

static void the_attention_follows_the_kv_heads(void **state)
{
    (void)state;
    const struct model_spec *m = &catalog_find_model(&cat, "llama-3.1-8b")->spec;
    assert_int_equal(spec_attention_with(m, 0), ATTENTION_GQA); /* its own 8 of 32 */
    assert_int_equal(spec_attention_with(m, 1), ATTENTION_MQA);
    assert_int_equal(spec_attention_with(m, 32), ATTENTION_MHA);
    assert_int_equal(spec_attention_with(m, 4), ATTENTION_GQA);
    const struct model_spec *mla = &catalog_find_model(&cat, "deepseek-v3")->spec;
    assert_int_equal(spec_attention_with(mla, 1), ATTENTION_MLA);
}

/* llama.cpp splits layers (llama_model_default_params' LLAMA_SPLIT_MODE_LAYER):
 * every title says so, as plan's does. */
static void one_layout_title_for_every_view(void **state)
{
    (void)state;
    char t[64];
    struct plan_result r;
    memset(&r, 0, sizeof r);
    r.profile = ENGINE_LLAMACPP;
    r.replicas = 3;
    r.tp = 4;
    r.pp = 1;
    plan_layout_title(&r, t, sizeof t);
    assert_string_equal(t, "3 x 4 GPUs, layers split");
    r.profile = ENGINE_VLLM;
    plan_layout_title(&r, t, sizeof t);
    assert_string_equal(t, "3 x TP 4");
    r.pp = 2;
    plan_layout_title(&r, t, sizeof t);
    assert_string_equal(t, "3 x TP 4 x PP 2");
}

static void a_price_keeps_two_significant_digits(void **state)
{
    (void)state;
    char t[32];
    explain_format(0.048L, XU_USD, UNITS_GIB, t, sizeof t);
    assert_string_equal(t, "$0.0480");
    explain_format(0.0031L, XU_USD, UNITS_GIB, t, sizeof t);
    assert_string_equal(t, "$0.0031");
    explain_format(0.00031L, XU_USD, UNITS_GIB, t, sizeof t);
    assert_string_equal(t, "$0.00031");
    explain_format(0.0000058L, XU_USD, UNITS_GIB, t, sizeof t); /* was "$0.0000" */
    assert_string_equal(t, "$0.0000058");
    explain_format(0, XU_USD, UNITS_GIB, t, sizeof t);
    assert_string_equal(t, "$0.0000");
    explain_format(-1, XU_USD, UNITS_GIB, t, sizeof t);
    assert_string_equal(t, "n/a");
}

/* The Engine control: each engine at its latest, then its older releases,
 * newest first (the descriptor's order, which `kvplan list engines` gives). */
static void each_engines_releases_come_together_newest_first(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(CTRL_ENGINE, &s, NULL, &cat, v), at = 0;
    for (int e = 0; e < ENGINE_COUNT; e++) {
        const struct engine_desc *d = engine_desc((enum engine_kind)e);
        assert_true(at < n);
        assert_int_equal(v[at++], control_engine_value((enum engine_kind)e, RULE_CURRENT));
        for (int i = 0; i < ENGINE_VERSIONS_MAX && d->versions[i].label; i++) {
            if (i == 0) /* the newest first: the one the bare name takes */
                assert_int_equal(d->versions[i].rule, RULE_CURRENT);
            else
                assert_int_equal(v[at++],
                                 control_engine_value((enum engine_kind)e, d->versions[i].rule));
        }
    }
    assert_int_equal(at, n);
    /* vLLM's: the current rule, 0.20, 0.17, 0.13, then V0 */
    const struct engine_desc *vllm = engine_desc(ENGINE_VLLM);
    assert_int_equal(vllm->versions[1].rule, RULE_VLLM_0_20);
    assert_int_equal(vllm->versions[2].rule, RULE_VLLM_0_17);
    assert_int_equal(vllm->versions[3].rule, RULE_VLLM_0_13);
    assert_int_equal(vllm->versions[4].rule, RULE_VLLM_V0);
}

static void a_silent_status_row_goes_to_the_explain_pane(void **state)
{
    (void)state;
    for (int rows = LAYOUT_MIN_ROWS; rows <= 40; rows++) {
        struct planner_layout l = layout_compute(80, rows, 16), t = l;
        layout_take_status(&t, rows);
        if (rows < 30) { /* no blank row above the key bar */
            assert_int_equal(t.explain.h, l.explain.h + 1);
            assert_int_equal(t.explain.y + t.explain.h, t.keybar.y);
            assert_int_equal(t.status.h, 0);
        } else {
            assert_memory_equal(&t, &l, sizeof l);
        }
    }
}

static struct planner *start(void)
{
    static struct planner p;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    planner_init(&p, &cat, &s);
    return &p;
}

/* Quit and open count the scenarios not exported, not every scenario. */
static void the_unexported_are_counted_one_by_one(void **state)
{
    (void)state;
    struct planner *p = start();
    planner_key(p, 'n');
    planner_key(p, 'n');
    assert_int_equal(p->count, 3);
    assert_int_equal(planner_unsaved_count(p), 3); /* nothing on file yet */
    planner_mark_saved(p); /* as an export does */
    assert_false(planner_unsaved(p));
    assert_int_equal(planner_unsaved_count(p), 0);
    struct scenario s = *planner_scenario(p);
    s.context_tokens *= 2;
    assert_true(planner_apply(p, &s));
    assert_true(planner_unsaved(p));
    assert_int_equal(planner_unsaved_count(p), 1); /* was 3: every scenario */
    planner_key(p, 'n');
    assert_int_equal(planner_unsaved_count(p), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_attention_follows_the_kv_heads),
        cmocka_unit_test(one_layout_title_for_every_view),
        cmocka_unit_test(a_price_keeps_two_significant_digits),
        cmocka_unit_test(each_engines_releases_come_together_newest_first),
        cmocka_unit_test(a_silent_status_row_goes_to_the_explain_pane),
        cmocka_unit_test(the_unexported_are_counted_one_by_one),
    };
    return cmocka_run_group_tests_name("planner labels", tests, setup, teardown);
}
