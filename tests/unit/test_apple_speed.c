/* Apple silicon's speed terms against numbers worked by hand: the first
 * token from the preset's measured prefill rate (no vendor peak, no MFU
 * below it), and each layer's kernel dispatch in a step. The rates are the
 * presets' (tools/fit_apple.py, doc/SPEED-FIT-APPLE.md): llama-bench pp512
 * and tg128 of Llama 2 7B on the M4 Max 40-core GPU, build 8e672ef
 * (ggml-org/llama.cpp discussion #4167): 922.83 and 31.64 tok/s F16. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/speed.h"
#include "core/steptime.h"
#include "model_fixture.h"

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* llama.cpp's pp512 of Llama 2 7B F16 (model_fixture.h) */
static struct scenario pp512_on(const struct gpu_spec *g, const struct model_spec *m)
{
    return pp512_fixture(g, m, ENGINE_LLAMACPP);
}

static void the_first_token_on_a_mac_comes_from_the_measured_rate(void **state)
{
    (void)state;
    /* apple-m4-max: 12.691 TFLOPS measured (6.969 TFLOP over 512 / 922.83 s
     * less 32 x 178 us; 0.3173 a core x 40), used in full: 6.969 TFLOP /
     * 12.691e12 = 549.13 ms, compute binding (the weights' read, 13.48 GB at
     * 546 GB/s x 0.94, is 26 ms), + 32 layers x 178 us of kernel dispatch =
     * 554.82 ms: 922.81 tok/s, llama-bench's 922.83 (this chip is its
     * generation's fit). Before the measured rate there was no first token. */
    struct gpu_spec g = preset_gpu("apple-m4-max");
    struct model_spec m = llama2_7b();
    assert_true(close_to(g.tflops_measured, 12.691));
    assert_true(g.tflops_bf16 == 0);
    struct scenario s = pp512_on(&g, &m);
    struct plan_result r = fixture_plan(&s);
    assert_int_equal(r.speed.compute_dtype, DTYPE_FP16);
    assert_true(close_to(r.speed.mfu, 1.0));
    assert_true(close_to(r.speed.prefill_flops_per_gpu, PP512_FLOPS));
    double want = PP512_FLOPS / 12.691e12 + 32 * 178e-6;
    assert_true(close_to(r.speed.ttft_seconds, want));
    assert_true(close_to(r.speed.prefill_tokens_per_s, 512 / want));
    assert_true(fabs(r.speed.prefill_tokens_per_s / 922.83 - 1) < 0.001);
}

static void an_mfu_given_is_a_share_of_the_measured_rate(void **state)
{
    (void)state;
    /* --mfu 0.5 on the M4 Max: 6.969 TFLOP / (12.691e12 x 0.5) + 5.70 ms = 1.10395 s */
    struct gpu_spec g = preset_gpu("apple-m4-max");
    struct model_spec m = llama2_7b();
    struct scenario s = pp512_on(&g, &m);
    s.mfu = 0.5;
    struct plan_result r = fixture_plan(&s);
    assert_true(close_to(r.speed.ttft_seconds, PP512_FLOPS / (12.691e12 * 0.5) + 32 * 178e-6));
}

static void a_vendor_peak_is_kept_where_there_is_one(void **state)
{
    (void)state;
    /* a measured figure beside a datasheet peak is not used: H100's
     * 989.4 TFLOPS x the default MFU 0.5, llama.cpp's step no overhead */
    struct gpu_spec g = h100_sxm();
    g.tflops_measured = 1.0;
    g.layer_overhead_s = 0;
    struct model_spec m = llama2_7b();
    struct scenario s = pp512_on(&g, &m);
    struct plan_result r = fixture_plan(&s);
    assert_int_equal(r.speed.compute_dtype, DTYPE_FP16);
    assert_true(close_to(r.speed.ttft_seconds, PP512_FLOPS / (989.4e12 * 0.5)));
}

static void a_mac_decode_step_reads_at_the_fitted_mbu_and_dispatches_each_layer(void **state)
{
    (void)state;
    /* tg128 on the M4 Max, F16: the step's bytes (weights and the cache) at
     * 546 GB/s x 0.94, + 32 x 178 us = 32.09 ms against the measured 31.61
     * (1000 / 31.64 tok/s): +1.5% */
    struct gpu_spec g = preset_gpu("apple-m4-max");
    struct model_spec m = llama2_7b();
    struct scenario s = pp512_on(&g, &m);
    s.context_tokens = 128;
    s.prompt_tokens = 0;
    struct plan_result r = fixture_plan(&s);
    double want = (double)r.speed.step_bytes_per_gpu / (546e9 * 0.94) + 32 * 178e-6;
    assert_true(close_to(r.speed.step_seconds, want));
    assert_true(close_to(r.speed.overhead_seconds, 32 * 178e-6));
    assert_true(fabs(r.speed.step_seconds / (1.0 / 31.64) - 1) < 0.03);
}

static void each_layer_of_every_stage_adds_its_dispatch(void **state)
{
    (void)state;
    /* 16 layers a stage, 2 stages in turn, 178 us a layer: 1 GB a stage at
     * 1 TB/s is 1 ms, x 2 = 2 ms, + 32 x 178 us = 5.696 ms */
    struct step_machine hw = {0};
    hw.bytes_per_s = 1e12;
    hw.mbu = 1.0;
    hw.mfu = 1.0;
    hw.layer_overhead_s = 178e-6;
    struct step_model m = {0};
    m.dense_bytes = 1e9;
    m.layers = 16;
    m.stages = 2;
    m.tp = 1;
    struct step_seq one = {.context = 0, .tokens = 1};
    struct step_time t;
    double total = step_time(&m, &hw, &one, 1, &t);
    assert_true(close_to(t.overhead_s, 32 * 178e-6));
    assert_true(close_to(total, 2e-3 + 32 * 178e-6));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_token_on_a_mac_comes_from_the_measured_rate),
        cmocka_unit_test(an_mfu_given_is_a_share_of_the_measured_rate),
        cmocka_unit_test(a_vendor_peak_is_kept_where_there_is_one),
        cmocka_unit_test(a_mac_decode_step_reads_at_the_fitted_mbu_and_dispatches_each_layer),
        cmocka_unit_test(each_layer_of_every_stage_adds_its_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
