/* The capacity arithmetic against figures computed by hand, the seed
 * article's among them. Each test states its arithmetic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/params.h"
#include "core/plan.h"
#include "core/explain.h"
#include "model_fixture.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct gpu_spec gpu80(void)
{
    struct gpu_spec g = {0};
    strcpy(g.id, "test-80");
    g.memory_bytes = 80000000000ull; /* the article's "80 GB" card */
    g.bandwidth_bytes_per_s = 2000000000000ull;
    g.price_usd_per_hour = 2.0;
    g.fp8 = true;
    return g;
}

static struct plan_result plan(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    bool ok = plan_compute(s, &rows, NULL, &r, &d);
    if (!ok)
        fail_msg("plan_compute failed: %s", d.message);
    return r;
}

static struct scenario seed_scenario(void)
{
    /* Article: 80 GB card, 14 GB of weights, Llama 2 7B, 4,000 tokens. */
    struct gpu_spec g = gpu80();
    struct model_spec m = llama2_7b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 4000;
    s.has_weights = true;
    s.weights_bytes = 14000000000ull;
    s.headroom_percent = 0;
    return s;
}

static void llama2_7b_costs_half_a_mebibyte_per_token(void **state)
{
    (void)state;
    /* 2 x 32 layers x 32 heads x 128 dims x 2 B = 524,288 B */
    struct scenario s = seed_scenario();
    struct plan_result r = plan(&s);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 524288);
    /* 4,000 tokens x 524,288 B = 2,097,152,000 B, the article's "2 GB" */
    assert_int_equal(r.user_bytes_per_gpu, 2097152000ull);
}

static void seed_article_fits_31_users_with_no_headroom(void **state)
{
    (void)state;
    /* (80 GB - 14 GB) / 2,097,152,000 B = 31.47 -> 31 (the article rounds to 33) */
    struct scenario s = seed_scenario();
    struct plan_result r = plan(&s);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 66000000000ull);
    assert_int_equal(r.max_users, 31);
}

static void seed_article_fits_27_users_with_ten_percent_headroom(void **state)
{
    (void)state;
    /* 80 GB x 0.9 - 14 GB = 58 GB; 58e9 / 2,097,152,000 = 27.66 -> 27 */
    struct scenario s = seed_scenario();
    s.headroom_percent = 10;
    struct plan_result r = plan(&s);
    assert_int_equal(r.reserved_bytes_per_gpu, 8000000000ull);
    assert_int_equal(r.max_users, 27);
}

static void shared_prefix_of_2000_tokens_doubles_users_to_61(void **state)
{
    (void)state;
    /* prefix 2,000 x 524,288 = 1,048,576,000 B once; each user 2,000 x 524,288
     * = 1,048,576,000 B; (66e9 - 1,048,576,000) / 1,048,576,000 = 61.94 -> 61 */
    struct scenario s = seed_scenario();
    s.prefix_tokens = 2000;
    struct plan_result r = plan(&s);
    assert_int_equal(r.prefix_bytes_per_gpu, 1048576000ull);
    assert_int_equal(r.user_bytes_per_gpu, 1048576000ull);
    assert_int_equal(r.max_users, 61);
}

static void users_halve_when_context_doubles(void **state)
{
    (void)state;
    /* 66e9 / (8,000 x 524,288) = 15.7 -> 15, about half of 31 */
    struct scenario s = seed_scenario();
    s.context_tokens = 8000;
    struct plan_result r = plan(&s);
    assert_int_equal(r.max_users, 15);
}

static void eight_kv_heads_cut_llama2_to_a_quarter(void **state)
{
    (void)state;
    /* 2 x 32 x 8 x 128 x 2 = 131,072 B */
    struct scenario s = seed_scenario();
    s.kv_heads = 8;
    assert_int_equal(plan(&s).cost.bytes_per_token, 131072);
}

static void fp8_cache_halves_llama2(void **state)
{
    (void)state;
    /* 2 x 32 x 32 x 128 x 1 = 262,144 B */
    struct scenario s = seed_scenario();
    s.kv_dtype = DTYPE_FP8;
    assert_int_equal(plan(&s).cost.bytes_per_token, 262144);
}

static void llama3_8b_full_window_is_16_gib(void **state)
{
    (void)state;
    /* 131,072 B x 131,072 tokens = 17,179,869,184 B (16 GiB) for one user */
    struct gpu_spec g = gpu80();
    struct model_spec m = llama3_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 131072;
    struct plan_result r = plan(&s);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 131072);
    assert_int_equal(r.user_bytes_per_gpu, 17179869184ull);
    assert_true(r.warnings & WARN_CONTEXT_BEYOND_MODEL);
}

static void q8_0_cache_carries_its_scales(void **state)
{
    (void)state;
    /* row = 8 heads x 128 = 1,024 values x 34/32 = 1,088 B; 2 x 32 x 1,088 = 69,632 */
    struct gpu_spec g = gpu80();
    struct model_spec m = llama3_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.kv_dtype = DTYPE_Q8_0;
    assert_int_equal(plan(&s).cost.bytes_per_token, 69632);
    s.kv_dtype = DTYPE_Q4_0; /* 1,024 x 18/32 = 576; 2 x 32 x 576 = 36,864 */
    assert_int_equal(plan(&s).cost.bytes_per_token, 36864);
}

static void deepseek_v3_latent_is_replicated_on_every_gpu(void **state)
{
    (void)state;
    /* 61 x (512 + 64) x 2 B (bf16 compute) = 70,272 B per GPU; x 8 = 562,176 */
    struct gpu_spec g = gpu80();
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    struct plan_result r = plan(&s);
    assert_int_equal(r.kv_dtype, DTYPE_BF16);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 70272);
    s.gpus = 8;
    r = plan(&s);
    assert_int_equal(r.cost.bytes_per_token, 70272);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 562176);
    assert_true(r.warnings & WARN_MLA_REPLICATED);
}

/* DeepSeek-V3.2's sparse attention keeps a lightning-indexer key beside the
 * latent of every token in every layer: 128 FP8 values and one fp32 scale per
 * 128 = 132 B, whatever the cache precision (vLLM models/deepseek_v2.py,
 * Indexer and DeepseekV32IndexerCache; SGLang mem_cache/memory_pool.py,
 * NSATokenToKVPool). An FP8 latent takes FlashMLA's sparse layout, 512 FP8 +
 * 4 x 4 B scales + 64 bf16 rope = 656 B (vLLM
 * v1/attention/backends/mla/flashmla_sparse.py, "fp8_ds_mla"). */
static void deepseek_v32_indexer_keys_sit_beside_the_latent(void **state)
{
    (void)state;
    struct gpu_spec g = gpu80();
    struct model_spec m = deepseek_v32();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    /* bf16: (512 + 64) x 2 + 132 = 1,284 B a layer; x 61 = 78,324 B */
    struct plan_result r = plan(&s);
    assert_int_equal(r.cost.bytes_per_layer, 1284);
    assert_int_equal(r.cost.index_bytes, 132);
    assert_int_equal(r.cost.bytes_per_token, 78324);
    /* fp8: 512 + 16 + 128 + 132 = 788 B a layer; x 61 = 48,068 B (not 61 x 708) */
    s.kv_dtype = DTYPE_FP8;
    r = plan(&s);
    assert_int_equal(r.cost.latent_bytes, 656);
    assert_int_equal(r.cost.bytes_per_layer, 788);
    assert_int_equal(r.cost.bytes_per_token, 48068);
    /* the dense model at fp8 keeps 576 B: no indexer, no block scales */
    struct model_spec v3 = deepseek_v3();
    scenario_default(&s, &g, &v3);
    s.kv_dtype = DTYPE_FP8;
    assert_int_equal(plan(&s).cost.bytes_per_layer, 576);
    /* llama.cpp keeps the indexer's keys in a second cache of one head in the
     * K type (src/llama-kv-cache-dsa.cpp): f16 1,152 + 256 = 1,408 B a layer */
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_LLAMACPP;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 4096;
    r = plan(&s);
    assert_int_equal(r.cost.bytes_per_layer, 1408);
    assert_int_equal(r.cost.index_bytes, 256);
}

/* Decoding reads every indexer key and only the top 2,048 latents: at 131,072
 * tokens and bf16 a user reads (132 + 1,152 x 2,048 / 131,072) / 1,284 =
 * 150/1,284 = 0.1168 of its cache. */
static void deepseek_v32_decode_reads_the_top_k(void **state)
{
    (void)state;
    struct gpu_spec g = gpu80();
    g.bandwidth_bytes_per_s = 4800000000000ull;
    struct model_spec m = deepseek_v32();
    /* read as a dense model, so that a step reads every weight and the rest
     * of what it reads is cache */
    m.active_params = 0;
    m.experts = m.experts_per_token = 0;
    m.expert_params = 0;
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    s.context_tokens = 131072;
    s.concurrency = 1;
    struct plan_result r = plan(&s);
    double users_kv = (double)r.user_bytes_avg_per_gpu;
    /* less the one token it writes, in every layer */
    double read = (double)r.speed.step_bytes_per_gpu - (double)r.weights_bytes_per_gpu -
                  (double)r.cost.bytes_per_token;
    assert_true(fabs(read / users_kv - 150.0 / 1284.0) < 1e-6);
}

/* vLLM and SGLang keep MLA's down-projections to the query and KV latents
 * whole on every TP rank (models/deepseek_v2.py: q_a_proj and
 * kv_a_proj_with_mqa are ReplicatedLinear): 61 x (7,168 x (1,536 + 512 + 64)
 * + 1,536 + 512 norm weights) = 61 x 15,140,864 = 923,592,704 parameters, in
 * fp8 as many bytes. At TP 8 a GPU holds ceil((671,026,419,200 -
 * 923,592,704) / 8) + 923,592,704 = 83,762,853,312 + 923,592,704 =
 * 84,686,446,016 B, not 671,026,419,200 / 8 = 83,878,302,400. */
static void mla_down_projections_are_whole_on_every_rank(void **state)
{
    (void)state;
    struct gpu_spec g = gpu80();
    struct model_spec m = deepseek_v3();
    m.hidden_size = 7168;
    m.q_lora_rank = 1536;
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    struct plan_result r = plan(&s);
    assert_int_equal(r.replicated_bytes, 923592704ull);
    assert_int_equal(r.weights_bytes_per_gpu, 84686446016ull);
    /* one GPU: nothing to replicate */
    s.gpus = 1;
    r = plan(&s);
    assert_int_equal(r.replicated_bytes, 0);
    assert_int_equal(r.weights_bytes_per_gpu, 671026419200ull);
    /* llama.cpp splits layers, not tensors */
    s.gpus = 8;
    s.engine.kind = ENGINE_LLAMACPP;
    s.weight_dtype = DTYPE_Q4_K_M;
    r = plan(&s);
    assert_int_equal(r.replicated_bytes, 0);
}

static void kv_heads_replicate_when_gpus_exceed_them(void **state)
{
    (void)state;
    /* 8 GPUs: 2 x 80 x (8/8=1) x 128 x 2 = 40,960 per GPU;
     * 16 GPUs: still 1 head each = 40,960 per GPU, 655,360 summed */
    struct gpu_spec g = gpu80();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 8;
    struct plan_result r = plan(&s);
    assert_int_equal(r.cost.bytes_per_token, 40960);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 327680);
    assert_false(r.warnings & WARN_KV_HEADS_REPLICATED);
    s.gpus = 16;
    r = plan(&s);
    assert_int_equal(r.cost.bytes_per_token, 40960);
    assert_int_equal((r.cost.bytes_per_token * r.tp), 655360);
    assert_true(r.warnings & WARN_KV_HEADS_REPLICATED);
}

static void gemma3_windows_hold_only_1024_tokens(void **state)
{
    (void)state;
    /* per layer 2 x 16 x 128 x 2 = 8,192 B; 10 global x 131,072 x 8,192
     * = 10,737,418,240 + 52 windowed x 1,024 x 8,192 = 436,207,616
     * -> 11,173,625,856 B; all 62 layers full: 62 x 131,072 x 8,192 = 66,571,993,088 */
    struct gpu_spec g = gpu80();
    struct model_spec m = gemma3_27b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 131072;
    assert_int_equal(plan(&s).user_bytes_per_gpu, 11173625856ull);
    s.full_attention = true;
    assert_int_equal(plan(&s).user_bytes_per_gpu, 66571993088ull);
}

static void prefix_inside_a_window_is_shared_only_while_visible(void **state)
{
    (void)state;
    /* Gemma 3 27B, context 1,000, prefix 600 (< window 1,024): windowed layers
     * hold 400 private tokens each; at context 2,000 the window [976, 2000)
     * no longer sees the prefix, so all 1,024 are private. */
    struct gpu_spec g = gpu80();
    struct model_spec m = gemma3_27b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 1000;
    s.prefix_tokens = 600;
    struct plan_result r = plan(&s);
    struct token_split t = kvcost_split(&r.cost, s.context_tokens, s.prefix_tokens);
    assert_int_equal(t.user_windowed, 400);
    assert_int_equal(t.user_global, 400);
    assert_int_equal(t.prefix_windowed, 600);
    s.context_tokens = 2000;
    r = plan(&s);
    t = kvcost_split(&r.cost, s.context_tokens, s.prefix_tokens);
    assert_int_equal(t.user_windowed, 1024);
    assert_int_equal(t.user_global, 1400);
}

static void paging_rounds_each_user_up_to_whole_blocks(void **state)
{
    (void)state;
    /* avg 1,000 tokens -> 63 blocks of 16 = 1,008 tokens x 524,288 = 528,482,304 B;
     * (66e9) / 528,482,304 = 124.88 -> 124 users; the 31 reserving 4,000 waste
     * 31 x 3,000 x 524,288 = 48,758,784,000 B */
    struct scenario s = seed_scenario();
    s.avg_context_tokens = 1000;
    struct plan_result r = plan(&s);
    assert_int_equal(r.user_bytes_paged_per_gpu, 528482304ull);
    assert_int_equal(r.max_users_paged, 124);
    assert_int_equal(r.max_users, 31);
    assert_int_equal(r.reservation_waste_bytes_per_gpu, 48758784000ull);
}

static void weights_too_large_report_the_shortfall(void **state)
{
    (void)state;
    /* Llama 3.1 70B bf16: 70,553,706,496 x 2 = 141,107,412,992 B on one
     * 80e9 B card with 10% headroom (72e9 budget): short by 69,107,412,992 B */
    struct gpu_spec g = gpu80();
    struct model_spec m = llama31_70b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    struct plan_result r = plan(&s);
    assert_false(r.fits);
    assert_int_equal(r.max_users, 0);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 0);
    assert_int_equal(r.shortfall_bytes_per_gpu, 69107412992ull);
    assert_true(r.warnings & WARN_WEIGHTS_DO_NOT_FIT);
}

static void segments_add_up_to_the_memory(void **state)
{
    (void)state;
    struct scenario s = seed_scenario();
    s.prefix_tokens = 100;
    s.headroom_percent = 7.5;
    struct plan_result r = plan(&s);
    uint64_t seg[SEG_COUNT], sum = 0;
    plan_segments(&r, seg);
    for (int i = 0; i < SEG_COUNT; i++)
        sum += seg[i];
    assert_int_equal(sum, r.memory_bytes_per_gpu);
    assert_true(seg[SEG_SPARE] < r.user_bytes_per_gpu);
}

static void cost_and_decode_bound_follow_the_users(void **state)
{
    (void)state;
    /* $2/h / 31 users = $0.0645; step reads 14e9 + 31 x 2,097,152,000 B and
     * writes 31 x 524,288 B (each user's new token) = 79,027,964,928 B; at 70%
     * of 2 TB/s 56.449 ms, and 0.9 ms each step (SPEED_STEP_OVERHEAD_S):
     * 1 / 57.349 ms = 17.437 tok/s
     * (the GPU of this test has no compute figure: memory alone) */
    struct scenario s = seed_scenario();
    struct plan_result r = plan(&s);
    assert_true(r.cost_per_user_hour > 0.06451 && r.cost_per_user_hour < 0.06452);
    assert_int_equal(r.decode_step_bytes_per_gpu, 79027964928ull);
    assert_true(r.decode_tokens_per_s_per_user > 17.43 && r.decode_tokens_per_s_per_user < 17.44);
}

static void invalid_scenarios_name_the_option(void **state)
{
    (void)state;
    struct plan_result r;
    struct diag d = {0};
    struct scenario s = seed_scenario();
    s.prefix_tokens = 4000;
    assert_false(plan_compute(&s, &rows, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--prefix"));

    diag_clear(&d);
    s = seed_scenario();
    s.kv_heads = 7;
    assert_false(plan_compute(&s, &rows, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--kv-heads: 7 does not divide"));

    diag_clear(&d);
    s = seed_scenario();
    s.headroom_percent = 100;
    assert_false(plan_compute(&s, &rows, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--headroom"));

    diag_clear(&d);
    s = seed_scenario();
    s.gpus = 0;
    assert_false(plan_compute(&s, &rows, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--gpus"));
}

static void huge_scenarios_never_overflow(void **state)
{
    (void)state;
    /* 65,536 GPUs x 2^40 tokens of Llama 2: each GPU keeps one replicated head,
     * 2 x 32 layers x 1 x 128 x 2 B = 16,384 B per token, 2^54 B per user: exact,
     * never wrapped into a small, wrong user count (and past 2^64, refused). */
    struct scenario s = seed_scenario();
    s.gpus = 65536;
    s.context_tokens = TOKENS_MAX;
    s.has_weights = false;
    struct plan_result r;
    struct diag d = {0};
    bool ok = plan_compute(&s, &rows, NULL, &r, &d);
    if (ok)
        assert_int_equal(r.user_bytes_per_gpu, 16384ull << 40);
    else
        assert_non_null(strstr(d.message, "64 bits"));
}

static void explain_shows_every_term_with_its_value(void **state)
{
    (void)state;
    struct scenario s = seed_scenario();
    /* in GB the sizes in brackets are in GB units too, not KiB */
    s.units = UNITS_GB;
    plan(&s);
    const struct explain_row *l = explain_find(&rows, "kv_per_layer");
    assert_non_null(l);
    assert_string_equal(l->formula, "2 (K,V) x 32 KV heads x 128 head_dim x 2 B (fp16)");
    assert_string_equal(l->result.text, "16,384 B (16.38 KB)");
    l = explain_find(&rows, "kv_per_token");
    assert_non_null(l);
    assert_string_equal(l->formula, "32 layers x 16,384 B (16.38 KB)");
    assert_string_equal(l->result.text, "524,288 B (524.29 KB)");
    l = explain_find(&rows, "users");
    assert_non_null(l);
    /* (80 GB - 14 GB) / (4,000 x 524,288 B = 2.097 GB) = 31.47: the sizes shown to the
     * decimals the quotient needs (2.10 GB would give 31.43) */
    assert_string_equal(l->formula, "floor(66.000 GB pool / 2.097 GB per user) = floor(31.47)");
    assert_string_equal(l->result.text, "31");
}

static void vision_towers_count_as_their_checkpoints_store_them(void **state)
{
    (void)state;
    /* transformers models/siglip/modeling_siglip.py and models/llama4/modeling_llama4.py
     * (the tensors each vision model defines). Gemma 3 27B: SigLIP 1,152 wide, 27
     * layers of 15,239,504 (q/k/v/o with biases 5,313,024 + fc1/fc2 9,921,872 + two
     * LayerNorms 4,608), patches 3 x 14 x 14 x 1,152 + 1,152, 64 x 64 positions,
     * post-norm, then the projector norm 1,152 and 1,152 x 5,376: 423,060,336, the
     * gap between the 27.43 B the checkpoint holds and the text decoder's 27.01 B.
     * Llama 4 Scout: 34 layers 1,408 wide, class token and 577 positions, the
     * pixel-shuffle MLP 5,632 x 4,096 + 4,096 x 4,096 and projector 4,096 x 5,120:
     * 871,932,416. */
    struct vision_dims g = {VISION_SIGLIP, 1152, 4304, 27, 14,    896, 3,     0, 0,
                            5376,          0,    0,    0,  0,     0,   0,     false, false};
    uint64_t n = 0;
    assert_true(params_vision(&g, &n));
    assert_int_equal(n, 423060336ull);
    struct vision_dims l = {VISION_LLAMA4, 1408, 5632, 34, 14,    336, 3,     5632, 4096,
                            5120,          0,    0,    0,  0,     0,   0,     false, false};
    assert_true(params_vision(&l, &n));
    assert_int_equal(n, 871932416ull);
    g.patch = 0;
    assert_false(params_vision(&g, &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama2_7b_costs_half_a_mebibyte_per_token),
        cmocka_unit_test(vision_towers_count_as_their_checkpoints_store_them),
        cmocka_unit_test(seed_article_fits_31_users_with_no_headroom),
        cmocka_unit_test(seed_article_fits_27_users_with_ten_percent_headroom),
        cmocka_unit_test(shared_prefix_of_2000_tokens_doubles_users_to_61),
        cmocka_unit_test(users_halve_when_context_doubles),
        cmocka_unit_test(eight_kv_heads_cut_llama2_to_a_quarter),
        cmocka_unit_test(fp8_cache_halves_llama2),
        cmocka_unit_test(llama3_8b_full_window_is_16_gib),
        cmocka_unit_test(q8_0_cache_carries_its_scales),
        cmocka_unit_test(deepseek_v3_latent_is_replicated_on_every_gpu),
        cmocka_unit_test(deepseek_v32_indexer_keys_sit_beside_the_latent),
        cmocka_unit_test(deepseek_v32_decode_reads_the_top_k),
        cmocka_unit_test(mla_down_projections_are_whole_on_every_rank),
        cmocka_unit_test(kv_heads_replicate_when_gpus_exceed_them),
        cmocka_unit_test(gemma3_windows_hold_only_1024_tokens),
        cmocka_unit_test(prefix_inside_a_window_is_shared_only_while_visible),
        cmocka_unit_test(paging_rounds_each_user_up_to_whole_blocks),
        cmocka_unit_test(weights_too_large_report_the_shortfall),
        cmocka_unit_test(segments_add_up_to_the_memory),
        cmocka_unit_test(cost_and_decode_bound_follow_the_users),
        cmocka_unit_test(invalid_scenarios_name_the_option),
        cmocka_unit_test(huge_scenarios_never_overflow),
        cmocka_unit_test(explain_shows_every_term_with_its_value),
    };
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
