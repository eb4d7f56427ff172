/* The models of late 2026 (doc/MODEL.md, "Qwen3.5 and Qwen3.6", "GLM-5 and Kimi
 * K2.6"): one layer of
 * each cache kind worked by hand, per token and per user, at TP 1 and 8, from
 * the catalogue's presets; and the parameters of the dense Qwen3.5 layers and
 * of its vision tower, counted by hand. */
#include "engine_fixture.h"

#include "core/kvcost.h"
#include "core/params.h"
#include "core/spec.h"

#include <string.h>

static struct kv_cost cost_of(const char *id, uint32_t tp)
{
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model(id);
    s.gpus = tp;
    s.context_tokens = 32768;
    struct kv_cost c;
    assert_true(kvcost_compute(&s, tp, &c));
    return c;
}

/* A user's bytes on one GPU at len tokens: the KV of the attention layers
 * (a windowed one at most its window) and the fixed state of the DeltaNet
 * layers. */
static uint64_t per_user(const struct kv_cost *c, uint64_t len)
{
    struct token_split t = kvcost_split(c, len, 0); /* a windowed layer holds its window */
    return kvcost_bytes(c, t.user_global, t.user_windowed) + c->state_bytes;
}

static void qwen36_35b_a3b_layers(void **state)
{
    (void)state;
    /* TP 1. An attention layer: 2 (K,V) x 2 KV heads x 256 x 2 B = 2,048 B a
     * token; 10 of them 20,480 B. A gated DeltaNet layer (vLLM
     * mamba_utils.py gated_delta_net_state_shape): conv 3 x (2 x 16 x 128 +
     * 32 x 128) = 24,576 values x 2 B = 49,152 B; recurrent 32 x 128 x 128 =
     * 524,288 values in the config's mamba_ssm_dtype float32 (vLLM
     * Qwen3_5ForConditionalGenerationConfig) = 2,097,152 B; 30 layers
     * 64,389,120 B. A user at 32k: 32,768 x 20,480 + 64,389,120 =
     * 735,477,760 B. */
    struct kv_cost c = cost_of("qwen3.6-35b-a3b", 1);
    assert_int_equal(c.layers, 10);
    assert_int_equal(c.bytes_per_layer, 2048);
    assert_int_equal(c.bytes_per_token, 20480);
    assert_int_equal(c.state_ssm_dtype, DTYPE_FP32);
    assert_int_equal(c.state_bytes_per_layer, 49152 + 2097152);
    assert_int_equal(c.state_bytes, 64389120);
    assert_int_equal(per_user(&c, 32768), 735477760ull);
    /* TP 8: the 2 KV heads replicate to one a GPU, 1,024 B a layer, 10,240
     * B a token; 4 value heads and 2 key heads a GPU: conv 3 x (2 x 2 x 128
     * + 4 x 128) = 3,072 values = 6,144 B, recurrent 4 x 128 x 128 x 4 B =
     * 262,144 B; 30 x 268,288 = 8,048,640 B; at 32k 335,544,320 + 8,048,640
     * = 343,592,960 B. */
    c = cost_of("qwen3.6-35b-a3b", 8);
    assert_int_equal(c.kv_heads_per_gpu, 1);
    assert_int_equal(c.bytes_per_token, 10240);
    assert_int_equal(c.state_bytes_per_layer, 6144 + 262144);
    assert_int_equal(c.state_bytes, 8048640);
    assert_int_equal(per_user(&c, 32768), 343592960ull);
}

static void qwen35_27b_layers(void **state)
{
    (void)state;
    /* TP 1: 4 KV heads, 2 x 4 x 256 x 2 = 4,096 B a layer, 16 layers 65,536
     * B a token; conv 3 x (2 x 16 x 128 + 48 x 128) = 30,720 values = 61,440
     * B, recurrent 48 x 128 x 128 x 4 B = 3,145,728 B; 48 layers 153,944,064
     * B. TP 8: one KV head a GPU, 16,384 B a token; 6 value heads and 2 key
     * heads: conv 3 x (4 x 128 + 6 x 128) = 3,840 values = 7,680 B,
     * recurrent 6 x 16,384 x 4 = 393,216 B; 48 x 400,896 = 19,243,008 B. */
    struct kv_cost c = cost_of("qwen3.5-27b", 1);
    assert_int_equal(c.bytes_per_token, 65536);
    assert_int_equal(c.state_bytes, 153944064);
    assert_int_equal(per_user(&c, 1000), 65536000ull + 153944064);
    c = cost_of("qwen3.5-27b", 8);
    assert_int_equal(c.bytes_per_token, 16384);
    assert_int_equal(c.state_conv_values, 3840);
    assert_int_equal(c.state_bytes, 19243008);
    /* Qwen3.6 27B is the same architecture: the same cache */
    struct kv_cost q = cost_of("qwen3.6-27b", 8);
    assert_int_equal(q.bytes_per_token, c.bytes_per_token);
    assert_int_equal(q.state_bytes, c.state_bytes);
}

static void qwen35_397b_layers(void **state)
{
    (void)state;
    /* The copy of the config the preset cites names no mamba_ssm_dtype: the
     * recurrent state is the model's bf16. TP 8: 15 layers x 1,024 B =
     * 15,360 B a token; 8 value heads, 2 key heads: conv 3 x (4 x 128 + 8 x
     * 128) = 4,608 values = 9,216 B, recurrent 8 x 16,384 x 2 B = 262,144 B;
     * 45 x 271,360 = 12,211,200 B. */
    struct kv_cost c = cost_of("qwen3.5-397b-a17b", 8);
    assert_int_equal(c.layers, 15);
    assert_int_equal(c.bytes_per_token, 15360);
    assert_int_equal(c.state_ssm_dtype, DTYPE_BF16);
    assert_int_equal(c.state_bytes, 12211200);
    c = cost_of("qwen3.5-397b-a17b", 1);
    assert_int_equal(c.bytes_per_token, 15 * 2048);
    /* TP 1: conv 3 x (2 x 16 x 128 + 64 x 128) = 36,864 values = 73,728 B,
     * recurrent 64 x 16,384 x 2 B = 2,097,152 B; 45 x 2,170,880 = 97,689,600 B */
    assert_int_equal(c.state_bytes, 97689600);
}

static void qwen35_122b_layers(void **state)
{
    (void)state;
    /* TP 8: 12 attention layers x 1,024 B (one KV head a GPU) = 12,288 B a
     * token; 8 value heads and 2 key heads a GPU: conv 3 x (4 x 128 + 8 x 128)
     * x 2 B = 9,216 B, recurrent 8 x 128 x 128 x 4 B (float32) = 524,288 B;
     * 36 x 533,504 = 19,206,144 B a user. */
    struct kv_cost c = cost_of("qwen3.5-122b-a10b", 8);
    assert_int_equal(c.bytes_per_token, 12288);
    assert_int_equal(c.state_bytes_per_layer, 9216 + 524288);
    assert_int_equal(c.state_bytes, 19206144);
}

static void dense_qwen35_params(void **state)
{
    (void)state;
    /* 4 layers (1 attention, 3 gated DeltaNet), h 8, 2 heads / 1 KV of 4, key
     * heads 1 x 2, value heads 2 x 2, conv 2, a dense MLP of 4, vocab 10
     * untied: embeddings 160; attention 192 + output gate 64 + q/k norms 8 =
     * 264; DeltaNet 182 (as Qwen3-Next's); MLP 96 + norms 16 = 112 a layer,
     * and no shared-expert gate; 160 + 264 + 3 x 182 + 4 x 112 + 8 = 1,426. */
    struct arch_dims a = {.family = ARCH_QWEN3_NEXT, .layers = 4, .hidden = 8, .heads = 2,
                          .kv_heads = 1, .head_dim = 4, .intermediate = 4, .vocab = 10,
                          .attention_layers = 1, .state_layers = 3, .conv_kernel = 2,
                          .state_heads = 2, .state_head_dim = 2, .state_groups = 1,
                          .state_size = 2};
    uint64_t total = 0, active = 0;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 1426);
    assert_int_equal(active, 0);
}

static void qwen35_vision_params(void **state)
{
    (void)state;
    /* hidden 4, MLP 8, 1 block, 2 x 2 patches over 2 frames of 3 channels, 5
     * positions, a 2 x 2 merger to a text hidden of 6: patches 3 x 2 x 2 x 2
     * x 4 + 4 = 100; positions 20; a block 4 x (16 + 4) + 2 x 4 x 8 + 8 + 4
     * + 4 x 4 = 172; the merger's norm 8, fc1 16 x 16 + 16 = 272, fc2 16 x 6
     * + 6 = 102; 674 in all. */
    struct vision_dims v = {.kind = VISION_QWEN3, .hidden = 4, .intermediate = 8, .layers = 1,
                            .patch = 2, .channels = 3, .temporal_patch = 2, .positions = 5,
                            .merge = 2, .text_hidden = 6};
    uint64_t n = 0;
    assert_true(params_vision(&v, &n));
    assert_int_equal(n, 674);
    /* the real tower (27 blocks of 1152, MLP 4304, 2304 positions) to 4096 */
    v = (struct vision_dims){.kind = VISION_QWEN3, .hidden = 1152, .intermediate = 4304,
                             .layers = 27, .patch = 16, .channels = 3, .temporal_patch = 2,
                             .positions = 2304, .merge = 2, .text_hidden = 4096};
    assert_true(params_vision(&v, &n));
    assert_int_equal(n, 456010480);
}

static void glm5_mla_and_indexer_layer(void **state)
{
    (void)state;
    /* A layer keeps one latent (512 + 64 values) and one indexer key (128
     * FP8 values and an fp32 scale: 132 B), replicated on every GPU: bf16
     * 1,152 + 132 = 1,284 B; 78 layers 100,152 B a token at TP 1 and at TP 8;
     * a user at 32k 3,281,780,736 B. An FP8 cache in FlashMLA's sparse layout
     * (vLLM FlashMLASparseBackend, "fp8_ds_mla"): 512 + 4 x 4 + 2 x 64 = 656 B
     * and the 132 B key, 788 B a layer, 61,464 B a token. */
    struct kv_cost c = cost_of("glm-5", 1);
    assert_int_equal(c.bytes_per_layer, 1284);
    assert_int_equal(c.bytes_per_token, 100152);
    assert_int_equal(per_user(&c, 32768), 3281780736ull);
    c = cost_of("glm-5", 8);
    assert_int_equal(c.bytes_per_token, 100152);
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model("glm-5");
    s.kv_dtype = DTYPE_FP8;
    assert_true(kvcost_compute(&s, 8, &c));
    assert_int_equal(c.latent_bytes, 656);
    assert_int_equal(c.bytes_per_token, 78 * 788);
}

static void kimi_k26_latent_and_int4_experts(void **state)
{
    (void)state;
    /* Kimi K2's MLA: 61 layers x (512 + 64) x 2 B = 70,272 B a token on every
     * GPU, TP 1 or 8; a user at 32k 2,302,672,896 B. The weights: 1,014,686,
     * 023,680 routed-expert parameters at 4 bits and a bf16 scale per 32 (9/16
     * B) = 570,760,888,320 B, the other 11,722,208,768 in bf16 = 23,444,417,
     * 536 B: 594,205,305,856 B. */
    struct kv_cost c = cost_of("kimi-k2.6", 1);
    assert_int_equal(c.bytes_per_token, 70272);
    assert_int_equal(per_user(&c, 32768), 2302672896ull);
    c = cost_of("kimi-k2.6", 8);
    assert_int_equal(c.bytes_per_token, 70272);
    struct model_spec m = preset_model("kimi-k2.6");
    assert_int_equal(m.expert_params, 1014686023680ull);
    assert_int_equal(m.params - m.expert_params, 11722208768ull);
    assert_int_equal(m.weights_bytes, 594205305856ull);
}

static void gemma4_k_eq_v_global_layers(void **state)
{
    (void)state;
    /* Gemma 4 31B, the generic rule, TP 1: a windowed layer 2 (K,V) x 16 heads
     * x 256 x 2 B = 16,384 B; a global layer, the key its value and kept once,
     * 1 x 4 global heads x 512 x 2 B = 4,096 B; a token in every layer 10 x
     * 4,096 + 50 x 16,384 = 860,160 B, past the window 40,960 B; a user at
     * 131,072 tokens: 131,072 x 40,960 + 1,024 x 50 x 16,384 = 6,207,569,920 B. */
    struct kv_cost c = cost_of("gemma-4-31b", 1);
    assert_int_equal(c.bytes_per_layer, 16384);
    assert_int_equal(c.global_bytes_per_layer, 4096);
    assert_int_equal(c.wide_layers, 10);
    assert_true(c.k_eq_v);
    assert_int_equal(c.bytes_per_token, 860160);
    assert_int_equal(c.global_layer_bytes, 40960);
    assert_int_equal(per_user(&c, 131072), 6207569920ull);
    /* TP 8: 2 windowed heads a GPU (2,048 B a layer), the 4 global heads
     * replicated to one a GPU (1 x 512 x 2 = 1,024 B): 10 x 1,024 + 50 x
     * 2,048 = 112,640 B a token */
    c = cost_of("gemma-4-31b", 8);
    assert_int_equal(c.global_kv_heads_per_gpu, 1);
    assert_int_equal(c.global_bytes_per_layer, 1024);
    assert_int_equal(c.bytes_per_token, 112640);
    /* --full-attention: the windowed layers hold every token too, at their
     * own size: past the window is then every layer, 860,160 B at TP 1 */
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model("gemma-4-31b");
    s.full_attention = true;
    assert_true(kvcost_compute(&s, 1, &c));
    assert_int_equal(c.global_layer_bytes, 860160);
}

static void gemma4_under_vllm(void **state)
{
    (void)state;
    /* vLLM keeps K and V each in a K=V layer (model_executor/models/gemma4.py,
     * Gemma4Attention: the key weights loaded into both slots of qkv_proj):
     * 2 x 4 x 512 x 2 B = 8,192 B a global layer at TP 1. Its pages are one
     * size (v1/core/kv_cache_utils.py, unify_kv_cache_spec_page_size): the
     * windowed layers' page per token (16,384 B) is twice the global layers',
     * so the global layers' blocks hold 2 x 16 = 32 tokens. A request of
     * 131,072 tokens: 10 global layers x 4,096 blocks + 50 windowed layers x
     * (ceil((1,023 + 8,192 batched) / 16) + 1 = 577) = 69,810 layer blocks. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.model = preset_model("gemma-4-31b");
    s.context_tokens = 131072;
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.global_bytes_per_layer, 8192);
    assert_int_equal(r.cost.bytes_per_token, 10 * 8192 + 50 * 16384);
    assert_int_equal(r.engine.unit_tokens, 32);
    assert_int_equal(r.engine.unit_bytes, 32ull * 8192 * 10);
    assert_int_equal(r.engine.request_units, 10ull * 4096 + 50 * 577);
    /* no user fits on one H100 (weights 58.25 GiB): the headline's "one needs"
     * is vLLM's start-up figure (v1/core/kv_cache_utils.py,
     * _check_enough_kv_cache_memory): a request's blocks in every group, 1 full
     * group x 4,096 + 5 window groups x 577 = 6,981, each a block of the
     * group's 10 layers, 32 x 8,192 x 10 = 2,621,440 B: 18,300,272,640 B =
     * 17.04 GiB, its own row */
    assert_int_equal(r.max_users, 0);
    assert_int_equal(r.engine.request_bytes, 6981ull * 2621440);
    assert_true(explain_eval(explain_find(&rows, "request_bytes")) == 6981.0L * 2621440);
    /* at TP 8 the pages are equal (2,048 B a token each): blocks of 16 */
    s.gpus = 8;
    s.tp = 8; /* given: the default serves the most without copying KV heads */
    r = run(&s);
    assert_int_equal(r.cost.global_bytes_per_layer, 2048);
    assert_int_equal(r.engine.unit_tokens, 16);
}

static void gemma4_refused_where_not_modelled(void **state)
{
    (void)state;
    enum engine_kind kinds[] = {ENGINE_SGLANG, ENGINE_TRTLLM, ENGINE_LLAMACPP};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct scenario s = base(kinds[i]);
        s.model = preset_model("gemma-4-31b");
        struct diag d = {0};
        enum scenario_field f = SF_COUNT;
        assert_false(scenario_validate(&s, NULL, &f, &d));
        assert_int_equal(f, SF_ENGINE);
        assert_non_null(strstr(d.message, "global layers with KV heads and a head_dim"));
    }
}

static void gemma4_params(void **state)
{
    (void)state;
    /* 2 layers (1 windowed, 1 global), h 4, 2 heads, 1 KV head of 2 windowed,
     * 1 global KV head of 4 with K=V, MLP 2, vocab 3 tied: embeddings 12 + final
     * norm 4; windowed attention q 16 + k 8 + v 8 + o 16 + norms 4 = 52; global
     * q 32 + k 16 + o 32 + norms 8 = 88; per layer MLP 24 + 4 norms 16 + the
     * scalar 1 = 41: 16 + 52 + 88 + 82 = 238. With 2 experts of 2, top-1:
     * each layer adds the router's scale 4 and projection 8, 2 expert scales,
     * the experts 2 x 24 and 3 norms 12 = 74 (active: one expert, 50). */
    struct arch_dims a = {.family = ARCH_GEMMA4, .layers = 2, .hidden = 4, .heads = 2,
                          .kv_heads = 1, .head_dim = 2, .intermediate = 2, .vocab = 3,
                          .tied = true, .global_layers = 1, .global_kv_heads = 1,
                          .global_head_dim = 4, .k_eq_v = true};
    uint64_t total = 0, active = 0;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 238);
    a.experts = 2, a.experts_per_token = 1, a.moe_intermediate = 2;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 238 + 2 * 74);
    assert_int_equal(active, 238 + 2 * 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qwen36_35b_a3b_layers), cmocka_unit_test(qwen35_27b_layers),
        cmocka_unit_test(qwen35_397b_layers),    cmocka_unit_test(qwen35_122b_layers),
        cmocka_unit_test(dense_qwen35_params),
        cmocka_unit_test(qwen35_vision_params),  cmocka_unit_test(glm5_mla_and_indexer_layer),
        cmocka_unit_test(kimi_k26_latent_and_int4_experts),
        cmocka_unit_test(gemma4_k_eq_v_global_layers), cmocka_unit_test(gemma4_under_vllm),
        cmocka_unit_test(gemma4_refused_where_not_modelled), cmocka_unit_test(gemma4_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
