/* A length profile's requests (core/workload.h): drawn only from those
 * within the bounds, each of them about as often as the others, the same
 * seed the same requests, the arrivals the random dataset's; the fit's
 * means and longest by hand; load_check_workload's bounds from the context,
 * the pool and (a whole-prompt scheduler) the step's tokens. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/loadrun.h"

/* four requests: 10 + 5, 100 + 50, 1,000 + 500 and 20 + 1 tokens */
static const uint32_t in4[] = {10, 100, 1000, 20}, out4[] = {5, 50, 500, 1};
static const struct workload_profile four = {
    .name = "four", .title = "four requests", .kind = "test", .source = "by hand",
    .license = "none", .n = 4, .input = in4, .output = out4, .duration = 3};

static void the_fit_by_hand(void **state)
{
    (void)state;
    struct workload_params w = {.num_prompts = 1, .request_rate = INFINITY, .burstiness = 1,
                                .profile = &four, .most_total = 200};
    struct workload_fit f = workload_profile_fit(&w);
    /* 1,500 tokens is past 200: three fit, (10 + 100 + 20) / 3 in, (5 + 50 + 1) / 3 out */
    assert_int_equal(f.count, 3);
    assert_true(fabs(f.mean_input - 130.0 / 3) < 1e-12);
    assert_true(fabs(f.mean_output - 56.0 / 3) < 1e-12);
    assert_int_equal(f.longest_input, 100);
    assert_int_equal(f.longest_request, 150);
    /* a 60-token prefix: 100 + 50 + 60 is past 200 too */
    w.prefix_len = 60;
    assert_int_equal(workload_profile_fit(&w).count, 2);
    /* prompts of at most 90 with the prefix: 10 + 60 and 20 + 60 */
    w.most_total = 0;
    w.most_prompt = 90;
    assert_int_equal(workload_profile_fit(&w).count, 2);
    w.most_prompt = 0;
    assert_int_equal(workload_profile_fit(&w).count, 4);
}

static void drawn_from_those_that_fit_and_evenly(void **state)
{
    (void)state;
    enum { N = 30000 };
    struct workload_params w = {.num_prompts = N, .request_rate = 5, .burstiness = 1,
                                .prefix_len = 7, .seed = 11, .profile = &four,
                                .most_total = 200};
    struct workload_request *q = calloc(N, sizeof *q), *again = calloc(N, sizeof *again);
    assert_non_null(q);
    assert_non_null(again);
    workload_generate(&w, q);
    size_t seen[4] = {0};
    for (size_t i = 0; i < N; i++) {
        int k = -1;
        for (int j = 0; j < 4; j++)
            if (q[i].prompt == 7 + in4[j] && q[i].output == out4[j])
                k = j;
        assert_true(k >= 0);
        seen[k]++;
    }
    /* the 1,500-token request never; each of the three a third, within 5
     * standard deviations (sqrt(N x 1/3 x 2/3) = 82) */
    assert_int_equal(seen[2], 0);
    for (int j = 0; j < 4; j++)
        if (j != 2)
            assert_true(fabs((double)seen[j] - N / 3.0) < 5 * 82);
    /* the same seed, the same requests; the arrivals the random dataset's */
    workload_generate(&w, again);
    assert_memory_equal(q, again, N * sizeof *q);
    struct workload_params r = {.num_prompts = N, .request_rate = 5, .burstiness = 1,
                                .input_len = 100, .output_len = 10, .seed = 11};
    workload_generate(&r, again);
    for (size_t i = 0; i < N; i++)
        assert_true(q[i].arrival == again[i].arrival);
    /* another seed, other lengths */
    w.seed = 12;
    workload_generate(&w, again);
    assert_memory_not_equal(q, again, N * sizeof *q);
    free(q);
    free(again);
}

static void the_checks_bound_a_profile(void **state)
{
    (void)state;
    struct sim_config c = {.sched = SIM_SCHED_VLLM, .block_tokens = 16, .blocks = 100,
                           .max_model_len = 4096, .max_num_batched_tokens = 8192,
                           .max_num_seqs = 256, .replicas = 1};
    struct workload_params w = {.num_prompts = 10, .request_rate = INFINITY, .burstiness = 1,
                                .profile = &four};
    struct diag d = {0};
    /* a pool of 100 blocks of 16 holds a request of 1,601 tokens: all four */
    assert_true(load_check_workload(&w, &c, &d));
    assert_int_equal(w.most_total, 1601);
    assert_int_equal(workload_profile_fit(&w).count, 4);
    /* the context of 1,024 tokens: three */
    c.max_model_len = 1024;
    assert_true(load_check_workload(&w, &c, &d));
    assert_int_equal(w.most_total, 1024);
    assert_int_equal(workload_profile_fit(&w).count, 3);
    /* a context of 10: none; said with the profile's name */
    c.max_model_len = 10;
    assert_false(load_check_workload(&w, &c, &d));
    assert_non_null(strstr(d.message, "four"));
    assert_non_null(strstr(d.message, "none of its 4 requests"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_fit_by_hand),
        cmocka_unit_test(drawn_from_those_that_fit_and_evenly),
        cmocka_unit_test(the_checks_bound_a_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
