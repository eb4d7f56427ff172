/* DeepSeek V4's compressed attention (doc/MODEL.md, "DeepSeek V4"): one layer
 * of each cache kind worked by hand (the window row, a CSA row with its
 * indexer key, an HCA row, the compressor's state), per token and per user,
 * at TP 1 and 8, from the catalogue's presets; the layer kinds over pipeline
 * stages; and the engines kvplan has no rule for, refused by name.
 *
 * The bytes are the engines' own layout of a row: vLLM
 * v1/kv_cache_interface.py, MLAAttentionSpec.real_page_size_bytes and
 * SlidingWindowMLASpec.real_page_size_bytes ("448B NoPE + 128B RoPE + 8B fp8
 * scale = 584B per token", model_version "deepseek_v4", main as read in late
 * 2026, the version with compress_ratio); model_executor/layers/
 * deepseek_v4_attention.py (commit 0a291a2e),
 * DeepseekV4MultiHeadLatentAttentionWrapper head_bytes (448 + 64 x 2 + 448 /
 * 64 + 1) and DeepseekV4Indexer (k_cache_head_dim = 128 + 128 / 128 x 4 =
 * 132); model_executor/layers/deepseek_compressor.py (commit 0de10a27),
 * DeepseekCompressor and CompressorStateCache (state_dim 2 x coff x head_dim
 * fp32, sliding window coff x ratio, coff 2 at ratio 4). SGLang's
 * DSV4PoolConfigurator plans the same rows (its test_dsv4_pool_configurator.py:
 * 584 B a packed FP8 row, 132 B an indexer key). */
#include "engine_fixture.h"

#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/params.h"
#include "core/spec.h"

#include <string.h>

static struct kv_cost cost_of(const char *id, uint32_t tp, enum dtype kv)
{
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model(id);
    s.gpus = tp;
    s.kv_dtype = kv;
    s.context_tokens = 131072;
    struct kv_cost c;
    assert_true(kvcost_compute(&s, tp, &c));
    return c;
}

/* A user's bytes on one GPU at len tokens: the compressed rows, the window
 * of every layer and the compressor's state. */
static uint64_t per_user(const struct kv_cost *c, uint64_t len)
{
    struct token_split t = kvcost_split(c, len, 0);
    return kvcost_bytes(c, t.user_global, t.user_windowed) + c->state_bytes;
}

static void flash_rows(void **state)
{
    (void)state;
    /* Under auto the cache is FP8 (both engines' default). A row: 448 FP8
     * values + 64 rope dims x 2 B + a UE8M0 scale per 64 of the 448 (7) padded
     * to 8 B = 584 B. A CSA row adds its indexer key: 128 FP8 + 4 B = 132, 716
     * B. Over 128 tokens: 21 CSA layers x 32 rows x 716 = 481,152 and 20 HCA
     * layers x 1 row x 584 = 11,680, 492,832 B; a token 3,850.25 B, 3,851
     * rounded up. */
    struct kv_cost c = cost_of("deepseek-v4-flash", 1, DTYPE_AUTO);
    assert_int_equal(c.kv_dtype, DTYPE_FP8);
    assert_int_equal(c.bytes_per_layer, 584);
    assert_int_equal(c.csa_index_bytes, 132);
    assert_int_equal(c.csa_row_bytes, 716);
    assert_int_equal(c.hca_row_bytes, 584);
    assert_int_equal(c.csa_layers, 21);
    assert_int_equal(c.hca_layers, 20);
    assert_int_equal(c.windowed_layers, 43);
    assert_int_equal(c.global_layers, 0);
    assert_int_equal(c.window_tokens, 128);
    assert_int_equal(c.compressed_span, 128);
    assert_int_equal(c.compressed_span_bytes, 492832);
    assert_int_equal(c.bytes_per_token, 3851);
    assert_int_equal(kvcost_compressed_bytes(&c, 4), 15401); /* 4 x 3,850.25 */
    /* The compressor: a CSA layer 8 tokens x 2 (kv, score) x 2 (overlap) x
     * (512 + the indexer's 128) x 4 B = 81,920 B; an HCA layer 128 x 2 x 512
     * x 4 = 524,288 B; 21 x 81,920 + 20 x 524,288 = 12,206,080 B a sequence. */
    assert_int_equal(c.csa_state_bytes, 81920);
    assert_int_equal(c.hca_state_bytes, 524288);
    assert_int_equal(c.state_bytes, 12206080);
}

static void flash_per_user_tp1_and_tp8(void **state)
{
    (void)state;
    /* At 128k: 131,072 x 492,832 / 128 = 504,659,968 B of compressed rows, the
     * window 43 layers x 128 x 584 = 3,214,336 B, the state 12,206,080 B:
     * 520,080,384 B. At 100 tokens, inside the window: 385,025 + 100 x 43 x
     * 584 = 2,511,200 + the state = 15,102,305 B. */
    struct kv_cost c = cost_of("deepseek-v4-flash", 1, DTYPE_AUTO);
    assert_int_equal(per_user(&c, 131072), 520080384ull);
    assert_int_equal(per_user(&c, 100), 15102305ull);
    /* TP 8: one KV head, so every GPU holds all of it: the same bytes a GPU */
    struct kv_cost c8 = cost_of("deepseek-v4-flash", 8, DTYPE_AUTO);
    assert_int_equal(c8.kv_heads_per_gpu, 1);
    assert_int_equal(c8.bytes_per_token, 3851);
    assert_int_equal(per_user(&c8, 131072), 520080384ull);
    /* bf16: a row is 512 x 2 = 1,024 B, a CSA row 1,156; 128 tokens 21 x 32
     * x 1,156 + 20 x 1,024 = 797,312 B, 6,229 B a token */
    struct kv_cost b = cost_of("deepseek-v4-flash", 1, DTYPE_BF16);
    assert_int_equal(b.bytes_per_layer, 1024);
    assert_int_equal(b.compressed_span_bytes, 797312);
    assert_int_equal(b.bytes_per_token, 6229);
}

static void pro_rows_and_user(void **state)
{
    (void)state;
    /* 30 CSA and 31 HCA layers: 30 x 32 x 716 + 31 x 584 = 687,360 + 18,104
     * = 705,464 B over 128 tokens, 5,511.4375 a token (5,512); the state 30 x
     * 81,920 + 31 x 524,288 = 18,710,528 B. At 1M tokens: 8,192 x 705,464 =
     * 5,779,161,088 + 61 x 128 x 584 = 4,559,872 + 18,710,528 =
     * 5,802,431,488 B, the same a GPU at TP 8. */
    for (uint32_t tp = 1; tp <= 8; tp += 7) {
        struct kv_cost c = cost_of("deepseek-v4-pro", tp, DTYPE_AUTO);
        assert_int_equal(c.csa_layers, 30);
        assert_int_equal(c.hca_layers, 31);
        assert_int_equal(c.compressed_span_bytes, 705464);
        assert_int_equal(c.bytes_per_token, 5512);
        assert_int_equal(c.state_bytes, 18710528);
        assert_int_equal(per_user(&c, 1048576), 5802431488ull);
    }
}

static void plan_users_and_rows(void **state)
{
    (void)state;
    /* The plan sums the same terms: Flash at 128k, TP 8 on H200s */
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model("deepseek-v4-flash");
    s.gpu = preset_gpu("h200");
    s.gpus = 8;
    s.tp = 8; /* the worked numbers are TP 8's (the default takes stages) */
    s.context_tokens = 131072;
    struct plan_result r = run(&s);
    assert_int_equal(r.user_bytes_per_gpu, 520080384ull);
    assert_int_equal(r.state_bytes_per_user_per_gpu, 12206080);
    assert_true(r.users_per_replica > 0);
    assert_int_equal(r.users_per_replica, r.kv_pool_bytes_per_gpu / 520080384ull);
    const struct explain_row *span = explain_find(&rows, "kv_compressed_span");
    assert_non_null(span);
    assert_true(span->result.value == 492832);
    assert_non_null(explain_find(&rows, "kv_csa_row"));
    assert_non_null(explain_find(&rows, "state_per_user"));
    assert_true(explain_find(&rows, "kv_per_token")->result.value == 3851);
}

static void pipeline_stages(void **state)
{
    (void)state;
    /* Pro over 2 stages: the fullest holds 31 layers, its CSA and HCA layers
     * in proportion (15 and 16): 15 x 32 x 716 + 16 x 584 = 353,024 B over
     * 128 tokens, a window in each of the 31 */
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model("deepseek-v4-pro");
    s.gpu = preset_gpu("b200");
    s.gpus = 8;
    s.pp = 2;
    s.context_tokens = 131072;
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.csa_layers, 15);
    assert_int_equal(r.cost.hca_layers, 16);
    assert_int_equal(r.cost.windowed_layers, 31);
    assert_int_equal(r.cost.compressed_span_bytes, 353024);
}

static void engines_refused_by_name(void **state)
{
    (void)state;
    enum engine_kind kinds[] = {ENGINE_TRTLLM, ENGINE_LLAMACPP}; /* SGLang: test_sglang_dsv4.c */
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct scenario s = base(kinds[i]);
        s.model = preset_model("deepseek-v4-flash");
        struct diag d = {0};
        enum scenario_field f = SF_COUNT;
        assert_false(scenario_validate(&s, NULL, &f, &d));
        assert_int_equal(f, SF_ENGINE);
        assert_non_null(strstr(d.message, "DeepSeek V4's compressed attention"));
        assert_non_null(strstr(d.message, engine_desc(kinds[i])->title));
    }
}

static void no_compressed_draft(void **state)
{
    (void)state;
    /* a draft's layers are counted at every token (specdec.c), which is not
     * how a compressed model keeps its cache: refused by name */
    struct scenario s = base(ENGINE_GENERIC);
    s.model = preset_model("llama-3.1-70b");
    s.spec_method = SPEC_DRAFT;
    s.draft = preset_model("deepseek-v4-flash");
    struct diag d = {0};
    enum scenario_field f = SF_COUNT;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_DRAFT_MODEL);
    assert_non_null(strstr(d.message, "deepseek-v4-flash: kvplan counts no draft"));
}

static void impossible_shapes(void **state)
{
    (void)state;
    struct model_spec m = preset_model("deepseek-v4-flash");
    struct diag d = {0};
    assert_true(spec_model_validate(&m, &d));
    struct model_spec bad = m;
    bad.windowed_layers = 42; /* a layer without its window */
    d = (struct diag){0};
    assert_false(spec_model_validate(&bad, &d));
    assert_non_null(strstr(d.message, "window in every layer"));
    bad = m;
    d = (struct diag){0};
    bad.hca_layers = 23; /* 21 + 23 > 43 */
    assert_false(spec_model_validate(&bad, &d));
    assert_non_null(strstr(d.message, "more than num_layers"));
    bad = m;
    d = (struct diag){0};
    bad.csa_ratio = 1;
    assert_false(spec_model_validate(&bad, &d));
    assert_non_null(strstr(d.message, "csa_ratio"));
}

static void tiny_params_and_bytes(void **state)
{
    (void)state;
    /* 2 layers (1 CSA, 1 window only; the first hash-routed), h 8, 2 heads of
     * 4 (rope 2), q_lora 4, 1 output group of 4, 2 experts of 2 (top-1) + 1
     * shared, vocab 3, 1 stream, an indexer of 1 head of 2. Attention a
     * layer: wq_a 32 + q_norm 4 + wq_b 32 + wkv 32 + kv_norm 4 + wo_a 32 +
     * wo_b 32 + sinks 2 = 170; the CSA compressor ape 4 x 2 x 4 = 32, wkv and
     * wgate 2 x 2 x 4 x 8 = 128, norm 4 (164); the indexer wq_b 8,
     * weights_proj 8 and its compressor 16 + 64 + 2 (98): 432 and 170. The
     * MoE: experts 2 x 3 x 2 x 8 = 96, shared 48, gate 16, the bias 2 past the
     * hash layer; norms 16; hyper-connections 2 x (3 x 8 + 6) = 60: 236 and
     * 238. Embedding, head and norm 56, the head's hyper-connection 10: 1,142;
     * active, one expert a layer: 1,142 - 2 x 48 = 1,046.
     * Bytes: FP8 matrices and a 1 B scale each (wq_a, wq_b, wkv, wo_a, wo_b:
     * 165), norms bf16 16, sinks fp32 8: 189 a layer; the CSA compressor ape
     * fp32 128 + 256 + 8 = 392, the indexer 9 + 16 + 64 + 128 + 4 = 221: 802
     * and 189. The MoE: FP4 experts 48 + 3 scales, shared FP8 3 x 17, gate
     * 32, then tid2eid 3 x 1 x 8 (hashed) or the bias 8: 158 and 142, norms
     * 32 and hyper-connections 240 each: 430 and 414. Embedding, head, norm
     * 112, the head's hyper-connection 40: 1,987 B. */
    struct arch_dims a = {.family = ARCH_DEEPSEEK_V4, .layers = 2, .hidden = 8, .heads = 2,
                          .kv_heads = 1, .head_dim = 4, .rope_dim = 2, .q_lora_rank = 4,
                          .o_groups = 1, .o_lora_rank = 4, .experts = 2, .experts_per_token = 1,
                          .moe_intermediate = 2, .shared_experts = 1, .vocab = 3, .hc_mult = 1,
                          .hash_layers = 1, .index_n_heads = 1, .index_head_dim = 2,
                          .csa_layers = 1, .fp4_experts = true};
    uint64_t total = 0, active = 0, bytes = 0;
    assert_true(params_count(&a, &total, &active));
    assert_int_equal(total, 1142);
    assert_int_equal(active, 1046);
    assert_true(params_deepseek_v4_bytes(&a, &bytes));
    assert_int_equal(bytes, 1987);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flash_rows),          cmocka_unit_test(flash_per_user_tp1_and_tp8),
        cmocka_unit_test(pro_rows_and_user),   cmocka_unit_test(plan_users_and_rows),
        cmocka_unit_test(pipeline_stages),     cmocka_unit_test(engines_refused_by_name),
        cmocka_unit_test(no_compressed_draft), cmocka_unit_test(impossible_shapes),
        cmocka_unit_test(tiny_params_and_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
