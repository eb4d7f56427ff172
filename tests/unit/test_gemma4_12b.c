/* Gemma 4 12B's cache, worked by hand from its preset (presets/models/
 * gemma-4-12b.json; doc/MODEL.md "Gemma 4: global layers of their own"): 48
 * layers, 40 windowed (1,024 tokens, 8 KV heads of 256) and 8 global (one KV
 * head of 512, the key its value). */
#include "catalog_fixture.h"

#include "core/kvcost.h"
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
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.user_bytes_per_gpu, 1115684864ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_layer),
        cmocka_unit_test(one_user),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
