/* Layouts past one node: pipeline stages, SGLang's DP attention and
 * vLLM's data parallel for MoE experts, each citing the upstream code it mirrors. */
#include "engine_fixture.h"

static void pipeline_stages_split_layers_kv_and_weights(void **state)
{
    (void)state;
    /* vllm/distributed/utils.py (get_pp_indices) gives each stage a
     * contiguous run of layers; each stage allocates the KV of its own
     * layers (vllm/v1/worker/gpu_worker.py sizes the cache per worker).
     * Llama 3 8B on 2 GPUs, TP 1 x PP 2: 16 layers per GPU, so 16 x 4,096 =
     * 65,536 B of KV per token per GPU; weights 16,060,522,496 / 2 =
     * 8,030,261,248 B per GPU; every user's KV lives on both stages. */
    struct scenario s = base(ENGINE_VLLM);
    s.gpus = 2;
    s.pp = 2;
    struct plan_result r = run(&s);
    assert_int_equal(r.tp, 1);
    assert_int_equal(r.pp, 2);
    assert_int_equal(r.replicas, 1);
    assert_int_equal(r.cost.bytes_per_token, 16ull * 4096);
    assert_int_equal(r.weights_bytes_per_gpu, 16060522496ull / 2);
    assert_non_null(strstr(r.engine.launch, "-pp 2"));
    /* a stage's per-user KV is half the model's: about twice the users of TP 1 on one GPU */
    struct scenario one = base(ENGINE_VLLM);
    struct plan_result r1 = run(&one);
    assert_true(r.max_users > 2 * r1.max_users);
    /* GPUs = TP x PP x replicas: 8 GPUs, TP 2, PP 2 are 2 replicas */
    s.gpus = 8;
    s.tp = 2;
    r = run(&s);
    assert_int_equal(r.replicas, 2);
    assert_int_equal(r.max_users, 2 * r.users_per_replica);
}

static void sglang_dp_attention_keeps_one_latent_per_request_not_per_rank(void **state)
{
    (void)state;
    /* python/sglang/srt/server_args.py (enable_dp_attention: dp_size ranks of
     * attention, reserve + cuda_graph_max_bs x dp x 3); each attention rank
     * keeps its own requests' latents (model_runner.py sizes the pool per rank),
     * so a TP 8 group serves 8 ranks' users instead of one latent replicated 8
     * times. DeepSeek-V2-Lite shape (27 layers x 576 x 2 B = 31,104 B per token)
     * at TP 2: with DP attention the users per replica are 2 x the users per rank. */
    struct scenario s = base(ENGINE_SGLANG);
    s.model.attention = ATTENTION_MLA;
    s.model.layers = 27;
    s.model.kv_lora_rank = 512;
    s.model.qk_rope_head_dim = 64;
    s.model.qk_nope_head_dim = 128;
    s.model.v_head_dim = 128;
    s.model.attention_heads = 16;
    s.model.kv_heads = 16;
    s.model.params = 15700000000ull;
    s.model.max_context_tokens = 163840; /* DeepSeek-V2-Lite's: SGLang takes 32k */
    s.gpus = 2;
    s.tp = 2; /* the comparison is TP 2 with and without DP attention (the
               * default would take PP 2: the latent on every TP rank) */
    s.context_tokens = 32768;
    struct plan_result plain = run(&s);
    s.dp_attention = true;
    struct plan_result dp = run(&s);
    assert_int_equal(dp.cost.bytes_per_token, 31104);
    assert_int_equal(dp.users_per_replica % 2, 0);
    const struct explain_row *rank = explain_find(&rows, "users_rank");
    assert_non_null(rank);
    assert_true(explain_eval(explain_find(&rows, "users")) == 2 * rank->result.value);
    /* the extra reserve (graph batch 32 x 2 ranks x 3 MB) leaves a smaller pool,
     * yet the replica holds about twice the users */
    assert_true(dp.engine.fraction < plain.engine.fraction);
    assert_true(dp.max_users > plain.max_users * 3 / 2);
    assert_non_null(strstr(dp.engine.launch, "--enable-dp-attention --dp 2"));
}

static void vllm_expert_parallel_spreads_routed_experts_over_the_dp_group(void **state)
{
    (void)state;
    /* vllm/model_executor/layers/fused_moe/config.py (FusedMoEParallelConfig.make):
     * a MoE layer flattens TP across the DP ranks (tp_size = dp x tp), so the
     * routed experts are split over every GPU of the DP group, as tensor slices,
     * or with enable_expert_parallel as whole experts (ep_size = dp x tp);
     * attention and the other weights stay split by TP in each DP rank.
     * A 16 B-parameter MoE in bf16 with 12 B in routed experts on 8 GPUs, TP 2
     * x 4 replicas: (4 B x 2 B) / 2 + (12 B x 2 B) / 8 = 4 GB + 3 GB = 7 GB
     * per GPU either way; under vllm@0 (no data parallel: one server per
     * replica) each TP pair holds all: 32 GB / 2 = 16 GB. */
    struct scenario s = base(ENGINE_VLLM);
    s.model.params = 16000000000ull;
    s.model.expert_params = 12000000000ull;
    s.gpus = 8;
    s.tp = 2;
    s.engine.rule = RULE_VLLM_V0;
    struct plan_result v0 = run(&s);
    assert_int_equal(v0.weights_bytes_per_gpu, 16000000000ull);
    s.engine.rule = RULE_CURRENT;
    struct plan_result dp = run(&s);
    assert_int_equal(dp.weights_bytes_per_gpu, 4000000000ull + 3000000000ull);
    s.expert_parallel = true;
    struct plan_result r = run(&s);
    assert_int_equal(r.expert_bytes, 24000000000ull);
    assert_int_equal(r.weights_bytes_per_gpu, 4000000000ull + 3000000000ull);
    assert_non_null(strstr(r.engine.launch, "--enable-expert-parallel"));
    assert_null(strstr(dp.engine.launch, "--enable-expert-parallel"));
    /* one replica: the experts split by TP as before */
    s.gpus = 2;
    r = run(&s);
    assert_int_equal(r.weights_bytes_per_gpu, 16000000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipeline_stages_split_layers_kv_and_weights),
        cmocka_unit_test(sglang_dp_attention_keeps_one_latent_per_request_not_per_rank),
        cmocka_unit_test(vllm_expert_parallel_spreads_routed_experts_over_the_dp_group),
    };
    return cmocka_run_group_tests_name("parallel", tests, NULL, NULL);
}
