/* Images in prompts (core/images.h), worked by hand: their tokens join each
 * user's context, and vLLM V1 holds an encoder cache outside the KV cache.
 *
 * vLLM: vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget
 * (encoder_cache_size = max(max_num_batched_tokens, the most tokens of one
 * item), in embeddings) and v1/worker/gpu_model_runner.py profile_run (the
 * dummy encoder outputs of that budget stay in encoder_cache during the
 * profiling pass, so the memory it measures counts them). */
#include "engine_fixture.h"

static void image_tokens_join_the_context_and_vllm_caches_their_embeddings(void **state)
{
    (void)state;
    /* A Llama 3.1 8B shape (hidden 4,096, 131,072 B of KV a token) on an
     * H100 under vLLM V1; 8,192 text tokens and 4 images of 576 tokens:
     *   context   = 8,192 + 4 x 576 = 8,192 + 2,304 = 10,496 tokens
     *   KV a user = 10,496 x 131,072 B = 1,375,731,712 B
     *   encoder cache = max(8,192 batched, 576) x 4,096 hidden x 2 B (bf16)
     *                 = 8,192 x 8,192 = 67,108,864 B (64 MiB) */
    struct scenario s = on(ENGINE_VLLM, "h100", 81559);
    s.images = 4;
    s.image_tokens = 576;
    struct plan_result r = run(&s);
    assert_int_equal(r.image_tokens, 2304);
    assert_int_equal(r.context_tokens, 10496);
    assert_int_equal(r.text_tokens, 8192);
    assert_int_equal(r.user_bytes_per_gpu, 1375731712ull);
    assert_int_equal(r.encoder_cache_tokens, 8192);
    assert_int_equal(r.encoder_cache_bytes_per_gpu, 67108864ull);
    const struct explain_row *ctx = explain_find(&rows, "context");
    const struct explain_row *enc = explain_find(&rows, "encoder_cache");
    assert_non_null(ctx);
    assert_non_null(enc);
    assert_true(explain_eval(ctx) == 10496.0L);
    assert_true(explain_eval(enc) == 67108864.0L);
    uint64_t seg[SEG_COUNT];
    plan_segments(&r, seg);
    assert_int_equal(seg[SEG_ENCODER], 67108864ull);
    /* vLLM's max-model-len must hold the images too */
    assert_non_null(strstr(r.engine.launch, "--max-model-len 10496"));
    /* the pool pays exactly the cache (the activation estimate does not
     * depend on the context) */
    struct scenario none = s;
    none.images = 0;
    none.image_tokens = 0;
    none.context_tokens = 10496;
    struct plan_result r0 = run(&none);
    assert_int_equal(r0.kv_pool_bytes_per_gpu - r.kv_pool_bytes_per_gpu, 67108864ull);
    assert_int_equal(r0.user_bytes_per_gpu, r.user_bytes_per_gpu);
}

static void one_image_larger_than_a_batch_sets_the_cache(void **state)
{
    (void)state;
    /* --max-num-batched-tokens 2,048 and one image of 4,096 tokens:
     * max(2,048, 4,096) x 4,096 x 2 B = 33,554,432 B (32 MiB) */
    struct scenario s = on(ENGINE_VLLM, "h100", 81559);
    s.image_tokens = 4096; /* --image-tokens alone: one image a request */
    s.engine.max_num_batched_tokens = 2048;
    struct plan_result r = run(&s);
    assert_int_equal(r.images, 1);
    assert_int_equal(r.encoder_cache_tokens, 4096);
    assert_int_equal(r.encoder_cache_bytes_per_gpu, 33554432ull);
}

static void other_engines_count_the_tokens_only(void **state)
{
    (void)state;
    /* SGLang and the generic rule: 8,192 + 2 x 256 = 8,704 tokens a user,
     * no encoder cache; vLLM V0 is not modelled for it either */
    enum engine_kind kinds[] = {ENGINE_SGLANG, ENGINE_GENERIC, ENGINE_TRTLLM, ENGINE_LLAMACPP};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct scenario s = on(kinds[i], "h100", 81559);
        s.model.image_tokens_per_image = 256; /* as Gemma 3's config gives it */
        s.images = 2;
        struct plan_result r = run(&s);
        assert_int_equal(r.context_tokens, 8704);
        assert_int_equal(r.encoder_cache_bytes_per_gpu, 0);
    }
}

static void images_need_a_size(void **state)
{
    (void)state;
    struct diag d = {0};
    enum scenario_field f;
    struct scenario s = on(ENGINE_VLLM, "h100", 81559);
    s.images = 2; /* a text model gives no tokens per image */
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_IMAGES);
    assert_non_null(strstr(d.message, "--images: "));
    assert_non_null(strstr(d.message, "give --image-tokens T"));
    s.image_tokens = 256;
    assert_true(scenario_validate(&s, NULL, &f, &d));
    s.images = 1001;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    /* without images nothing changes: no rows, no cache */
    s = on(ENGINE_VLLM, "h100", 81559);
    run(&s);
    assert_null(explain_find(&rows, "context"));
    assert_null(explain_find(&rows, "encoder_cache"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(image_tokens_join_the_context_and_vllm_caches_their_embeddings),
        cmocka_unit_test(one_image_larger_than_a_batch_sets_the_cache),
        cmocka_unit_test(other_engines_count_the_tokens_only),
        cmocka_unit_test(images_need_a_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
