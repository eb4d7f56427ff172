/* Kimi-Linear (model_type kimi_linear), worked by hand from its published
 * config (presets/models/kimi-linear-48b-a3b.json): 27 layers, Kimi Delta
 * Attention in 20 of them and MLA in 7, DeepSeek-style MoE past the first.
 *
 * KDA's state is core/spec.h's gated DeltaNet with as many key heads as value
 * heads: vLLM layers/mamba/mamba_utils.py, MambaStateShapeCalculator.
 * kda_state_shape: a conv state of (conv_kernel - 1) x (heads x head_dim / TP)
 * for each of q, k and v, and a recurrent state of heads / TP x head_dim x
 * head_dim; kda_state_dtype: the conv state in the model's dtype, the
 * recurrent state in fp32 whatever the cache's. layers/kda.py,
 * KimiDeltaAttention.get_state_shape passes num_heads, head_dim and
 * short_conv_kernel_size. The MLA layers (models/kimi_linear.py,
 * KimiMLAAttention) cache kv_lora_rank + qk_rope_head_dim values. */
#include "catalog_fixture.h"

#include "core/kvcost.h"
#include "core/params.h"
#include "core/plan.h"

static struct plan_result r;

static struct scenario kimi(uint32_t gpus)
{
    struct scenario s = base("h100-sxm", "kimi-linear-48b-a3b");
    s.engine.kind = ENGINE_VLLM;
    s.gpus = gpus;
    s.tp = gpus; /* the worked numbers are at TP over all GPUs */
    s.context_tokens = 131072;
    return s;
}

/* One layer, one token, one sequence, at TP 1 and TP 8.
 * MLA: (512 + 64) x 2 B = 1,152 B a layer, on every GPU; 7 layers: 8,064 B.
 * KDA, TP 1: conv 3 x (3 x 32 x 128) = 36,864 values x 2 B = 73,728 B;
 * recurrent 32 x 128 x 128 = 524,288 values x 4 B = 2,097,152 B.
 * KDA, TP 8: 4 heads a GPU: conv 3 x (3 x 4 x 128) x 2 B = 9,216 B;
 * recurrent 4 x 128 x 128 x 4 B = 262,144 B. */
static void one_layer(void **state)
{
    (void)state;
    struct scenario s = kimi(1);
    struct kv_cost k;
    assert_true(kvcost_compute(&s, 1, &k));
    assert_true(k.mla);
    assert_int_equal(k.bytes_per_layer, 1152);
    assert_int_equal(k.layers, 7);
    assert_int_equal(k.bytes_per_token, 8064);
    assert_int_equal(k.state_layers, 20);
    assert_int_equal(k.state_conv_values, 36864);
    assert_int_equal(k.state_conv_dtype, DTYPE_BF16);
    assert_int_equal(k.state_ssm_dtype, DTYPE_FP32);
    assert_int_equal(k.state_bytes_per_layer, 73728 + 2097152);
    assert_true(kvcost_compute(&s, 8, &k));
    assert_int_equal(k.bytes_per_layer, 1152); /* the latent is whole on every GPU */
    assert_int_equal(k.state_heads_per_gpu, 4);
    assert_int_equal(k.state_groups_per_gpu, 4);
    assert_int_equal(k.state_bytes_per_layer, 9216 + 262144);
}

/* One user at 131,072 tokens: 131,072 x 8,064 = 1,056,964,608 B of KV, and
 * the state of 20 layers: TP 1, 20 x 2,170,880 = 43,417,600 B, in all
 * 1,100,382,208 B; TP 8, 20 x 271,360 = 5,427,200 B, 1,062,391,808 B. */
static void one_user(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = kimi(8);
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.user_bytes_per_gpu, 1062391808ull);
    assert_int_equal(r.cost.state_bytes, 5427200);
    s = kimi(1);
    /* the bf16 weights pass one H100: no fit, and the user's bytes stand */
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.user_bytes_per_gpu, 1100382208ull);
}

/* The parameters, from vLLM's modules: a KDA layer 3 x 2,304 x 4,096
 * (q, k, v) + 3 x 4,096 x 4 (convs) + 2 x (2,304 x 128 + 128 x 4,096) (f_a,
 * f_b, g_a, g_b) + 4,096 (dt_bias) + 2,304 x 32 (b_proj) + 32 (A_log) + 128
 * (o_norm) + 4,096 x 2,304 (o_proj) = 39,514,272; an MLA layer 2,304 x 32 x
 * 192 + 2,304 x 576 + 512 + 512 x 32 x 256 + 32 x 128 x 2,304 = 29,114,880;
 * a MoE layer 256 x 3 x 2,304 x 1,024 + 3 x 2,304 x 1,024 (shared) + 2,304 x
 * 256 + 256 (the gate and its score bias) = 1,819,606,784; layer 0's MLP 3 x
 * 2,304 x 9,216 = 63,700,992; two norms a layer; 2 x 163,840 x 2,304 untied
 * and the final norm: 49,122,681,728, of which 47,110,422,528 in experts. */
static void parameters(void **state)
{
    (void)state;
    struct arch_dims a = {.family = ARCH_KIMI_LINEAR, .layers = 27, .hidden = 2304, .heads = 32,
                          .kv_heads = 32, .head_dim = 72, .intermediate = 9216, .vocab = 163840,
                          .experts = 256, .experts_per_token = 8, .moe_intermediate = 1024,
                          .shared_experts = 1, .first_dense = 1, .score_bias = true,
                          .kv_lora_rank = 512, .rope_dim = 64, .nope_dim = 128, .v_head_dim = 128,
                          .attention_layers = 7, .state_layers = 20, .conv_kernel = 4,
                          .state_heads = 32, .state_head_dim = 128, .state_groups = 32,
                          .state_size = 128};
    uint64_t total = 0, active = 0, experts = 0;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 49122681728ull);
    assert_int_equal(active, 3484459904ull);
    assert_true(params_in_experts(&a, &experts));
    assert_int_equal(experts, 47110422528ull);
    /* one KDA layer more, one MLA layer fewer: 39,514,272 - 29,114,880 */
    a.state_layers = 21;
    a.attention_layers = 6;
    uint64_t more = 0;
    assert_true(params_count(&a, &more, &active));
    assert_int_equal(more - total, 39514272ull - 29114880ull);
    assert_string_equal(params_family_name(ARCH_KIMI_LINEAR), "kimi_linear");
}

/* vLLM's hybrid block: model_executor/models/config.py
 * (HybridAttentionMambaModelConfig.verify_and_update_config, main at
 * 1936cf38) makes the attention block a x ceil(state page / (a x one token's
 * page)) with a the kernel's alignment, an MLA backend's for an MLA model:
 * 128 with CUTLASS MLA, 64 with the others. At TP 2 a KDA layer's page is
 * 3 x (3 x 16 x 128) x 2 B + 16 x 128 x 128 x 4 B = 36,864 + 1,048,576 =
 * 1,085,440 B, over 1,152 B a token 942.2 tokens: 960 = 15 x 64 with FlashMLA
 * on Hopper and FlashInfer MLA on B200, 1,024 = 8 x 128 with CUTLASS MLA on
 * B200 up to vllm@0.13 (16-aligned it was 944, which neither takes). At TP 1
 * on an H200: 2,170,880 / 1,152 = 1,884.4, 1,920 = 30 x 64 (not 1,888). */
static void hybrid_block_aligned(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = kimi(2);
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.engine.unit_tokens, 960);
    s = base("b200", "kimi-linear-48b-a3b");
    s.engine.kind = ENGINE_VLLM;
    s.gpus = 2;
    s.tp = 2;
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.engine.unit_tokens, 960);
    s.engine.rule = RULE_VLLM_0_13;
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.engine.unit_tokens, 1024);
    s = base("h200", "kimi-linear-48b-a3b");
    s.engine.kind = ENGINE_VLLM;
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.engine.unit_tokens, 1920);
    assert_int_equal(r.engine.unit_tokens % 64, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_layer),
        cmocka_unit_test(one_user),
        cmocka_unit_test(parameters),
        cmocka_unit_test(hybrid_block_aligned),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
