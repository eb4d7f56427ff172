/* Kimi K3 (model_type kimi_k3, its text model kimi_linear), worked by hand
 * from its public config.json and the tensor table of its checkpoint
 * (presets/models/kimi-k3.json, tests/data/hf/kimi-k3.json): 93 layers,
 * Kimi Delta Attention in 69 of them (kda_layers) and gated MLA in 24
 * (full_attn_layers 4, 8, ..., 92, 93, 1-based), a dense MLP in the first,
 * latent MoE in the other 92, routed experts in MXFP4.
 *
 * The cache as for Kimi-Linear (doc/MODEL.md, "Kimi-Linear";
 * tests/unit/test_kimi_linear.c): an MLA layer caches kv_lora_rank +
 * qk_rope_head_dim values a token, whole on every GPU; a KDA layer keeps
 * vLLM's kda_state_shape per sequence, a conv state of (kernel - 1) x heads x
 * head_dim / TP for each of q, k and v in the model's dtype and a recurrent
 * state of heads / TP x head_dim x head_dim in fp32 (kda_state_dtype). */
#include "catalog_fixture.h"

#include <math.h>

#include "core/kvcost.h"
#include "core/params.h"
#include "core/plan.h"

static struct plan_result r;

/* The checkpoint's own figures (the model report of moonshotai/Kimi-K3):
 * 96 safetensors files of 1,560,936,091,448 B (1453.74 GiB), its tensors
 * 1453.66 GiB, 1,503,647,073,024 parameters as stored (a packed byte of two
 * MXFP4 values counted as one, a scale byte as one). */
#define CHECKPOINT_BYTES 1560936091448ull
#define PACKED_PARAMS 1503647073024ull
/* MoonViT and its projector, from the same table: 27 blocks of wqkv 4,608 x
 * 1,024, wo 1,024 x 1,536, fc0 and fc1 4,096 x 1,024, two norms of 1,024; the
 * final norm, a 64 x 64 x 1,024 position table, a 1,024 x 3 x 14 x 14 patch
 * projection; the projector's 4,096 x 4,096 and 7,168 x 4,096 and its norm of
 * 7,168: 447,358,976, bf16, not counted by kvplan (as Kimi K2.6's). */
#define VISION_PARAMS 447358976ull

static struct scenario k3(const char *gpu, uint32_t gpus)
{
    struct scenario s = base(gpu, "kimi-k3");
    s.engine.kind = ENGINE_VLLM;
    s.gpus = gpus;
    s.tp = gpus; /* the worked numbers are at TP over all GPUs */
    s.context_tokens = 131072;
    return s;
}

/* One layer, one token, one sequence, at TP 1 and TP 8.
 * MLA: (512 + 64) x 2 B = 1,152 B a layer on every GPU; 24 layers: 27,648 B.
 * KDA, TP 1: conv 3 x (3 x 96 x 128) = 110,592 values x 2 B = 221,184 B;
 * recurrent 96 x 128 x 128 = 1,572,864 values x 4 B = 6,291,456 B; a layer
 * 6,512,640 B, 69 layers 449,372,160 B a user.
 * KDA, TP 8, 12 heads a GPU: conv 3 x (3 x 12 x 128) x 2 B = 27,648 B;
 * recurrent 12 x 128 x 128 x 4 B = 786,432 B; a layer 814,080 B, 69 layers
 * 56,171,520 B a user. */
static void one_layer(void **state)
{
    (void)state;
    struct scenario s = k3("b300", 1);
    struct kv_cost k;
    assert_true(kvcost_compute(&s, 1, &k));
    assert_true(k.mla);
    assert_int_equal(k.bytes_per_layer, 1152);
    assert_int_equal(k.layers, 24);
    assert_int_equal(k.bytes_per_token, 27648);
    assert_int_equal(k.state_layers, 69);
    assert_int_equal(k.state_conv_values, 110592);
    assert_int_equal(k.state_conv_dtype, DTYPE_BF16);
    assert_int_equal(k.state_ssm_dtype, DTYPE_FP32);
    assert_int_equal(k.state_bytes_per_layer, 221184 + 6291456);
    assert_int_equal(k.state_bytes, 449372160);
    assert_true(kvcost_compute(&s, 8, &k));
    assert_int_equal(k.bytes_per_layer, 1152); /* the latent is whole on every GPU */
    assert_int_equal(k.bytes_per_token, 27648);
    assert_int_equal(k.state_heads_per_gpu, 12);
    assert_int_equal(k.state_bytes_per_layer, 27648 + 786432);
    assert_int_equal(k.state_bytes, 56171520);
}

/* One user at 131,072 tokens on 8 B300 at TP 8: 131,072 x 27,648 =
 * 3,623,878,656 B of KV and 56,171,520 B of state, 3,680,050,176 B a GPU; at
 * 1,048,576 tokens (max_position_embeddings) 28,991,029,248 + 56,171,520 =
 * 29,047,200,768 B. */
static void one_user(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = k3("b300", 8);
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.cost.state_bytes, 56171520);
    assert_int_equal(r.user_bytes_per_gpu, 3680050176ull);
    s.context_tokens = 1048576;
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.user_bytes_per_gpu, 29047200768ull);
}

static struct arch_dims k3_dims(void)
{
    struct arch_dims a = {.family = ARCH_KIMI_LINEAR, .layers = 93, .hidden = 7168, .heads = 96,
                          .kv_heads = 96, .intermediate = 33792, .vocab = 163840,
                          .experts = 896, .experts_per_token = 16, .moe_intermediate = 3072,
                          .shared_experts = 2, .first_dense = 1, .score_bias = true,
                          .q_lora_rank = 1536, .kv_lora_rank = 512, .rope_dim = 64,
                          .nope_dim = 128, .v_head_dim = 128, .attention_layers = 24,
                          .state_layers = 69, .conv_kernel = 4, .state_heads = 96,
                          .state_head_dim = 128, .state_groups = 96, .state_size = 128,
                          .latent_hidden = 3584, .mla_gate = true, .kda_full_gate = true,
                          .attn_res = true};
    return a;
}

/* The parameters, each tensor of the checkpoint's table (x = 96 x 128 =
 * 12,288):
 * a KDA layer: q, k, v 3 x 12,288 x 7,168 + their convs 3 x 12,288 x 4 +
 *   f_a 128 x 7,168 + f_b 12,288 x 128 + dt_bias 12,288 + b_proj 96 x 7,168 +
 *   A_log 128 + o_norm 128 + g_proj 12,288 x 7,168 + o_proj 7,168 x 12,288 =
 *   443,740,416;
 * an MLA layer: q_a 1,536 x 7,168 + its norm 1,536 + q_b 18,432 x 1,536 +
 *   kv_a 576 x 7,168 + its norm 512 + kv_b 24,576 x 512 + g_proj 12,288 x
 *   7,168 + o_proj 7,168 x 12,288 = 232,196,096;
 * every layer six vectors of 7,168 (two norms, the attention residuals'
 *   two norms and two 1 x 7,168 projections);
 * layer 0's MLP 3 x 7,168 x 33,792 = 726,663,168;
 * a MoE layer: 896 experts of 3 x 3,584 x 3,072 (w1, w2, w3 in the latent) =
 *   29,595,009,024, 2 shared experts 3 x 7,168 x 6,144 = 132,120,576, the gate
 *   896 x 7,168 and its score bias 896, the latent's down and up projections
 *   2 x 3,584 x 7,168 and its norm 3,584 = 29,784,936,832;
 * the embeddings untied 2 x 163,840 x 7,168, the final norm and the output's
 *   residual norm and projection 3 x 7,168.
 * 69 x 443,740,416 + 24 x 232,196,096 + 93 x 43,008 + 726,663,168 + 92 x
 * 29,784,936,832 + 2,348,810,240 + 21,504 = 2,779,484,478,208, of which
 * 92 x 29,595,009,024 = 2,722,740,830,208 in routed experts; active with 16
 * routed experts of 896: 105,364,019,968. */
static void parameters(void **state)
{
    (void)state;
    struct arch_dims a = k3_dims();
    uint64_t total = 0, active = 0, experts = 0;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 2779484478208ull);
    assert_int_equal(active, 105364019968ull);
    assert_true(params_in_experts(&a, &experts));
    assert_int_equal(experts, 2722740830208ull);
    /* as the checkpoint stores them: an expert weight_packed of half its
     * values and a weight_scale of one in 32, the rest one each, with the
     * vision tower: the dump's 1,503,647,073,024 exactly */
    assert_int_equal(total - experts + experts / 2 + experts / 32 + VISION_PARAMS, PACKED_PARAMS);
    /* what each of K3's additions counts, one at a time */
    struct arch_dims b = a;
    uint64_t less = 0, act = 0;
    b.mla_gate = false; /* g_proj of the 24 MLA layers */
    assert_true(params_count(&b, &less, &act));
    assert_int_equal(total - less, 24ull * 7168 * 12288);
    b = a;
    b.attn_res = false; /* four vectors a layer, two before the output */
    assert_true(params_count(&b, &less, &act));
    assert_int_equal(total - less, 93ull * 4 * 7168 + 2 * 7168);
    b = a;
    b.kda_full_gate = false; /* Kimi-Linear's g_a, g_b and A_log per head instead */
    assert_true(params_count(&b, &less, &act));
    assert_int_equal(total - less, 69ull * (12288ull * 7168 - (128 * 7168 + 12288 * 128) + 128 - 96));
    b = a;
    b.latent_hidden = 0; /* the experts at the hidden size, no latent projections */
    uint64_t more = 0, wide_experts = 0;
    assert_true(params_count(&b, &more, &act));
    assert_true(params_in_experts(&b, &wide_experts));
    assert_int_equal(wide_experts - experts, 92ull * 896 * 3 * (7168 - 3584) * 3072);
    assert_int_equal(more - total, wide_experts - experts - 92ull * (2 * 3584 * 7168 + 3584));
}

/* The weights: 2,722,740,830,208 expert parameters at 17/32 B (a half byte
 * and a uint8 scale per 32) = 1,446,456,066,048 B, the other 56,743,648,000
 * in bf16 = 113,487,296,000 B: 1,559,943,362,048 B (1452.81 GiB). The
 * checkpoint's 1,560,936,091,448 B are 992,729,400 B more: the vision tower
 * in bf16 (894,717,952 B), the fp32 tensors kvplan counts at bf16 (A_log,
 * dt_bias, o_norm and the three convs of 69 KDA layers and 92 score biases:
 * 11,122,432 values, 22,244,864 B more) and 75,766,584 B of the 96 files'
 * safetensors headers (497,220 tensors); its tensors alone, 1,560,860,324,864
 * B, are the dump's 1453.66 GiB. */
static void weights(void **state)
{
    (void)state;
    struct scenario s = k3("b300", 8);
    const struct model_spec *m = &s.model;
    assert_int_equal(m->expert_params, 2722740830208ull);
    assert_int_equal(m->params - m->expert_params, 56743648000ull);
    assert_int_equal(m->weights_bytes, (m->expert_params * 17 + 31) / 32 +
                                           (m->params - m->expert_params) * 2);
    assert_int_equal(m->weights_bytes, 1559943362048ull);
    uint64_t fp32 = 69ull * (128 + 12288 + 3 * 12288 * 4 + 128) + 92ull * 896;
    assert_int_equal(fp32, 11122432);
    uint64_t tensors = m->weights_bytes + VISION_PARAMS * 2 + fp32 * 2;
    assert_int_equal(tensors, 1560860324864ull);
    assert_true(tensors / 1073741824.0 > 1453.655 && tensors / 1073741824.0 < 1453.665);
    assert_int_equal(CHECKPOINT_BYTES - tensors, 75766584);
    assert_true(CHECKPOINT_BYTES / 1073741824.0 > 1453.735 &&
                CHECKPOINT_BYTES / 1073741824.0 < 1453.745);
}

/* vLLM on 8 B300 at TP 8: the checkpoint's weights with no MXFP4 padding
 * (gpt-oss's Mxfp4MoEMethod rule reads the experts' intermediate from
 * intermediate_size, K3's dense MLP's 33,792: it once padded K3's experts by
 * 34,816 / 33,792, 40.8 GiB); on 8 B200 the weights alone (1452.81 GiB) pass
 * the 8 GPUs' budgets: no users, and says so. */
static void vllm_fit(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = k3("b300", 8);
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.expert_padding_bytes, 0);
    assert_int_equal(r.weights_bytes, 1559943362048ull);
    assert_true(r.max_users > 0);
    s = k3("b200", 8);
    plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
    assert_int_equal(r.expert_padding_bytes, 0);
    assert_int_equal(r.max_users, 0);
}

/* Expert parallel over 72 GPUs (an NVL72 rack, TP 8): 896 experts do not
 * split evenly, and vLLM's determine_expert_map (fused_moe/layer.py) gives
 * 896 // 72 = 12 to each rank and the remainder of 32 one more each on the
 * first ranks: the fullest GPU holds 13, ceil(expert bytes x 13 / 896), not
 * an even 1/72 share. */
static void expert_parallel_fullest(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = k3("gb300", 72);
    s.tp = 8;
    s.expert_parallel = true;
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    uint64_t rest = r.weights_bytes - r.expert_bytes - r.replicated_bytes;
    uint64_t experts = (uint64_t)ceill((long double)r.expert_bytes * 13 / 896);
    assert_int_equal(r.weights_bytes_per_gpu, (rest + 7) / 8 + experts + r.replicated_bytes);
    assert_true(experts > (r.expert_bytes + 71) / 72); /* more than an even share */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_layer),
        cmocka_unit_test(one_user),
        cmocka_unit_test(parameters),
        cmocka_unit_test(weights),
        cmocka_unit_test(vllm_fit),
        cmocka_unit_test(expert_parallel_fullest),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
