/* benchresult: a vllm bench serve --save-result JSON and an
 * sglang.bench_serving JSONL run, read whole for simulate --compare. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "io/benchlog.h"
#include "io/benchresult.h"

static bool read_text(const char *text, struct bench_result *r, struct diag *d)
{
    memset(d, 0, sizeof *d);
    return bench_result_read("run.json", text, strlen(text), r, d);
}

/* vLLM writes an infinite rate as the string "inf" and no cap as null
 * (vllm/benchmarks/serve.py main: result_json["request_rate"]). */
static void vllm_inf_rate_and_null_cap(void **state)
{
    (void)state;
    struct bench_result r;
    struct diag d;
    assert_true(read_text("{\"num_prompts\": 200, \"request_rate\": \"inf\", \"burstiness\": 1.0,"
                          " \"max_concurrency\": null, \"completed\": 200, \"duration\": 10.0,"
                          " \"total_input_tokens\": 102400, \"total_output_tokens\": 25600,"
                          " \"output_throughput\": 2560.0, \"mean_ttft_ms\": 50.5,"
                          " \"p90_ttft_ms\": 80.0, \"mean_e2el_ms\": 900.0}",
                          &r, &d));
    assert_int_equal(r.format, BENCH_VLLM_JSON);
    assert_true(isinf(r.request_rate));
    assert_true(r.max_concurrency == 0);
    assert_true(r.num_prompts == 200);
    /* no --save-detailed: the lengths are the run's means */
    assert_int_equal(r.lengths, BENCH_LENGTHS_MEANS);
    assert_true(r.input_len == 512 && r.output_len == 128);
    assert_true(r.latency_ms[BENCH_TTFT][BENCH_MEAN] == 50.5);
    assert_true(r.latency_ms[BENCH_TTFT][BENCH_P90] == 80.0);
    assert_true(r.latency_ms[BENCH_TTFT][BENCH_P95] < 0); /* not measured */
    assert_true(r.latency_ms[BENCH_E2EL][BENCH_MEAN] == 900.0);
    assert_true(r.request_throughput < 0);
}

/* --save-detailed's per-request lengths give the means, not the totals. */
static void vllm_detailed_lengths(void **state)
{
    (void)state;
    struct bench_result r;
    struct diag d;
    assert_true(read_text("{\"num_prompts\": 2, \"request_rate\": 4.0, \"completed\": 1,"
                          " \"total_input_tokens\": 100, \"total_output_tokens\": 10,"
                          " \"mean_ttft_ms\": 5, \"input_lens\": [100, 300],"
                          " \"output_lens\": [10, 31]}",
                          &r, &d));
    assert_true(r.request_rate == 4.0);
    assert_true(r.input_len == 200 && r.output_len == 21); /* 20.5 rounds up */
}

/* sglang draws the input from [max(floor(L r), 1), L] (bench_serving.py
 * sample_random_requests, commit 0033168f): L 1000, r 0.5 is [500, 1000],
 * kvplan's centre 750 and ratio 1/3. Its Infinity is the infinite rate; it
 * writes no num_prompts (the run's completed stand for it); the last run of
 * the file is read. */
static void sglang_ranges_rate_and_last_run(void **state)
{
    (void)state;
    struct bench_result r;
    struct diag d;
    assert_true(read_text(
        "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"request_rate\": 2.0,"
        " \"max_concurrency\": 8, \"random_input_len\": 10, \"random_output_len\": 4,"
        " \"random_range_ratio\": 1.0, \"completed\": 9, \"mean_ttft_ms\": 1,"
        " \"mean_e2e_latency_ms\": 3}\n"
        "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"request_rate\": Infinity,"
        " \"max_concurrency\": null, \"random_input_len\": 1000, \"random_output_len\": 200,"
        " \"random_range_ratio\": 0.5, \"completed\": 50, \"mean_ttft_ms\": 40.0,"
        " \"mean_e2e_latency_ms\": 2000.0, \"p99_e2e_latency_ms\": 2500.0}\n",
        &r, &d));
    assert_int_equal(r.format, BENCH_SGLANG_JSONL);
    assert_int_equal(r.runs, 2);
    assert_int_equal(r.line, 2);
    assert_true(isinf(r.request_rate));
    assert_true(r.max_concurrency == 0);
    assert_true(r.num_prompts == 50);
    assert_int_equal(r.lengths, BENCH_LENGTHS_DATASET);
    assert_true(r.input_len == 750 && r.output_len == 150);
    assert_true(fabs(r.range_ratio - 1.0 / 3) < 1e-12);
    assert_true(r.latency_ms[BENCH_E2EL][BENCH_MEAN] == 2000.0);
    assert_true(r.latency_ms[BENCH_E2EL][BENCH_P99] == 2500.0);
}

/* sglang's default ratio 0 reaches down to one token: kvplan's ratio stops
 * at 0.99, the centre half the length. */
static void sglang_ratio_zero(void **state)
{
    (void)state;
    struct bench_result r;
    struct diag d;
    assert_true(read_text("{\"dataset_name\": \"random\", \"random_input_len\": 1024,"
                          " \"random_output_len\": 1024, \"random_range_ratio\": 0.0,"
                          " \"completed\": 3, \"mean_ttft_ms\": 1, \"mean_e2e_latency_ms\": 1}",
                          &r, &d));
    assert_true(r.input_len == 512 && r.output_len == 512);
    assert_true(r.range_ratio == 0.99);
}

static void expect_error(const char *text, const char *message)
{
    struct bench_result r;
    struct diag d;
    assert_false(read_text(text, &r, &d));
    if (strstr(d.message, message) == NULL)
        fail_msg("'%s' does not say '%s'", d.message, message);
}

static void errors_name_the_file_line_and_field(void **state)
{
    (void)state;
    expect_error("{\"mean_ttft_ms\": \"fast\", \"completed\": 3}",
                 "run.json:1: mean_ttft_ms: not a number");
    expect_error("{\"mean_ttft_ms\": 3}", "run.json:1: completed: missing");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 0}", "completed: no request completed");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 2, \"request_rate\": -1}",
                 "run.json:1: request_rate:");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 2, \"max_concurrency\": 2.5}",
                 "max_concurrency: not a whole number");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 2, \"input_lens\": [1, \"a\"]}",
                 "input_lens: not an array of token counts");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 2}\n{\"completed\": 2}\n",
                 "run.json:2: not a run of vllm bench serve");
    expect_error("{\"mean_ttft_ms\": 3, \"completed\": 2}\n{oops\n",
                 "run.json:2: not one JSON document a line");
    expect_error("Mean TTFT (ms): 3\n", "run.json: not vllm bench serve's --save-result JSON");
    expect_error("[{\"avg_ts\": 1, \"n_prompt\": 512}]", "not a run of vllm bench serve");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_inf_rate_and_null_cap),
        cmocka_unit_test(vllm_detailed_lengths),
        cmocka_unit_test(sglang_ranges_rate_and_last_run),
        cmocka_unit_test(sglang_ratio_zero),
        cmocka_unit_test(errors_name_the_file_line_and_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
