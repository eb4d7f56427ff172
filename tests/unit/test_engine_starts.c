/* What vLLM and SGLang refuse to start with, and kvplan with them.
 *
 * A context past the model's longest: vLLM's _get_and_verify_max_len (vllm/config/model.py,
 * read at 18ec6629) raises ValueError for a --max-model-len past the derived
 * maximum unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, SGLang's
 * ModelConfig._derive_context_length (python/sglang/srt/configs/
 * model_config.py, main 001adf56) for a --context-length past it unless
 * SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1. The core's ceiling, its
 * refusal, and the planner: a step, a model or an engine stops at the
 * model's longest; a typed context past it is refused, naming the control.
 * Falcon 7B's longest is 2,048 (max_position_embeddings). The command line's
 * cases: tests/hardening/t_long_context.sh.
 *
 * A 16-bit cache that is not the model's own, named by the engine's
 * --kv-cache-dtype where it can: vLLM's CacheDType (vllm/config/cache.py)
 * has bfloat16 at c1d86421 (0.11 to 0.13) and float16 too from vllm#37199
 * (March 2026, read at 002f10e0), never float32; V0's (vllm/config.py) only
 * auto and the fp8 kinds; SGLang's --kv-cache-dtype (srt/server_args.py,
 * 0.5.x) bf16, no float16 or float32. Else the model runs in it (--dtype,
 * ModelDType, every release), and auto caches in it. The command line's cases:
 * tests/hardening/t_cache_dtype.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curses.h>

#include "app/planner.h"
#include "io/catalog.h"

static struct catalog cat;
static char state_dir[] = "/tmp/kvplan-longctx-state-XXXXXX";

static int load(void **state)
{
    (void)state;
    struct diag d = {0};
    if (!mkdtemp(state_dir) || setenv("XDG_STATE_HOME", state_dir, 1) != 0)
        return -1;
    catalog_init(&cat);
    return catalog_load_embedded(&cat, &d) ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    catalog_free(&cat);
    rmdir(state_dir);
    return 0;
}

static struct scenario scenario(const char *model, enum engine_kind engine, uint64_t context)
{
    struct scenario s;
    scenario_default(&s, &catalog_find_gpu(&cat, "h100-sxm")->spec,
                     &catalog_find_model(&cat, model)->spec);
    s.engine.kind = engine;
    s.context_tokens = context;
    return s;
}

static struct planner *start(const struct scenario *s)
{
    static struct planner p; /* a session is too large for the stack */
    planner_init(&p, &cat, s);
    return &p;
}

static void the_ceiling_is_the_models_longest_under_vllm_and_sglang_only(void **state)
{
    (void)state;
    struct scenario s = scenario("falcon-7b", ENGINE_VLLM, 2048);
    assert_int_equal(s.model.max_context_tokens, 2048);
    assert_int_equal(scenario_context_ceiling(&s), 2048);
    s.engine.kind = ENGINE_SGLANG;
    assert_int_equal(scenario_context_ceiling(&s), 2048);
    s.allow_long_context = true; /* the variable set: no bound of the engine's */
    assert_int_equal(scenario_context_ceiling(&s), 0);
    s = scenario("falcon-7b", ENGINE_GENERIC, 2048);
    assert_int_equal(scenario_context_ceiling(&s), 0);
    s.engine.kind = ENGINE_LLAMACPP; /* llama.cpp warns of n_ctx past n_ctx_train, and runs */
    assert_int_equal(scenario_context_ceiling(&s), 0);
    s.engine.kind = ENGINE_TRTLLM;
    assert_int_equal(scenario_context_ceiling(&s), 0);
}

static void the_core_refuses_one_token_past_it_and_plans_it_with_the_variable(void **state)
{
    (void)state;
    struct scenario s = scenario("falcon-7b", ENGINE_VLLM, 2049);
    struct plan_result r;
    struct diag d = {0};
    assert_false(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--context: 2,049 tokens is past falcon-7b's longest "
                                      "context, 2,048 tokens: vLLM refuses"));
    assert_non_null(strstr(d.message, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"));
    s.allow_long_context = true;
    diag_clear(&d);
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_true(r.warnings & WARN_CONTEXT_BEYOND_MODEL);
    /* a switch to an engine without the rule drops the variable with it */
    scenario_set_engine(&s, ENGINE_LLAMACPP, RULE_CURRENT);
    assert_false(s.allow_long_context);
}

static void the_planners_steps_stop_at_the_models_longest(void **state)
{
    (void)state;
    struct scenario s = scenario("falcon-7b", ENGINE_VLLM, 1024);
    struct planner *p = start(&s);
    assert_int_equal(p->focus, CTRL_CONTEXT);
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
    planner_key(p, KEY_RIGHT); /* past it: held there, a plan still shown */
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
    assert_true(planner_result(p)->max_users > 0);
    /* the generic rule (and vLLM told to start anyway) go on to 1M */
    s.engine.kind = ENGINE_GENERIC;
    p = start(&s);
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->context_tokens, 1048576);
    s.engine.kind = ENGINE_VLLM;
    s.allow_long_context = true;
    p = start(&s);
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->context_tokens, 1048576);
}

static void a_typed_context_past_it_is_refused_naming_the_control(void **state)
{
    (void)state;
    struct scenario s = scenario("falcon-7b", ENGINE_SGLANG, 2048);
    struct planner *p = start(&s);
    planner_key(p, '\n');
    for (const char *k = "16k"; *k; k++)
        planner_key(p, *k);
    planner_key(p, '\n');
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
    assert_non_null(strstr(p->error, "Context: 16,384 tokens is past falcon-7b's longest"));
    assert_non_null(strstr(p->error, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"));
}

static void a_model_or_an_engine_that_refuses_the_context_brings_it_down(void **state)
{
    (void)state;
    /* Llama 3.1 8B at 32k under vLLM, then Falcon 7B: 2,048 */
    struct scenario s = scenario("llama-3.1-8b", ENGINE_VLLM, 32768);
    struct planner *p = start(&s);
    struct scenario next = *planner_scenario(p);
    control_set(CTRL_MODEL, &next, &cat,
                (uint64_t)(catalog_find_model(&cat, "falcon-7b") - cat.models));
    assert_true(planner_apply(p, &next));
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
    /* Falcon 7B at kvplan's 8,192 under the generic rule, then vLLM */
    s = scenario("falcon-7b", ENGINE_GENERIC, 8192);
    p = start(&s);
    next = *planner_scenario(p);
    control_set(CTRL_ENGINE, &next, &cat, ENGINE_VLLM);
    assert_true(planner_apply(p, &next));
    assert_int_equal(planner_scenario(p)->engine.kind, ENGINE_VLLM);
    assert_int_equal(planner_scenario(p)->context_tokens, 2048);
}

static void a_16_bit_cache_not_the_models_is_named(void **state)
{
    (void)state;
    const char *value;
    /* Llama 3.1 8B is bf16: fp16 is --kv-cache-dtype float16 in vLLM 0.20 */
    struct scenario s = scenario("llama-3.1-8b", ENGINE_VLLM, 8192);
    s.kv_dtype = DTYPE_FP16;
    assert_string_equal(scenario_cache_flag(&s, &value), "--kv-cache-dtype");
    assert_string_equal(value, "float16");
    s.kv_dtype = DTYPE_BF16; /* its own: auto, no flag */
    assert_null(scenario_cache_flag(&s, &value));
    /* before vllm#37199 no float16 cache: the model runs in float16 */
    s.kv_dtype = DTYPE_FP16;
    s.engine.rule = RULE_VLLM_0_13;
    assert_string_equal(scenario_cache_flag(&s, &value), "--dtype");
    assert_string_equal(value, "float16");
    /* Llama 2 7B is fp16: bf16 is bfloat16 in vLLM 0.13, bf16 in SGLang, --dtype in V0 */
    s = scenario("llama-2-7b", ENGINE_VLLM, 4096);
    s.kv_dtype = DTYPE_BF16;
    s.engine.rule = RULE_VLLM_0_13;
    assert_string_equal(scenario_cache_flag(&s, &value), "--kv-cache-dtype");
    assert_string_equal(value, "bfloat16");
    s.engine.rule = RULE_VLLM_V0;
    assert_string_equal(scenario_cache_flag(&s, &value), "--dtype");
    assert_string_equal(value, "bfloat16");
    s.engine.kind = ENGINE_SGLANG;
    s.engine.rule = RULE_CURRENT;
    assert_string_equal(scenario_cache_flag(&s, &value), "--kv-cache-dtype");
    assert_string_equal(value, "bf16");
    s.kv_dtype = DTYPE_FP16; /* its own */
    assert_null(scenario_cache_flag(&s, &value));
    /* the size is the 16-bit one either way: 32 x 32 x 128 x 2 x 2 = 524,288 B a token */
    s.kv_dtype = DTYPE_BF16;
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(r.cost.bytes_per_token, 524288);
    /* fp32: no cache type of either (refused), kept by llama.cpp without a flag */
    s.kv_dtype = DTYPE_FP32;
    assert_false(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--kv-dtype: sglang has no fp32 cache"));
    s.engine.kind = ENGINE_LLAMACPP;
    assert_null(scenario_cache_flag(&s, &value));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_ceiling_is_the_models_longest_under_vllm_and_sglang_only),
        cmocka_unit_test(the_core_refuses_one_token_past_it_and_plans_it_with_the_variable),
        cmocka_unit_test(the_planners_steps_stop_at_the_models_longest),
        cmocka_unit_test(a_typed_context_past_it_is_refused_naming_the_control),
        cmocka_unit_test(a_model_or_an_engine_that_refuses_the_context_brings_it_down),
        cmocka_unit_test(a_16_bit_cache_not_the_models_is_named),
    };
    return cmocka_run_group_tests_name("engine_starts", tests, load, unload);
}
