/* llama.cpp's placement controls in the planner (app/controls_offload.c):
 * GPU layers (-ngl), CPU MoE layers (--n-cpu-moe) and the cache in host
 * memory (--no-kv-offload), stepped, typed, reset and undone as the other
 * controls are, each change planned as the CLI plans it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>

#include "app/planner.h"
#include "io/catalog.h"

static struct catalog offload_cat;

static int offload_load(void **state)
{
    (void)state;
    struct diag d = {0};
    catalog_init(&offload_cat);
    return catalog_load_embedded(&offload_cat, &d) ? 0 : -1;
}

static int offload_unload(void **state)
{
    (void)state;
    catalog_free(&offload_cat);
    return 0;
}

/* llama.cpp on one RTX 4090 with 64 GiB of host memory, focus on c. */
static struct planner *on_4090(const char *model, enum dtype weights, uint64_t context,
                               enum control c)
{
    static struct planner p;
    struct scenario s;
    scenario_default(&s, &catalog_find_gpu(&offload_cat, "rtx-4090")->spec,
                     &catalog_find_model(&offload_cat, model)->spec);
    s.context_tokens = context;
    s.weight_dtype = weights;
    s.engine.kind = ENGINE_LLAMACPP;
    s.offload.host_memory_bytes = 64ull << 30;
    planner_init(&p, &offload_cat, &s);
    p.focus = c;
    return &p;
}

static const char *shown(const struct planner *p, enum control c)
{
    static char buf[64];
    control_format(c, planner_scenario(p), planner_result(p), buf, sizeof buf);
    return buf;
}

static void the_controls_show_with_llama_cpp_only(void **state)
{
    (void)state;
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_NGL);
    const struct scenario *s = planner_scenario(p);
    assert_true(control_visible(CTRL_NGL, s));
    assert_true(control_visible(CTRL_KV_HOST, s));
    assert_false(control_visible(CTRL_CPU_MOE, s)); /* a dense model: no experts */
    assert_string_equal(control_label(CTRL_NGL, s), "GPU layers");
    struct scenario v = *s;
    v.engine.kind = ENGINE_VLLM;
    assert_false(control_visible(CTRL_NGL, &v));
    assert_false(control_visible(CTRL_KV_HOST, &v));
}

static void auto_is_the_fit_search_with_its_result(void **state)
{
    (void)state;
    /* 70B q4_k_m, 8k: the fit keeps 42 of the 81 (-ngl 42, the launch line's) */
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_NGL);
    const struct offload_split *o = &planner_result(p)->engine.offload;
    assert_true(o->searched);
    assert_false(planner_scenario(p)->offload.ngl_given);
    char want[32];
    snprintf(want, sizeof want, "fit %u of 81", o->ngl);
    assert_string_equal(shown(p, CTRL_NGL), want);
    assert_int_equal(control_current(CTRL_NGL, planner_scenario(p), planner_result(p), &offload_cat),
                     o->ngl + 1);
}

static void a_step_goes_from_the_fit_and_undo_brings_auto_back(void **state)
{
    (void)state;
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_NGL);
    uint32_t fit = planner_result(p)->engine.offload.ngl;
    planner_key(p, KEY_LEFT);
    const struct scenario *s = planner_scenario(p);
    assert_true(s->offload.ngl_given);
    assert_int_equal(s->offload.ngl, fit - 1);
    assert_int_equal(planner_result(p)->engine.offload.ngl, fit - 1);
    assert_false(planner_result(p)->engine.offload.searched);
    assert_non_null(strstr(planner_result(p)->engine.launch, " -ngl "));
    planner_key(p, 'z');
    assert_false(planner_scenario(p)->offload.ngl_given);
    assert_int_equal(planner_result(p)->engine.offload.ngl, fit);
    /* Home is auto, End every layer (the output layer too) */
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->offload.ngl, 81);
    assert_false(planner_result(p)->weights_fit);
    planner_key(p, KEY_HOME);
    assert_false(planner_scenario(p)->offload.ngl_given);
}

static void typed_values_and_refusals(void **state)
{
    (void)state;
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_NGL);
    struct scenario s = *planner_scenario(p);
    struct diag d = {0};
    assert_true(control_parse(CTRL_NGL, &s, "30", &d));
    assert_true(s.offload.ngl_given && s.offload.ngl == 30);
    assert_true(control_parse(CTRL_NGL, &s, "all", &d));
    assert_int_equal(s.offload.ngl, 81);
    assert_true(control_parse(CTRL_NGL, &s, "auto", &d));
    assert_false(s.offload.ngl_given);
    assert_false(control_parse(CTRL_NGL, &s, "82", &d));
    assert_non_null(strstr(d.message, "GPU layers"));
    assert_false(control_parse(CTRL_KV_HOST, &s, "maybe", &d));
    assert_true(control_parse(CTRL_KV_HOST, &s, "on", &d));
    assert_true(s.offload.no_kv_offload);
}

static void the_cache_in_host_memory_moves_it_off_the_gpu(void **state)
{
    (void)state;
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_KV_HOST);
    assert_string_equal(shown(p, CTRL_KV_HOST), "off");
    planner_key(p, KEY_RIGHT);
    const struct plan_result *r = planner_result(p);
    assert_true(planner_scenario(p)->offload.no_kv_offload);
    assert_string_equal(shown(p, CTRL_KV_HOST), "on");
    assert_true(r->engine.offload.kv_on_host);
    assert_non_null(strstr(r->engine.launch, "--no-kv-offload"));
    assert_int_equal(r->engine.offload.gpu_kv_bytes, 0);
}

static void a_moe_model_steps_its_cpu_experts_from_the_fit(void **state)
{
    (void)state;
    /* Qwen3 30B-A3B in bf16 (61 GB) on 24 GB: the fit keeps every layer on
     * the GPU and the experts of the first layers in host memory */
    struct planner *p = on_4090("qwen3-30b-a3b", DTYPE_AUTO, 32768, CTRL_CPU_MOE);
    const struct scenario *s = planner_scenario(p);
    assert_true(control_visible(CTRL_CPU_MOE, s));
    const struct offload_split *o = &planner_result(p)->engine.offload;
    assert_true(o->searched && o->n_cpu_moe > 0 && o->ngl == 49);
    uint32_t fit = o->n_cpu_moe;
    char want[32];
    snprintf(want, sizeof want, "fit %u", fit);
    assert_string_equal(shown(p, CTRL_CPU_MOE), want);
    planner_key(p, KEY_RIGHT);
    assert_true(planner_scenario(p)->offload.n_cpu_moe_given);
    assert_int_equal(planner_scenario(p)->offload.n_cpu_moe, fit + 1);
    assert_int_equal(planner_result(p)->engine.offload.n_cpu_moe, fit + 1);
    snprintf(want, sizeof want, "%u", fit + 1); /* given: the count alone */
    assert_string_equal(shown(p, CTRL_CPU_MOE), want);
    planner_key(p, 'r');
    assert_false(planner_scenario(p)->offload.n_cpu_moe_given);
}

static void another_engine_drops_the_placement(void **state)
{
    (void)state;
    struct planner *p = on_4090("llama-3.1-70b", DTYPE_Q4_K_M, 8192, CTRL_NGL);
    planner_key(p, KEY_LEFT);
    assert_true(planner_scenario(p)->offload.ngl_given);
    struct scenario s = *planner_scenario(p);
    control_set(CTRL_ENGINE, &s, &offload_cat, control_engine_value(ENGINE_VLLM, RULE_CURRENT));
    assert_false(s.offload.ngl_given);
    assert_false(s.offload.no_kv_offload);
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
}

/* Ollama sets only the GPU layers (num_gpu; llm/llama_server.go passes no
 * --n-cpu-moe or --no-kv-offload to llama-server, and the CLI refuses them):
 * its planner shows GPU layers and neither control that would do nothing. */
static void ollama_shows_only_the_gpu_layers(void **state)
{
    (void)state;
    struct planner *p = on_4090("gpt-oss-120b", DTYPE_AUTO, 8192, CTRL_NGL);
    struct scenario s = *planner_scenario(p);
    assert_true(control_visible(CTRL_CPU_MOE, &s)); /* llama.cpp: a MoE model has it */
    assert_true(control_visible(CTRL_KV_HOST, &s));
    control_set(CTRL_ENGINE, &s, &offload_cat, control_engine_value(ENGINE_OLLAMA, RULE_CURRENT));
    assert_true(control_visible(CTRL_NGL, &s));
    assert_false(control_visible(CTRL_CPU_MOE, &s));
    assert_false(control_visible(CTRL_KV_HOST, &s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_controls_show_with_llama_cpp_only),
        cmocka_unit_test(auto_is_the_fit_search_with_its_result),
        cmocka_unit_test(a_step_goes_from_the_fit_and_undo_brings_auto_back),
        cmocka_unit_test(typed_values_and_refusals),
        cmocka_unit_test(the_cache_in_host_memory_moves_it_off_the_gpu),
        cmocka_unit_test(a_moe_model_steps_its_cpu_experts_from_the_fit),
        cmocka_unit_test(another_engine_drops_the_placement),
        cmocka_unit_test(ollama_shows_only_the_gpu_layers),
    };
    return cmocka_run_group_tests(tests, offload_load, offload_unload);
}
