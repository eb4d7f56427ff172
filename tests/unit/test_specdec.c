/* Speculative decoding in GPU memory, against figures computed by hand from
 * the presets' config.json numbers. Each test states its arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/kvcost.h"
#include "core/plan.h"
#include "io/catalog.h"

#include "catalog_fixture.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct plan_result r;

static void with_draft(struct scenario *s, const char *id)
{
    const struct catalog_model *m = catalog_find_model(&cat, id);
    assert_non_null(m);
    s->spec_method = SPEC_DRAFT;
    s->draft = m->spec;
}

static void plan(const struct scenario *s)
{
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
}

/* Llama 3.2 1B (config.json: 16 layers, 8 KV heads, head_dim 64) caches
 * 16 x 2 (K,V) x 8 x 64 x 2 B (bf16) = 32,768 B = 32 KiB per token. */
static void the_draft_preset_costs_32_kib_a_token(void **state)
{
    (void)state;
    const struct catalog_model *m = catalog_find_model(&cat, "llama-3.2-1b");
    assert_non_null(m);
    assert_int_equal(m->spec.layers, 16);
    assert_int_equal(m->spec.kv_heads, 8);
    assert_int_equal(m->spec.head_dim, 64);
    assert_int_equal(kvcost_model_bytes_per_token(&m->spec), 32768);
}

/* Llama 3.1 70B on 4 x H100 SXM (85,520,809,984 B each), TP 4, 8,192
 * tokens, 10% headroom, the generic rule:
 *   headroom  round(85,520,809,984 x 0.10) = 8,552,080,998; budget 76,968,728,986
 *   weights   70,553,706,496 x 2 B / 4 = 35,276,853,248 per GPU
 *   KV        80 layers x 2 x (8 / 4 = 2 heads) x 128 x 2 B = 81,920 B a token per GPU
 * without a draft: pool 41,691,875,738; a user 8,192 x 81,920 = 671,088,640;
 *   floor(62.13) = 62 users.
 * with Llama 3.2 1B drafting 4 tokens:
 *   draft     1,235,814,400 x 2 B = 2,471,628,800; / 4 = 617,907,200 per GPU
 *   draft KV  16 x 2 x 2 heads x 64 x 2 B = 8,192 B a token per GPU
 *   pool      41,691,875,738 - 617,907,200 = 41,073,968,538
 *   a user    (8,192 + 4) x (81,920 + 8,192) = 8,196 x 90,112 = 738,557,952
 *   floor(55.61) = 55 users. */
static void a_draft_takes_its_weights_and_kv_from_the_users(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.gpus = 4;
    plan(&s);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 41691875738ull);
    assert_int_equal(r.max_users, 62);
    uint64_t step_bytes = r.speed.step_bytes_per_gpu;

    with_draft(&s, "llama-3.2-1b");
    s.spec_tokens = 4;
    plan(&s);
    assert_int_equal(r.spec.weights_bytes, 2471628800ull);
    assert_int_equal(r.spec.weights_bytes_per_gpu, 617907200ull);
    assert_int_equal(r.spec.kv_bytes_per_token, 8192);
    assert_int_equal(r.cost.bytes_per_token, 90112);
    assert_int_equal(r.weights_bytes_per_gpu, 35276853248ull + 617907200ull);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 41073968538ull);
    assert_int_equal(r.user_bytes_per_gpu, 738557952ull);
    assert_int_equal(r.max_users, 55);
    /* the bar: the draft is its own segment, the model's weights unchanged */
    uint64_t seg[SEG_COUNT];
    plan_segments(&r, seg);
    assert_int_equal(seg[SEG_WEIGHTS], 35276853248ull);
    assert_int_equal(seg[SEG_DRAFT], 617907200ull);
    assert_string_equal(plan_segment_name(&r, SEG_DRAFT), "draft model");
    /* the rows the reports print */
    const struct explain_row *row = explain_find(&rows, "draft_weights");
    assert_non_null(row);
    assert_true(row->result.value == 617907200.0L);
    row = explain_find(&rows, "draft_kv_per_token");
    assert_non_null(row);
    assert_true(row->result.value == 8192.0L);
    row = explain_find(&rows, "spec_tokens");
    assert_non_null(row);
    assert_true(row->result.value == 8196.0L);
    /* the speed model reads the model's weights only: fewer users, less KV read
     * (55 x 738,557,952 < 62 x 671,088,640), so the step reads less */
    assert_true(r.speed.step_bytes_per_gpu < step_bytes);
    assert_false(r.warnings & WARN_DRAFT_VOCAB);
}

/* DeepSeek-V3's MTP layer (config.json num_nextn_predict_layers 1) on
 * 8 x H200, TP 8:
 *   params    MLA attention 187,107,328 + 2 norms 14,336 + MoE (256 x 3 x
 *             7168 x 2048 + shared 3 x 7168 x 2048 + gate 256 x 7168 + 256
 *             bias = 11,320,164,608) + eh_proj 2 x 7168 x 7168 = 102,760,448
 *             + 3 norms 21,504 = 11,610,068,224
 *   weights   x 1 B (fp8) = 11,610,068,224; / 8 = 1,451,258,528 per GPU
 *   KV        one more latent layer: (512 + 64) x 2 B = 1,152 B a token,
 *             61 + 1 layers x 1,152 = 71,424 B a token per GPU */
static void deepseek_v3_mtp_counts_one_more_layer(void **state)
{
    (void)state;
    struct scenario s = base("h200", "deepseek-v3");
    assert_int_equal(s.model.nextn_layers, 1);
    assert_int_equal(s.model.mtp_params, 11610068224ull);
    s.gpus = 8;
    plan(&s);
    uint64_t users = r.max_users, weights = r.weights_bytes_per_gpu;
    s.spec_method = SPEC_MTP;
    plan(&s);
    assert_int_equal(r.spec.tokens, 1); /* n_predict = num_nextn_predict_layers */
    assert_int_equal(r.spec.weights_bytes, 11610068224ull);
    assert_int_equal(r.spec.weights_bytes_per_gpu, 1451258528ull);
    assert_int_equal(r.weights_bytes_per_gpu, weights + 1451258528ull);
    assert_int_equal(r.spec.kv_bytes_per_token, 1152);
    assert_int_equal(r.cost.bytes_per_token, 71424);
    assert_true(r.max_users < users);
    assert_string_equal(plan_segment_name(&r, SEG_DRAFT), "MTP head");
}

/* SGLang (server_args.py _handle_gpu_memory_settings) on one H100 (81,559
 * MiB): reserve 512 + 8,192 x 1.5 + 256 x 2 + 1 x 1 / 8 x 1,024 = 13,440 MiB,
 * fraction round((81,559 - 13,440) / 81,559, 3) = 0.835; a STANDALONE draft
 * adds 6,144 MiB: (81,559 - 19,584) / 81,559 = 0.760. */
static void sglang_reserves_more_for_a_draft(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_SGLANG;
    plan(&s);
    assert_true(r.engine.fraction == 0.835);
    with_draft(&s, "llama-3.2-1b");
    plan(&s);
    assert_true(r.engine.fraction == 0.760);
}

/* llama.cpp (server.cpp: a draft context per slot of the slot's cells), one
 * slot of 8,192 f16 cells: Llama 3.1 8B 32 layers x 8,192 x (2,048 K + 2,048 V)
 * = 1,073,741,824 B, the draft 8,192 x 32,768 = 268,435,456 B: 1,342,177,280 B. */
static void llama_cpp_gives_each_slot_a_draft_context(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.engine.parallel = 1;
    with_draft(&s, "llama-3.2-1b");
    plan(&s);
    assert_int_equal(r.spec.tokens, 16); /* common.h: --draft-max 16 */
    assert_int_equal(r.engine.kv_cache_bytes, 1342177280ull);
    assert_non_null(strstr(r.engine.launch, "-md llama-3.2-1b.gguf --draft-max 16"));
}

/* Qwen2.5 0.5B (vocab 151,936) cannot draft for Llama (128,256). */
static void a_draft_with_another_vocabulary_is_warned(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    with_draft(&s, "qwen2.5-0.5b");
    plan(&s);
    assert_true(r.warnings & WARN_DRAFT_VOCAB);
}

static void bad_speculative_knobs_name_their_option(void **state)
{
    (void)state;
    struct diag d = {0};
    enum scenario_field f;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.spec_tokens = 3; /* without a method */
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_SPEC_TOKENS);
    with_draft(&s, "llama-3.2-1b");
    s.spec_tokens = SPEC_TOKENS_MAX + 1;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_SPEC_TOKENS);
    assert_non_null(strstr(d.message, "--num-speculative-tokens"));
    s = base("h100-sxm", "llama-3.1-8b");
    s.spec_method = SPEC_MTP; /* Llama ships no MTP layer */
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_SPEC_METHOD);
    assert_non_null(strstr(d.message, "--speculative-method"));
}

/* Without a draft nothing changes: no rows, no segment. */
static void no_draft_no_rows(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    plan(&s);
    assert_null(explain_find(&rows, "draft_weights"));
    assert_null(explain_find(&rows, "spec_tokens"));
    uint64_t seg[SEG_COUNT];
    plan_segments(&r, seg);
    assert_int_equal(seg[SEG_DRAFT], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_draft_preset_costs_32_kib_a_token),
        cmocka_unit_test(a_draft_takes_its_weights_and_kv_from_the_users),
        cmocka_unit_test(deepseek_v3_mtp_counts_one_more_layer),
        cmocka_unit_test(sglang_reserves_more_for_a_draft),
        cmocka_unit_test(llama_cpp_gives_each_slot_a_draft_context),
        cmocka_unit_test(a_draft_with_another_vocabulary_is_warned),
        cmocka_unit_test(bad_speculative_knobs_name_their_option),
        cmocka_unit_test(no_draft_no_rows),
    };
    return cmocka_run_group_tests_name("specdec", tests, setup, teardown);
}
