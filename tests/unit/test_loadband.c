/* The measured spread of `kvplan simulate`'s mean TTFT and TPOT
 * (core/loadband.h): the band a scenario takes from the generated table
 * (src/core/loadband_table.c, tools/gen_load_bands.py) is its group's entry,
 * the narrowest of its kind, family and engine with three runs, as the plan's
 * speed bands take theirs; it holds 1 (the simulated figure itself); an
 * engine with no runs borrows every engine's and says so; a fraction given
 * on the command line is named. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine_desc.h"
#include "core/loadband.h"
#include "core/scenario.h"
#include "model_fixture.h"

static struct scenario on(const char *gpu, const char *model, enum engine_kind engine)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = preset_model(model);
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = engine;
    return s;
}

static const struct speedband_entry *entry(const char *family, const char *engine, bool moe)
{
    for (size_t i = 0; i < loadband_table_count; i++)
        if (loadband_table[i].moe == moe && strcmp(loadband_table[i].family, family) == 0 &&
            strcmp(loadband_table[i].engine, engine) == 0)
            return &loadband_table[i];
    return NULL;
}

static void a_pairs_band(void **state)
{
    (void)state;
    /* DeepSeek-V3 under SGLang on MI300X (CDNA 3): the pair's runs */
    struct scenario s = on("mi300x", "deepseek-v3", ENGINE_SGLANG);
    struct load_bands lb;
    loadband_lookup(&s, &lb);
    const struct speedband_entry *e = entry("CDNA 3", "sglang", true);
    assert_non_null(e);
    assert_true(e->ttft.cases >= SPEEDBAND_MIN_CASES);
    assert_true(lb.ttft.low == e->ttft.low && lb.ttft.high == e->ttft.high);
    assert_true(lb.tpot.low == e->decode.low && lb.tpot.high == e->decode.high);
    assert_int_equal(lb.ttft.cases, e->ttft.cases);
    assert_true(lb.ttft.low <= 1.0 && lb.ttft.high >= 1.0);
    assert_true(lb.tpot.low <= 1.0 && lb.tpot.high >= 1.0);
    char group[SPEEDBAND_GROUP_MAX], text[512];
    speedband_group(&lb.ttft, group, sizeof group);
    assert_string_equal(group, "MoE CDNA 3/SGLang");
    speedband_text(&lb.ttft, text, sizeof text);
    assert_non_null(strstr(text, "MoE CDNA 3/SGLang cases"));
    assert_null(strstr(text, "given"));
    assert_null(strstr(text, "measured on")); /* the runs are of DeepSeek-V3 */
}

static void no_runs_borrow(void **state)
{
    (void)state;
    /* llama.cpp on an RTX 4090 (Ada Lovelace): no run of the family, none
     * under llama.cpp: every family's dense runs, borrowed, named */
    struct scenario s = on("rtx-4090", "llama-3.1-8b", ENGINE_LLAMACPP);
    struct load_bands lb;
    loadband_lookup(&s, &lb);
    const struct speedband_entry *e = entry("", "", false);
    assert_non_null(e);
    assert_true(lb.ttft.low == e->ttft.low && lb.ttft.high == e->ttft.high);
    assert_string_equal(lb.ttft.family, "");
    assert_true(speedband_borrowed(&lb.ttft));
    char text[512];
    speedband_text(&lb.ttft, text, sizeof text);
    assert_non_null(strstr(text, "none under llama.cpp"));
    assert_non_null(strstr(text, "dense cases of every GPU family"));
}

static void given_fractions_named(void **state)
{
    (void)state;
    struct scenario s = on("mi300x", "deepseek-v3", ENGINE_SGLANG);
    s.mbu = 0.7;
    struct load_bands lb;
    loadband_lookup(&s, &lb);
    char t[512], p[512];
    speedband_text(&lb.tpot, p, sizeof p);
    speedband_text(&lb.ttft, t, sizeof t);
    assert_non_null(strstr(p, "; MBU given"));
    assert_null(strstr(t, "given"));
    s.mbu = 0;
    s.mfu = 0.3;
    loadband_lookup(&s, &lb);
    speedband_text(&lb.ttft, t, sizeof t);
    assert_non_null(strstr(t, "; MFU given"));
}

/* Every entry holds its figure: 1 within each band, as the generator writes it. */
static void every_band_holds_one(void **state)
{
    (void)state;
    assert_true(loadband_table_count > 0);
    for (size_t i = 0; i < loadband_table_count; i++) {
        const struct speedband_entry *e = &loadband_table[i];
        assert_true(e->decode.low <= 1.0 && e->decode.high >= 1.0);
        assert_true(e->ttft.low <= 1.0 && e->ttft.high >= 1.0);
        assert_true(e->decode.held_out <= e->decode.cases && e->ttft.held_out <= e->ttft.cases);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pairs_band),
        cmocka_unit_test(no_runs_borrow),
        cmocka_unit_test(given_fractions_named),
        cmocka_unit_test(every_band_holds_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
