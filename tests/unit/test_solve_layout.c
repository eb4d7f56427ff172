/* What would it take (T in the planner): cheaper weights, another engine and
 * another split of the same GPUs are suggested where they reach the target,
 * each planned by plan_compute, and a digit applies one (z undoes it). */
#include "catalog_fixture.h"

#include <curses.h>

#include "app/planner.h"
#include "app/prompts.h"
#include "core/solve.h"

/* llama-3.1-70b (bf16) on H100s at 8k under an engine, split as asked */
static struct scenario on_h100(uint32_t gpus, uint32_t tp, enum engine_kind engine)
{
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.context_tokens = 8192;
    s.gpus = gpus;
    s.tp = tp;
    s.engine.kind = engine;
    return s;
}

static uint64_t users_of(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(s, PLAN_NUMBERS, NULL, &r, &d));
    return r.speed.users_at_service_level;
}

/* the change of this kind among solve_changes', checked against the plan */
static const struct solve_change *change(const struct scenario *from, uint64_t need,
                                         enum solve_change_kind kind)
{
    static struct solve_change out[SOLVE_CHANGES_MAX];
    int n = solve_changes(from, need, NULL, 0, out);
    assert_true(n <= SOLVE_CHANGES_MAX);
    for (int i = 0; i < n; i++)
        if (out[i].kind == kind) {
            assert_int_equal(out[i].users, users_of(&out[i].scenario));
            assert_true(out[i].users >= need);
            return &out[i];
        }
    return NULL;
}

static void bf16_weights_that_leave_too_few_users_get_a_cheaper_precision(void **state)
{
    (void)state;
    struct scenario b = on_h100(2, 0, ENGINE_GENERIC);
    uint64_t now = users_of(&b);
    const struct solve_change *c = change(&b, now + 1, CHANGE_WEIGHT_DTYPE);
    assert_non_null(c);
    assert_int_equal(c->scenario.weight_dtype, DTYPE_FP8); /* the widest that does */
    struct scenario same = c->scenario;
    same.weight_dtype = b.weight_dtype;
    assert_memory_equal(&same, &b, sizeof b); /* the one change */
    /* llama.cpp is offered GGUF's types, never fp8 */
    b = on_h100(2, 0, ENGINE_LLAMACPP);
    c = change(&b, users_of(&b) + 1, CHANGE_WEIGHT_DTYPE);
    assert_non_null(c);
    assert_true(engine_loads(ENGINE_LLAMACPP, c->scenario.weight_dtype));
}

static void an_engine_that_serves_more_is_suggested(void **state)
{
    (void)state;
    /* SGLang fits no one with 70B on 2 H100s at 8k; the engine that serves
     * the most users is the one suggested */
    struct scenario b = on_h100(2, 0, ENGINE_SGLANG);
    const struct solve_change *c = change(&b, 1, CHANGE_ENGINE);
    assert_non_null(c);
    assert_int_not_equal(c->scenario.engine.kind, ENGINE_SGLANG);
    for (int k = 0; k < ENGINE_COUNT; k++) {
        struct scenario s = b;
        scenario_set_engine(&s, (enum engine_kind)k, RULE_CURRENT);
        if (engine_desc((enum engine_kind)k)->server)
            assert_true(users_of(&s) <= c->users);
    }
    /* the headroom rule is no engine to trade */
    b = on_h100(2, 0, ENGINE_GENERIC);
    assert_null(change(&b, users_of(&b) + 1, CHANGE_ENGINE));
}

static void another_split_of_the_same_gpus_is_suggested(void **state)
{
    (void)state;
    /* 4 GPUs as 2 x TP2 hold a copy of the weights on each pair: one TP4
     * group holds one copy and more users */
    struct scenario b = on_h100(4, 2, ENGINE_VLLM);
    const struct solve_change *c = change(&b, users_of(&b) + 1, CHANGE_SPLIT);
    assert_non_null(c);
    assert_int_equal(c->scenario.gpus, 4);
    assert_int_equal(scenario_tp(&c->scenario), 4);
}

static void a_digit_applies_the_suggestion_and_z_undoes_it(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario b = on_h100(2, 0, ENGINE_SGLANG);
    planner_init(&p, &cat, &b);
    planner_key(&p, 'T');
    assert_int_equal(p.mode, MODE_PROMPT);
    p.prompt.text[0] = '\0';
    planner_key(&p, '5');
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_OPTIONS);
    int weights = -1, engine = -1;
    for (int i = 0; i < p.option_count; i++) {
        if (strstr(p.options[i].text, "fp8 weights instead of bf16: "))
            weights = i;
        if (strstr(p.options[i].text, " instead of SGLang: "))
            engine = i;
    }
    assert_true(weights >= 0 && engine >= 0);
    planner_key(&p, '1' + engine);
    assert_int_not_equal(planner_scenario(&p)->engine.kind, ENGINE_SGLANG);
    assert_int_equal(planner_result(&p)->max_users, p.options[engine].users);
    planner_key(&p, 'z');
    assert_int_equal(planner_scenario(&p)->engine.kind, ENGINE_SGLANG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bf16_weights_that_leave_too_few_users_get_a_cheaper_precision),
        cmocka_unit_test(an_engine_that_serves_more_is_suggested),
        cmocka_unit_test(another_split_of_the_same_gpus_is_suggested),
        cmocka_unit_test(a_digit_applies_the_suggestion_and_z_undoes_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
