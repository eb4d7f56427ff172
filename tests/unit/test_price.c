/* What the GPUs cost per million tokens (core/price.h), with the numbers
 * worked by hand: output tokens at the throughput shown (with a speed
 * target, the users who keep it), prompt tokens at every replica's prefill
 * rate, and n/a with the reason when a figure is missing; the versus table
 * shows them beside the cost per user-hour, and the speed's spread. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/price.h"
#include "core/plan.h"
#include "core/speed.h"
#include "io/report.h"
#include "model_fixture.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct plan_result plan(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

static const struct explain_row *row_of(const char *key)
{
    const struct explain_row *row = explain_find(&rows, key);
    if (row == NULL)
        fail_msg("no %s row", key);
    return row;
}

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* Llama 3.1 8B bf16 on one H100 at MBU 0.7, 2,048 tokens, $3.60 an hour:
 * at $3.60/h an hour of GPU is 3,600 s at $0.001 each. */
static struct scenario llama_on_h100(uint64_t users)
{
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 2048;
    s.concurrency = users;
    s.has_price = true;
    s.price_usd_per_hour = 3.6;
    return s;
}

/* A price at a decimal tie prints one way in either precision: $1.05 an
 * hour over 56 users is 0.01875, the double just under it (the screens
 * printed $0.0187) and the long double just over (the text's $0.0188). */
static void a_decimal_tie_prints_one_way(void **state)
{
    (void)state;
    char a[32], b[32];
    double d = 1.05 / 56;
    long double l = (long double)1.05 / 56;
    assert_true((long double)d != l); /* the two sides of the tie */
    explain_format(d, XU_USD, UNITS_GIB, a, sizeof a);
    explain_format(l, XU_USD, UNITS_GIB, b, sizeof b);
    assert_string_equal(a, "$0.0188");
    assert_string_equal(b, "$0.0188");
    /* and a figure just off the tie keeps its own side */
    explain_format(0.018749, XU_USD, UNITS_GIB, a, sizeof a);
    assert_string_equal(a, "$0.0187");
}

static void a_million_output_tokens_at_the_throughput_shown(void **state)
{
    (void)state;
    /* 64 users: a step reads 33,248,780,288 B at 2.345 TB/s, 14.1786 ms, + 0.9 ms
     * = 15.0786 ms; 64 / 15.0786 ms = 4,244.4 tok/s, 15.28 million tokens an
     * hour; $3.60 / 15.28 M = $0.2356, which is 1,000 x the step / 64 users */
    struct scenario s = llama_on_h100(64);
    struct plan_result r = plan(&s);
    double step = 33248780288.0 / (3.35e12 * 0.7) + SPEED_STEP_OVERHEAD_S;
    assert_true(close_to(r.speed.step_seconds, step));
    assert_true(close_to(r.cost_per_million_output_tokens, 1000.0 * step / 64));
    assert_true(fabs(r.cost_per_million_output_tokens - 0.2356) < 0.00005);
    assert_string_equal(row_of("cost_output")->result.text, "$0.2356");
    /* the row divides by the throughput's own row */
    assert_string_equal(row_of("cost_output")->terms[2].ref, "speed_total");
}

static void a_million_prompt_tokens_at_the_prefill_rate(void **state)
{
    (void)state;
    /* a 1,000-token prompt: 2 x 8,030,261,248 x 1,000 + 4 x 32 x 128 x 32 x 500,500
     * flop at 0.5 x 989.4 TFLOP/s = 32.99 ms, + 0.9 ms = 33.89 ms: 29,503 prompt
     * tokens a second, 106.2 million an hour; $3.60 / 106.2 M = $0.0339, the
     * first token's time in seconds as dollars */
    struct scenario s = llama_on_h100(64);
    s.prompt_tokens = 1000;
    struct plan_result r = plan(&s);
    double flops = 2.0 * 8030261248.0 * 1000 + 4.0 * 32 * 128 * 32 * 500500.0;
    double t = flops / (989.4e12 * 0.5) + SPEED_STEP_OVERHEAD_S;
    assert_true(close_to(r.speed.ttft_prefill_seconds, t));
    assert_true(close_to(r.cost_per_million_input_tokens, t));
    assert_string_equal(row_of("cost_input")->result.text, "$0.0339");
    /* two replicas prefill twice as fast on twice the GPUs: the same price */
    s.gpus = 2;
    s.tp = 1;
    s.concurrency = 128;
    struct plan_result two = plan(&s);
    assert_int_equal(two.replicas, 2);
    assert_true(close_to(two.cost_per_million_input_tokens, t));
    assert_true(close_to(two.cost_per_million_output_tokens, r.cost_per_million_output_tokens));
}

static void a_speed_target_prices_the_users_who_keep_it(void **state)
{
    (void)state;
    struct scenario s = llama_on_h100(0);
    s.min_tokens_per_s = 60;
    struct plan_result r = plan(&s);
    uint64_t kept = r.speed.users_at_service_level;
    assert_true(kept > 0 && kept < r.max_users);
    /* the speed shown is theirs, and so is a million tokens' price */
    assert_int_equal(r.speed.concurrency, kept);
    assert_true(r.speed.tokens_per_s_per_user >= 60);
    double tps = (double)kept / r.speed.step_seconds;
    assert_true(close_to(r.cost_per_million_output_tokens, 3.6 / (tps * 3600) * 1e6));
    assert_non_null(strstr(row_of("cost_output")->formula, "the users who keep the service level"));
    /* a target nobody keeps: no price per output token; a prompt's is one
     * prompt's prefill whatever the decode target, still priced */
    s.min_tokens_per_s = 1e6;
    r = plan(&s);
    assert_true(r.cost_per_million_output_tokens < 0 && r.cost_per_million_input_tokens > 0);
    assert_string_equal(row_of("cost_output")->result.text, "n/a");
    assert_non_null(strstr(row_of("cost_output")->formula, "no user keeps the service level"));
    assert_non_null(strstr(row_of("cost_input")->formula, "at the prefill rate of one prompt alone"));
}

static void a_missing_price_or_figure_says_why(void **state)
{
    (void)state;
    struct scenario s = llama_on_h100(64);
    s.has_price = false;
    s.gpu.price_usd_per_hour = -1;
    struct plan_result r = plan(&s);
    assert_true(r.cost_per_million_output_tokens < 0 && r.cost_per_million_input_tokens < 0);
    assert_non_null(strstr(row_of("cost_output")->formula, "no price for this GPU"));
    assert_non_null(strstr(row_of("cost_input")->formula, "no price for this GPU"));
    /* no compute figure: a decode speed from the bandwidth, no prefill rate. The
     * article's card: $2/h, 31 users at 17.437 tok/s (test_plan.c), 540.5 tok/s,
     * 1.946 million tokens an hour: $1.0278 a million */
    s = llama_on_h100(0);
    s.gpu.tflops_bf16 = s.gpu.tflops_fp8 = 0;
    s.gpu.memory_bytes = 80000000000ull;
    s.gpu.cuda_visible_bytes = 0;
    s.gpu.bandwidth_bytes_per_s = 2000000000000ull;
    s.price_usd_per_hour = 2.0;
    s.model = llama2_7b();
    s.context_tokens = 4000;
    s.has_weights = true;
    s.weights_bytes = 14000000000ull;
    s.headroom_percent = 0;
    r = plan(&s);
    assert_int_equal(r.max_users, 31);
    double step = 79027964928.0 / (2e12 * 0.7) + SPEED_STEP_OVERHEAD_S;
    assert_true(close_to(r.cost_per_million_output_tokens, 2.0 / (31 / step * 3600) * 1e6));
    assert_true(fabs(r.cost_per_million_output_tokens - 1.0278) < 0.00005);
    assert_true(r.cost_per_million_input_tokens < 0);
    assert_non_null(strstr(row_of("cost_input")->formula, "no compute figure for this GPU"));
}

static void versus_shows_the_costs_and_the_spread(void **state)
{
    (void)state;
    static struct snapshot_session ss;
    static struct plan_result res[2];
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    ss.entry[0].scenario = llama_on_h100(64);
    ss.entry[1].scenario = llama_on_h100(32);
    ss.entry[1].scenario.gpu.family[0] = '\0'; /* no family: every family's band */
    snprintf(ss.entry[0].label, sizeof ss.entry[0].label, "A");
    snprintf(ss.entry[1].label, sizeof ss.entry[1].label, "B");
    struct diag d = {0};
    assert_true(plan_compute(&ss.entry[0].scenario, PLAN_NUMBERS, NULL, &res[0], &d));
    assert_true(plan_compute(&ss.entry[1].scenario, PLAN_NUMBERS, NULL, &res[1], &d));
    const struct plan_result *results[2] = {&res[0], &res[1]};
    int shown[2] = {0, 1};
    char *text = NULL, want[256], band[200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    report_markdown_versus(f, &ss, results, shown, 2);
    fclose(f);
    snprintf(want, sizeof want, "| Cost per million output tokens | $%.4f |",
             res[0].cost_per_million_output_tokens);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "| Cost per million input tokens | $%.4f |",
             res[0].cost_per_million_input_tokens);
    assert_non_null(strstr(text, want));
    speedband_text(&res[0].bands.decode, band, sizeof band);
    /* the default MBU (the fixture clears the preset's fit): a band of
     * Hopper's cases, but the basis is the default, and says so */
    assert_int_equal(res[0].bands.decode.basis, SPEEDBAND_DEFAULT);
    assert_non_null(strstr(band, "dense Hopper cases under NIM, vLLM; default MBU"));
    /* no family: the band of the model's kind over every family */
    char wide[200];
    speedband_text(&res[1].bands.decode, wide, sizeof wide);
    assert_non_null(strstr(wide, "dense cases of every GPU family"));
    snprintf(want, sizeof want, "| Measured spread | %s | %s |", band, wide);
    assert_non_null(strstr(text, want));
    free(text);
}

/* With a service level, the versus table gives the level whole (it was cut
 * at 31 bytes: "50 tok/s each, the first token "), the throughput of the
 * users shown, and every setting that differs: B's "In use" 1,024 of its
 * 2,048 tokens was not listed, so the columns looked the same but for their
 * results. A setting both share (the concurrency, 64) gets no row. */
static void versus_lists_the_level_the_throughput_and_what_differs(void **state)
{
    (void)state;
    static struct snapshot_session ss;
    static struct plan_result res[2];
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    for (int i = 0; i < 2; i++) {
        ss.entry[i].scenario = llama_on_h100(64);
        ss.entry[i].scenario.min_tokens_per_s = 50;
        ss.entry[i].scenario.max_ttft_seconds = 0.5;
        snprintf(ss.entry[i].label, sizeof ss.entry[i].label, "%c", 'A' + i);
    }
    ss.entry[1].scenario.avg_context_tokens = 1024;
    struct diag d = {0};
    for (int i = 0; i < 2; i++)
        assert_true(plan_compute(&ss.entry[i].scenario, PLAN_NUMBERS, NULL, &res[i], &d));
    const struct plan_result *results[2] = {&res[0], &res[1]};
    int shown[2] = {0, 1};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    report_markdown_versus(f, &ss, results, shown, 2);
    fclose(f);
    assert_non_null(strstr(text, "| Service level | 50 tok/s each, the first token within 0.5 s | "
                                 "50 tok/s each, the first token within 0.5 s |"));
    assert_non_null(strstr(text, "| In use | 2,048 tokens | 1,024 tokens |"));
    assert_null(strstr(text, "| Users at once |"));
    /* the throughput: each user's speed times the users decoding at once */
    assert_true(res[0].speed.tokens_per_s_total > 0);
    assert_true(close_to(res[0].speed.tokens_per_s_total,
                         res[0].speed.tokens_per_s_per_user * (double)res[0].speed.concurrency));
    char *row = strstr(text, "| Throughput |");
    assert_non_null(row);
    /* %.0f has no thousands separator: compare the digits */
    char digits[64] = "", *o = digits;
    for (const char *p = row + 15; *p && *p != ' '; p++)
        if (*p != ',')
            *o++ = *p;
    char expect[64];
    snprintf(expect, sizeof expect, "%.0f", res[0].speed.tokens_per_s_total);
    assert_string_equal(digits, expect);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_decimal_tie_prints_one_way),
        cmocka_unit_test(a_million_output_tokens_at_the_throughput_shown),
        cmocka_unit_test(a_million_prompt_tokens_at_the_prefill_rate),
        cmocka_unit_test(a_speed_target_prices_the_users_who_keep_it),
        cmocka_unit_test(a_missing_price_or_figure_says_why),
        cmocka_unit_test(versus_shows_the_costs_and_the_spread),
        cmocka_unit_test(versus_lists_the_level_the_throughput_and_what_differs),
    };
    return cmocka_run_group_tests_name("price", tests, NULL, NULL);
}
