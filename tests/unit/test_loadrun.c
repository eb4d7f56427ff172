/* The Load screen's runs (core/loadrun.h): the same settings give the same
 * bytes, a run is sim_run's on workload_generate's requests, the sweep's
 * knee is its first point past an objective or with a growing queue, the
 * generic rule's scenario runs on vLLM V1, the p95's spread and the
 * default rate as computed by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine_desc.h"
#include "core/loadrun.h"
#include "model_fixture.h"

static struct scenario s;
static struct plan_result r;

static void plan_of(enum engine_kind kind)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    scenario_default(&s, &g, &m);
    s.engine.kind = kind;
    s.context_tokens = 8192;
    struct diag d = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d))
        fail_msg("%s", d.message);
}

static struct load_settings settings_at(double rate)
{
    struct load_settings ls;
    load_defaults(&s, &ls);
    ls.rate = rate;
    return ls;
}

/* Llama 3.1 8B on one H100 under vLLM, n requests at the settings of rate. */
static void prepared(double rate, uint64_t n, struct load_settings *ls, struct sim_config *c,
                     struct workload_params *w)
{
    plan_of(ENGINE_VLLM);
    *ls = settings_at(rate);
    struct diag d = {0};
    if (!load_prepare(&s, &r, ls, n, c, w, &d))
        fail_msg("%s", d.message);
}

static void a_run_is_sim_run_on_the_generated_requests(void **state)
{
    (void)state;
    struct load_settings ls;
    struct sim_config c;
    struct workload_params w;
    prepared(8, 300, &ls, &c, &w);
    assert_true(w.request_rate == 8 && w.num_prompts == 300 && w.input_len == ls.input_len);
    assert_true(c.slo_ttft == ls.slo_ttft_ms / 1000 && c.slo_tpot == ls.slo_tpot_ms / 1000);
    struct sim_result a, b, direct;
    assert_int_equal(load_run(&c, &w, &a), SIM_OK);
    assert_int_equal(load_run(&c, &w, &b), SIM_OK);
    assert_memory_equal(&a, &b, sizeof a);
    struct workload_request *q = calloc(300, sizeof *q);
    workload_generate(&w, q);
    assert_int_equal(sim_run(&c, q, 300, &direct), SIM_OK);
    free(q);
    assert_memory_equal(&a, &direct, sizeof a);
    assert_true(a.goodput && a.completed == 300);
}

static void the_knee_is_the_first_point_past_an_objective_or_the_queue(void **state)
{
    (void)state;
    struct load_settings ls;
    struct sim_config c;
    struct workload_params w;
    prepared(1, LOAD_QUICK_REQUESTS, &ls, &c, &w);
    static struct load_sweep sw, again;
    assert_true(load_sweep_run(&c, &w, &ls, &sw));
    assert_true(load_sweep_run(&c, &w, &ls, &again));
    assert_memory_equal(&sw, &again, sizeof sw);
    assert_int_equal(sw.count, LOAD_SWEEP_POINTS);
    assert_true(sw.capacity > 0);
    assert_true(sw.pt[0].rate < sw.capacity && sw.pt[sw.count - 1].rate > sw.capacity);
    /* past the capacity the queue grows: a knee, and no point before it over */
    assert_true(sw.knee > 0);
    assert_true(sw.pt[sw.knee].over || sw.pt[sw.knee].ttft_p95 > ls.slo_ttft_ms ||
                sw.pt[sw.knee].tpot_p95 > ls.slo_tpot_ms);
    for (int i = 0; i < sw.knee; i++)
        assert_false(sw.pt[i].over || sw.pt[i].ttft_p95 > ls.slo_ttft_ms ||
                     sw.pt[i].tpot_p95 > ls.slo_tpot_ms);
    /* an objective below the first point's p95 TPOT: the knee is that point */
    ls.slo_tpot_ms = sw.pt[0].tpot_p95 / 2;
    assert_int_equal(load_knee(&sw, &ls), 0);
    /* the p95 rises with the rate */
    assert_true(sw.pt[sw.count - 1].ttft_p95 > sw.pt[0].ttft_p95);
}

static void the_generic_rule_runs_on_vllm_v1(void **state)
{
    (void)state;
    plan_of(ENGINE_GENERIC);
    struct diag d = {0};
    assert_false(load_check_plan(&s, &r, &d));
    assert_non_null(strstr(d.message, "the generic rule has no scheduler"));
    struct scenario v;
    load_scenario(&s, &v);
    assert_true(engine_desc(v.engine.kind)->simulated != NULL);
    assert_int_equal(v.engine.rule, RULE_CURRENT);
    assert_int_equal(v.context_tokens, s.context_tokens);
}

static void the_workload_must_fit_the_context(void **state)
{
    (void)state;
    plan_of(ENGINE_VLLM);
    struct load_settings ls = settings_at(4);
    ls.input_len = 8192;
    struct sim_config c;
    struct workload_params w;
    struct diag d = {0};
    assert_false(load_prepare(&s, &r, &ls, 10, &c, &w, &d));
    assert_non_null(strstr(d.message, "--random-input-len 8192"));
    assert_non_null(strstr(d.message, "longer than the context (--context 8192)"));
}

static void defaults_follow_the_scenario(void **state)
{
    (void)state;
    plan_of(ENGINE_VLLM);
    struct load_settings ls;
    load_defaults(&s, &ls);
    assert_int_equal(ls.input_len, 1024);
    assert_int_equal(ls.output_len, 128);
    assert_true(ls.slo_ttft_ms == 1000 && ls.slo_tpot_ms == 50 && ls.rate == 0);
    s.prompt_tokens = 3000;
    s.max_ttft_seconds = 2.5;
    s.min_tokens_per_s = 20;
    load_defaults(&s, &ls);
    assert_int_equal(ls.input_len, 3000);
    assert_true(ls.slo_ttft_ms == 2500 && ls.slo_tpot_ms == 50);
    s.context_tokens = 2048; /* the prompt kept within the context, less the output */
    load_defaults(&s, &ls);
    assert_int_equal(ls.input_len, 2048 - 128);
}

static void the_spread_and_the_rate_by_hand(void **state)
{
    (void)state;
    struct sim_stats st = {.p90 = 1, .p95 = 2, .p99 = 6};
    /* n 1000: ranks 0.95 +- 1.96 sqrt(0.0475 / 1000) = +- 0.0135084; at
     * 0.9635084, 2 + 4 x 0.0135084 / 0.04 = 3.350837; at 0.9364916,
     * 1 + 0.0364916 / 0.05 = 1.729833; half the difference 0.810502 */
    assert_true(fabs(load_p95_spread(&st, 1000) - 0.810502) < 1e-5);
    assert_true(load_p95_spread(&st, 0) == 0);
    assert_true(load_p95_spread(&st, 100) > load_p95_spread(&st, 1000));
    assert_true(load_default_rate(21.9) == 10);
    assert_true(load_default_rate(37.6) == 18);
    assert_true(fabs(load_default_rate(0.79) - 0.39) < 1e-12);
    assert_true(load_default_rate(0) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_is_sim_run_on_the_generated_requests),
        cmocka_unit_test(the_knee_is_the_first_point_past_an_objective_or_the_queue),
        cmocka_unit_test(the_generic_rule_runs_on_vllm_v1),
        cmocka_unit_test(the_workload_must_fit_the_context),
        cmocka_unit_test(defaults_follow_the_scenario),
        cmocka_unit_test(the_spread_and_the_rate_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
