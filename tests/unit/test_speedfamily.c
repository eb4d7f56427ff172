/* A GPU family's own step-time terms (core/speedfamily.h): MLA decode's
 * reach reading the latent cache, the experts' read fraction, the MoE
 * layer's kernels, and FP4 weights computing at the FP4 peak, with numbers
 * worked by hand; and the error bands the families carry with them
 * (core/speedband.h, generated from the same measurements). */
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
#include "core/speedfamily.h"
#include "core/steptime.h"
#include "model_fixture.h"

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b) + 1e-15;
}

/* DeepSeek-V3's latent cache in bf16: (512 + 64) x 2 B x 61 layers = 70,272 B a
 * token. Four users decoding at 4,096 tokens read 4 x 4,096 x 70,272 =
 * 1,151,336,448 B of cache and write 4 x 70,272 = 281,088 B for their new
 * tokens. At 1 TB/s and MLA decode reaching a quarter of it: 4.605345792 ms
 * reading and 0.281088 us writing. A prefill chunk of 512 tokens after the
 * same 4,096 reads its cache at the full rate: attention there is the
 * expanded form's, not the decode kernel. */
static void mla_decode_reads_the_cache_at_its_reach(void **state)
{
    (void)state;
    struct step_machine hw = {0};
    hw.bytes_per_s = 1e12;
    hw.mbu = 1.0;
    hw.attn_mbu = 0.25;
    struct step_model m = {0};
    m.kv_bytes_global = 70272;
    m.kv_read_share = 1.0;
    m.stages = 1;
    m.tp = 1;
    struct step_seq users[4];
    for (int i = 0; i < 4; i++)
        users[i] = (struct step_seq){.context = 4096, .tokens = 1};
    struct step_time t;
    step_time(&m, &hw, users, 4, &t);
    assert_true(close_to(t.kv_read_bytes, 1151336448.0));
    assert_true(close_to(t.kv_bytes, 1151336448.0 + 281088.0));
    assert_true(close_to(t.kv_s, 1151336448.0 / 0.25e12 + 281088.0 / 1e12));
    struct step_seq chunk = {.context = 4096, .tokens = 512};
    step_time(&m, &hw, &chunk, 1, &t);
    assert_true(close_to(t.kv_read_bytes, 0));
    assert_true(close_to(t.kv_s, 70272.0 * (4096 + 512) / 1e12));
    hw.attn_mbu = 0; /* unset: as the weights */
    step_time(&m, &hw, users, 4, &t);
    assert_true(close_to(t.kv_s, (1151336448.0 + 281088.0) / 1e12));
}

/* The rows tools/fit_speed_family.py fitted (doc/SPEED-FIT-FAMILY.md), and
 * the defaults for a family without one. */
static void each_family_has_its_terms_and_others_the_defaults(void **state)
{
    (void)state;
    const struct speed_family_terms *t = speed_family_terms("CDNA 3");
    assert_string_equal(t->family, "CDNA 3");
    assert_true(close_to(t->mla_decode_reach, 0.25));
    assert_true(close_to(t->expert_mbu, 0.6));
    assert_true(close_to(t->moe_layer_s, 126.207e-6)); /* 120 us x 61/58 */
    assert_true(t->allreduce_hop_s == 0);
    t = speed_family_terms("Hopper");
    assert_true(close_to(t->mla_decode_reach, 1.0));
    assert_true(close_to(t->expert_mbu, 0.85));
    assert_true(close_to(t->moe_layer_s, 31.5517e-6)); /* 30 us x 61/58 */
    assert_true(close_to(t->allreduce_hop_s, 2.5e-6));
    t = speed_family_terms("Ampere");
    assert_true(close_to(t->mla_decode_reach, 1.0));
    assert_true(t->expert_mbu == 0);
    assert_true(close_to(t->moe_layer_s, SPEED_MOE_LAYER_OVERHEAD_S));
    assert_true(t->allreduce_hop_s == 0);
    assert_true(speed_family_terms(NULL) == speed_family_terms(""));
}

static struct plan_result plan(const struct scenario *s) { return fixture_plan(s); }

static struct scenario deepseek_on(const char *gpu)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    s.tp = 8;
    s.weight_dtype = DTYPE_FP8;
    s.context_tokens = 4096;
    s.concurrency = 4;
    return s;
}

/* DeepSeek-V3 fp8 on 8 x MI300X (CDNA 3, MBU 0.33): its 58 MoE layers (the
 * first 3 of 61 are dense) x 126.207 us = 7.32 ms of MoE kernels a step
 * (78.8793 us, 4.575 ms, for a family without a row); the experts read at 0.6 of the 5.3 TB/s peak, the dense weights at
 * 0.33, the cache MLA decode reads at 0.25 x 0.33. */
static void a_cdna3_step_takes_the_family_terms(void **state)
{
    (void)state;
    struct scenario s = deepseek_on("mi300x");
    struct plan_result r = plan(&s);
    assert_true(close_to(r.speed.moe_seconds, 58 * 126.207e-6));
    assert_int_equal(r.speed.step_moe_layers, 58);
    struct speed_basis b = plan_speed_basis(&r);
    struct step_time st;
    speed_decode_parts(&s, &b, r.speed.concurrency_per_replica, &st);
    double bw = 5.3e12, dense = st.weights_bytes - st.expert_read_bytes;
    assert_true(close_to(st.weights_s, dense / (bw * 0.33) + st.expert_read_bytes / (bw * 0.6)));
    assert_true(close_to(st.kv_s, (st.kv_bytes - st.kv_read_bytes) / (bw * 0.33) +
                                      st.kv_read_bytes / (bw * 0.33 * 0.25)));
    strcpy(s.gpu.family, "");
    r = plan(&s);
    assert_true(close_to(r.speed.moe_seconds, 58 * 78.8793e-6));
    b = plan_speed_basis(&r);
    speed_decode_parts(&s, &b, r.speed.concurrency_per_replica, &st);
    assert_true(close_to(st.weights_s, st.weights_bytes / (bw * 0.33)));
    assert_true(close_to(st.kv_s, st.kv_bytes / (bw * 0.33)));
}

/* The expert fraction is a share of the family's MBU (Hopper's 0.62: 0.85 of
 * peak is 1.371 of it), so --mbu (or a calibration) moves it with the dense
 * reads: on H200 at --mbu 0.5 the experts read at 0.5 x 0.85 / 0.62 = 0.6855
 * of peak. */
static void the_expert_fraction_is_the_familys_own(void **state)
{
    (void)state;
    struct scenario s = deepseek_on("h200");
    s.mbu = 0.5;
    struct plan_result r = plan(&s);
    struct speed_basis b = plan_speed_basis(&r);
    struct step_time st;
    speed_decode_parts(&s, &b, r.speed.concurrency_per_replica, &st);
    double bw = 4.8e12, dense = st.weights_bytes - st.expert_read_bytes;
    assert_true(close_to(st.weights_s,
                          dense / (bw * 0.5) + st.expert_read_bytes / (bw * 0.5 * 0.85 / 0.62)));
}

/* The experts' fraction and the MoE layer's kernels were fitted on DeepSeek-R1
 * (256 routed experts): a coarse MoE of 8 (Mixtral-like: llama-3.1-8b with 8
 * experts of 2 a token) on H200 reads its experts at the family's MBU, 0.62,
 * like the dense weights, and adds no MoE layer time. */
static void a_coarse_moe_reads_its_experts_as_the_dense(void **state)
{
    (void)state;
    struct gpu_spec g = preset_gpu("h200");
    struct model_spec m = coarse_moe_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 2048;
    s.concurrency = 8;
    struct plan_result r = plan(&s);
    struct speed_basis b = plan_speed_basis(&r);
    struct step_time st;
    speed_decode_parts(&s, &b, r.speed.concurrency_per_replica, &st);
    assert_true(st.expert_read_bytes > 0);
    assert_true(close_to(st.weights_s, st.weights_bytes / (4.8e12 * 0.62)));
    assert_true(r.speed.moe_seconds == 0);
}

/* DeepSeek-V3 on 8 x H200 all-reduces twice a layer, 122 times a step; each
 * waits 2 x (8 - 1) hops of Hopper's 2.5 us = 35 us besides moving its bytes:
 * 4.27 ms of latency a step. On 8 x MI300X (CDNA 3, no hop fitted) each waits
 * the flat 8 us: 0.976 ms. */
static void the_all_reduce_waits_its_hops(void **state)
{
    (void)state;
    struct scenario s = deepseek_on("h200");
    struct plan_result r = plan(&s);
    struct speed_basis b = plan_speed_basis(&r);
    struct step_model m;
    struct step_machine hw;
    speed_step_inputs(&s, &b, &m, &hw);
    assert_true(close_to(hw.link_latency_s, 35e-6));
    assert_true(close_to(m.allreduces, 122));
    s = deepseek_on("mi300x");
    r = plan(&s);
    b = plan_speed_basis(&r);
    speed_step_inputs(&s, &b, &m, &hw);
    assert_true(close_to(hw.link_latency_s, SPEED_ALLREDUCE_LATENCY_S));
    assert_true(close_to(SPEED_ALLREDUCE_LATENCY_S, 8e-6));
}

/* FP4 weights on B200 compute at its dense FP4 peak, 9,000 TFLOP/s, where
 * the bf16 peak (2,250) used to stand; H100 has no FP4 figure and keeps bf16. */
static void fp4_weights_compute_at_the_fp4_peak(void **state)
{
    (void)state;
    struct scenario s = deepseek_on("b200");
    s.weight_dtype = DTYPE_FP4;
    struct plan_result r = plan(&s);
    assert_true(close_to(r.speed.peak_flops, 9000e12));
    assert_int_equal(r.speed.compute_dtype, DTYPE_FP4);
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    scenario_default(&s, &g, &m);
    s.weight_dtype = DTYPE_FP4;
    r = plan(&s);
    assert_true(close_to(r.speed.peak_flops, g.tflops_bf16 * 1e12));
}

/* The spread each family's terms leave, as the plan's bands carry it
 * (speedband_table.c, make bands): the families with terms have a decode
 * band of their own over their MoE measurements, and it holds 1 (the
 * prediction). The early-2025 DeepSeek builds the warning names are left
 * out of every band: Hopper's MoE band no longer reaches x0.20. */
static void each_family_with_terms_has_a_band(void **state)
{
    (void)state;
    static const char *families[] = {"Hopper", "Blackwell", "Blackwell Ultra", "CDNA 3", "CDNA 4"};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        struct speedband_key key = {families[i], "", NULL, true};
        struct speed_band b =
            speedband_find(speedband_table, speedband_table_count, &key, SPEEDBAND_DECODE);
        assert_true(b.banded);
        assert_string_equal(b.family, families[i]);
        assert_true(b.cases >= 10);
        assert_true(b.low <= 1.0 && b.high >= 1.0);
        assert_true(b.low > 0.4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mla_decode_reads_the_cache_at_its_reach),
        cmocka_unit_test(each_family_has_its_terms_and_others_the_defaults),
        cmocka_unit_test(a_cdna3_step_takes_the_family_terms),
        cmocka_unit_test(the_expert_fraction_is_the_familys_own),
        cmocka_unit_test(a_coarse_moe_reads_its_experts_as_the_dense),
        cmocka_unit_test(the_all_reduce_waits_its_hops),
        cmocka_unit_test(fp4_weights_compute_at_the_fp4_peak),
        cmocka_unit_test(each_family_with_terms_has_a_band),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
