/* What would it take (T in the planner): cheaper weights, another engine,
 * another split of the same GPUs and a count of GPUs with a better layout
 * are suggested where they reach the target,
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

/* The layouts T proposes: stages within a node where tensor parallel would
 * do rank below TP alone, another split of the same GPUs may add stages, and
 * where the count of GPUs admits only such stages (5 or 13 H100s of a 70B
 * model) the nearest counts that allow whole TP groups are proposed, even
 * when the count serves the target. */
static int changes(const struct scenario *b, uint64_t need, struct solve_change *out)
{
    int n = solve_changes(b, need, NULL, 0, out);
    assert_true(n >= 0 && n <= SOLVE_CHANGES_MAX);
    return n;
}

static const struct solve_change *kind_of(const struct solve_change *c, int n,
                                          enum solve_change_kind k, int skip)
{
    for (int i = 0; i < n; i++)
        if (c[i].kind == k && skip-- == 0)
            return &c[i];
    return NULL;
}

/* 12 x TP 1 holds no copy of 131 GiB; for 20 users the fewest GPUs are 3 as
 * TP 1 x PP 3 (stages within a node): 4 GPUs of TP 4 (55 users) rank first. */
static void stages_within_a_node_rank_below_tp(void **state)
{
    (void)state;
    static struct solve_change c[SOLVE_CHANGES_MAX];
    struct scenario b = on_h100(12, 1, ENGINE_VLLM);
    int n = changes(&b, 20, c);
    const struct solve_change *g = kind_of(c, n, CHANGE_GPUS, 0);
    assert_non_null(g);
    assert_int_equal(g->scenario.gpus, 4);
    assert_int_equal(scenario_tp(&g->scenario), 4);
    assert_int_equal(scenario_pp(&g->scenario), 1);
    /* 5 H100s for 200 users: the fewest that serve them by default are 16,
     * one replica of TP 8 x PP 2 a node a stage (381 users) */
    b = on_h100(5, 0, ENGINE_VLLM);
    n = changes(&b, 200, c);
    g = kind_of(c, n, CHANGE_GPUS, 0);
    assert_non_null(g);
    assert_int_equal(g->scenario.gpus, 16);
    assert_int_equal(scenario_tp(&g->scenario), 8);
    assert_int_equal(scenario_pp(&g->scenario), 2);
}

/* 13 GPUs (a prime) over nodes of 8 and 5. TensorRT-LLM's mpirun runs TP 1
 * x PP 13 there, stages within nodes: for 20 users the nearest counts of
 * whole TP groups are proposed, 8 (TP 8, 165 users) and 16 (TP 8 x PP 2,
 * 377). vLLM runs no replica over uneven nodes (ParallelConfig asserts
 * world_size % nnodes == 0): 13 x TP 1 hold none, and T offers 16 above
 * (4 below is the fewest GPUs already) and TensorRT-LLM's 13 stages. */
static void a_count_of_poor_layouts_gets_the_nearest_good_counts(void **state)
{
    (void)state;
    static struct solve_change c[SOLVE_CHANGES_MAX];
    struct scenario b = on_h100(13, 0, ENGINE_TRTLLM);
    assert_int_equal(scenario_pp(&b), 13);
    int n = changes(&b, 20, c);
    const struct solve_change *below = kind_of(c, n, CHANGE_NEAR_GPUS, 0);
    const struct solve_change *above = kind_of(c, n, CHANGE_NEAR_GPUS, 1);
    assert_non_null(below);
    assert_non_null(above);
    assert_int_equal(below->scenario.gpus, 8);
    assert_int_equal(scenario_tp(&below->scenario), 8);
    assert_int_equal(above->scenario.gpus, 16);
    assert_int_equal(scenario_tp(&above->scenario), 8);
    assert_int_equal(scenario_pp(&above->scenario), 2);
    assert_true(below->users >= 20 && above->users >= 20);
    b = on_h100(13, 0, ENGINE_VLLM);
    assert_int_equal(scenario_pp(&b), 1);
    n = changes(&b, 20, c);
    assert_null(kind_of(c, n, CHANGE_SPLIT, 0));
    above = kind_of(c, n, CHANGE_NEAR_GPUS, 0);
    assert_non_null(above);
    assert_int_equal(above->scenario.gpus, 16);
    const struct solve_change *e = kind_of(c, n, CHANGE_ENGINE, 0);
    assert_non_null(e);
    assert_int_equal(e->scenario.engine.kind, ENGINE_TRTLLM);
    assert_int_equal(scenario_pp(&e->scenario), 13);
}

/* SGLang on 12 GPUs given 3 x TP 4 for 200 users (201): another split of
 * the same GPUs, TP 2 x PP 6 over two nodes of 6, three stages each
 * (SGLang gives each node pp_size // nnodes stages), serves 242. */
static void another_split_may_add_stages(void **state)
{
    (void)state;
    static struct solve_change c[SOLVE_CHANGES_MAX];
    struct scenario b = on_h100(12, 0, ENGINE_SGLANG);
    b.tp = 4;
    int n = changes(&b, 240, c);
    const struct solve_change *s = kind_of(c, n, CHANGE_SPLIT, 0);
    assert_non_null(s);
    assert_int_equal(s->scenario.gpus, 12);
    assert_int_equal(scenario_pp(&s->scenario), 6);
    assert_int_equal(scenario_tp(&s->scenario), 2);
    assert_true(s->users >= 240);
}

/* DeepSeek-V3 on 8 H200s at 8k, generic rule: the default is TP 8 (as the
 * engines' guides deploy MLA), whose every rank holds the whole latent: 88
 * users. The same GPUs as TP 1 x PP 8 hold each layer's latent once: 686
 * (61 layers over 8 stages); T offers that split for 500 users. */
static void stages_are_offered_where_tp_copies_the_latent(void **state)
{
    (void)state;
    struct scenario b = base("h200", "deepseek-v3");
    b.context_tokens = 8192;
    b.gpus = 8;
    assert_int_equal(scenario_tp(&b), 8);
    assert_int_equal(users_of(&b), 88);
    const struct solve_change *s = change(&b, 500, CHANGE_SPLIT);
    assert_non_null(s);
    assert_int_equal(scenario_tp(&s->scenario), 1);
    assert_int_equal(scenario_pp(&s->scenario), 8);
    assert_int_equal(s->users, 686);
}

/* No context below 1k is offered, and one offered keeps the layout in use:
 * 70B on 2 H100s at 32k serves 40 only at a context of a few hundred
 * tokens (none offered); 20 at 1,957 tokens, TP 2 still. */
static void no_context_too_short_to_serve(void **state)
{
    (void)state;
    static struct solve_change c[SOLVE_CHANGES_MAX];
    struct scenario b = on_h100(2, 0, ENGINE_GENERIC);
    b.context_tokens = 32768;
    int n = changes(&b, 40, c);
    assert_null(kind_of(c, n, CHANGE_CONTEXT, 0));
    n = changes(&b, 20, c);
    const struct solve_change *k = kind_of(c, n, CHANGE_CONTEXT, 0);
    assert_non_null(k);
    assert_true(k->scenario.context_tokens >= 1024 && k->scenario.context_tokens < 32768);
    assert_int_equal(scenario_tp(&k->scenario), scenario_tp(&b));
    assert_int_equal(scenario_pp(&k->scenario), scenario_pp(&b));
}

/* A target out of reach (a million users of Llama 3.1 70B, more than 256
 * H100s hold): no change reaches it, and T offers the closest each layout
 * and precision change gets, the users it serves, short of the target.
 * Before, nothing: "no single change reaches it". vLLM on 4 H100s in bf16
 * serves 55; its cheaper caches are fp8 variants (one byte a value: twice
 * the users), its cheaper weights down to 4 bits. */
static void an_unreachable_target_gets_the_closest(void **state)
{
    (void)state;
    static struct solve_change c[SOLVE_CHANGES_MAX];
    struct scenario b = on_h100(4, 0, ENGINE_VLLM);
    uint64_t now = users_of(&b), need = 1000000;
    int n = changes(&b, need, c);
    static const enum solve_change_kind kinds[] = {CHANGE_KV_DTYPE, CHANGE_WEIGHT_DTYPE,
                                                   CHANGE_ENGINE};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const struct solve_change *x = kind_of(c, n, kinds[k], 0);
        assert_non_null(x);
        assert_true(x->users > now && x->users < need);
        assert_int_equal(x->users, users_of(&x->scenario));
    }
    const struct solve_change *kv = kind_of(c, n, CHANGE_KV_DTYPE, 0);
    assert_int_equal(dtype_info(kv->scenario.kv_dtype)->bytes_num, 1);
    assert_int_equal(dtype_info(kv->scenario.kv_dtype)->bytes_den, 1);
    assert_true(kv->users >= 2 * now);
    const struct solve_change *w = kind_of(c, n, CHANGE_WEIGHT_DTYPE, 0);
    assert_int_equal(dtype_info(w->scenario.weight_dtype)->bytes_den, 2); /* 4 bits */
    /* in the planner, each says it is the closest */
    static struct planner p;
    planner_init(&p, &cat, &b);
    planner_key(&p, 'T');
    p.prompt.text[0] = '\0';
    planner_key(&p, '9');
    for (int i = 0; i < 5; i++)
        planner_key(&p, '9');
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_OPTIONS);
    assert_true(p.option_count >= 3);
    for (int i = 0; i < p.option_count; i++)
        assert_non_null(strstr(p.options[i].text, ", the closest"));
}

/* In the planner: T 20 at 13 GPUs under TensorRT-LLM lists the two counts,
 * not "nothing to change". */
static void t_lists_them_in_the_planner(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario b = on_h100(13, 0, ENGINE_TRTLLM);
    planner_init(&p, &cat, &b);
    planner_key(&p, 'T');
    p.prompt.text[0] = '\0';
    planner_key(&p, '2');
    planner_key(&p, '0');
    planner_key(&p, '\n');
    assert_int_equal(p.mode, MODE_OPTIONS);
    assert_int_equal(p.option_count, 2);
    assert_non_null(strstr(p.options[0].text, "8 GPUs would allow TP8 (13: TP1 PP13): "));
    assert_non_null(strstr(p.options[1].text, "16 GPUs would allow TP8 PP2 (13: TP1 PP13): "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bf16_weights_that_leave_too_few_users_get_a_cheaper_precision),
        cmocka_unit_test(an_engine_that_serves_more_is_suggested),
        cmocka_unit_test(another_split_of_the_same_gpus_is_suggested),
        cmocka_unit_test(a_digit_applies_the_suggestion_and_z_undoes_it),
        cmocka_unit_test(stages_within_a_node_rank_below_tp),
        cmocka_unit_test(a_count_of_poor_layouts_gets_the_nearest_good_counts),
        cmocka_unit_test(another_split_may_add_stages),
        cmocka_unit_test(stages_are_offered_where_tp_copies_the_latent),
        cmocka_unit_test(no_context_too_short_to_serve),
        cmocka_unit_test(t_lists_them_in_the_planner),
        cmocka_unit_test(an_unreachable_target_gets_the_closest),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
