/* --block-size as each engine takes it (core/engine_desc.h refuses_block,
 * block_override; validated in core/scenario_validate.c for the command
 * line, the planner and snapshots alike). One test an engine's rule, each
 * citing the file and function it was read in, and the release. kvplan's
 * default, 16, stands for the engine's own and is never refused. */
#include "engine_fixture.h"

#include "core/engine.h"

/* A scenario of `model` on one `gpu` under kind at rule, with a block. */
static struct scenario with_block(enum engine_kind kind, enum engine_rule rule, const char *gpu,
                                  const char *model, uint64_t block)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = preset_model(model);
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = kind;
    s.engine.rule = rule;
    s.block_tokens = block;
    return s;
}

/* The refusal of s, "" when it validates; *field the field at fault. */
static const char *refusal(const struct scenario *s, enum scenario_field *field)
{
    static struct diag d;
    memset(&d, 0, sizeof d);
    *field = SF_COUNT;
    return scenario_validate(s, NULL, field, &d) ? "" : d.message;
}

static void assert_refused(const struct scenario *s, const char *words)
{
    enum scenario_field f;
    const char *why = refusal(s, &f);
    if (!strstr(why, words))
        fail_msg("no '%s' in '%s'", words, why);
    assert_int_equal(f, SF_BLOCK);
    assert_non_null(strstr(why, "--block-size: "));
}

static void assert_taken(const struct scenario *s)
{
    enum scenario_field f;
    assert_string_equal(refusal(s, &f), "");
}

static void vllm_up_to_0_17_takes_the_block_size_literal(void **state)
{
    (void)state;
    /* vllm/config/cache.py, CacheConfig.block_size: SkipValidation[BlockSize],
     * BlockSize = Literal[1, 8, 16, 32, 64, 128, 256] (read at c1d86421; the
     * docs of 0.11.1 and 0.16.0), vllm serve's --block-size choices; 0.9.0 to
     * 0.10.2 end at 128. 48 is no choice, 256 none before 0.11. */
    struct scenario s = with_block(ENGINE_VLLM, RULE_VLLM_0_13, "h100-sxm", "llama-3.1-8b", 48);
    assert_refused(&s, "48 tokens a block under vLLM 0.13: refused at startup: not one of "
                       "vllm serve's --block-size choices");
    assert_refused(&s, "it starts with 16, 32, 64, 128 or 256");
    s.engine.rule = RULE_VLLM_0_17;
    assert_refused(&s, "under vLLM 0.17: refused at startup: not one of");
    s.block_tokens = 256;
    assert_taken(&s);
    assert_int_equal(run(&s).engine.unit_tokens, 256);
    s.engine.rule = RULE_VLLM_0_13;
    snprintf(s.engine.release_asked, sizeof s.engine.release_asked, "0.10.2");
    assert_refused(&s, "under vLLM 0.13 rule, for 0.10.2: refused at startup");
    assert_refused(&s, "BlockSize, 256 from 0.11); it starts with 16, 32, 64 or 128");
    snprintf(s.engine.release_asked, sizeof s.engine.release_asked, "0.11");
    assert_taken(&s);
}

static void vllm_v1_attention_takes_a_multiple_of_16(void **state)
{
    (void)state;
    /* The V1 attention kernels: FlashAttention, FlashInfer and Triton give
     * get_supported_kernel_block_sizes() [MultipleOf(16)], and
     * vllm/v1/worker/utils.py select_common_block_size raises "No common
     * block size for 8" when the KV cache starts (vllm#42510; up to 0.10
     * FlashAttentionBackend.get_kv_cache_shape, "Block size must be a
     * multiple of 16"). 8 is a choice up to 0.17 and refused all the same;
     * from 0.18 CacheConfig.block_size is an int (gt=0 at 002f10e0), so 48,
     * a multiple of 16, is planned as given. */
    const enum engine_rule rules[] = {RULE_VLLM_0_13, RULE_VLLM_0_17, RULE_VLLM_0_20, RULE_CURRENT};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        struct scenario s = with_block(ENGINE_VLLM, rules[i], "h100-sxm", "llama-3.1-8b", 8);
        assert_refused(&s, "refused at startup: its attention kernels take a multiple of 16");
    }
    struct scenario s = with_block(ENGINE_VLLM, RULE_CURRENT, "h100-sxm", "llama-3.1-8b", 48);
    assert_taken(&s);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 48);
    assert_non_null(strstr(r.engine.launch, "--block-size 48"));
    s.block_tokens = 40;
    assert_refused(&s, "40 tokens a block under vLLM 0.21: refused at startup");
}

static void vllm_v0_takes_its_paged_attention_sizes(void **state)
{
    (void)state;
    /* V0: csrc/attention/paged_attention_v2.cu launches blocks of 8, 16 or
     * 32 ("Unsupported block size" otherwise), and vllm/config.py
     * CacheConfig._verify_args refuses more than 32 on CUDA ("CUDA Paged
     * Attention kernel only supports block sizes up to 32", vllm#11259). */
    struct scenario s = with_block(ENGINE_VLLM, RULE_VLLM_V0, "h100-sxm", "llama-3.1-8b", 64);
    assert_refused(&s, "under vLLM V0: refused at startup: V0's paged-attention kernels take "
                       "8, 16 or 32");
    s.block_tokens = 8;
    assert_taken(&s);
    assert_int_equal(run(&s).engine.unit_tokens, 8);
}

static void vllm_mla_blocks_are_the_backends(void **state)
{
    (void)state;
    /* An MLA model's block is its backend's: vllm/platforms/cuda.py,
     * CudaPlatformBase.check_and_update_config (main 002db495) forces
     * FlashMLA's multiple of 64 on Hopper over the block given, so 8 is taken
     * and planned as 64, said (block_override); up to 0.17 only among vllm
     * serve's choices (48 is none). Elsewhere Triton MLA takes any block
     * (v1/attention/backends/mla/triton_mla.py: no kernel block sizes of its
     * own, the base class's MultipleOf(1)). */
    struct scenario s = with_block(ENGINE_VLLM, RULE_CURRENT, "h100-sxm", "deepseek-v3", 8);
    assert_taken(&s);
    const char *why = NULL;
    assert_int_equal(scenario_block_override(&s, &why), 64);
    assert_string_equal(why, "FlashMLA on Hopper takes a multiple of 64");
    s.engine.rule = RULE_VLLM_0_13;
    assert_taken(&s);
    s.block_tokens = 48;
    assert_refused(&s, "not one of vllm serve's --block-size choices");
    assert_refused(&s, "it starts with 1, 8, 16, 32, 64, 128 or 256");
    s = with_block(ENGINE_VLLM, RULE_CURRENT, "a100-80gb", "deepseek-v3", 7);
    assert_taken(&s);
    assert_int_equal(scenario_block_override(&s, &why), 0);
    /* the default stands for vLLM's own: no block given, nothing overridden */
    s = with_block(ENGINE_VLLM, RULE_CURRENT, "h100-sxm", "deepseek-v3", DEFAULT_BLOCK_TOKENS);
    assert_int_equal(scenario_block_override(&s, &why), 0);
}

static void trtllm_takes_a_power_of_two(void **state)
{
    (void)state;
    /* cpp/tensorrt_llm/kernels/kvCacheUtils.h, KVBlockArrayForContextFMHA:
     * TLLM_CHECK_WITH_INFO(ceil(log2) == floor(log2), "tokensPerBlock must be
     * power of 2"), where the attention op of every path views the paged
     * cache (read at 0ccf9032); examples/llama/build.py parse_arguments
     * asserts the same before trtllm-build (0.7). */
    const enum engine_rule rules[] = {RULE_CURRENT, RULE_TRTLLM_0, RULE_TRTLLM_ENGINE,
                                      RULE_TRTLLM_BUILD_PY};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        struct scenario s = with_block(ENGINE_TRTLLM, rules[i], "h100-sxm", "llama-3.1-8b", 48);
        assert_refused(&s, "refused: tokens_per_block must be a power of two");
    }
    struct scenario s = with_block(ENGINE_TRTLLM, RULE_CURRENT, "h100-sxm", "llama-3.1-8b", 64);
    assert_taken(&s);
    assert_int_equal(run(&s).engine.unit_tokens, 64);
    s.block_tokens = 1;
    assert_taken(&s);
}

static void sglang_pages_above_1_are_not_modelled(void **state)
{
    (void)state;
    /* --block-size is SGLang's --page-size (python/sglang/srt/server_args.py,
     * ServerArgs.page_size, any int), and kvplan counts its pool token by
     * token, page 1: a larger page is refused as unmodelled, 1 taken.
     * DeepSeek V4 is served in pages of 256 whatever is given
     * (arg_groups/model_overrides/deepseek_v4.py, _deepseek_v4_overrides). */
    struct scenario s = with_block(ENGINE_SGLANG, RULE_CURRENT, "h100-sxm", "llama-3.1-8b", 64);
    assert_refused(&s, "64 tokens a block under SGLang 0.5: not modelled: it is SGLang's "
                       "--page-size");
    s.block_tokens = 1;
    assert_taken(&s);
    s = with_block(ENGINE_SGLANG, RULE_CURRENT, "h200", "deepseek-v4-flash", 64);
    s.gpus = 8;
    assert_taken(&s);
    const char *why = NULL;
    assert_int_equal(scenario_block_override(&s, &why), 256);
    assert_non_null(strstr(why, "_deepseek_v4_overrides"));
}

static void llama_server_has_no_block(void **state)
{
    (void)state;
    /* src/llama-kv-cache.cpp: a cell a token, each slot's context whole; no
     * llama-server or Ollama option sizes a block. The default is kept. */
    const enum engine_kind kinds[] = {ENGINE_LLAMACPP, ENGINE_OLLAMA};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct scenario s = with_block(kinds[i], RULE_CURRENT, "h100-sxm", "llama-3.1-8b", 32);
        assert_refused(&s, "no block to size: llama-server keeps each slot's context whole");
        s.block_tokens = DEFAULT_BLOCK_TOKENS;
        assert_taken(&s);
    }
}

static void the_generic_rule_takes_any_block(void **state)
{
    (void)state;
    struct scenario s = with_block(ENGINE_GENERIC, RULE_CURRENT, "h100-sxm", "llama-3.1-8b", 7);
    assert_taken(&s);
    assert_int_equal(run(&s).block_tokens, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_up_to_0_17_takes_the_block_size_literal),
        cmocka_unit_test(vllm_v1_attention_takes_a_multiple_of_16),
        cmocka_unit_test(vllm_v0_takes_its_paged_attention_sizes),
        cmocka_unit_test(vllm_mla_blocks_are_the_backends),
        cmocka_unit_test(trtllm_takes_a_power_of_two),
        cmocka_unit_test(sglang_pages_above_1_are_not_modelled),
        cmocka_unit_test(llama_server_has_no_block),
        cmocka_unit_test(the_generic_rule_takes_any_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
