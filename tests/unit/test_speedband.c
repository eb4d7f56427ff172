/* The measured spread of the speed figures (core/speedband.h): which
 * group's band a figure takes (the family and engine's when it holds two
 * cases, else the family's, else none), how it reads, and the low and high
 * each figure of a plan gets from the generated table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/speedband.h"
#include "model_fixture.h"

/* A small table worked by hand: Hopper with a vLLM group of 3 decode
 * cases (1 of them held out) and 1 first-token case; the family over every
 * engine with 5 and 2; Volta with one case, too few for a band. */
static const struct speedband_entry table[] = {
    {"Hopper", "", {5, 2, 0.80, 1.30}, {2, 1, 1.0059, 1.1676}},
    {"Hopper", "vllm", {3, 1, 0.85, 1.20}, {1, 0, 1.5, 1.5}},
    {"Volta", "", {1, 0, 0.9052, 0.9052}, {0, 0, 1, 1}},
    {"Volta", "llama.cpp", {1, 0, 0.9052, 0.9052}, {0, 0, 1, 1}},
};
static const size_t table_count = sizeof table / sizeof table[0];

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void the_engine_and_family_band_comes_first(void **state)
{
    (void)state;
    struct speed_band b =
        speedband_find(table, table_count, "Hopper", "vllm", "vLLM", SPEEDBAND_DECODE);
    assert_int_equal(b.basis, SPEEDBAND_FITTED);
    assert_true(b.low == 0.85 && b.high == 1.20);
    assert_int_equal(b.cases, 3);
    assert_int_equal(b.held_out, 1);
    char text[200];
    speedband_text(&b, text, sizeof text);
    /* 0.85 - 1 = -15%, 1.20 - 1 = +20% */
    assert_string_equal(text, "-15% to +20% over 3 Hopper/vLLM measurements");
    speedband_group(&b, text, sizeof text);
    assert_string_equal(text, "Hopper/vLLM");
}

static void too_few_cases_fall_back_to_the_family(void **state)
{
    (void)state;
    char text[200];
    /* vLLM's one first-token case is too few: the family's two (both engines) */
    struct speed_band b =
        speedband_find(table, table_count, "Hopper", "vllm", "vLLM", SPEEDBAND_TTFT);
    assert_int_equal(b.basis, SPEEDBAND_FITTED);
    assert_true(b.low == 1.0059 && b.high == 1.1676);
    assert_int_equal(b.cases, 2);
    assert_null(b.engine_title);
    speedband_text(&b, text, sizeof text);
    /* 1.0059 rounds to +1%, 1.1676 to +17% */
    assert_string_equal(text, "+1% to +17% over 2 Hopper measurements");
    /* an engine with no group of its own takes the family's too */
    b = speedband_find(table, table_count, "Hopper", "sglang", "SGLang", SPEEDBAND_DECODE);
    assert_true(b.low == 0.80 && b.high == 1.30 && b.cases == 5);
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-20% to +30% over 5 Hopper measurements");
}

static void one_case_or_none_gives_no_band(void **state)
{
    (void)state;
    char text[200];
    const char *families[] = {"Volta", "Turing", ""};
    for (size_t i = 0; i < 3; i++) {
        struct speed_band b = speedband_find(table, table_count, families[i], "llama.cpp",
                                             "llama.cpp", SPEEDBAND_DECODE);
        assert_int_equal(b.basis, SPEEDBAND_DEFAULT);
        assert_true(b.low == 1 && b.high == 1 && b.cases == 0);
        speedband_text(&b, text, sizeof text);
        assert_string_equal(text, "default: no measurement behind it");
        speedband_group(&b, text, sizeof text);
        assert_string_equal(text, "");
    }
    assert_string_equal(speedband_basis_name(SPEEDBAND_DEFAULT), "default");
    assert_string_equal(speedband_basis_name(SPEEDBAND_FITTED), "fitted");
    assert_string_equal(speedband_basis_name(SPEEDBAND_CALIBRATED), "calibrated");
}

/* The generated table: every group holds what its cases can give. */
static void the_generated_table_is_whole(void **state)
{
    (void)state;
    assert_true(speedband_table_count > 0);
    for (size_t i = 0; i < speedband_table_count; i++) {
        const struct speedband_entry *e = &speedband_table[i];
        assert_true(e->family[0] != '\0');
        const struct speedband_spread *sp[2] = {&e->decode, &e->ttft};
        for (int k = 0; k < 2; k++) {
            assert_true(sp[k]->held_out <= sp[k]->cases);
            assert_true(sp[k]->low > 0 && sp[k]->low <= sp[k]->high);
        }
        /* a family-and-engine group's cases are among its family's */
        if (e->engine[0]) {
            struct speed_band f = speedband_find(speedband_table, speedband_table_count, e->family,
                                                 "", NULL, SPEEDBAND_DECODE);
            if (e->decode.cases >= SPEEDBAND_MIN_CASES) {
                assert_true(f.cases >= e->decode.cases);
                assert_true(f.low <= e->decode.low && f.high >= e->decode.high);
            }
        }
    }
}

static struct plan_result plan(const struct scenario *s) { return fixture_plan(s); }

/* The decode band of Hopper and vLLM, as the generated table has it. */
static const struct speedband_entry *table_entry(const char *family, const char *engine)
{
    for (size_t i = 0; i < speedband_table_count; i++)
        if (strcmp(speedband_table[i].family, family) == 0 &&
            strcmp(speedband_table[i].engine, engine) == 0)
            return &speedband_table[i];
    return NULL;
}

static void a_plan_carries_the_band_of_its_gpu_and_engine(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 4096;
    struct plan_result r = plan(&s);
    const struct speed_result *sp = &r.speed;
    const struct speed_bands *b = &r.bands;
    const struct speedband_entry *e = table_entry("Hopper", "vllm");
    assert_non_null(e);
    assert_true(e->decode.cases >= SPEEDBAND_MIN_CASES);
    assert_int_equal(b->decode.basis, SPEEDBAND_FITTED);
    assert_int_equal(b->decode.cases, e->decode.cases);
    assert_string_equal(b->decode.engine_title, "vLLM");
    /* low = the speed x the least ratio, high = x the most; the throughput alike */
    assert_true(close_to(b->tokens_per_s_per_user_low, sp->tokens_per_s_per_user * e->decode.low));
    assert_true(
        close_to(b->tokens_per_s_per_user_high, sp->tokens_per_s_per_user * e->decode.high));
    assert_true(close_to(b->tokens_per_s_total_low, sp->tokens_per_s_total * e->decode.low));
    assert_true(close_to(b->tokens_per_s_total_high, sp->tokens_per_s_total * e->decode.high));
    /* vLLM on Hopper has no first-token group of its own: the family's */
    const struct speedband_entry *f = table_entry("Hopper", "");
    assert_non_null(f);
    if (e->ttft.cases < SPEEDBAND_MIN_CASES && f->ttft.cases >= SPEEDBAND_MIN_CASES) {
        assert_null(b->ttft.engine_title);
        assert_true(close_to(b->ttft_seconds_low, sp->ttft_seconds * f->ttft.low));
        assert_true(close_to(b->ttft_seconds_high, sp->ttft_seconds * f->ttft.high));
    }

    /* a GPU of no family has no band: 0 for every low and high */
    g.family[0] = '\0';
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    r = plan(&s);
    assert_int_equal(r.bands.decode.basis, SPEEDBAND_DEFAULT);
    assert_int_equal(r.bands.ttft.basis, SPEEDBAND_DEFAULT);
    assert_true(r.speed.tokens_per_s_per_user > 0);
    assert_true(r.bands.tokens_per_s_per_user_low == 0 && r.bands.tokens_per_s_per_user_high == 0);
    assert_true(r.bands.ttft_seconds_low == 0 && r.bands.ttft_seconds_high == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_engine_and_family_band_comes_first),
        cmocka_unit_test(too_few_cases_fall_back_to_the_family),
        cmocka_unit_test(one_case_or_none_gives_no_band),
        cmocka_unit_test(the_generated_table_is_whole),
        cmocka_unit_test(a_plan_carries_the_band_of_its_gpu_and_engine),
    };
    return cmocka_run_group_tests_name("speedband", tests, NULL, NULL);
}
