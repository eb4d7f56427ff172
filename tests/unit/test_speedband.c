/* The measured spread of the speed figures (core/speedband.h): which
 * group's band a figure takes (of its kind, dense or MoE: the family and
 * engine's when it holds three cases, else the family's, else every
 * family's, else a stated band), how it reads, what its basis says, and the
 * low and high each figure of a plan gets from the generated table: a band
 * always holds its figure. */
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

/* A small table worked by hand: Hopper dense models with a vLLM group of 3
 * decode cases (1 of them held out) and 1 first-token case; the family over
 * every engine with 5 and 2; every family's dense cases, 9 and 4; Volta with
 * one case, too few for a band of its own; MoE cases of Hopper only, 3 of
 * them, and no first token of any MoE model. */
static const struct speedband_entry table[] = {
    {"", "", false, {9, 3, 0.70, 1.40, "llama.cpp, NIM, vLLM", NULL}, {4, 1, 0.55, 2.00, "vLLM", NULL}},
    {"", "", true, {3, 1, 0.90, 1.10, NULL, NULL}, {0, 0, 1, 1, NULL, NULL}},
    {"Hopper", "", false, {5, 2, 0.80, 1.30, "NIM, vLLM", "llama-3.1-8b, llama-3.3-70b"},
     {2, 1, 1.0, 1.1676, "vLLM", NULL}},
    {"Hopper", "", true, {3, 1, 0.90, 1.10, "SGLang", "deepseek-v3"}, {0, 0, 1, 1, NULL, NULL}},
    {"Hopper", "vllm", false, {3, 1, 0.85, 1.20, NULL, NULL}, {1, 0, 1.0, 1.5, NULL, NULL}},
    {"Volta", "", false, {1, 0, 0.9052, 1.0, NULL, NULL}, {0, 0, 1, 1, NULL, NULL}},
    {"Volta", "llama.cpp", false, {1, 0, 0.9052, 1.0, NULL, NULL}, {0, 0, 1, 1, NULL, NULL}},
};
static const size_t table_count = sizeof table / sizeof table[0];

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static struct speed_band find(const char *family, const char *engine, const char *title,
                              bool moe, enum speedband_figure figure)
{
    struct speedband_key key = {family, engine, title, moe};
    return speedband_find(table, table_count, &key, figure);
}

static void the_engine_and_family_band_comes_first(void **state)
{
    (void)state;
    struct speed_band b = find("Hopper", "vllm", "vLLM", false, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_FITTED; /* the plan sets it from the scenario's fractions */
    assert_true(b.banded);
    assert_true(b.low == 0.85 && b.high == 1.20);
    assert_int_equal(b.cases, 3);
    assert_int_equal(b.held_out, 1);
    char text[200];
    speedband_text(&b, text, sizeof text);
    /* 0.85 - 1 = -15%, 1.20 - 1 = +20% */
    assert_string_equal(text, "-15% to +20% over 3 dense Hopper/vLLM cases");
    speedband_group(&b, text, sizeof text);
    assert_string_equal(text, "dense Hopper/vLLM");
}

static void too_few_cases_fall_back_to_a_wider_stated_band(void **state)
{
    (void)state;
    char text[200];
    /* vLLM's one first-token case and Hopper's two are too few: every
     * family's four dense cases, and the text says so */
    struct speed_band b = find("Hopper", "vllm", "vLLM", false, SPEEDBAND_TTFT);
    b.basis = SPEEDBAND_FITTED;
    assert_true(b.banded && b.low == 0.55 && b.high == 2.00 && b.cases == 4);
    assert_null(b.engine_title);
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-45% to +100% over 4 dense cases of every GPU family");
    speedband_group(&b, text, sizeof text);
    assert_string_equal(text, "dense, every GPU family");
    /* an engine with no group of its own takes the family's */
    b = find("Hopper", "sglang", "SGLang", false, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_FITTED;
    assert_true(b.low == 0.80 && b.high == 1.30 && b.cases == 5);
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-20% to +30% over 5 dense Hopper cases under NIM, vLLM");
    /* Volta's one case, an unknown family, no family: every family's */
    const char *families[] = {"Volta", "Turing", ""};
    for (size_t i = 0; i < 3; i++) {
        b = find(families[i], "llama.cpp", "llama.cpp", false, SPEEDBAND_DECODE);
        assert_true(b.banded && b.cases == 9 && b.low == 0.70 && b.high == 1.40);
    }
    /* no MoE first token anywhere: the stated band, x0.5 to x2, said so */
    b = find("Hopper", "sglang", "SGLang", true, SPEEDBAND_TTFT);
    assert_true(b.banded && b.cases == 0 && b.family == NULL);
    assert_true(b.low == SPEEDBAND_WIDE_LOW && b.high == SPEEDBAND_WIDE_HIGH);
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-50% to +100%: a stated band, fewer than 3 MoE cases measured; "
                              "default MFU");
    speedband_group(&b, text, sizeof text);
    assert_string_equal(text, "");
}

/* A band over every engine names the engines of its cases, and is borrowed
 * when none of them is the plan's: llama.cpp on Hopper takes the five dense
 * Hopper cases of NIM and vLLM, and the text says that none ran llama.cpp;
 * vLLM's own pair has no such words; the generic rule borrows nothing. */
static void a_band_of_other_engines_says_so(void **state)
{
    (void)state;
    char text[240];
    struct speed_band b = find("Hopper", "llama.cpp", "llama.cpp", false, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_FITTED;
    b.plan_engine = "llama.cpp"; /* speedband_lookup sets it from the scenario's engine */
    assert_true(b.cases == 5 && b.engine_title == NULL);
    assert_true(speedband_borrowed(&b));
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text,
                        "-20% to +30% over 5 dense Hopper cases under NIM, vLLM; none under llama.cpp");
    /* a dense band measured on other models names them, as a MoE one does
     * (a dense model's bytes and kernels are its own too) */
    b.other_models = true;
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-20% to +30% over 5 dense Hopper cases under NIM, vLLM; none under "
                              "llama.cpp; measured on llama-3.1-8b, llama-3.3-70b");
    b.other_models = false;
    /* vLLM is among the family's engines: named, not borrowed */
    b.plan_engine = "vLLM";
    assert_false(speedband_borrowed(&b));
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-20% to +30% over 5 dense Hopper cases under NIM, vLLM");
    /* "vLLM" is not "vLLM V1": a whole name of the list, not a prefix */
    b.plan_engine = "vLL";
    assert_true(speedband_borrowed(&b));
    /* the generic rule (no engine title) borrows from none */
    b.plan_engine = NULL;
    assert_false(speedband_borrowed(&b));
    /* every family's: only the missing engine is named */
    b = find("Turing", "sglang", "SGLang", false, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_FITTED;
    b.plan_engine = "SGLang";
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-30% to +40% over 9 dense cases of every GPU family; none under "
                              "SGLang");
    /* a MoE band measured on another model names the models it was: an
     * expert layer's speed is its model's own */
    b = find("Hopper", "sglang", "SGLang", true, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_FITTED;
    b.plan_engine = "SGLang";
    b.other_models = true; /* speedband_lookup: the plan's model is none of the group's */
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-10% to +10% over 3 MoE Hopper cases under SGLang; measured on "
                              "deepseek-v3");
    b.other_models = false;
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-10% to +10% over 3 MoE Hopper cases under SGLang");
    /* the pair's own band: no engines' words */
    b = find("Hopper", "vllm", "vLLM", false, SPEEDBAND_DECODE);
    b.plan_engine = "vLLM";
    assert_false(speedband_borrowed(&b));
}

/* Dense and MoE cases never share a band: a MoE model on Hopper takes the
 * three MoE cases, a dense one the five dense ones. */
static void dense_and_moe_are_apart(void **state)
{
    (void)state;
    struct speed_band moe = find("Hopper", "vllm", "vLLM", true, SPEEDBAND_DECODE);
    struct speed_band dense = find("Hopper", "vllm", "vLLM", false, SPEEDBAND_DECODE);
    assert_true(moe.moe && moe.cases == 3 && moe.low == 0.90 && moe.high == 1.10);
    assert_null(moe.engine_title); /* no MoE group of vLLM's */
    assert_true(!dense.moe && dense.cases == 3 && dense.low == 0.85);
    char text[200];
    moe.basis = SPEEDBAND_FITTED;
    speedband_text(&moe, text, sizeof text);
    assert_string_equal(text, "-10% to +10% over 3 MoE Hopper cases under SGLang");
}

static void the_basis_names_the_fractions(void **state)
{
    (void)state;
    char text[200];
    struct speed_band b = find("Hopper", "vllm", "vLLM", false, SPEEDBAND_DECODE);
    b.basis = SPEEDBAND_DEFAULT; /* the default MBU: a band, but no fit behind the fraction */
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-15% to +20% over 3 dense Hopper/vLLM cases; default MBU");
    b.basis = SPEEDBAND_GIVEN;
    speedband_text(&b, text, sizeof text);
    assert_string_equal(text, "-15% to +20% over 3 dense Hopper/vLLM cases; MBU given");
    assert_string_equal(speedband_basis_name(SPEEDBAND_DEFAULT), "default");
    assert_string_equal(speedband_basis_name(SPEEDBAND_FITTED), "fitted");
    assert_string_equal(speedband_basis_name(SPEEDBAND_CALIBRATED), "calibrated");
    assert_string_equal(speedband_basis_name(SPEEDBAND_GIVEN), "given");
}

/* The generated table: every group holds what its cases can give, and
 * every band holds its figure (low <= 1 <= high). */
static void the_generated_table_is_whole(void **state)
{
    (void)state;
    assert_true(speedband_table_count > 0);
    for (size_t i = 0; i < speedband_table_count; i++) {
        const struct speedband_entry *e = &speedband_table[i];
        const struct speedband_spread *sp[2] = {&e->decode, &e->ttft};
        for (int k = 0; k < 2; k++) {
            assert_true(sp[k]->held_out <= sp[k]->cases);
            assert_true(sp[k]->low > 0 && sp[k]->low <= 1.0 && sp[k]->high >= 1.0);
        }
        /* a family-and-engine group's cases are among its family's */
        if (e->engine[0]) {
            struct speedband_key key = {e->family, "", NULL, e->moe};
            struct speed_band f =
                speedband_find(speedband_table, speedband_table_count, &key, SPEEDBAND_DECODE);
            if (e->decode.cases >= SPEEDBAND_MIN_CASES) {
                assert_true(f.cases >= e->decode.cases);
                assert_true(f.low <= e->decode.low && f.high >= e->decode.high);
            }
        }
    }
}

static struct plan_result plan(const struct scenario *s) { return fixture_plan(s); }

/* The generated table's entry of a group. */
static const struct speedband_entry *table_entry(const char *family, const char *engine, bool moe)
{
    for (size_t i = 0; i < speedband_table_count; i++)
        if (strcmp(speedband_table[i].family, family) == 0 &&
            strcmp(speedband_table[i].engine, engine) == 0 && speedband_table[i].moe == moe)
            return &speedband_table[i];
    return NULL;
}

/* low <= figure <= high, each figure of a plan with a band */
static void assert_held(const struct plan_result *r)
{
    const struct speed_result *sp = &r->speed;
    const struct speed_bands *b = &r->bands;
    assert_true(b->tokens_per_s_per_user_low <= sp->tokens_per_s_per_user &&
                sp->tokens_per_s_per_user <= b->tokens_per_s_per_user_high);
    assert_true(b->tokens_per_s_total_low <= sp->tokens_per_s_total &&
                sp->tokens_per_s_total <= b->tokens_per_s_total_high);
    assert_true(b->ttft_seconds_low <= sp->ttft_seconds && sp->ttft_seconds <= b->ttft_seconds_high);
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
    const struct speedband_entry *e = table_entry("Hopper", "vllm", false);
    assert_non_null(e);
    assert_true(e->decode.cases >= SPEEDBAND_MIN_CASES);
    assert_int_equal(b->decode.basis, SPEEDBAND_FITTED); /* H100's MBU is fitted */
    assert_int_equal(b->ttft.basis, SPEEDBAND_DEFAULT);  /* no MFU is */
    assert_int_equal(b->decode.cases, e->decode.cases);
    assert_string_equal(b->decode.engine_title, "vLLM");
    /* low = the speed x the least ratio, high = x the most; the throughput alike */
    assert_true(close_to(b->tokens_per_s_per_user_low, sp->tokens_per_s_per_user * e->decode.low));
    assert_true(
        close_to(b->tokens_per_s_per_user_high, sp->tokens_per_s_per_user * e->decode.high));
    assert_true(close_to(b->tokens_per_s_total_low, sp->tokens_per_s_total * e->decode.low));
    assert_true(close_to(b->tokens_per_s_total_high, sp->tokens_per_s_total * e->decode.high));
    assert_held(&r);
    /* the first token of Hopper's few dense cases: a wider band, every family's */
    const struct speedband_entry *f = table_entry("Hopper", "", false);
    const struct speedband_entry *all = table_entry("", "", false);
    assert_non_null(f);
    assert_non_null(all);
    if (f->ttft.cases < SPEEDBAND_MIN_CASES) {
        assert_string_equal(b->ttft.family, "");
        assert_true(close_to(b->ttft_seconds_low, sp->ttft_seconds * all->ttft.low));
        assert_true(close_to(b->ttft_seconds_high, sp->ttft_seconds * all->ttft.high));
    }

    /* a GPU of no family: every family's band of its kind, the MBU its own */
    g.family[0] = '\0';
    g.achievable_mbu = 0;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    r = plan(&s);
    assert_int_equal(r.bands.decode.basis, SPEEDBAND_DEFAULT);
    assert_int_equal(r.bands.ttft.basis, SPEEDBAND_DEFAULT);
    assert_true(r.bands.decode.banded && r.bands.decode.cases == all->decode.cases);
    assert_true(r.speed.tokens_per_s_per_user > 0);
    assert_held(&r);
    char text[200];
    speedband_text(&r.bands.decode, text, sizeof text);
    assert_non_null(strstr(text, "dense cases of every GPU family; default MBU"));
    /* --mbu: given */
    s.mbu = 0.6;
    r = plan(&s);
    assert_int_equal(r.bands.decode.basis, SPEEDBAND_GIVEN);
}

/* A MoE model takes the MoE cases' band, a llama.cpp plan on an RTX 4090
 * the first-token band of llama-bench's pp512 cases. */
static void moe_and_llamacpp_first_token(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    s.tp = 8;
    s.engine.kind = ENGINE_SGLANG;
    s.context_tokens = 4096;
    struct plan_result r = plan(&s);
    assert_true(r.bands.decode.moe);
    const struct speedband_entry *e = table_entry("Hopper", "sglang", true);
    assert_non_null(e);
    assert_int_equal(r.bands.decode.cases, e->decode.cases);
    assert_held(&r);

    g = preset_gpu("rtx-4090");
    m = llama2_7b();
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_LLAMACPP;
    s.context_tokens = 2048;
    r = plan(&s);
    e = table_entry("Ada Lovelace", "llama.cpp", false);
    assert_non_null(e);
    assert_true(e->ttft.cases >= SPEEDBAND_MIN_CASES);
    assert_int_equal(r.bands.ttft.cases, e->ttft.cases);
    assert_string_equal(r.bands.ttft.engine_title, "llama.cpp");
    assert_held(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_engine_and_family_band_comes_first),
        cmocka_unit_test(a_band_of_other_engines_says_so),
        cmocka_unit_test(too_few_cases_fall_back_to_a_wider_stated_band),
        cmocka_unit_test(dense_and_moe_are_apart),
        cmocka_unit_test(the_basis_names_the_fractions),
        cmocka_unit_test(the_generated_table_is_whole),
        cmocka_unit_test(a_plan_carries_the_band_of_its_gpu_and_engine),
        cmocka_unit_test(moe_and_llamacpp_first_token),
    };
    return cmocka_run_group_tests_name("speedband", tests, NULL, NULL);
}
