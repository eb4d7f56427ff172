/* llama.cpp's prefill compute fraction on NVIDIA GPUs (issue 19), against
 * numbers worked by hand. The fractions are the presets' achievable_mfu,
 * fitted by tools/fit_mfu.py on llama-bench pp512 of an F16 7B model
 * (tests/data/speed-measurements.json): RTX 4090 11,048 tok/s, V100 3,458.
 * ggml-cuda.cu (ggml-org/llama.cpp 00108827,
 * batched_mul_mat_traits<GGML_TYPE_F16> and ggml_cuda_mul_mat_cublas_impl)
 * runs an F16 GEMM with CUBLAS_COMPUTE_16F, FP32 only on Volta
 * (prefer_f32_output): on the 4090 that is the FP16-accumulate tensor rate,
 * 330.3 TFLOPS in NVIDIA's Ada whitepaper, twice the preset's 165.2
 * (FP32 accumulate), which is why the fraction of 165.2 is past 0.5. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/speed.h"
#include "core/speedband.h"
#include "model_fixture.h"

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}


static void llamacpp_prefill_on_a_4090_takes_its_fitted_fraction(void **state)
{
    (void)state;
    /* 6.969 TFLOP / (165.2e12 x 0.91 = 150.33 TFLOPS) = 46.357 ms, compute
     * binding (the weights' read is 18 ms): 512 / 46.357 ms = 11,044.6
     * tok/s against llama-bench's 11,048 (-0.03%). At the default 0.5 it
     * was 84.37 ms, 6,068 tok/s (-45%). */
    struct gpu_spec g = preset_gpu("rtx-4090");
    struct model_spec m = llama2_7b();
    assert_true(close_to(g.tflops_bf16, 165.2));
    assert_true(close_to(g.achievable_mfu, 0.91));
    struct scenario s = pp512_fixture(&g, &m, ENGINE_LLAMACPP);
    struct plan_result r = fixture_plan(&s);
    assert_true(close_to(r.speed.mfu, 0.91));
    assert_true(close_to(r.speed.prefill_flops_per_gpu, PP512_FLOPS));
    double want = PP512_FLOPS / (165.2e12 * 0.91);
    assert_true(close_to(r.speed.ttft_prefill_seconds, want));
    assert_true(close_to(r.speed.prefill_tokens_per_s, 512 / want));
    assert_true(fabs(r.speed.prefill_tokens_per_s / 11048.22 - 1) < 0.001);
    /* the first token's band says the fraction is fitted, not the default */
    assert_int_equal(r.bands.ttft.basis, SPEEDBAND_FITTED);
}

static void llamacpp_prefill_on_a_v100_takes_its_fitted_fraction(void **state)
{
    (void)state;
    /* 6.969 TFLOP / (125e12 x 0.377) = 147.88 ms: 3,462.3 tok/s against
     * 3,457.7 measured (+0.1%); at 0.5 it was 4,592 (+33%) */
    struct gpu_spec g = preset_gpu("v100-16gb");
    struct model_spec m = llama2_7b();
    struct scenario s = pp512_fixture(&g, &m, ENGINE_LLAMACPP);
    struct plan_result r = fixture_plan(&s);
    double want = PP512_FLOPS / (125e12 * 0.377);
    assert_true(close_to(r.speed.ttft_prefill_seconds, want));
    assert_true(fabs(r.speed.prefill_tokens_per_s / 3457.68 - 1) < 0.002);
}

static void serving_engines_and_mfu_given_keep_their_fraction(void **state)
{
    (void)state;
    /* no vLLM prefill was measured on the 4090: it keeps the default 0.5;
     * --mfu 0.6 wins over the preset's fraction under llama.cpp */
    struct gpu_spec g = preset_gpu("rtx-4090");
    struct model_spec m = llama2_7b();
    struct scenario s = pp512_fixture(&g, &m, ENGINE_VLLM);
    struct plan_result r = fixture_plan(&s);
    assert_true(close_to(r.speed.mfu, SPEED_DEFAULT_MFU));
    assert_int_equal(r.bands.ttft.basis, SPEEDBAND_DEFAULT);
    s = pp512_fixture(&g, &m, ENGINE_LLAMACPP);
    s.mfu = 0.6;
    r = fixture_plan(&s);
    assert_true(close_to(r.speed.mfu, 0.6));
    assert_true(close_to(r.speed.ttft_prefill_seconds, PP512_FLOPS / (165.2e12 * 0.6)));
}

static void a_gpu_without_a_fit_keeps_the_default(void **state)
{
    (void)state;
    /* the A100 has no llama.cpp prefill measured: 0.5 of its 312 TFLOPS */
    struct gpu_spec g = preset_gpu("a100-80gb");
    struct model_spec m = llama2_7b();
    assert_true(g.achievable_mfu == 0);
    struct scenario s = pp512_fixture(&g, &m, ENGINE_LLAMACPP);
    struct plan_result r = fixture_plan(&s);
    assert_true(close_to(r.speed.mfu, SPEED_DEFAULT_MFU));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llamacpp_prefill_on_a_4090_takes_its_fitted_fraction),
        cmocka_unit_test(llamacpp_prefill_on_a_v100_takes_its_fitted_fraction),
        cmocka_unit_test(serving_engines_and_mfu_given_keep_their_fraction),
        cmocka_unit_test(a_gpu_without_a_fit_keeps_the_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
