/* vLLM V1's cache for DeepSeek V4 (core/policy_vllm_dsv4.c), worked by hand
 * from vLLM's source (main as read in late 2026):
 * model_executor/layers/deepseek_v4_attention.py (commit 0a291a2e),
 * DeepseekV4MLAAttention.get_kv_cache_spec (a CSA or HCA layer's
 * MLAAttentionSpec: compress_ratio, alignment 576, model_version
 * "deepseek_v4") and DeepseekV4IndexerCache.get_kv_cache_spec (132 B keys,
 * compress_ratio 4, alignment 576); v1/attention/backends/mla/sparse_swa.py,
 * DeepseekV4SWACache (a window of 64-token blocks, page [64, 584]);
 * model_executor/layers/deepseek_compressor.py (commit 0de10a27),
 * CompressorStateCache (state_dim 2 x coff x head_dim fp32, blocks of 4 at
 * ratio 4 and of 8 at ratio 128, window coff x ratio); v1/kv_cache_interface.py,
 * MLAAttentionSpec.storage_block_size and real_page_size_bytes (block / ratio
 * rows of 584 B), _apply_alignment_padding, SlidingWindowSpec.
 * max_memory_usage_bytes; v1/core/kv_cache_utils.py,
 * group_and_unify_kv_cache_specs, _get_kv_cache_groups_uniform_groups,
 * _approximate_gcd, _get_packed_kv_cache_layout and
 * _get_kv_cache_config_packed (blocks = available // block stride). */
#include "engine_fixture.h"

#include "core/engine_desc.h"
#include "core/explain.h"
#include "core/scenario.h"

static struct scenario dsv4_on(const char *model, const char *gpu, uint32_t gpus)
{
    struct scenario s = base(ENGINE_VLLM);
    s.model = preset_model(model);
    s.gpu = preset_gpu(gpu);
    s.gpus = gpus;
    s.tp = gpus; /* the worked numbers are at TP over all GPUs (the default may differ) */
    s.context_tokens = 131072;
    return s;
}

static struct scenario flash_on_h200(uint32_t gpus)
{
    return dsv4_on("deepseek-v4-flash", "h200", gpus);
}

static long double row_of(const char *key)
{
    const struct explain_row *row = explain_find(&rows, key);
    if (row == NULL)
        fail_msg("no row %s", key);
    return row->result.value;
}

static void flash_pages(void **state)
{
    (void)state;
    /* A block of 256 tokens (the sparse MLA backends' own). A CSA layer: 256
     * / 4 = 64 rows of 584 B = 37,376, to 576 B: 65 x 576 = 37,440. Its
     * indexer: 64 x 132 = 8,448, to 15 x 576 = 8,640. An HCA layer: 2 rows,
     * 1,168, to 3 x 576 = 1,728. A window: 64 tokens x 584, 37,440. The CSA
     * compressor: 4 tokens x 2 x 2 x 512 x 4 B = 32,768, to 57 x 576 =
     * 32,832; its indexer's: 4 x 2 x 2 x 128 x 4 = 8,192, to 8,640; the HCA
     * compressor: 8 x 2 x 512 x 4 = 32,768, 32,832. */
    struct scenario s = flash_on_h200(8);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 256);
    assert_true(row_of("page_csa") == 37440);
    assert_true(row_of("page_index") == 8640);
    assert_true(row_of("page_hca") == 1728);
    assert_true(row_of("page_swa") == 37440);
    assert_true(row_of("page_state_csa") == 32832);
    assert_true(row_of("page_state_index") == 8640);
    assert_true(row_of("page_state_hca") == 32832);
}

static void flash_groups_and_blocks(void **state)
{
    (void)state;
    /* The MLA bucket: 21 x (37,440 + 8,640) + 20 x 1,728 = 1,002,240 B, one
     * group of 21 tuples (3,915 B a token). The others: 43 windows, 21 CSA
     * state tuples (32,832 + 8,640), 20 HCA states. _approximate_gcd over
     * [21, 43, 21, 20] from 21: d = 22 pads 1 + 1 + 1 + 2 = 5, the least (21
     * pads 20 + 1, 23 pads 2 + 3 + 2 + 3). The windows in ceil(43 / 22) = 2
     * groups, the widest 22 x 37,440 = 823,680 B; the CSA states 21 x 41,472
     * = 870,912; the HCA states 20 x 32,832 = 656,640. The block stride is
     * the widest, 1,002,240 B, and the pool holds pool // 1,002,240 blocks. */
    struct scenario s = flash_on_h200(8);
    struct plan_result r = run(&s);
    assert_true(row_of("group_mla") == 1002240);
    assert_true(row_of("group_swa") == 823680);
    assert_true(row_of("group_state_csa") == 870912);
    assert_true(row_of("group_state_hca") == 656640);
    assert_true(row_of("block_stride") == 1002240);
    assert_int_equal(r.engine.unit_bytes, 1002240);
    assert_int_equal(r.engine.units, r.kv_pool_bytes_per_gpu / 1002240);
    /* a user at 131,072 tokens with 8,192 batched tokens a step (H200):
     * 131,072 / 256 = 512 MLA blocks; each window group ceil((128 - 1 +
     * 8,192) / 64) + 1 = 131; the CSA states ceil((8 - 1 + 8,192) / 4) + 1
     * = 2,051; the HCA states ceil((128 - 1 + 8,192) / 8) + 1 = 1,041:
     * 512 + 2 x 131 + 2,051 + 1,041 = 3,866 blocks, what vLLM counts */
    assert_true(row_of("window_blocks_prefill") == 3354);
    assert_true(row_of("blocks_counted") == 3866);
    /* 104.18 GiB of pool a GPU at 0.90 on 8 H200s (the profile's sampler,
     * the releases that serve DeepSeek V4 masking top-k/top-p with Triton,
     * vllm PR #33538: 1,024 x 129,280 x 14 B and the kernel's buffer of 132
     * x 129,280 x 4 B): 111,608 blocks, 28 users (vLLM would log 111,608 /
     * 3,866 = 28.87x; 201 users run, counted_and_run below), 5 groups */
    assert_int_equal(r.engine.units, 111608);
    assert_int_equal(r.counted_users_per_replica, 28);
    assert_int_equal(r.kv_tokens_per_replica, 111608 / 5 * 256);
    assert_true(r.engine.max_concurrency > 28.86 && r.engine.max_concurrency < 28.87);
}

static void fewer_batched_tokens(void **state)
{
    (void)state;
    /* --max-num-batched-tokens 2048: windows ceil(2,175 / 64) + 1 = 35 each,
     * CSA states ceil(2,055 / 4) + 1 = 515, HCA states ceil(2,175 / 8) + 1 =
     * 273: 70 + 515 + 273 = 858, and 512 + 858 = 1,370 blocks vLLM counts;
     * a prefill's scratch 858 - 26 = 832, so a smaller batch lets vLLM log
     * more, the pool running floor((units - 832) / 538) */
    struct scenario s = flash_on_h200(8);
    s.engine.max_num_batched_tokens = 2048;
    struct plan_result r = run(&s);
    assert_true(row_of("window_blocks_prefill") == 858);
    assert_true(row_of("blocks_counted") == 1370);
    assert_true(row_of("prefill_scratch") == 832);
    assert_int_equal(r.counted_users_per_replica, r.engine.units / 1370);
    assert_int_equal(r.users_per_replica, (r.engine.units - 832) / 538);
}

static void pro_groups(void **state)
{
    (void)state;
    /* Pro: 30 CSA and 31 HCA of 61 layers. The MLA group 30 x 46,080 + 31 x
     * 1,728 = 1,435,968 B, 31 tuples; _approximate_gcd over [31, 61, 30, 31]
     * from 31: 31 pads 1 + 1 = 2 (32 pads 1 + 3 + 2 + 1 = 7). Windows in 2
     * groups, the widest 31 x 37,440 = 1,160,640; CSA states 30 x 41,472 =
     * 1,244,160; HCA states 31 x 32,832 = 1,017,792; the stride 1,435,968. */
    struct scenario s = dsv4_on("deepseek-v4-pro", "b200", 8);
    struct plan_result r = run(&s);
    assert_true(row_of("group_mla") == 1435968);
    assert_true(row_of("group_swa") == 1160640);
    assert_true(row_of("group_state_csa") == 1244160);
    assert_true(row_of("group_state_hca") == 1017792);
    assert_int_equal(r.engine.unit_bytes, 1435968);
    assert_int_equal(r.engine.units, r.kv_pool_bytes_per_gpu / 1435968);
}

static void one_head_on_every_gpu(void **state)
{
    (void)state;
    /* one KV head: every GPU of the group holds the same pages at TP 4 and 8 */
    struct scenario s4 = flash_on_h200(4), s8 = flash_on_h200(8);
    struct plan_result r4 = run(&s4), r8 = run(&s8);
    assert_int_equal(r4.engine.unit_bytes, r8.engine.unit_bytes);
    assert_true(r4.kv_pool_bytes_per_gpu < r8.kv_pool_bytes_per_gpu);
}

static void launch_line(void **state)
{
    (void)state;
    /* vLLM's DeepSeek-V4-Flash recipe (0.20.1): the FP8 layout by name and
     * the model's tokenizer mode */
    struct scenario s = flash_on_h200(8);
    struct plan_result r = run(&s);
    assert_non_null(strstr(r.engine.launch, "--kv-cache-dtype fp8_ds_mla"));
    assert_null(strstr(r.engine.launch, "--kv-cache-dtype fp8 "));
    assert_non_null(strstr(r.engine.launch, "--tokenizer-mode deepseek_v4"));
    assert_non_null(strstr(r.engine.launch, "--block-size 256"));
    assert_non_null(strstr(r.engine.log[2], "28.87x"));
    /* v1/core/kv_cache_utils.py, report_kv_cache_config from 0.21.0 (the
     * default rule): int(max_concurrency x max_model_len) = int(111,608 /
     * 3,866 x 131,072) = 3,783,932 tokens; up to 0.20 (vllm@0.20, 0.20.1
     * serving V4 first) _report_kv_cache_config's num_blocks // 5 groups x
     * the smallest group block, the CSA states' 4: 22,321 x 4 = 89,284 (not
     * 5,714,176 at 256) */
    assert_string_equal(r.engine.log[1], "GPU KV cache size: 3,783,932 tokens");
    s.engine.rule = RULE_VLLM_0_20;
    r = run(&s);
    assert_int_equal(r.engine.units, 111608);
    assert_string_equal(r.engine.log[1], "GPU KV cache size: 89,284 tokens");
    assert_non_null(strstr(r.engine.log[2], "28.87x"));
}

static void older_rules_refused(void **state)
{
    (void)state;
    /* V0 and 0.13 predate DeepSeek V4 (deepseek_v4.py came with the packed
     * layout): refused by name, the current rule named */
    enum engine_rule old[] = {RULE_VLLM_V0, RULE_VLLM_0_13};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
        struct scenario s = flash_on_h200(8);
        s.engine.rule = old[i];
        struct diag d = {0};
        enum scenario_field f = SF_COUNT;
        assert_false(scenario_validate(&s, NULL, &f, &d));
        assert_int_equal(f, SF_ENGINE);
        assert_non_null(strstr(d.message, "predates DeepSeek V4's compressed attention"));
    }
}

/* The CSA compressor's row multiplies out as written: CompressorStateCache
 * (deepseek_compressor.py, commit 0de10a27) keeps coff x ratio = 8 rows of
 * state_dim 2 (kv, score) x coff 2 x head_dim fp32, the indexer's at its 128
 * dims: 8 x 2 x 2 x (512 + 128) x 4 B = 81,920 B, each factor named once (the
 * row said "4 (kv,score) x 2", which reads as 8). */
static void csa_compressor_row_multiplies_out(void **state)
{
    (void)state;
    struct scenario s = flash_on_h200(8);
    run(&s);
    const struct explain_row *row = explain_find(&rows, "state_csa");
    assert_non_null(row);
    char formula[512], value[64];
    explain_row_strings(row, formula, sizeof formula, value, sizeof value);
    assert_non_null(strstr(formula, "8 tokens (2 x ratio) x 2 (kv,score) x 2 (coff"));
    assert_non_null(strstr(formula, "(512 head_dim + 128 indexer dims) x 4 B"));
    assert_true(row->result.value == 8.0L * 2 * 2 * (512 + 128) * 4);
}

/* What vLLM counts against what its pool runs, Flash at 128k on 8 H200s: a
 * request counted by max_memory_usage_bytes holds 512 MLA blocks and 3,354
 * in the window and state groups (v1/kv_cache_interface.py
 * SlidingWindowSpec.max_memory_usage_bytes, 8,192 batched tokens), 3,866:
 * 111,608 / 3,866, the "Maximum concurrency" log's 28.87x. The block pool
 * frees what falls behind a window before it allocates
 * (v1/core/single_type_kv_cache_manager.py, SlidingWindowManager
 * remove_skipped_blocks; v1/core/kv_cache_manager.py allocate_slots):
 * decoding one token a step a request holds ceil(128 / 64) + 1 = 3 blocks in
 * each window group, ceil(8 / 4) + 1 = 3 in the CSA states' and ceil(128 /
 * 8) + 1 = 17 in the HCA states': 512 + 6 + 3 + 17 = 538. One prompt being
 * prefilled holds 3,354 - 26 = 3,328 more (a step's batch is shared), so
 * floor((111,608 - 3,328) / 538) = 201 users, where the log's 28.87x counts
 * every request prefilling at once. */
static void counted_and_run(void **state)
{
    (void)state;
    struct scenario s = flash_on_h200(8);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.units, 111608);
    assert_true(row_of("window_blocks") == 26);
    assert_true(row_of("window_blocks_prefill") == 3354);
    assert_true(row_of("units_per_user") == 538);
    assert_true(row_of("prefill_scratch") == 3328);
    assert_int_equal(r.users_per_replica, 201);
    assert_true(row_of("blocks_counted") == 3866);
    assert_true(r.engine.max_concurrency > 28.86 && r.engine.max_concurrency < 28.87);
    assert_int_equal(r.counted_users_per_replica, 28); /* the headline's, beside the 201 */
    /* the simulator's pool: the MLA group and each kind as it allocates */
    assert_int_equal(r.engine.full_groups, 1);
    assert_int_equal(r.engine.nwindows, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counted_and_run),
        cmocka_unit_test(csa_compressor_row_multiplies_out),
        cmocka_unit_test(flash_pages),           cmocka_unit_test(flash_groups_and_blocks),
        cmocka_unit_test(fewer_batched_tokens),  cmocka_unit_test(pro_groups),
        cmocka_unit_test(one_head_on_every_gpu), cmocka_unit_test(launch_line),
        cmocka_unit_test(older_rules_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
