/* vLLM rules read from its source, one test a rule: the MLA backend's block,
 * the MXFP4 experts' padding. Each cites the file and function, and the
 * release or commit it was read at. */
#include "engine_fixture.h"

#include "core/engine.h"

/* DeepSeek-V3 on 8 GPUs of a preset under vLLM at `rule`, KV pool of 40 GiB. */
static struct scenario deepseek_on(const char *gpu, enum engine_rule rule)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.engine.rule = rule;
    s.gpus = 8;
    s.context_tokens = 8192;
    s.engine.kv_memory_bytes = 40ull << 30;
    return s;
}

static void vllm_mla_blocks_are_64_on_hopper(void **state)
{
    (void)state;
    /* vllm/platforms/cuda.py CudaPlatformBase.check_and_update_config (main at
     * 002db495, the same since FlashMLA became the default in 0.8): with MLA
     * and no backend asked, FlashMLA on Hopper, and a block size (16 by
     * default) that is no multiple of 64 becomes 64. DeepSeek-V3 keeps
     * 576 x 2 B x 61 layers = 70,272 B a token, so 40 GiB holds
     * floor(42,949,672,960 / (64 x 70,272)) = 9,549 blocks, not 38,199 of 16;
     * vLLM picks the block itself: no --block-size on the launch line. */
    struct scenario s = deepseek_on("h100-sxm", RULE_CURRENT);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 64);
    assert_int_equal(r.engine.units, 9549);
    assert_null(strstr(r.engine.launch, "--block-size"));
    const struct explain_row *row = explain_find(&rows, "mla_block");
    assert_non_null(row);
    assert_true(row->result.value == 64);
    /* a block given as a multiple of 64 is kept, and said */
    s.block_tokens = 128;
    r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 128);
    assert_non_null(strstr(r.engine.launch, "--block-size 128"));
}

static void vllm_mla_blocks_on_blackwell_by_release(void **state)
{
    (void)state;
    /* The same function on the SM100 family (B200, GB200, B300): FlashInfer MLA
     * when qk_nope_head_dim is 128 (DeepSeek's) at main 002db495 (default since
     * January 2026, after 0.13): blocks of 32 or a multiple of 64, 16 becoming
     * 64; up to 0.13 CUTLASS MLA, a multiple of 128 (16 becomes 128):
     * floor(42,949,672,960 / (128 x 70,272)) = 4,774 blocks. */
    struct scenario s = deepseek_on("b200", RULE_CURRENT);
    assert_int_equal(run(&s).engine.unit_tokens, 64);
    s = deepseek_on("b300", RULE_VLLM_0_13);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 128);
    assert_int_equal(r.engine.units, 4774);
    /* a model of another qk_nope_head_dim takes CUTLASS MLA today too */
    s = deepseek_on("b200", RULE_CURRENT);
    s.model.qk_nope_head_dim = 64;
    assert_int_equal(run(&s).engine.unit_tokens, 128);
}

static void vllm_mla_blocks_elsewhere_stay_as_given(void **state)
{
    (void)state;
    /* Neither Hopper nor SM100 (A100; the RTX PRO 6000, SM120): no FlashMLA,
     * the block stays 16 (Triton MLA). DeepSeek sparse attention (V3.2,
     * index_topk in the config) forces 64 for FlashMLA sparse anywhere. */
    struct scenario s = deepseek_on("a100-80gb", RULE_CURRENT);
    assert_int_equal(run(&s).engine.unit_tokens, 16);
    assert_null(explain_find(&rows, "mla_block"));
    s = deepseek_on("rtx-pro-6000", RULE_CURRENT);
    assert_int_equal(run(&s).engine.unit_tokens, 16);
    s.model = deepseek_v32();
    assert_int_equal(run(&s).engine.unit_tokens, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_mla_blocks_are_64_on_hopper),
        cmocka_unit_test(vllm_mla_blocks_on_blackwell_by_release),
        cmocka_unit_test(vllm_mla_blocks_elsewhere_stay_as_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
