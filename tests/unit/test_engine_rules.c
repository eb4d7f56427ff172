/* Engine rules read from the engines' source (issue 10): each test names the
 * upstream file and function and works one number through. */
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
    strcpy(m.id, "llama-3.1-8b");
    m.attention = ATTENTION_GQA;
    m.layers = 32;
    m.hidden_size = 4096;
    m.attention_heads = 32;
    m.kv_heads = 8;
    m.head_dim = 128;
    m.params = 8030261248;
    m.weight_dtype = DTYPE_BF16;
    m.max_context_tokens = 131072;
    m.vocab_size = 128256;
    m.intermediate_size = 14336;
    return m;
}

static struct gpu_spec gpu(const char *id, uint64_t driver_mib)
{
    struct gpu_spec g = {0};
    strcpy(g.id, id);
    g.memory_bytes = driver_mib << 20;
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

static struct scenario on(enum engine_kind kind, const char *gpu_id, uint64_t driver_mib)
{
    struct gpu_spec g = gpu(gpu_id, driver_mib);
    struct model_spec m = llama3_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = kind;
    s.context_tokens = 8192;
    return s;
}

static void vllm_sampler_term_is_one_row_per_dummy_request(void **state)
{
    (void)state;
    /* vllm/v1/worker/gpu_model_runner.py: profile_run runs _dummy_run with
     * min(max_num_tokens, max_num_reqs) requests and hands _dummy_sampler_run the
     * hidden states at logits_indices, the last token of each request; the
     * sampler (vllm/v1/sample/sampler.py) keeps the bf16 logits, an fp32 copy,
     * the softmax and the exponential noise: 14 B per row and vocabulary entry.
     * Llama 3 8B on H100 defaults (1,024 sequences, 8,192 tokens):
     * 1,024 x 128,256 x 14 = 1,838,678,016 B (1.71 GiB), above the forward pass. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_seqs, 1024);
    assert_int_equal(r.engine.activation_bytes, 1024ull * 128256 * 14);
    /* fewer requests than tokens: rows = max_num_seqs, not the 8,192 tokens */
    s.engine.max_num_batched_tokens = 512;
    r = run(&s);
    assert_int_equal(r.engine.activation_bytes, 512ull * 128256 * 14);
}

static void vllm_forward_term_scales_with_tokens_hidden_and_mlp_over_tp(void **state)
{
    (void)state;
    /* vllm/worker/model_runner.py (V0) profile_run: 256 dummy sequences sharing
     * 8,192 tokens; the forward holds per token 5 hidden-sized bf16 tensors, the
     * fused QKV of this rank ((32 + 2 x 8) x 128) and gate_up plus its activated
     * half (3 x 14,336 / TP): 2 x (20,480 + 6,144 + 43,008) = 139,264 B; x 8,192 =
     * 1,140,850,688 B (1.06 GiB; vllm#10511 logged 1.26 GiB for this model and
     * length on H100). The V0 sampler (top-k/top-p profiled: 30 B per entry)
     * over 256 rows is 985,006,080 B, the smaller. At TP 2 the QKV and MLP halve:
     * 8,192 x 2 x (20,480 + 3,072 + 21,504) = 738,197,504 B, and the sampler's
     * 985,006,080 B becomes the peak. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 8192);
    assert_int_equal(r.engine.activation_bytes, 8192ull * 139264);
    s.gpus = 2;
    r = run(&s);
    assert_true(8192ull * 2 * (20480 + 3072 + 21504) < 256ull * 128256 * 30);
    assert_int_equal(r.engine.activation_bytes, 256ull * 128256 * 30);
}

static void vllm_v0_turns_on_chunked_prefill_past_32k(void **state)
{
    (void)state;
    /* vllm/engine/arg_utils.py (V0): chunked prefill is on by default when
     * max_model_len > 32K (CUDA, no sliding window); vllm/config.py then sets
     * max_num_batched_tokens to 2,048. Llama 3.1 8B at 65,536 on an H100 profiles
     * 2,048 tokens, not 65,536 (65,536 x 139,264 B = 8.5 GiB of forward
     * activations): (81,559 - 460) MiB x 0.9 = 71.28 GiB - 14.96 GiB weights - 0.92 GiB sampler (256 x 128,256
     * x 30 B) - 0.1 GiB = 55.30 GiB = 28,315 blocks; / 4,096 per user = 6 users. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    s.context_tokens = 65536;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 2048);
    assert_true(r.fits);
    assert_int_equal(r.engine.units, 28315);
    assert_int_equal(r.max_users, 6);
    s.context_tokens = 32768; /* not past 32K: the whole context is batched */
    r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 32768);
}

static void vllm_v0_caps_a_windowed_sequence_at_the_window(void **state)
{
    (void)state;
    /* vllm/core/block_manager.py (V0): for a model windowed in every layer
     * (Mistral 7B v0.1, 4,096 tokens), a sequence keeps at most
     * window / block_size + 2 = 4,096 / 16 + 2 = 258 blocks; at 32,768 tokens it
     * would otherwise need 2,048. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    s.model.windowed_layers = 32;
    s.model.window_tokens = 4096;
    s.context_tokens = 32768;
    struct plan_result r = run(&s);
    const struct explain_row *row = explain_find(&r.explain, "units_per_user");
    assert_non_null(row);
    assert_true(explain_eval(row) == 258);
    assert_int_equal(r.users_fit_per_replica, r.engine.units / 258);
}

static void sglang_big_gpus_chunk_16k_and_graph_512(void **state)
{
    (void)state;
    /* python/sglang/srt/server_args.py (the GPU-memory defaults): 160 GiB and
     * more (B200, MI300X): chunked_prefill_size 16,384, cuda_graph_max_bs 512.
     * B200, 183,359 MiB, TP 1: reserve 512 + 16,384 x 1.5 + 512 x 2 + 1 / 8 x 1,024
     * = 26,240 MB; round((183,359 - 26,240) / 183,359, 3) = 0.857. */
    struct scenario s = on(ENGINE_SGLANG, "b200", 183359);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 16384);
    assert_true(r.engine.fraction == 0.857);
}

static void sglang_graph_batch_follows_tp(void **state)
{
    (void)state;
    /* server_args.py: under 160 GiB and from 60 GiB the CUDA-graph batch is 256
     * below TP 4 and 512 from TP 4. H100 (81,559 MiB) TP 4: reserve 512 + 8,192 x 1.5
     * + 512 x 2 + 4 / 8 x 1,024 = 14,336 MB (above the 10 GiB floor):
     * round((81,559 - 14,336) / 81,559, 3) = 0.824; TP 1 with 256: 13,440 MB: 0.835. */
    struct scenario s = on(ENGINE_SGLANG, "h100-sxm", 81559);
    s.gpus = 4;
    struct plan_result r = run(&s);
    assert_true(r.engine.fraction == 0.824);
    s.gpus = 1;
    r = run(&s);
    assert_true(r.engine.fraction == 0.835);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_sampler_term_is_one_row_per_dummy_request),
        cmocka_unit_test(vllm_forward_term_scales_with_tokens_hidden_and_mlp_over_tp),
        cmocka_unit_test(vllm_v0_turns_on_chunked_prefill_past_32k),
        cmocka_unit_test(vllm_v0_caps_a_windowed_sequence_at_the_window),
        cmocka_unit_test(sglang_big_gpus_chunk_16k_and_graph_512),
        cmocka_unit_test(sglang_graph_batch_follows_tp),
    };
    return cmocka_run_group_tests_name("engine_rules", tests, NULL, NULL);
}
