/* What vLLM V1 prints about its pool, worked by hand for a windowed model
 * (Gemma 4 31B on one H100 at 131,072 tokens) and a plain one (Llama 3.1 8B):
 *  - "GPU KV cache size" up to 0.20 (rule vllm@0.20; v1/core/kv_cache_utils.py,
 *    _report_kv_cache_config, read at main 002db495 and still so in 0.19.0
 *    and 0.20.0): num_blocks // the number of groups x the SMALLEST
 *    block_size over the groups. Gemma 4's global layers take 32-token blocks
 *    (their page per token is half the windowed layers',
 *    unify_kv_cache_spec_page_size) while the 5 windowed groups keep 16: the
 *    log counts in 16s, not in the global group's 32. From 0.21.0 (the
 *    default rule, report_kv_cache_config) int(num_blocks / (4,096 + 5 x 577)
 *    x 131,072) (test_vllm_log_rule.c);
 *  - one request's memory, as _check_enough_kv_cache_memory quotes it ("...
 *    GiB KV cache is needed, which is larger than the available KV cache
 *    memory"; _max_memory_usage_bytes_from_groups: group size 10 layers x a
 *    page of 32 x 8,192 B x (4,096 global blocks + 5 windowed groups x 577
 *    blocks) = 18,300,272,640 B = 17.04 GiB), which the headline quotes when
 *    no user fits, not the generic 10.78 GiB per-token figure. */
#include "engine_fixture.h"

#include "core/units.h"
#include "io/report.h"

static struct scenario gemma4_128k(void)
{
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.model = preset_model("gemma-4-31b");
    s.context_tokens = 131072;
    return s;
}

static const char *log_line(const struct plan_result *r, const char *start)
{
    for (int i = 0; i < r->engine.log_lines; i++)
        if (strncmp(r->engine.log[i], start, strlen(start)) == 0)
            return r->engine.log[i];
    fail_msg("no log line %s", start);
    return NULL;
}

static void logged_size_in_the_smallest_block(void **state)
{
    (void)state;
    struct scenario s = gemma4_128k();
    s.engine.rule = RULE_VLLM_0_20;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 32);
    assert_true(r.engine.units > 6);
    char want[96], n[32];
    units_format_int(r.engine.units / 6 * 16, n, sizeof n); /* 6 groups, blocks of 16 */
    snprintf(want, sizeof want, "GPU KV cache size: %s tokens", n);
    assert_string_equal(log_line(&r, "GPU KV cache size"), want);
    /* the pool's own count of tokens (the simulator's) keeps the group's 32 */
    assert_int_equal(r.kv_tokens_per_replica, r.engine.units / 6 * 32);
    /* 0.21.0 on: the concurrency's tokens, up to 6x the older count */
    s.engine.rule = RULE_CURRENT;
    struct plan_result now = run(&s);
    assert_int_equal(now.engine.units, r.engine.units);
    units_format_int((uint64_t)((double)r.engine.units / (4096.0 + 5 * 577) * 131072.0), n,
                     sizeof n);
    snprintf(want, sizeof want, "GPU KV cache size: %s tokens", n);
    assert_string_equal(log_line(&now, "GPU KV cache size"), want);
}

static void logged_size_of_one_group(void **state)
{
    (void)state;
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559); /* Llama 3.1 8B: one group */
    struct plan_result r = run(&s);
    char want[96], n[32];
    units_format_int(r.engine.units * 16, n, sizeof n);
    snprintf(want, sizeof want, "GPU KV cache size: %s tokens", n);
    assert_string_equal(log_line(&r, "GPU KV cache size"), want);
}

static void request_bytes_as_vllm_checks_them(void **state)
{
    (void)state;
    struct scenario s = gemma4_128k();
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.request_bytes, 10ull * 32 * 8192 * (4096 + 5 * 577));
    assert_int_equal(r.engine.request_bytes, 18300272640ull);
    assert_int_equal(r.max_users, 0);
    char buf[256];
    report_headline(&s, &r, buf, sizeof buf);
    assert_non_null(strstr(buf, "one needs 17.04 GiB per GPU"));
    /* one group: the blocks of the context over all 32 layers */
    s = on(ENGINE_VLLM, "h100-sxm", 81559);
    r = run(&s);
    assert_int_equal(r.engine.request_bytes, 512ull * 16 * 32 * (2 * 8 * 128 * 2)); /* 1 GiB */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(logged_size_in_the_smallest_block),
        cmocka_unit_test(logged_size_of_one_group),
        cmocka_unit_test(request_bytes_as_vllm_checks_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
