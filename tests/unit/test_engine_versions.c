/* Engine versions as named rules: each release a rule or a default changed
 * in, selected with --engine NAME@VERSION, and the release named in every
 * report. Each test cites the engine's file and function at the release. */
#include "engine_fixture.h"

#include "core/engine_desc.h"

#include <math.h>

static const double gib = 1073741824.0;

/* SGLang sizes its pool from the memory free before the model loads:
 * rest = post_load_free - pre_load_free x (1 - mem_fraction_static), in
 * python/sglang/srt/model_executor/model_runner.py profile_max_num_token
 * (0.4), model_runner_kv_cache_mixin.py (0.5.8) and main's
 * mem_cache/kv_cache_configurator.py _profile_available_bytes alike:
 * pre x fraction less what loading took, nothing more. The worked number of
 * an SGLang issue's log, at TP 2: 21.6 GiB free before loading (the log's
 * total, --gpu-total), 0.15 reserved, 6.09 GiB free after loading the 15.51
 * GiB of weights a GPU: 21.6 x 0.85 - 15.51 = 2.85 GiB of cache, where
 * kvplan took a runtime of 1 GiB off as well and said 1.85 GiB (35% too
 * few tokens). */
static void sglang_pool_is_the_fraction_of_the_free_memory_less_the_weights(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_SGLANG);
    s.gpus = 2;
    s.model.params = 16650000000; /* 15.51 GiB of bf16 weights a GPU at TP 2 */
    s.engine.gpu_total_bytes = (uint64_t)(21.6 * gib);
    s.engine.mem_fraction_static = 0.85;
    struct plan_result r = run(&s);
    uint64_t budget = (uint64_t)llroundl((long double)s.engine.gpu_total_bytes * 0.85);
    assert_int_equal(r.engine.budget_bytes, budget);
    assert_true(r.weights_bytes_per_gpu > 15.50 * gib && r.weights_bytes_per_gpu < 15.52 * gib);
    assert_int_equal(r.kv_pool_bytes_per_gpu, budget - r.weights_bytes_per_gpu);
    assert_true(r.kv_pool_bytes_per_gpu > 2.84 * gib && r.kv_pool_bytes_per_gpu < 2.86 * gib);
    assert_int_equal(r.runtime_bytes_per_gpu, 0);
}

/* Without a log's total, the profile's free memory is the CUDA total less
 * what exists before the model loads (init_torch_distributed: the CUDA
 * context and the communicators): 0.5 GiB, 1 GiB under TP, scaled by the
 * fraction with the rest. A100 40GB (42,412,802,048 B), fraction 0.9, TP 1:
 * round((42,412,802,048 - 536,870,912) x 0.9) = 37,688,338,022 B. */
static void sglang_takes_the_fraction_of_what_is_free_before_loading(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_SGLANG);
    s.engine.mem_fraction_static = 0.9;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.budget_bytes, 37688338022ull);
    assert_int_equal(r.kv_pool_bytes_per_gpu, r.engine.budget_bytes - r.weights_bytes_per_gpu);
    s.gpus = 2;
    r = run(&s);
    assert_int_equal(r.engine.budget_bytes, (uint64_t)llroundl((42412802048.0L - gib) * 0.9L));
}

/* TensorRT-LLM's tokens per block without --tokens_per_block, by release:
 * 1.x, tensorrt_llm/llmapi/llm_args.py KvCacheConfig.tokens_per_block = 32;
 * the 0.x PyTorch backend (0.19, 0.20), tensorrt_llm/_torch/pyexecutor/
 * config.py update_executor_config: executor_config.tokens_per_block =
 * build_config.plugin_config.tokens_per_block, and the PluginConfig of those
 * releases (tensorrt_llm/plugin/plugin.py, the dataclass with _fuse_fp4_quant)
 * has _tokens_per_block = field(default=32): 32, not 64 (issue 22); the engine
 * path, tensorrt_llm/plugin/plugin.py PluginConfig as set in 0.10
 * (field(default=64)), 64; before trtllm-build, examples/llama/build.py
 * parse_arguments, --tokens_per_block 128. Llama 3 8B at 8,192 tokens: 256,
 * 256, 128 and 64 blocks a request. */
static void trtllm_tokens_per_block_follow_the_release(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t tokens;
    } want[] = {{"trtllm", 32},      {"trtllm@1", 32},   {"trtllm@pytorch", 32},
                {"trtllm@0.19", 32}, {"trtllm@0.20", 32}, {"trtllm@trt", 64},
                {"trtllm@0.7", 128}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct scenario s = base(ENGINE_TRTLLM);
        struct diag d = {0};
        assert_true(engine_parse(want[i].name, &s.engine.kind, &s.engine.rule, &d));
        s.context_tokens = 8192;
        struct plan_result r = run(&s);
        assert_int_equal(r.engine.unit_tokens, want[i].tokens);
        assert_true(r.engine.max_concurrency ==
                    (double)r.engine.units / (double)(8192 / want[i].tokens));
    }
}

/* llama.cpp's MLA cache by build: from MLA support ("DeepSeek V2/V3 MLA
 * implementation", April 2025) the cache kept the 576-value latent as K and a
 * V row of n_embd_head_v = kv_lora_rank = 512 values; the V-less cache
 * ("kv-cache : support V-less cache", January 2026, src/llama-kv-cache.cpp
 * with llama_hparams::is_mla) keeps K alone. DeepSeek-V3 at 8,192 cells in f16: 61 x 8,192 x (1,152 + 1,024) B
 * then 61 x 8,192 x 1,152 B, 47% less. */
static void llamacpp_mla_cache_had_a_v_row_before_the_v_less_cache(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_LLAMACPP);
    struct diag d = {0};
    assert_true(engine_parse("llama.cpp@mla-kv", &s.engine.kind, &s.engine.rule, &d));
    deepseek_v3_shape(&s);
    s.engine.parallel = 1;
    /* every layer on the GPU (without -ngl the fit search would keep most of
     * a model this size, and its cache, in host memory: core/offload.h) */
    s.offload.ngl_given = true;
    s.offload.ngl = OFFLOAD_NGL_ALL;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 61ull * 8192 * (1152 + 1024));
    assert_true(engine_parse("llama.cpp", &s.engine.kind, &s.engine.rule, &d));
    r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 61ull * 8192 * 1152);
}

/* Every engine's newest rule is named after its release, and every pin by
 * the release it holds for: what the reports print. */
static void every_engine_names_its_release(void **state)
{
    (void)state;
    static const struct {
        const char *name, *title, *release;
    } want[] = {{"vllm", "vLLM 0.21", "0.21"},
                {"vllm@0.20", "vLLM 0.20", "0.20"},
                {"vllm@0.17", "vLLM 0.17", "0.17"},
                {"vllm@0.13", "vLLM 0.13", "0.13"},
                {"vllm@0", "vLLM V0", "V0"},
                {"sglang", "SGLang 0.5", "0.5"},
                {"llama.cpp", "llama.cpp 2026 builds", "2026 builds"},
                {"llama.cpp@pre-mla", "llama.cpp early-2025 builds", "early-2025 builds"},
                {"trtllm", "TensorRT-LLM 1.x", "1.x"},
                {"trtllm@0.19", "TensorRT-LLM 0.19", "0.19"},
                {"generic", "generic", ""}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum engine_kind k;
        enum engine_rule rule;
        struct diag d = {0};
        char title[64];
        assert_true(engine_parse(want[i].name, &k, &rule, &d));
        engine_version_title(k, rule, title, sizeof title);
        assert_string_equal(title, want[i].title);
        assert_string_equal(engine_release(k, rule), want[i].release);
    }
    /* every serving engine lists its newest rule, with its release */
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *e = engine_desc((enum engine_kind)k);
        if (!e->server)
            continue;
        bool newest = false;
        for (int i = 0; i < ENGINE_VERSIONS_MAX && e->versions[i].label; i++) {
            assert_non_null(e->versions[i].release);
            newest |= e->versions[i].rule == RULE_CURRENT;
        }
        assert_true(newest);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sglang_pool_is_the_fraction_of_the_free_memory_less_the_weights),
        cmocka_unit_test(sglang_takes_the_fraction_of_what_is_free_before_loading),
        cmocka_unit_test(trtllm_tokens_per_block_follow_the_release),
        cmocka_unit_test(llamacpp_mla_cache_had_a_v_row_before_the_v_less_cache),
        cmocka_unit_test(every_engine_names_its_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
