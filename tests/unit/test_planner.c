/* The planner's controls and keys, in-process: every change gives the
 * result the capacity core gives for the same scenario. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curses.h>

#include "app/planner.h"
#include "core/version.h"
#include "io/catalog.h"
#include "io/fileio.h"
#include "io/snapshot.h"

static struct catalog cat;

static int load(void **state)
{
    (void)state;
    struct diag d = {0};
    catalog_init(&cat);
    return catalog_load_embedded(&cat, &d) ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    catalog_free(&cat);
    return 0;
}

static struct planner start(const char *gpu, const char *model, uint64_t context)
{
    struct scenario s;
    scenario_default(&s, &catalog_find_gpu(&cat, gpu)->spec,
                              &catalog_find_model(&cat, model)->spec);
    s.context_tokens = context;
    struct planner p;
    planner_init(&p, &cat, &s);
    return p;
}

static uint64_t users_for(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(s, PLAN_EXPLAIN, NULL, &r, &d));
    return r.max_users;
}

static void right_on_context_doubles_it_and_the_users_follow_the_core(void **state)
{
    (void)state;
    struct planner p = start("a100-80gb", "llama-2-7b", 4096);
    assert_int_equal(p.focus, CTRL_CONTEXT);
    uint64_t before = p.result.max_users;
    planner_key(&p, KEY_RIGHT);
    assert_int_equal(p.scenario.context_tokens, 8192);
    assert_int_equal(p.result.max_users, users_for(&p.scenario));
    /* 59.45 GiB pool: 29 users at 4k, 14 at 8k */
    assert_int_equal(before, 29);
    assert_int_equal(p.result.max_users, 14);
}

static void context_slider_snaps_to_powers_of_two_and_the_model_maximum(void **state)
{
    (void)state;
    struct planner p = start("h100-sxm", "qwen3-32b", 4000);
    planner_key(&p, KEY_RIGHT); /* 4000 -> 4096 */
    assert_int_equal(p.scenario.context_tokens, 4096);
    planner_key(&p, KEY_END);
    assert_int_equal(p.scenario.context_tokens, 1048576);
    planner_key(&p, KEY_HOME);
    assert_int_equal(p.scenario.context_tokens, 1024);
    /* Qwen3's 40,960 maximum is one of the stops */
    bool seen = false;
    for (int i = 0; i < 20 && p.scenario.context_tokens < 1048576; i++) {
        planner_key(&p, KEY_RIGHT);
        if (p.scenario.context_tokens == 40960)
            seen = true;
    }
    assert_true(seen);
}

static void typing_32k_sets_the_context_exactly(void **state)
{
    (void)state;
    struct planner p = start("a100-80gb", "llama-2-7b", 4096);
    planner_key(&p, '3');
    assert_int_equal(p.mode, MODE_PROMPT);
    planner_key(&p, '2');
    planner_key(&p, 'k');
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_MAIN);
    assert_int_equal(p.scenario.context_tokens, 32768);
    /* a bad value is refused with a message naming the control; nothing changes */
    planner_key(&p, '\n');
    planner_key(&p, 'x');
    planner_key(&p, '\n');
    assert_int_equal(p.scenario.context_tokens, 32768);
    assert_non_null(strstr(p.error, "Context"));
}

static void kv_heads_step_through_the_divisors_of_the_heads(void **state)
{
    (void)state;
    struct planner p = start("h100-sxm", "llama-2-7b", 4096);
    p.focus = CTRL_KV_HEADS;
    planner_key(&p, KEY_LEFT); /* 32 -> 16 */
    assert_int_equal(p.result.cost.kv_heads, 16);
    planner_key(&p, KEY_HOME); /* MQA */
    assert_int_equal(p.result.cost.kv_heads, 1);
    char v[64];
    control_format(CTRL_KV_HEADS, &p.scenario, &p.result, v, sizeof v);
    assert_string_equal(v, "1 (MQA)");
    planner_key(&p, 'r');
    assert_int_equal(p.result.cost.kv_heads, 32);
}

static void the_picker_filters_and_picks(void **state)
{
    (void)state;
    struct planner p = start("h100-sxm", "llama-3.1-8b", 8192);
    p.focus = CTRL_MODEL;
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_PICKER);
    const char *typed = "gemma-3-27";
    for (const char *c = typed; *c; c++)
        planner_key(&p, *c);
    int idx[8];
    assert_int_equal(planner_picker_matches(&p, idx, 8), 1);
    planner_key(&p, '\n');
    assert_string_equal(p.scenario.model.id, "gemma-3-27b");
    assert_int_equal(p.result.cost.windowed_layers, 52);
}

static void baseline_then_compare_keeps_both_scenarios(void **state)
{
    (void)state;
    struct planner p = start("a100-80gb", "llama-2-7b", 4096);
    planner_key(&p, 'c'); /* no baseline yet: a hint, not the view */
    assert_int_equal(p.mode, MODE_MAIN);
    planner_key(&p, 'b');
    planner_key(&p, KEY_RIGHT);
    planner_key(&p, KEY_RIGHT);
    planner_key(&p, 'c');
    assert_int_equal(p.mode, MODE_COMPARE);
    assert_int_equal(p.baseline.context_tokens, 4096);
    assert_int_equal(p.scenario.context_tokens, 16384);
    planner_key(&p, 27);
    assert_int_equal(p.mode, MODE_MAIN);
}

static void export_writes_what_plan_json_prints_and_asks_before_overwriting(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvplan-planner-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/s.json", dir);
    struct planner p = start("h200", "deepseek-v3", 65536);
    p.scenario.gpus = 8;
    planner_apply(&p, &p.scenario);
    char name[256];
    planner_export_name(&p, name, sizeof name);
    assert_string_equal(name, "kvplan-deepseek-v3-h200-64k.json");
    planner_key(&p, 'e');
    assert_int_equal(p.mode, MODE_PROMPT);
    p.prompt[0] = '\0';
    for (const char *c = path; *c; c++)
        planner_key(&p, *c);
    planner_key(&p, '\n');
    struct diag d = {0};
    size_t len;
    char *file = fileio_read(path, &len, &d);
    assert_non_null(file);
    char *json = snapshot_to_json(&p.scenario, &p.result, KVPLAN_GENERATOR);
    assert_string_equal(file, json);
    free(file);
    /* again: the file exists, so it asks; anything but y keeps it */
    planner_key(&p, KEY_RIGHT);
    planner_key(&p, 'e');
    p.prompt[0] = '\0';
    for (const char *c = path; *c; c++)
        planner_key(&p, *c);
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_CONFIRM);
    planner_key(&p, 'n');
    file = fileio_read(path, &len, &d);
    assert_string_equal(file, json);
    free(file);
    free(json);
    unlink(path);
    rmdir(dir);
}

static void the_curve_matches_the_core_at_its_points(void **state)
{
    (void)state;
    struct planner p = start("h100-sxm", "llama-3.1-8b", 8192);
    for (int i = 0; i < CHART_POINTS; i += 10) {
        struct scenario s = p.scenario;
        s.context_tokens = p.curve.context_tokens[i];
        assert_int_equal(p.curve.users[i], users_for(&s));
    }
    assert_int_equal(p.curve.context_tokens[0], 1024);
    assert_int_equal(p.curve.context_tokens[CHART_POINTS - 1], 1048576);
}

static void the_engine_control_switches_the_count_to_the_engines(void **state)
{
    (void)state;
    struct planner p = start("a100-40gb", "llama-3-8b", 8192);
    p.focus = CTRL_ENGINE;
    planner_key(&p, KEY_RIGHT); /* generic -> vllm */
    assert_int_equal(p.scenario.engine.kind, ENGINE_VLLM);
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(&p.scenario, PLAN_EXPLAIN, NULL, &r, &d));
    /* one answer: the count, the curve's point and the explain row are the engine's */
    assert_int_equal(p.result.max_users, r.max_users);
    assert_true(p.result.generic.present);
    assert_true(p.result.generic.max_users != p.result.max_users); /* the engine's rule differs */
    const struct explain_row *users = explain_find(&p.result.explain, "users");
    assert_non_null(users);
    assert_true(users->result.value == (long double)p.result.max_users);
    char v[64];
    control_format(CTRL_ENGINE, &p.scenario, &p.result, v, sizeof v);
    assert_string_equal(v, "vllm");
    planner_key(&p, 'r');
    assert_int_equal(p.scenario.engine.kind, ENGINE_GENERIC);
}

static void q_quits_and_presentation_toggles(void **state)
{
    (void)state;
    struct planner p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(&p, 'p');
    assert_true(p.presentation);
    planner_key(&p, 27);
    assert_false(p.presentation);
    assert_int_equal(planner_key(&p, 'q') & PLAN_QUIT, PLAN_QUIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(right_on_context_doubles_it_and_the_users_follow_the_core),
        cmocka_unit_test(context_slider_snaps_to_powers_of_two_and_the_model_maximum),
        cmocka_unit_test(typing_32k_sets_the_context_exactly),
        cmocka_unit_test(kv_heads_step_through_the_divisors_of_the_heads),
        cmocka_unit_test(the_picker_filters_and_picks),
        cmocka_unit_test(baseline_then_compare_keeps_both_scenarios),
        cmocka_unit_test(export_writes_what_plan_json_prints_and_asks_before_overwriting),
        cmocka_unit_test(the_curve_matches_the_core_at_its_points),
        cmocka_unit_test(the_engine_control_switches_the_count_to_the_engines),
        cmocka_unit_test(q_quits_and_presentation_toggles),
    };
    return cmocka_run_group_tests_name("planner", tests, load, unload);
}
