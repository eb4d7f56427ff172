/* --engine NAME@RELEASE: a release as the user runs it maps to the rule
 * that holds for it, each rule from its first release (the versions rows'
 * `from`), checked at each boundary: the first release of a rule and the
 * one before it. Sources of the boundaries: doc/ENGINES.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/diag.h"
#include "core/engine.h"

static enum engine_rule rule_of(const char *text, enum engine_kind want)
{
    enum engine_kind k = ENGINE_GENERIC;
    enum engine_rule r = (enum engine_rule)-1;
    struct diag d = {0};
    char note[160];
    if (!engine_parse_noted(text, &k, &r, note, sizeof note, &d))
        fail_msg("%s refused: %s", text, d.message);
    assert_int_equal(k, want);
    return r;
}

static const char *refusal(const char *text)
{
    static struct diag d;
    enum engine_kind k;
    enum engine_rule r;
    memset(&d, 0, sizeof d);
    assert_false(engine_parse(text, &k, &r, &d));
    return d.message;
}

static void vllm_releases_map_to_v0_v1_cutlass_and_current(void **state)
{
    (void)state;
    /* V1 the default from v0.8.0; CUTLASS MLA on Blackwell up to 0.13 */
    assert_int_equal(rule_of("vllm@0.7.3", ENGINE_VLLM), RULE_VLLM_V0);
    assert_int_equal(rule_of("vllm@0.8", ENGINE_VLLM), RULE_VLLM_0_13);
    assert_int_equal(rule_of("vllm@0.8.0", ENGINE_VLLM), RULE_VLLM_0_13);
    assert_int_equal(rule_of("vllm@0.13.9", ENGINE_VLLM), RULE_VLLM_0_13);
    assert_int_equal(rule_of("vllm@0.11.0rc1", ENGINE_VLLM), RULE_VLLM_0_13);
    /* 0.14 to 0.17 sort the profile's top-k/top-p with PyTorch; 0.18 masks
     * it with topk_topp_triton.py (vllm PR #33538) */
    assert_int_equal(rule_of("vllm@0.14", ENGINE_VLLM), RULE_VLLM_0_17);
    assert_int_equal(rule_of("vllm@0.15.1", ENGINE_VLLM), RULE_VLLM_0_17);
    assert_int_equal(rule_of("vllm@0.17.1", ENGINE_VLLM), RULE_VLLM_0_17);
    /* 0.18 to 0.20 log "GPU KV cache size" as blocks over groups
     * (_report_kv_cache_config, 0.19.0 vllm#40691, 0.20.0 vllm#43308); 0.21.0
     * as int(max_concurrency x max_model_len) (report_kv_cache_config) */
    assert_int_equal(rule_of("vllm@0.18.0", ENGINE_VLLM), RULE_VLLM_0_20);
    assert_int_equal(rule_of("vllm@v0.20.1", ENGINE_VLLM), RULE_VLLM_0_20);
    assert_int_equal(rule_of("vllm@0.20.2", ENGINE_VLLM), RULE_VLLM_0_20);
    assert_int_equal(rule_of("vllm@0.21.0", ENGINE_VLLM), RULE_CURRENT);
    assert_int_equal(rule_of("vllm@0.21", ENGINE_VLLM), RULE_CURRENT);
    /* the aliases keep their rules */
    assert_int_equal(rule_of("vllm@0.13", ENGINE_VLLM), RULE_VLLM_0_13);
    assert_int_equal(rule_of("vllm@0", ENGINE_VLLM), RULE_VLLM_V0);
}

/* The newest rule is named after the release it is read for, 0.21 (its
 * "GPU KV cache size" log, vllm#43308); vllm@1 and v1 still take it, and
 * quietly (no "newer than" note). vllm@0.20, its name before, is now the
 * 0.18-0.20 row, and vllm@0.15, the name before that, release 0.15's rule,
 * the 0.14-0.17 row (vllm@0.17: the profile's sampler sorted by PyTorch,
 * vllm PR #33538 replacing the sort from 0.18). */
static void the_newest_vllm_rule_is_0_21_and_its_old_names_take_their_releases(void **state)
{
    (void)state;
    const char *names[] = {"vllm@0.21", "vllm@1", "vllm@V1", "vllm@0.21.0"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        enum engine_kind k;
        enum engine_rule r = (enum engine_rule)-1;
        struct diag d = {0};
        char note[160] = "x";
        assert_true(engine_parse_noted(names[i], &k, &r, note, sizeof note, &d));
        assert_int_equal(k, ENGINE_VLLM);
        assert_int_equal(r, RULE_CURRENT);
        assert_string_equal(note, "");
    }
    char title[64];
    assert_string_equal(engine_version_title(ENGINE_VLLM, RULE_CURRENT, title, sizeof title),
                        "vLLM 0.21");
    assert_string_equal(engine_release(ENGINE_VLLM, RULE_CURRENT), "0.21");
    assert_int_equal(rule_of("vllm@0.20", ENGINE_VLLM), RULE_VLLM_0_20);
    assert_int_equal(rule_of("vllm@0.18", ENGINE_VLLM), RULE_VLLM_0_20);
    assert_string_equal(engine_version_title(ENGINE_VLLM, RULE_VLLM_0_20, title, sizeof title),
                        "vLLM 0.20");
    assert_int_equal(rule_of("vllm@0.15", ENGINE_VLLM), RULE_VLLM_0_17);
    assert_int_equal(rule_of("vllm@0.15.1", ENGINE_VLLM), RULE_VLLM_0_17);
    assert_int_equal(rule_of("vllm@0.17.1", ENGINE_VLLM), RULE_VLLM_0_17);
}

static void llamacpp_builds_map_to_pre_mla_mla_kv_and_v_less(void **state)
{
    (void)state;
    assert_int_equal(rule_of("llama.cpp@b5115", ENGINE_LLAMACPP), RULE_LLAMACPP_PRE_MLA);
    assert_int_equal(rule_of("llama.cpp@b5116", ENGINE_LLAMACPP), RULE_LLAMACPP_MLA_KV);
    assert_int_equal(rule_of("llama.cpp@b6500", ENGINE_LLAMACPP), RULE_LLAMACPP_MLA_KV);
    /* PR #18148 (the output layer offloaded first) between b7223 and b7571:
     * b7571 on, the mla-kv cache with the new -ngl count */
    assert_int_equal(rule_of("llama.cpp@b7570", ENGINE_LLAMACPP), RULE_LLAMACPP_MLA_KV);
    assert_int_equal(rule_of("llama.cpp@b7571", ENGINE_LLAMACPP), RULE_LLAMACPP_OUTPUT_FIRST);
    assert_int_equal(rule_of("llama.cpp@b7815", ENGINE_LLAMACPP), RULE_LLAMACPP_OUTPUT_FIRST);
    assert_int_equal(rule_of("llama.cpp@b7816", ENGINE_LLAMACPP), RULE_CURRENT);
}

static void trtllm_sglang_and_ollama_releases(void **state)
{
    (void)state;
    assert_int_equal(rule_of("trtllm@0.6", ENGINE_TRTLLM), RULE_TRTLLM_BUILD_PY);
    assert_int_equal(rule_of("trtllm@0.7.1", ENGINE_TRTLLM), RULE_TRTLLM_BUILD_PY);
    assert_int_equal(rule_of("trtllm@0.8", ENGINE_TRTLLM), RULE_TRTLLM_ENGINE);
    assert_int_equal(rule_of("trtllm@0.18.2", ENGINE_TRTLLM), RULE_TRTLLM_ENGINE);
    assert_int_equal(rule_of("trtllm@0.19.0", ENGINE_TRTLLM), RULE_TRTLLM_0);
    assert_int_equal(rule_of("trtllm@0.21.0", ENGINE_TRTLLM), RULE_TRTLLM_0);
    assert_int_equal(rule_of("trtllm@1.0.0", ENGINE_TRTLLM), RULE_CURRENT);
    assert_int_equal(rule_of("trtllm@1.2", ENGINE_TRTLLM), RULE_CURRENT);
    assert_int_equal(rule_of("sglang@0.4", ENGINE_SGLANG), RULE_CURRENT);
    assert_int_equal(rule_of("sglang@0.5.6", ENGINE_SGLANG), RULE_CURRENT);
    assert_int_equal(rule_of("ollama@0.30.0", ENGINE_OLLAMA), RULE_CURRENT);
}

static void older_than_the_oldest_and_malformed_are_refused(void **state)
{
    (void)state;
    assert_non_null(strstr(refusal("sglang@0.3.9"), "older than the oldest release modelled (0.4"));
    assert_non_null(strstr(refusal("trtllm@0.5"), "(0.6, rule trtllm@0.7)"));
    assert_non_null(strstr(refusal("ollama@0.29"), "older runner"));
    assert_non_null(strstr(refusal("vllm@abc"), "not a release of vllm"));
    assert_non_null(strstr(refusal("vllm@0.x1"), "not a release of vllm"));
    assert_non_null(strstr(refusal("llama.cpp@b"), "a build such as b6500"));
    assert_non_null(strstr(refusal("llama.cpp@6500"), "a build such as b6500"));
    assert_non_null(strstr(refusal("llama.cpp@b65x"), "not a release"));
    assert_non_null(strstr(refusal("generic@1.0"), "unknown version of generic"));
}

static void newer_than_the_newest_known_takes_the_newest_rule_with_a_note(void **state)
{
    (void)state;
    enum engine_kind k;
    enum engine_rule r;
    struct diag d = {0};
    char note[160];
    assert_true(engine_parse_noted("vllm@0.21.0", &k, &r, note, sizeof note, &d));
    assert_string_equal(note, "");
    assert_true(engine_parse_noted("vllm@0.21.1", &k, &r, note, sizeof note, &d));
    assert_int_equal(r, RULE_CURRENT);
    assert_non_null(strstr(note, "newer than the newest release known (0.21.0): rule vllm@0.21"));
    /* "0.5.x": every 0.5 release is known, 0.6 is not */
    assert_true(engine_parse_noted("sglang@0.5.9", &k, &r, note, sizeof note, &d));
    assert_string_equal(note, "");
    assert_true(engine_parse_noted("sglang@0.6", &k, &r, note, sizeof note, &d));
    assert_non_null(strstr(note, "rule sglang@0.5"));
    assert_true(engine_parse_noted("llama.cpp@b10761", &k, &r, note, sizeof note, &d));
    assert_non_null(strstr(note, "(b10760)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_releases_map_to_v0_v1_cutlass_and_current),
        cmocka_unit_test(the_newest_vllm_rule_is_0_21_and_its_old_names_take_their_releases),
        cmocka_unit_test(llamacpp_builds_map_to_pre_mla_mla_kv_and_v_less),
        cmocka_unit_test(trtllm_sglang_and_ollama_releases),
        cmocka_unit_test(older_than_the_oldest_and_malformed_are_refused),
        cmocka_unit_test(newer_than_the_newest_known_takes_the_newest_rule_with_a_note),
    };
    return cmocka_run_group_tests_name("engine_release", tests, NULL, NULL);
}
