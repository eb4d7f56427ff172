/* The Load section of the Markdown report (io/report_load.h): a rate over
 * capacity gives no percentiles, as `kvplan simulate` gives none for it
 * ("latencies never settle"), at the current rate and in the sweep's rows;
 * a rate that keeps up gives them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine.h"
#include "core/scenario.h"
#include "io/report_load.h"
#include "model_fixture.h"

/* The section for a run and a sweep of two points, the second over. */
static char *section(bool over)
{
    static struct load_settings ls = {.rate = 4, .input_len = 1024, .output_len = 128,
                                      .slo_ttft_ms = 1000, .slo_tpot_ms = 50};
    struct sim_result run = {.completed = 100, .over_capacity = over};
    run.ttft = (struct sim_stats){.median = 0.0123, .p90 = 0.02, .p95 = 0.0456, .p99 = 0.05};
    run.tpot = (struct sim_stats){.median = 0.0078, .p90 = 0.008, .p95 = 0.0091, .p99 = 0.01};
    struct load_sweep sw = {.capacity = 10, .knee = -1, .count = 2};
    sw.pt[0] = (struct load_point){.rate = 2, .ttft_p50 = 11.11, .ttft_p95 = 22.22,
                                   .tpot_p50 = 3.33, .tpot_p95 = 4.44, .ok = true};
    sw.pt[1] = (struct load_point){.rate = 14, .ttft_p50 = 555.55, .ttft_p95 = 666.66,
                                   .tpot_p50 = 77.77, .tpot_p95 = 88.88, .over = over,
                                   .ok = true};
    /* Llama 3.1 8B under vLLM on an H100: its measured spread's group */
    static struct scenario s;
    struct gpu_spec g = preset_gpu("h100-sxm");
    struct model_spec m = preset_model("llama-3.1-8b");
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    struct report_load l = {.settings = &ls, .run = &run, .sweep = &sw, .command = "", .s = &s};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    report_markdown_load(f, &l);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void over_capacity_gives_no_percentiles(void **state)
{
    (void)state;
    char *t = section(true);
    assert_null(strstr(t, "12.30")); /* the current rate's TTFT p50 */
    assert_null(strstr(t, "45.60"));
    assert_non_null(strstr(t, "At 4 req/s the deployment is over capacity"));
    assert_null(strstr(t, "555.55")); /* the over row's percentiles */
    assert_null(strstr(t, "88.88"));
    assert_non_null(strstr(t, "| 14 | - | - | - | - | over capacity |"));
    assert_non_null(strstr(t, "| 2 | 11.11 | 22.22 | 3.33 | 4.44 |"));
    free(t);
}

static void keeping_up_gives_them(void **state)
{
    (void)state;
    char *t = section(false);
    assert_non_null(strstr(t, "| TTFT | 12.30 | 45.60"));
    assert_non_null(strstr(t, "| 14 | 555.55 | 666.66 | 77.77 | 88.88 |"));
    assert_null(strstr(t, "over capacity"));
    /* how far simulate was off on public runs of the kind (core/loadband.h) */
    assert_non_null(strstr(t, "Measured against simulated on public serving runs "
                              "(doc/LOAD-BANDS.md): mean TTFT "));
    assert_non_null(strstr(t, "dense Hopper/vLLM cases"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(over_capacity_gives_no_percentiles),
        cmocka_unit_test(keeping_up_gives_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
