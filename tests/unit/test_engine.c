/* Engine profiles, one rule per test, each citing the upstream code it
 * mirrors (paths as in ../shared/reference/ENGINES.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"

static struct model_spec llama3_8b(void)
{
    struct model_spec m = {0};
    strcpy(m.id, "llama-3-8b");
    strcpy(m.hf_id, "meta-llama/Meta-Llama-3-8B");
    m.attention = ATTENTION_GQA;
    m.layers = 32;
    m.hidden_size = 4096;
    m.attention_heads = 32;
    m.kv_heads = 8;
    m.head_dim = 128;
    m.params = 8030261248;
    m.weight_dtype = DTYPE_BF16;
    m.max_context_tokens = 8192;
    m.vocab_size = 128256;
    return m;
}

static struct gpu_spec a100_40(void)
{
    struct gpu_spec g = {0};
    strcpy(g.id, "a100-40gb");
    g.memory_bytes = 40960ull << 20;
    g.cuda_visible_bytes = 42412802048ull; /* 39.50 GiB as vLLM logged it */
    g.bandwidth_bytes_per_s = 1555000000000ull;
    g.price_usd_per_hour = -1;
    return g;
}

static struct plan_result run(struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, PLAN_EXPLAIN, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

static struct scenario base(enum engine_kind kind)
{
    struct gpu_spec g = a100_40();
    struct model_spec m = llama3_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = kind;
    return s;
}

static void vllm_v0_blocks_are_the_kv_memory_over_the_page_size(void **state)
{
    (void)state;
    /* vllm/worker/worker.py (V0): available = total x utilisation - non-KV;
     * num_gpu_blocks = available // (block_size x per-layer bytes x layers).
     * Log vllm#12330: 39.50 GiB x 0.90 - (14.96 + 0.10 + 9.37) GiB = 11.12 GiB;
     * 11.12 GiB // (16 x 4,096 B x 32) = 5,693 (the log: 5,691, from unrounded GiB). */
    struct scenario s = base(ENGINE_VLLM);
    s.engine.rule = RULE_VLLM_V0;
    s.engine.non_kv_bytes = (uint64_t)(24.43 * 1073741824.0);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 16ull * 4096 * 32);
    assert_int_equal(r.engine.units, 5693);
    assert_int_equal(r.kv_tokens_per_replica, 5693ull * 16);
    /* concurrency = blocks / ceil(8192 / 16) = 5693 / 512 = 11.12 */
    assert_true(r.engine.max_concurrency > 11.11 && r.engine.max_concurrency < 11.13);
    assert_int_equal(r.max_users, 11);
}

static void vllm_takes_a_fraction_of_the_total_not_of_the_free(void **state)
{
    (void)state;
    /* vllm/v1/worker/gpu_worker.py::determine_available_memory:
     * requested = total_gpu_memory x gpu_memory_utilization */
    struct scenario s = base(ENGINE_VLLM);
    s.engine.non_kv_bytes = 20ull << 30;
    s.engine.gpu_memory_utilization = 0.8;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.budget_bytes, (uint64_t)(42412802048.0 * 0.8 + 0.5));
    assert_int_equal(r.kv_pool_bytes_per_gpu, r.engine.budget_bytes - (20ull << 30));
}

static void vllm_sliding_layers_need_only_the_window_and_a_batch(void **state)
{
    (void)state;
    /* vllm/v1/core/kv_cache_utils.py (hybrid allocator): a sliding layer needs
     * (ceil(min(window - 1 + max_num_batched_tokens, L) / block) + 1) blocks.
     * gpt-oss-120b shape, 131,072 tokens, batch 1,024: 18 full layers x 8,192 blocks
     * + 18 sliding x (ceil(1,151 / 16) + 1 = 73) blocks; x 16 tokens x 2,048 B
     * = 4,874,895,360 B = 4.54 GiB, as vllm#27508 logged. */
    struct scenario s = base(ENGINE_VLLM);
    s.model.layers = 36;
    s.model.attention_heads = 64;
    s.model.kv_heads = 8;
    s.model.head_dim = 64;
    s.model.windowed_layers = 18;
    s.model.window_tokens = 128;
    s.model.max_context_tokens = 131072;
    s.model.params = 1000000000;
    s.context_tokens = 131072;
    s.engine.max_num_batched_tokens = 1024;
    struct plan_result r = run(&s);
    /* layer-weighted blocks of one request x 16 tokens x 2,048 B per layer */
    assert_int_equal(r.engine.request_units, 18ull * 8192 + 18 * 73);
    assert_int_equal(r.engine.request_units * 16 * r.cost.bytes_per_layer, 4874895360ull);
}

static void sglang_pool_is_token_granular_over_the_static_fraction(void **state)
{
    (void)state;
    /* python/sglang/srt/model_executor/model_runner.py: cell_size =
     * kv_heads_per_rank x (head_dim + v_head_dim) x layers x bytes;
     * max_total_num_tokens = rest // cell_size. Llama 3.3 70B at TP 8 on a logged
     * 106.62 GiB pool: 106.62 GiB // (1 x 256 x 80 x 2 = 40,960) = 2,794,979 tokens. */
    struct scenario s = base(ENGINE_SGLANG);
    s.model.layers = 80;
    s.model.attention_heads = 64;
    s.model.params = 70553706496;
    s.model.max_context_tokens = 131072;
    s.gpus = 8;
    s.context_tokens = 131072;
    s.engine.kv_memory_bytes = (uint64_t)(106.62 * 1073741824.0);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 40960);
    assert_int_equal(r.kv_tokens_per_replica, 2794979);
    /* max_running_requests = min(max(tokens / context x 512, 2048), 4096) = 4096 */
    assert_int_equal(r.engine.scheduler_cap, 4096);
}

static void sglang_default_fraction_comes_from_its_reserve(void **state)
{
    (void)state;
    /* python/sglang/srt/server_args.py: reserved MB = 512 + max(chunked, 2048) x 1.5
     * + cuda_graph_max_bs x 2 + tp / 8 x 1024, at least 10 GiB above 60 GiB;
     * the table reads nvidia-smi's memory.total (get_nvgpu_memory_capacity), the
     * driver total: A100 40GB, 40,960 MiB, TP 1: chunked 4,096, graphs 32:
     * 512 + 6,144 + 64 + 128 = 6,848 MB; fraction = round((40,960 - 6,848) / 40,960, 3)
     * = round(0.83281, 3) = 0.833 (server_args.py rounds it itself), the value the
     * launch line passes (--mem-fraction-static 0.833), so the plan is what it runs */
    struct scenario s = base(ENGINE_SGLANG);
    struct plan_result r = run(&s);
    assert_true(r.engine.fraction == 0.833);
}

static void llamacpp_allocates_every_cell_of_every_slot(void **state)
{
    (void)state;
    /* src/llama-kv-cache.cpp: K and V of ggml_row_size(type, n_embd_k_gqa) per cell
     * and layer; -np 4 of 8,192 tokens = 32,768 cells; q8_0 rows of 1,024 values =
     * 1,088 B: 2 x 32 x 32,768 x 1,088 = 2,281,701,376 B (2,176 MiB) */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.context_tokens = 8192;
    s.engine.parallel = 4;
    s.kv_dtype = DTYPE_Q8_0;
    struct plan_result r = run(&s);
    assert_int_equal(r.kv_tokens_per_replica, 32768);
    assert_int_equal(r.engine.kv_cache_bytes, 2281701376ull);
    assert_int_equal(r.engine.scheduler_cap, 4);
}

static void llamacpp_before_mla_expanded_deepseek_per_head(void **state)
{
    (void)state;
    /* llama.cpp before MLA support (early 2025): n_embd_k_gqa = heads x (nope + rope),
     * n_embd_v_gqa = heads x v_head_dim. DeepSeek-V3 at 8,192 cells, K q4_0 and V f16:
     * K 61 x 8,192 x (24,576 x 18/32 = 13,824) = 6,908,018,688 B (6,588 MiB),
     * V 61 x 8,192 x 16,384 x 2 = 16,374,562,816 B (15,616 MiB), as unsloth#1621 logged. */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.engine.rule = RULE_LLAMACPP_PRE_MLA;
    s.model.attention = ATTENTION_MLA;
    s.model.layers = 61;
    s.model.attention_heads = 128;
    s.model.kv_heads = 0;
    s.model.head_dim = 0;
    s.model.kv_lora_rank = 512;
    s.model.qk_rope_head_dim = 64;
    s.model.qk_nope_head_dim = 128;
    s.model.v_head_dim = 128;
    s.model.params = 671026419200;
    s.model.max_context_tokens = 163840;
    s.context_tokens = 8192;
    s.kv_dtype = DTYPE_Q4_0;
    s.engine.v_dtype = DTYPE_FP16;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 6908018688ull + 16374562816ull);
    /* with MLA support: the 576-value latent as K, V a view of it */
    s.engine.rule = RULE_CURRENT;
    s.kv_dtype = DTYPE_FP16;
    r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 61ull * 8192 * 1152);
}

static void trtllm_takes_a_fraction_of_what_is_free(void **state)
{
    (void)state;
    /* tensorrt_llm KvCacheConfig.free_gpu_memory_fraction: kv = (total - non-KV) x 0.9,
     * where vLLM would take total x 0.9 - non-KV */
    struct scenario s = base(ENGINE_TRTLLM);
    s.engine.non_kv_bytes = 20ull << 30;
    struct plan_result r = run(&s);
    uint64_t expect = (uint64_t)((double)(42412802048ull - (20ull << 30)) * 0.9);
    assert_int_equal(r.kv_pool_bytes_per_gpu, expect);
    assert_int_equal(r.engine.unit_tokens, 32);
}

static void replicas_multiply_users_and_keep_per_gpu_figures(void **state)
{
    (void)state;
    /* 4 GPUs as 2 replicas of TP 2: each replica is the TP-2 plan; users double */
    struct scenario s = base(ENGINE_VLLM);
    s.gpus = 2;
    struct plan_result one = run(&s);
    s.gpus = 4;
    s.tp = 2;
    struct plan_result two = run(&s);
    assert_int_equal(two.replicas, 2);
    assert_int_equal(two.kv_pool_bytes_per_gpu, one.kv_pool_bytes_per_gpu);
    assert_int_equal(two.max_users, 2 * one.max_users);
    assert_int_equal(two.max_users, 2 * one.max_users);
    assert_non_null(strstr(two.engine.launch, "--data-parallel-size 2"));
}

static void engine_names_parse_with_versions(void **state)
{
    (void)state;
    enum engine_kind k;
    enum engine_rule rule;
    struct diag d = {0};
    assert_true(engine_parse("vllm@0", &k, &rule, &d));
    assert_int_equal(k, ENGINE_VLLM);
    assert_int_equal(rule, RULE_VLLM_V0);
    assert_true(engine_parse("Ollama", &k, &rule, &d));
    assert_int_equal(k, ENGINE_LLAMACPP);
    assert_true(engine_parse("tensorrt-llm", &k, &rule, &d));
    assert_int_equal(k, ENGINE_TRTLLM);
    assert_false(engine_parse("sglang@9", &k, &rule, &d));
    assert_non_null(strstr(d.message, "unknown version"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_v0_blocks_are_the_kv_memory_over_the_page_size),
        cmocka_unit_test(vllm_takes_a_fraction_of_the_total_not_of_the_free),
        cmocka_unit_test(vllm_sliding_layers_need_only_the_window_and_a_batch),
        cmocka_unit_test(sglang_pool_is_token_granular_over_the_static_fraction),
        cmocka_unit_test(sglang_default_fraction_comes_from_its_reserve),
        cmocka_unit_test(llamacpp_allocates_every_cell_of_every_slot),
        cmocka_unit_test(llamacpp_before_mla_expanded_deepseek_per_head),
        cmocka_unit_test(trtllm_takes_a_fraction_of_what_is_free),
        cmocka_unit_test(replicas_multiply_users_and_keep_per_gpu_figures),
        cmocka_unit_test(engine_names_parse_with_versions),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
