/* vLLM's "GPU KV cache size: N tokens" by release, worked by hand for two
 * windowed models, each with its KV memory given (--kv-memory) so the blocks
 * follow from the pool alone:
 *
 *  - up to 0.20 (rule vllm@0.20, from 0.18; the same in vllm@0.17, vllm@0.13):
 *    v1/core/kv_cache_utils.py _report_kv_cache_config, as in 0.19.0
 *    (vllm#40691) and 0.20.0 (vllm#43308):
 *        num_tokens = num_blocks // len(kv_cache_groups) * min_block_size
 *  - from 0.21.0 (rule vllm@0.21, the default): kv_cache_utils.py
 *    report_kv_cache_config:
 *        num_tokens = int(max_concurrency * max_model_len)
 *    with max_concurrency = num_blocks / the blocks of one max_model_len
 *    request over the groups (get_max_concurrency_for_kv_cache_config).
 *    vllm#43308 saw the change: Gemma 4 31B on an A100 80GB, ~50 GB of KV,
 *    "~55k tokens" under v0.20.0 and "~525k" under v0.21.0.
 *
 * gpt-oss-120b on one H200, 40 GiB of KV, 131,072 tokens, 8,192 batched:
 * 36 layers (18 sliding of 128, 18 full), 8 KV heads x 64 x 2 (K, V) x 2 B
 * = 2,048 B a layer a token; one page size, so groups of 18 layers: 1 full
 * and 1 sliding group. A block: 16 x 2,048 x 18 = 589,824 B; blocks
 * 42,949,672,960 // 589,824 = 72,817.
 *   0.20: 72,817 // 2 x 16 = 36,408 x 16 = 582,528 tokens.
 *   0.21: a request holds ceil(131,072 / 16) = 8,192 full blocks and
 *         ceil(min(128 - 1 + 8,192, 131,072) / 16) + 1 = 520 + 1 = 521
 *         sliding ones (SlidingWindowSpec.max_memory_usage_bytes): 8,713;
 *         72,817 / 8,713 = 8.3572822... x 131,072 = 1,095,405 tokens (1.88x).
 *
 * Gemma 3 27B on one H100, 20 GiB of KV, 131,072 tokens, 8,192 batched:
 * 62 layers (52 sliding of 1,024, 10 global), 16 KV heads x 128 x 2 x 2 B =
 * 8,192 B a layer a token; groups of 10 layers (the fewer type's count):
 * 1 full and ceil(52 / 10) = 6 sliding groups, 7 in all. A block: 16 x
 * 8,192 x 10 = 1,310,720 B; blocks 21,474,836,480 // 1,310,720 = 16,384.
 *   0.20: 16,384 // 7 x 16 = 2,340 x 16 = 37,440 tokens.
 *   0.21: 8,192 full blocks + 6 x (ceil((1,024 - 1 + 8,192) / 16) + 1 = 577)
 *         = 11,654; 16,384 / 11,654 = 1.4058692... x 131,072 = 184,270
 *         tokens (4.92x). */
#include "engine_fixture.h"

#include "core/engine_desc.h"
#include "core/explain.h"
#include "core/policy.h"
#include "core/units.h"

static struct scenario windowed(const char *model, const char *gpu, uint64_t kv_gib)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = preset_model(model);
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 131072;
    s.engine.kv_memory_bytes = kv_gib << 30;
    return s;
}

static const char *logged_size(const struct plan_result *r)
{
    for (int i = 0; i < r->engine.log_lines; i++)
        if (strncmp(r->engine.log[i], "GPU KV cache size", 17) == 0)
            return r->engine.log[i];
    fail_msg("no GPU KV cache size line");
    return NULL;
}

static void rule_of(struct scenario *s, const char *release)
{
    enum engine_rule rule;
    struct diag d = {0};
    if (!engine_release_rule(&engine_vllm, release, &rule, NULL, 0, &d))
        fail_msg("%s", d.message);
    s->engine.rule = rule;
}

static void gpt_oss_120b_by_release(void **state)
{
    (void)state;
    struct scenario s = windowed("gpt-oss-120b", "h200", 40);
    struct plan_result r = run(&s); /* the default: the newest rule */
    assert_int_equal(r.engine.units, 72817);
    assert_int_equal(r.engine.max_num_batched_tokens, 8192);
    assert_string_equal(logged_size(&r), "GPU KV cache size: 1,095,405 tokens");
    assert_string_equal(r.engine.log[2], "Maximum concurrency for 131,072 tokens per request: 8.36x");
    rule_of(&s, "0.21.0");
    assert_int_equal(s.engine.rule, RULE_CURRENT);
    r = run(&s);
    assert_string_equal(logged_size(&r), "GPU KV cache size: 1,095,405 tokens");
    static const char *const older[] = {"0.20.1", "0.20.0", "0.19.0", "0.18.0", "0.15.1", "0.11.0"};
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        rule_of(&s, older[i]);
        r = run(&s);
        assert_int_equal(r.engine.units, 72817);
        assert_string_equal(logged_size(&r), "GPU KV cache size: 582,528 tokens");
        /* the concurrency line is the same function's in both */
        assert_string_equal(r.engine.log[2],
                            "Maximum concurrency for 131,072 tokens per request: 8.36x");
    }
}

static void gemma3_27b_by_release(void **state)
{
    (void)state;
    struct scenario s = windowed("gemma-3-27b", "h100-sxm", 20);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.units, 16384);
    assert_string_equal(logged_size(&r), "GPU KV cache size: 184,270 tokens");
    /* its own row, beside the tokens the pool holds (37,440) */
    const struct explain_row *row = explain_find(&rows, "vllm_logged_kv");
    assert_non_null(row);
    assert_true(row->result.value == 184270.0L);
    assert_int_equal(r.kv_tokens_per_replica, 37440);
    s.engine.rule = RULE_VLLM_0_20;
    r = run(&s);
    assert_int_equal(r.engine.units, 16384);
    assert_string_equal(logged_size(&r), "GPU KV cache size: 37,440 tokens");
    /* the same as the tokens held: no row of its own */
    assert_null(explain_find(&rows, "vllm_logged_kv"));
    /* At 32,768 tokens vLLM counts a user at ceil(32,768 / 16) = 2,048 full
     * blocks and 6 x 577 window blocks (each prefilling a batch of 8,192:
     * SlidingWindowSpec.max_memory_usage_bytes): 5,510, 16,384 / 5,510 =
     * 2.97x. Decoding, a window group holds ceil(1,024 / 16) + 1 = 65
     * (SlidingWindowManager.remove_skipped_blocks frees what falls behind the
     * window): 2,048 + 390 = 2,438 a user; one prompt prefilling holds 6 x
     * (577 - 65) = 3,072 more: floor((16,384 - 3,072) / 2,438) = 5 users. */
    s = windowed("gemma-3-27b", "h100-sxm", 20);
    s.context_tokens = 32768;
    r = run(&s);
    assert_int_equal(r.users_per_replica, 5);
    assert_int_equal(r.counted_users_per_replica, 2);
    row = explain_find(&rows, "units_per_user");
    assert_non_null(row);
    assert_true(row->result.value == 2438.0L);
    row = explain_find(&rows, "prefill_scratch");
    assert_non_null(row);
    assert_true(row->result.value == 3072.0L);
    row = explain_find(&rows, "blocks_counted");
    assert_non_null(row);
    assert_true(row->result.value == 5510.0L);
    /* at 131,072 tokens a user decoding holds 8,192 + 390 = 8,582 blocks:
     * floor((16,384 - 3,072) / 8,582) = 1, as vLLM starts (16,384 / (8,192 +
     * 6 x 577) = 1.41x); one user is both the pool's and the log's */
    s.context_tokens = 131072;
    r = run(&s);
    assert_int_equal(r.users_per_replica, 1);
    assert_int_equal(r.counted_users_per_replica, 1);
}

/* One group and a length a multiple of 16: both forms give blocks x 16; a
 * length that is not cuts the newer one below it (int(1000 / 501 x 8,001) = 15,970). */
static void one_group_alike(void **state)
{
    (void)state;
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559); /* Llama 3.1 8B */
    struct plan_result r = run(&s);
    char want[96], n[32];
    units_format_int(r.engine.units * 16, n, sizeof n);
    snprintf(want, sizeof want, "GPU KV cache size: %s tokens", n);
    assert_string_equal(logged_size(&r), want);
    s.engine.rule = RULE_VLLM_0_20;
    r = run(&s);
    assert_string_equal(logged_size(&r), want);
    assert_int_equal(vllm_concurrency_tokens(1000.0 / 501.0, 8001), 15970);
    assert_int_equal(vllm_concurrency_tokens(1000.0 / 500.0, 8000), 16000);
    assert_int_equal(vllm_concurrency_tokens(0, 8000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpt_oss_120b_by_release),
        cmocka_unit_test(gemma3_27b_by_release),
        cmocka_unit_test(one_group_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
