/* vLLM rules read from its source, one test a rule: the MLA backend's block,
 * the MXFP4 experts' padding. Each cites the file and function, and the
 * release or commit it was read at. */
#include "engine_fixture.h"

#include "core/engine.h"

/* DeepSeek-V3 on 8 GPUs of a preset under vLLM at `rule`, KV pool of 40 GiB. */
static struct scenario deepseek_on(const char *gpu, enum engine_rule rule)
{
    struct gpu_spec g = preset_gpu(gpu);
    /* room for the bf16 weights (157 GiB a GPU) and the pool: a logged pool
     * the GPU cannot hold with them does not fit (policy_logged_pool) */
    g.memory_bytes = 256ull << 30;
    g.cuda_visible_bytes = 0;
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

/* gpt-oss-120b on `gpus` GPUs of a preset under vLLM. */
/* DeepSeek-V3.2's "auto" cache under vLLM 0.11 to 0.13 is fp8: vllm/
 * model_executor/models/config.py, DeepseekV32ForCausalLM.verify_and_update_
 * config, turns cache_dtype "auto" (and fp8*) into "fp8_ds_mla" ("we use a
 * custom fp8 format as default", vllm#25988, 2025-09-30, in 0.11.0); later
 * releases turn only fp8* into it, auto being the model's bf16. A token of
 * fp8_ds_mla is 656 B (512 fp8 latent, 4 fp32 scales, 64 bf16 rope) + the
 * indexer's 132 B, x 61 layers = 48,068 B, against 61 x (576 x 2 + 132) =
 * 78,324 B in bf16: 40 GiB holds floor(42,949,672,960 / (64 x 48,068)) =
 * 13,961 blocks under vllm@0.13 (kvplan said 8,568, bf16's), and a bf16
 * cache there is asked for by name, --kv-cache-dtype bfloat16. */
static void vllm_013_v32_auto_cache_is_fp8(void **state)
{
    (void)state;
    struct scenario s = deepseek_on("h200", RULE_VLLM_0_13);
    s.model = deepseek_v32();
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.bytes_per_token, 48068);
    assert_int_equal(r.engine.unit_tokens, 64);
    assert_int_equal(r.engine.units, 13961);
    assert_non_null(strstr(r.engine.launch, "--kv-cache-dtype fp8"));
    s.kv_dtype = DTYPE_BF16;
    r = run(&s);
    assert_int_equal(r.cost.bytes_per_token, 78324);
    assert_int_equal(r.engine.units, 8568);
    assert_non_null(strstr(r.engine.launch, "--kv-cache-dtype bfloat16"));
    /* the newest rule: auto is bf16, no flag */
    s = deepseek_on("h200", RULE_CURRENT);
    s.model = deepseek_v32();
    r = run(&s);
    assert_int_equal(r.cost.bytes_per_token, 78324);
    assert_null(strstr(r.engine.launch, "--kv-cache-dtype"));
}

static struct scenario gpt_oss_on(const char *gpu, uint32_t gpus)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = preset_model("gpt-oss-120b");
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.gpus = gpus;
    s.context_tokens = 131072;
    return s;
}

static void vllm_pads_mxfp4_experts_for_marlin(void **state)
{
    (void)state;
    /* vllm/model_executor/layers/quantization/mxfp4.py
     * (Mxfp4MoEMethod.create_weights, main at 007d5005): Marlin allocates each
     * expert with the intermediate rounded up to 128 (2,880 -> 2,944) and the
     * hidden size to 256 (2,880 -> 3,072). gpt-oss-120b's MXFP4 experts,
     * 60,914,073,600 B as released, become x 2,944 x 3,072 / 2,880^2 =
     * 66,418,900,992 B; with the 4,334,742,144 B of bf16 rest the weights are
     * 70,753,643,136 B = 65.89 GiB on one H100, where vLLM logged "Model
     * loading took 65.97 GiB" (0.12% more: the padded biases and what the
     * loader keeps). The pool at 0.9 is then 2.47 GiB, less than the 4.50 GiB
     * a 131,072-token user needs: no user fits, as vLLM refused to start
     * (kvplan said one, with 7.60 GiB, before). */
    struct scenario s = gpt_oss_on("h100-sxm", 1);
    struct plan_result r = run(&s);
    double gib = (double)r.weights_bytes_per_gpu / 1073741824.0;
    assert_true(gib > 65.97 * 0.998 && gib < 65.97 * 1.002);
    assert_int_equal(r.padded_inter, 2944);
    assert_int_equal(r.padded_hidden, 3072);
    assert_int_equal(r.max_users, 0);
    assert_non_null(explain_find(&rows, "expert_padding"));
    /* at TP 2 each rank's 1,440 becomes 1,536 */
    s = gpt_oss_on("h100-sxm", 2);
    assert_int_equal(run(&s).padded_inter, 2 * 1536);
}

static void vllm_pads_mxfp4_experts_by_gpu_family(void **state)
{
    (void)state;
    /* The same function, get_mxfp4_backend: on the SM100 family FlashInfer's
     * MXFP4 x BF16 MoE pads both to 256 (2,880 -> 3,072); other engines, a
     * --weights override and AMD GPUs are left as they are. */
    struct scenario s = gpt_oss_on("b200", 1);
    struct plan_result r = run(&s);
    assert_int_equal(r.padded_inter, 3072);
    assert_int_equal(r.padded_hidden, 3072);
    s = gpt_oss_on("h100-sxm", 1);
    s.engine.kind = ENGINE_SGLANG;
    assert_int_equal(run(&s).expert_padding_bytes, 0);
    s = gpt_oss_on("mi300x", 1);
    assert_int_equal(run(&s).expert_padding_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_mla_blocks_are_64_on_hopper),
        cmocka_unit_test(vllm_mla_blocks_on_blackwell_by_release),
        cmocka_unit_test(vllm_mla_blocks_elsewhere_stay_as_given),
        cmocka_unit_test(vllm_013_v32_auto_cache_is_fp8),
        cmocka_unit_test(vllm_pads_mxfp4_experts_for_marlin),
        cmocka_unit_test(vllm_pads_mxfp4_experts_by_gpu_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
