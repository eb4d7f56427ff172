/* Gemma 4 12B's cache, worked by hand from its preset (presets/models/
 * gemma-4-12b.json; doc/MODEL.md "Gemma 4: global layers of their own"): 48
 * layers, 40 windowed (1,024 tokens, 8 KV heads of 256) and 8 global (one KV
 * head of 512, the key its value); and the vision towers of the 31B and
 * 26B-A4B (transformers' Gemma4VisionModel as the checkpoints store it). */
#include "catalog_fixture.h"

#include "core/kvcost.h"
#include "core/params.h"
#include "core/plan.h"

static struct plan_result r;

/* One layer, one token. Windowed: 2 x 8 x 256 x 2 B = 8,192 B at TP 1, one
 * head a GPU at TP 8: 1,024 B. Global, K=V kept once (the generic rule): 1 x
 * 1 x 512 x 2 B = 1,024 B, the one head replicated at TP 8: 1,024 B. */
static void one_layer(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "gemma-4-12b");
    struct kv_cost k;
    assert_true(kvcost_compute(&s, 1, &k));
    assert_int_equal(k.bytes_per_layer, 8192);
    assert_int_equal(k.global_bytes_per_layer, 1024);
    assert_int_equal(k.wide_layers, 8);
    assert_int_equal(k.windowed_layers, 40);
    assert_true(kvcost_compute(&s, 8, &k));
    assert_int_equal(k.bytes_per_layer, 1024);
    assert_int_equal(k.global_bytes_per_layer, 1024);
}

/* One user at 131,072 tokens under the generic rule: TP 1, 131,072 x 8 x
 * 1,024 + 1,024 x 40 x 8,192 = 1,073,741,824 + 335,544,320 = 1,409,286,144 B;
 * TP 8, 1,073,741,824 + 1,024 x 40 x 1,024 = 1,115,684,864 B. */
static void one_user(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = base("h100-sxm", "gemma-4-12b");
    s.context_tokens = 131072;
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.user_bytes_per_gpu, 1409286144ull);
    s.gpus = 8;
    s.tp = 8; /* given: the default serves the most as 8 x TP 1 */
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.user_bytes_per_gpu, 1115684864ull);
}

/* The vision towers of Gemma 4 31B and 26B-A4B (params_gemma4_vision): 27
 * layers of 1,152, 16 heads of 72, MLP 4,304, 16-pixel patches, 2 x 10,240
 * positions, standardize. input_proj 768 x 1,152 = 884,736; positions 2 x
 * 10,240 x 1,152 = 23,592,960; a layer 4 x 1,152^2 + 2 x 72 + 3 x 1,152 x 4,304
 * + 4 x 1,152 = 20,187,792, 27 of them 545,070,384; std_bias and std_scale
 * 2,304; the projection to the text: 1,152 x 5,376 = 6,193,152 (31B), 1,152 x
 * 2,816 = 3,244,032 (26B-A4B). 31B: 575,743,536, the 1,151,487,072 B in bf16
 * that its published tensors hold beyond the text and the assistant's. */
static void vision_towers(void **state)
{
    (void)state;
    struct vision_dims v = {.kind = VISION_GEMMA4, .hidden = 1152, .intermediate = 4304,
                            .layers = 27, .heads = 16, .kv_heads = 16, .head_dim = 72,
                            .patch = 16, .channels = 3, .positions = 10240, .standardize = true,
                            .text_hidden = 5376};
    uint64_t n = 0;
    assert_true(params_vision(&v, &n));
    assert_int_equal(n, 575743536ull);
    assert_int_equal(2 * n, 1151487072ull);
    v.text_hidden = 2816;
    assert_true(params_vision(&v, &n));
    assert_int_equal(n, 572794416ull);
    v.clipped = true; /* four clip bounds on each of a layer's seven linears */
    v.standardize = false;
    assert_true(params_vision(&v, &n));
    assert_int_equal(n, 572794416ull - 2304 + 27 * 28);
    struct scenario s = base("h100-sxm", "gemma-4-31b");
    assert_int_equal(s.model.params, 30697345340ull + 575743536ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_layer),
        cmocka_unit_test(one_user),
        cmocka_unit_test(vision_towers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
