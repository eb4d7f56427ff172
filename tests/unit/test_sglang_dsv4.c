/* SGLang's pools for DeepSeek V4 (core/policy_sglang_dsv4.c), worked by hand
 * from SGLang's source (sgl-project/sglang main as stored, late 2026):
 * python/sglang/srt/model_executor/pool_configurator.py (commit 003fca80),
 * DSV4PoolConfigurator._get_bytes_per_full_token, _get_c128_state_fixed_bytes,
 * _compute_dsv4_sizes, calculate_pool_sizes and _to_config (its two log
 * lines); mem_cache/deepseek_v4_memory_pool.py, get_compress_state_ring_size
 * (8 at ratio 4, 128 at ratio 128); arg_groups/model_overrides/deepseek_v4.py
 * (commit 01a4a991), _deepseek_v4_overrides (page_size 256,
 * swa_full_tokens_ratio 0.1); arg_groups/deepseek_v4_hook.py (commit
 * 006cbb66), apply_deepseek_v4_defaults (max_running_requests 256). */
#include "engine_fixture.h"

#include <math.h>

#include "core/engine_desc.h"
#include "core/explain.h"
#include "core/scenario.h"

static struct scenario dsv4_on(const char *model, const char *gpu, uint32_t gpus)
{
    struct scenario s = base(ENGINE_SGLANG);
    s.model = preset_model(model);
    s.gpu = preset_gpu(gpu);
    s.gpus = gpus;
    s.tp = gpus; /* the worked numbers are at TP over all GPUs */
    s.context_tokens = 8192;
    return s;
}

static long double row_of(const char *key)
{
    const struct explain_row *row = explain_find(&rows, key);
    if (row == NULL)
        fail_msg("no row %s", key);
    return row->result.value;
}

static void flash_bytes_a_full_token(void **state)
{
    (void)state;
    /* kv_bytes 448 + 2 x 64 + 8 = 584; the indexer 128 + 128 / 128 x 4 =
     * 132. A full token: 0.1 x 584 x 43 = 2,511.2 (the window pool) + 716 /
     * 4 x 21 = 3,759 (c4 rows and keys) + 584 / 128 x 20 = 91.25 (c128) +
     * 0.1 x 8 / 128 x (2 x 2 x 512 + 2 x 2 x 128) x 4 B x 21 = 1,344 (the c4
     * and indexer compressor states): 7,705.45 B. */
    struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
    run(&s);
    assert_true(row_of("sglang_dsv4_row") == 584);
    assert_true(fabsl(row_of("sglang_dsv4_window") - 2511.2L) < 1e-9L);
    assert_true(row_of("sglang_dsv4_c4") == 3759);
    assert_true(row_of("sglang_dsv4_c128") == 91.25L);
    assert_true(fabsl(row_of("sglang_dsv4_c4_state") - 1344) < 1e-9L);
    assert_true(fabsl(row_of("sglang_dsv4_per_token") - 7705.45L) < 1e-9L);
}

static void flash_c128_states_and_tokens(void **state)
{
    (void)state;
    /* max_running_requests 256 (DeepSeek V4's default), one DP worker: 257
     * slots x 128 + 128 + 1 = 33,025 rows, in whole 128s 33,152; x 2 x 512 x
     * 4 B x 20 HCA layers = 2,715,811,840 B, set aside before the tokens.
     * 8 H200s at TP 8: 114,244,760,073 B (106.40 GiB) of pool a GPU; (pool -
     * 2,715,811,840) / 7,705.45 = 14,474,034.4, in pages of 256: 14,473,984
     * tokens (the log's full_token and max_total_num_tokens); 8,192-token
     * users: 1,766 fit, 256 run. */
    struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
    struct plan_result r = run(&s);
    assert_true(row_of("sglang_dsv4_c128_state") == 2715811840.0L);
    uint64_t full = (uint64_t)((double)(r.kv_pool_bytes_per_gpu - 2715811840ull) / 7705.45);
    assert_int_equal(r.engine.units, full / 256 * 256);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 114244760073ull);
    assert_int_equal(r.engine.units, 14473984);
    assert_true(row_of("units") == 14473984);
    assert_int_equal(r.engine.unit_tokens, 1);
    assert_int_equal(r.users_fit_per_replica, 14473984 / 8192);
    assert_int_equal(r.users_per_replica, 256);
    /* the window pool: int(14,473,984 x 0.1) // 256 x 256 = 1,447,168 */
    assert_true(row_of("sglang_dsv4_swa_tokens") == 1447168);
    /* the c128 state pool counts as used, allocated whole; the users' KV is
     * 256 users x 8,192 tokens x 7,706 B (a full token in whole bytes) =
     * 16,160,653,312 B + 2,715,811,840 B of c128 states = 18,876,465,152 B
     * (17.58 GiB), its own row: the model's cache of a user (kv_per_user,
     * 46,961,664 B) is less than what the pools take for it (63,127,552 B) */
    assert_int_equal(r.kv_used_bytes_per_gpu, 18876465152ull);
    assert_true(row_of("sglang_dsv4_users_kv") == 18876465152.0L);
    assert_int_equal(r.user_bytes_per_gpu, 46961664ull);
    assert_int_equal(r.user_bytes_paged_per_gpu, 8192ull * 7706ull);
}

static void flash_log_lines(void **state)
{
    (void)state;
    /* calculate_pool_sizes and _to_config: c4 = full // 4, c128 = full //
     * 128, c4_state = swa // 128 (the window) x 8 (the ring) */
    struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
    struct plan_result r = run(&s);
    assert_non_null(strstr(r.engine.log[0], "DSV4 memory calculation: bytes_per_full_token="
                                            "7705.45, available_bytes="));
    assert_non_null(strstr(r.engine.log[0], "c128_state_fixed=2.53 GB, full_token=14473984"));
    assert_string_equal(r.engine.log[1], "DSV4 pool sizes: full=14473984, swa=1447168, "
                                         "c4=3618496, c128=113078, c4_state=90448, c128_state=0");
    assert_string_equal(r.engine.log[2], "max_total_num_tokens=14,473,984, "
                                         "max_running_requests=256, context_len=8192");
}

static void dp_attention_and_given_requests(void **state)
{
    (void)state;
    /* DP attention over 8: 256 // 8 = 32 a worker, 33 slots: 33 x 128 + 129
     * = 4,353 rows, 4,480 in 128s, x 4,096 x 20 = 367,001,600 B; the
     * scheduler runs 32 a rank */
    struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
    s.dp_attention = true;
    struct plan_result r = run(&s);
    assert_true(row_of("sglang_dsv4_c128_state") == 367001600.0L);
    assert_int_equal(r.engine.scheduler_cap, 32);
    /* --max-running-requests 64: 65 x 128 + 129 = 8,449 rows, 8,576 in
     * 128s: 702,545,920 B */
    s = dsv4_on("deepseek-v4-flash", "h200", 8);
    s.engine.max_num_seqs = 64;
    r = run(&s);
    assert_true(row_of("sglang_dsv4_c128_state") == 702545920.0L);
    assert_int_equal(r.users_per_replica, 64);
}

static void pro_bytes_a_full_token(void **state)
{
    (void)state;
    /* Pro: 30 CSA and 31 HCA of 61 layers: 0.1 x 584 x 61 = 3,562.4 + 716 /
     * 4 x 30 = 5,370 + 584 / 128 x 31 = 141.4375 + 0.1 x 8 / 128 x 10,240 x
     * 30 = 1,920: 10,993.8375 B */
    struct scenario s = dsv4_on("deepseek-v4-pro", "b200", 8);
    run(&s);
    assert_true(fabsl(row_of("sglang_dsv4_per_token") - 10993.8375L) < 1e-9L);
}

static void bf16_and_drafts_refused(void **state)
{
    (void)state;
    /* the configurator counts the FP8 layout only; a draft changes its
     * bytes a token and its rings: both refused by name */
    struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
    s.kv_dtype = DTYPE_BF16;
    struct diag d = {0};
    enum scenario_field f = SF_COUNT;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_KV_DTYPE); /* the option at fault, not the engine */
    assert_non_null(strstr(d.message, "DSV4PoolConfigurator"));
    s = dsv4_on("deepseek-v4-flash", "h200", 8);
    s.spec_method = SPEC_DRAFT;
    s.draft = preset_model("llama-3.1-8b");
    d = (struct diag){0};
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_DRAFT_MODEL);
    assert_non_null(strstr(d.message, "apply_deepseek_v4_defaults"));
}

static void releases_before_it_refused(void **state)
{
    (void)state;
    /* DeepSeek V4 came in SGLang 0.5.12 (its release notes): an older release
     * asked for, or a series holding one (0.5.x: 0.5.0 on), is refused by
     * name (engine_desc.compressed_from, the rule vLLM's 0.20.1 takes too);
     * 0.5.12 on is planned */
    const char *old[] = {"0.5.11", "0.4.9", "v0.5.6", "0.4.x", "0.5.x"};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
        struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
        snprintf(s.engine.release_asked, sizeof s.engine.release_asked, "%s", old[i]);
        struct diag d = {0};
        enum scenario_field f = SF_COUNT;
        assert_false(scenario_validate(&s, NULL, &f, &d));
        assert_non_null(strstr(d.message, "which it serves from 0.5.12: take --engine "
                                          "sglang@0.5.12 or later"));
        assert_int_equal(f, SF_ENGINE);
    }
    const char *served[] = {"0.5.12", "v0.5.12.post1", "0.5.19", "0.6.x"};
    for (size_t i = 0; i < sizeof served / sizeof served[0]; i++) {
        struct scenario s = dsv4_on("deepseek-v4-flash", "h200", 8);
        snprintf(s.engine.release_asked, sizeof s.engine.release_asked, "%s", served[i]);
        struct diag d = {0};
        enum scenario_field f = SF_COUNT;
        assert_true(scenario_validate(&s, NULL, &f, &d));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flash_bytes_a_full_token),
        cmocka_unit_test(flash_c128_states_and_tokens),
        cmocka_unit_test(flash_log_lines),
        cmocka_unit_test(dp_attention_and_given_requests),
        cmocka_unit_test(pro_bytes_a_full_token),
        cmocka_unit_test(bf16_and_drafts_refused),
        cmocka_unit_test(releases_before_it_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
