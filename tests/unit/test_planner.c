/* The planner's controls and keys, in-process: every change gives the
 * result the capacity core gives for the same scenario. */
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
#include "app/prompts.h"
#include "core/version.h"
#include "io/catalog.h"
#include "io/fileio.h"
#include "io/snapshot.h"

static struct catalog cat;

/* The files the planner opens or exports are remembered in a private state
 * directory, never in the user's own recent list. */
static char state_dir[] = "/tmp/kvplan-planner-state-XXXXXX";

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
    char recent[sizeof state_dir + 32];
    snprintf(recent, sizeof recent, "%s/kvplan/recent", state_dir);
    unlink(recent);
    snprintf(recent, sizeof recent, "%s/kvplan", state_dir);
    rmdir(recent);
    rmdir(state_dir);
    return 0;
}

/* One planner at a time: a session of scenarios is too large for the stack. */
static struct planner *start(const char *gpu, const char *model, uint64_t context)
{
    static struct planner p;
    struct scenario s;
    scenario_default(&s, &catalog_find_gpu(&cat, gpu)->spec,
                              &catalog_find_model(&cat, model)->spec);
    s.context_tokens = context;
    planner_init(&p, &cat, &s);
    return &p;
}

static uint64_t users_for(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(s, PLAN_NUMBERS, NULL, &r, &d));
    return r.max_users;
}

static void right_on_context_doubles_it_and_the_users_follow_the_core(void **state)
{
    (void)state;
    struct planner *p = start("a100-80gb", "llama-2-7b", 4096);
    assert_int_equal(p->focus, CTRL_CONTEXT);
    uint64_t before = planner_result(p)->max_users;
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_scenario(p)->context_tokens, 8192);
    assert_int_equal(planner_result(p)->max_users, users_for(planner_scenario(p)));
    /* 59.45 GiB pool: 29 users at 4k, 14 at 8k */
    assert_int_equal(before, 29);
    assert_int_equal(planner_result(p)->max_users, 14);
}

static void context_slider_snaps_to_powers_of_two_and_the_model_maximum(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "qwen3-32b", 4000);
    planner_key(p, KEY_RIGHT); /* 4000 -> 4096 */
    assert_int_equal(planner_scenario(p)->context_tokens, 4096);
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->context_tokens, 1048576);
    planner_key(p, KEY_HOME);
    assert_int_equal(planner_scenario(p)->context_tokens, 1024);
    /* Qwen3's 40,960 maximum is one of the stops */
    bool seen = false;
    for (int i = 0; i < 20 && planner_scenario(p)->context_tokens < 1048576; i++) {
        planner_key(p, KEY_RIGHT);
        if (planner_scenario(p)->context_tokens == 40960)
            seen = true;
    }
    assert_true(seen);
}

static void typing_32k_sets_the_context_exactly(void **state)
{
    (void)state;
    struct planner *p = start("a100-80gb", "llama-2-7b", 4096);
    planner_key(p, '\n');
    assert_int_equal(p->mode, MODE_PROMPT);
    planner_key(p, '3');
    planner_key(p, '2');
    planner_key(p, 'k');
    planner_key(p, '\n');
    assert_int_equal(p->mode, MODE_MAIN);
    assert_int_equal(planner_scenario(p)->context_tokens, 32768);
    /* a bad value is refused with a message naming the control; nothing changes */
    planner_key(p, '\n');
    planner_key(p, 'x');
    planner_key(p, '\n');
    assert_int_equal(planner_scenario(p)->context_tokens, 32768);
    assert_non_null(strstr(p->error, "Context"));
}

static void kv_heads_step_through_the_divisors_of_the_heads(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-2-7b", 4096);
    p->focus = CTRL_KV_HEADS;
    planner_key(p, KEY_LEFT); /* 32 -> 16 */
    assert_int_equal(planner_result(p)->cost.kv_heads, 16);
    planner_key(p, KEY_HOME); /* MQA */
    assert_int_equal(planner_result(p)->cost.kv_heads, 1);
    char v[64];
    control_format(CTRL_KV_HEADS, planner_scenario(p), planner_result(p), v, sizeof v);
    assert_string_equal(v, "1 (MQA)");
    planner_key(p, 'r');
    assert_int_equal(planner_result(p)->cost.kv_heads, 32);
}

static void the_picker_filters_and_picks(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    p->focus = CTRL_MODEL;
    planner_key(p, '\n');
    assert_int_equal(p->mode, MODE_PICKER);
    const char *typed = "gemma-3-27";
    for (const char *c = typed; *c; c++)
        planner_key(p, *c);
    int idx[8];
    assert_int_equal(planner_picker_matches(p, idx, 8), 1);
    planner_key(p, '\n');
    assert_string_equal(planner_scenario(p)->model.id, "gemma-3-27b");
    assert_int_equal(planner_result(p)->cost.windowed_layers, 52);
}

/* An id typed whole is picked even when a longer id shares it as a prefix
 * and comes first in the catalogue (deepseek-v3.2 sorts before deepseek-v3). */
static void an_id_typed_whole_comes_first(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    p->focus = CTRL_MODEL;
    planner_key(p, '\n');
    for (const char *c = "deepseek-v3"; *c; c++)
        planner_key(p, *c);
    int idx[8];
    assert_int_equal(planner_picker_matches(p, idx, 8), 2);
    planner_key(p, '\n');
    assert_string_equal(planner_scenario(p)->model.id, "deepseek-v3");
}

static void baseline_then_compare_keeps_both_scenarios(void **state)
{
    (void)state;
    struct planner *p = start("a100-80gb", "llama-2-7b", 4096);
    planner_key(p, 'c'); /* no baseline yet: a hint, not the view */
    assert_int_equal(p->mode, MODE_MAIN);
    planner_key(p, 'b');
    planner_key(p, KEY_RIGHT);
    planner_key(p, KEY_RIGHT);
    planner_key(p, 'c');
    assert_int_equal(p->mode, MODE_COMPARE);
    /* b kept A as the reference and the changes went to B */
    assert_int_equal(p->count, 2);
    assert_int_equal(p->reference, 0);
    assert_int_equal(p->slots[0].scenario.context_tokens, 4096);
    assert_int_equal(planner_scenario(p)->context_tokens, 16384);
    planner_key(p, 27);
    assert_int_equal(p->mode, MODE_MAIN);
}

static void export_writes_what_plan_json_prints_and_asks_before_overwriting(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvplan-planner-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/s.json", dir);
    struct planner *p = start("h200", "deepseek-v3", 65536);
    struct scenario s = *planner_scenario(p);
    s.gpus = 8;
    planner_apply(p, &s);
    char name[256];
    planner_export_name(p, name, sizeof name);
    assert_string_equal(name, "kvplan-deepseek-v3-h200-64k.json");
    planner_key(p, 'e');
    assert_int_equal(p->mode, MODE_PROMPT);
    p->prompt.text[0] = '\0';
    for (const char *c = path; *c; c++)
        planner_key(p, *c);
    planner_key(p, '\n');
    struct diag d = {0};
    size_t len;
    char *file = fileio_read(path, &len, &d);
    assert_non_null(file);
    char *json = snapshot_to_json(planner_scenario(p), planner_result(p), &p->explain, KVPLAN_GENERATOR);
    assert_string_equal(file, json);
    free(file);
    /* again: the file exists, so it asks; anything but y keeps it */
    planner_key(p, KEY_RIGHT);
    planner_key(p, 'e');
    p->prompt.text[0] = '\0';
    for (const char *c = path; *c; c++)
        planner_key(p, *c);
    planner_key(p, '\n');
    assert_int_equal(p->mode, MODE_CONFIRM);
    planner_key(p, 'n');
    file = fileio_read(path, &len, &d);
    assert_string_equal(file, json);
    free(file);
    free(json);
    unlink(path);
    rmdir(dir);
}

static void the_curve_matches_the_core_at_its_points(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    for (int i = 0; i < CHART_POINTS; i += 10) {
        struct scenario s = *planner_scenario(p);
        s.context_tokens = planner_curve(p)->context_tokens[i];
        assert_int_equal(planner_curve(p)->users[i], users_for(&s));
    }
    assert_int_equal(planner_curve(p)->context_tokens[0], 1024);
    assert_int_equal(planner_curve(p)->context_tokens[CHART_POINTS - 1], 1048576);
}

/* An engine takes only its own cache types: switching to vLLM with a q4_0
 * cache goes back to the model's and says so; vLLM's KV cache control then
 * steps through auto, fp32, fp16, bf16 and fp8 only. */
static void an_engine_drops_a_cache_type_it_lacks_and_says_so(void **state)
{
    (void)state;
    struct planner *p = start("a100-40gb", "llama-3-8b", 8192);
    struct scenario s = *planner_scenario(p);
    s.kv_dtype = DTYPE_Q4_0;
    assert_true(planner_apply(p, &s));
    p->focus = CTRL_ENGINE;
    planner_key(p, KEY_RIGHT); /* generic -> vllm */
    assert_int_equal(planner_scenario(p)->engine.kind, ENGINE_VLLM);
    assert_int_equal(planner_scenario(p)->kv_dtype, DTYPE_AUTO);
    assert_non_null(strstr(p->status, "the q4_0 cache is off with this engine"));
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(CTRL_KV_DTYPE, planner_scenario(p), planner_result(p), p->catalog, v);
    assert_int_equal(n, 4); /* auto, fp16, bf16, fp8: no float32 in vLLM's CacheDType */
    for (int i = 0; i < n; i++) {
        enum dtype t = control_dtype_at(CTRL_KV_DTYPE, v[i]);
        assert_true(t == DTYPE_AUTO || engine_supports(ENGINE_VLLM, t));
    }
}

/* A block an engine release does not start with (core/engine_desc.h
 * refuses_block) is not carried to it: vLLM 0.18 on takes 48 (an int block,
 * a multiple of 16), vllm@0.17's BlockSize literal has no 48, so a step of
 * the Engine control back to it takes the block back to kvplan's default,
 * 16 (the engine's own), says so, and undo brings the 48 back with vLLM 0.20. */
static void an_engine_step_drops_a_block_the_release_refuses(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    struct scenario s = *planner_scenario(p);
    s.engine.kind = ENGINE_VLLM;
    s.engine.rule = RULE_VLLM_0_20;
    s.block_tokens = 48;
    assert_true(planner_apply(p, &s));
    assert_int_equal(planner_result(p)->engine.unit_tokens, 48);
    p->focus = CTRL_ENGINE;
    planner_key(p, KEY_RIGHT); /* vllm@0.20 -> vllm@0.17 */
    assert_int_equal(planner_scenario(p)->engine.rule, RULE_VLLM_0_17);
    assert_int_equal(planner_scenario(p)->block_tokens, DEFAULT_BLOCK_TOKENS);
    assert_string_equal(p->error, "");
    assert_non_null(strstr(p->status, "the 48-token block is off with this engine"));
    assert_true(planner_undo(p));
    assert_int_equal(planner_scenario(p)->block_tokens, 48);
    assert_int_equal(planner_scenario(p)->engine.rule, RULE_VLLM_0_20);
}

static void the_engine_control_switches_the_count_to_the_engines(void **state)
{
    (void)state;
    struct planner *p = start("a100-40gb", "llama-3-8b", 8192);
    p->focus = CTRL_ENGINE;
    planner_key(p, KEY_RIGHT); /* generic -> vllm */
    assert_int_equal(planner_scenario(p)->engine.kind, ENGINE_VLLM);
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(planner_scenario(p), PLAN_NUMBERS, NULL, &r, &d));
    /* one answer: the count, the curve's point and the explain row are the engine's */
    assert_int_equal(planner_result(p)->max_users, r.max_users);
    assert_true(planner_result(p)->generic.present);
    assert_true(planner_result(p)->generic.max_users != planner_result(p)->max_users); /* the engine's rule differs */
    const struct explain_row *users = explain_find(&p->explain, "users");
    assert_non_null(users);
    assert_true(users->result.value == (long double)planner_result(p)->max_users);
    char v[64];
    control_format(CTRL_ENGINE, planner_scenario(p), planner_result(p), v, sizeof v);
    assert_string_equal(v, "vLLM 0.21"); /* the newest release, named */
    planner_key(p, 'r');
    assert_int_equal(planner_scenario(p)->engine.kind, ENGINE_GENERIC);
}

/* Draft: none, then the smaller models of the same vocabulary; a draft
 * brings the Spec tokens control and the copied command carries both. */
static void the_draft_control_adds_a_draft_and_its_tokens(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    uint64_t before = planner_result(p)->max_users;
    assert_false(control_visible(CTRL_SPEC_TOKENS, planner_scenario(p)));
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(CTRL_DRAFT, planner_scenario(p), planner_result(p), &cat, v);
    assert_true(n >= 2);
    assert_int_equal(v[0], DRAFT_NONE);
    /* Llama 3.1 8B has no MTP layer: the first draft is a smaller Llama */
    const struct model_spec *first = &cat.models[v[1] - DRAFT_MODEL_BASE].spec;
    assert_int_equal(first->vocab_size, 128256);
    p->focus = CTRL_DRAFT;
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_scenario(p)->spec_method, SPEC_DRAFT);
    assert_string_equal(planner_scenario(p)->draft.id, first->id);
    assert_true(planner_result(p)->max_users < before);
    assert_int_equal(planner_result(p)->max_users, users_for(planner_scenario(p)));
    assert_true(control_visible(CTRL_SPEC_TOKENS, planner_scenario(p)));
    char text[64];
    control_format(CTRL_SPEC_TOKENS, planner_scenario(p), planner_result(p), text, sizeof text);
    assert_string_equal(text, "auto 1");
    planner_key(p, 'r');
    assert_int_equal(planner_scenario(p)->spec_method, SPEC_NONE);
    assert_int_equal(planner_result(p)->max_users, before);

    /* DeepSeek-V3 offers its MTP layer */
    p = start("h200", "deepseek-v3", 8192);
    n = control_values(CTRL_DRAFT, planner_scenario(p), planner_result(p), &cat, v);
    assert_int_equal(v[1], DRAFT_MTP);
    struct scenario s = *planner_scenario(p);
    control_set(CTRL_DRAFT, &s, &cat, DRAFT_MTP);
    control_format(CTRL_DRAFT, &s, planner_result(p), text, sizeof text);
    assert_string_equal(text, "MTP (1 layer)");
}

static void type(struct planner *p, enum control c, const char *text);

static bool offers_draft(const uint64_t *v, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (v[i] >= DRAFT_MODEL_BASE && strcmp(cat.models[v[i] - DRAFT_MODEL_BASE].spec.id, id) == 0)
            return true;
    return false;
}

/* A draft is small: the same vocabulary and at most a quarter of the
 * model's parameters; the current draft stays in the list whatever it is. */
static void the_draft_list_offers_small_models_of_the_same_vocabulary(void **state)
{
    (void)state;
    uint64_t v[CONTROL_VALUES_MAX];
    /* DeepSeek-V3.2 (671B, vocabulary 129,280): MTP, and not DeepSeek-V3 (671B) */
    struct planner *p = start("h200", "deepseek-v3.2", 8192);
    int n = control_values(CTRL_DRAFT, planner_scenario(p), planner_result(p), &cat, v);
    assert_int_equal(v[1], DRAFT_MTP);
    assert_false(offers_draft(v, n, "deepseek-v3"));
    for (int i = 2; i < n; i++) {
        const struct model_spec *m = &cat.models[v[i] - DRAFT_MODEL_BASE].spec;
        assert_true(m->params * 4 <= planner_scenario(p)->model.params);
    }
    /* Llama 3.1 8B (8.03B): a quarter is 2.01B, so Llama 3.2 1B (1.24B) but
     * not Llama 3.2 3B (3.21B) */
    p = start("h100-sxm", "llama-3.1-8b", 8192);
    n = control_values(CTRL_DRAFT, planner_scenario(p), planner_result(p), &cat, v);
    assert_true(offers_draft(v, n, "llama-3.2-1b"));
    assert_false(offers_draft(v, n, "llama-3.2-3b"));
    /* Llama 3.1 70B (70.55B, a quarter 17.6B): 1B, 3B and 8B */
    p = start("h100-sxm", "llama-3.1-70b", 8192);
    n = control_values(CTRL_DRAFT, planner_scenario(p), planner_result(p), &cat, v);
    assert_true(offers_draft(v, n, "llama-3.2-1b") && offers_draft(v, n, "llama-3.2-3b") &&
                offers_draft(v, n, "llama-3.1-8b"));
    assert_false(offers_draft(v, n, "llama-3.3-70b"));
    /* a big draft given on the command line stays where the list can step from it */
    p = start("h100-sxm", "llama-3.1-8b", 8192);
    struct scenario s = *planner_scenario(p);
    s.spec_method = SPEC_DRAFT;
    s.draft = catalog_find_model(&cat, "llama-3.2-3b")->spec;
    n = control_values(CTRL_DRAFT, &s, planner_result(p), &cat, v);
    assert_true(offers_draft(v, n, "llama-3.2-3b"));
}

/* Spec tokens: "auto" then every other number, so each step changes it;
 * typed, 1 to 64 as the option takes them, 0 or auto for the default. */
static void every_spec_tokens_step_changes_the_number(void **state)
{
    (void)state;
    uint64_t v[CONTROL_VALUES_MAX];
    char text[64];
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 8192);
    struct scenario s = *planner_scenario(p);
    s.engine.kind = ENGINE_VLLM;
    control_set(CTRL_DRAFT, &s, &cat,
                DRAFT_MODEL_BASE + (uint64_t)(catalog_find_model(&cat, "llama-3.2-1b") - cat.models));
    assert_true(planner_apply(p, &s));
    /* vLLM's default is 1 token: auto 1, then 2 */
    int n = control_values(CTRL_SPEC_TOKENS, planner_scenario(p), planner_result(p), &cat, v);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[1], 2);
    assert_int_equal(v[n - 1], SPEC_TOKENS_MAX);
    planner_step(p, CTRL_SPEC_TOKENS, +1, false);
    assert_int_equal(planner_scenario(p)->spec_tokens, 2);
    planner_step(p, CTRL_SPEC_TOKENS, -1, false);
    control_format(CTRL_SPEC_TOKENS, planner_scenario(p), planner_result(p), text, sizeof text);
    assert_string_equal(text, "auto 1");
    /* llama.cpp's default is 16 (--draft-max): 15 and then 32 beside it */
    s = *planner_scenario(p);
    s.engine.kind = ENGINE_LLAMACPP;
    assert_true(planner_apply(p, &s));
    n = control_values(CTRL_SPEC_TOKENS, planner_scenario(p), planner_result(p), &cat, v);
    for (int i = 1; i < n; i++)
        assert_true(v[i] != 16);
    /* typed: the range the command line takes, and auto */
    type(p, CTRL_SPEC_TOKENS, "65");
    assert_non_null(strstr(p->error, "Spec tokens: '65' is not a number of tokens from 1 to 64 "
                                     "(0 or auto: the default)"));
    type(p, CTRL_SPEC_TOKENS, "5");
    assert_int_equal(planner_scenario(p)->spec_tokens, 5);
    type(p, CTRL_SPEC_TOKENS, "auto");
    assert_int_equal(planner_scenario(p)->spec_tokens, 0);
}

/* Host KV fits the 13-column value: 300 GB = 3e11 / 2^30 = 279.40 GiB reads
 * "279 GiB/GPU"; 10 TB = 1e13 / 2^40 = 9.09 TiB reads "9.1 TiB/GPU"; whole
 * sizes that fit keep their form (5,000 GiB too: 13 columns). */
static void the_host_kv_value_fits_its_column(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    char text[64];
    static const struct {
        uint64_t bytes;
        const char *shown;
    } cases[] = {{300000000000ull, "279 GiB/GPU"}, {10000000000000ull, "9.1 TiB/GPU"},
                 {256ull << 30, "256 GiB/GPU"},    {5000ull << 30, "5,000 GiB/GPU"},
                 {50000ull << 30, "49 TiB/GPU"},   {20ull << 40, "20 TiB/GPU"},
                 {(16ull << 30) + (1ull << 29), "16.50 GiB/GPU"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario s = *planner_scenario(p);
        s.host_kv_bytes = cases[i].bytes;
        control_format(CTRL_HOST_KV, &s, planner_result(p), text, sizeof text);
        assert_string_equal(text, cases[i].shown);
        assert_true(strlen(text) <= 13);
    }
}

/* The presentation is a base, as the main screen is: a box opened on it
 * goes back to it, the versus view is presented from it, Esc or p leaves. */
static void q_quits_and_presentation_toggles(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(p, 'p');
    assert_int_equal(p->mode, MODE_PRESENT);
    planner_key(p, '?');
    assert_int_equal(p->mode, MODE_HELP);
    planner_key(p, 'x'); /* closes the help: back to the presentation */
    assert_int_equal(p->mode, MODE_PRESENT);
    planner_key(p, KEY_RIGHT); /* the main screen's keys work on it */
    assert_int_equal(planner_scenario(p)->context_tokens, 16384);
    planner_key(p, 27);
    assert_int_equal(p->mode, MODE_MAIN);
    assert_int_equal(p->base, MODE_MAIN);
    planner_key(p, 'n');
    planner_key(p, 'v');
    planner_key(p, 'p'); /* the versus view, presented */
    assert_int_equal(p->mode, MODE_VERSUS);
    assert_int_equal(p->base, MODE_PRESENT);
    planner_key(p, '1'); /* edits scenario 1 on the presentation */
    assert_int_equal(p->mode, MODE_PRESENT);
    assert_int_equal(p->current, 0);
    planner_key(p, 'p');
    assert_int_equal(p->mode, MODE_MAIN);
    planner_key(p, 'D');
    planner_key(p, 'y');
    assert_int_equal(planner_key(p, 'q') & PLAN_QUIT, PLAN_QUIT);
}

static void type(struct planner *p, enum control c, const char *text)
{
    p->focus = c;
    planner_key(p, '\n');
    for (const char *k = text; *k; k++)
        planner_key(p, *k);
    planner_key(p, '\n');
}

/* The Prefix control's top is the largest prefix a context holds, its
 * tokens less the one each user keeps (the rule plan and sweep apply and
 * typing a larger one is held to): End goes there, not to a power of two. */
static void the_prefix_control_ends_where_the_context_holds_it(void **state)
{
    (void)state;
    struct planner *p = start("a100-80gb", "llama-2-7b", 8192);
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(CTRL_PREFIX, planner_scenario(p), planner_result(p), p->catalog, v);
    assert_true(n > 1);
    assert_int_equal(v[n - 1], 8191);
    p->focus = CTRL_PREFIX;
    planner_key(p, KEY_END);
    assert_int_equal(planner_scenario(p)->prefix_tokens, 8191);
}

static void refusals_name_the_control_in_the_planners_words(void **state)
{
    (void)state;
    /* core names the field; the planner says "Average" and "Context", not --avg-context */
    struct planner *p = start("a100-80gb", "llama-2-7b", 4096);
    type(p, CTRL_PREFIX, "1000");
    type(p, CTRL_AVG, "900");
    assert_non_null(strstr(p->error, "900 tokens must be more than Prefix"));
    assert_null(strstr(p->error, "--"));
    assert_int_equal(planner_scenario(p)->avg_context_tokens, 0);
    /* a fraction of a GPU is refused, not rounded down to 2 */
    type(p, CTRL_GPUS, "2.5");
    assert_non_null(strstr(p->error, "GPUs: '2.5' is not a whole number"));
    assert_int_equal(planner_scenario(p)->gpus, 1);
    type(p, CTRL_KV_HEADS, "7.5");
    assert_non_null(strstr(p->error, "KV heads: '7.5' is not a whole number"));
}

/* The scenario being edited lives in its slot alone: back on it after
 * another, its plan, its curve and its rows are its own; a refused change
 * leaves them as they were, byte for byte, with no undo entry. */
static void each_scenario_keeps_its_plan_curve_and_rows_in_its_slot(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    planner_key(p, 'n'); /* B, a copy of A, edited at 128k on two GPUs */
    type(p, CTRL_CONTEXT, "128k");
    type(p, CTRL_GPUS, "2");
    for (int i = 0; i < 2; i++) {
        planner_key(p, '1' + i);
        assert_int_equal(p->current, i);
        const struct scenario *s = planner_scenario(p);
        assert_int_equal(s->context_tokens, i ? 131072 : 32768);
        assert_int_equal(planner_result(p)->max_users, users_for(s));
        const struct explain_row *u = explain_find(&p->explain, "users");
        assert_non_null(u);
        assert_true(u->result.value == (long double)planner_result(p)->max_users);
        for (int k = 0; k < CHART_POINTS; k += 12) {
            struct scenario at = *s;
            at.context_tokens = planner_curve(p)->context_tokens[k];
            assert_int_equal(planner_curve(p)->users[k], users_for(&at));
        }
    }
    static struct planner_slot was;
    memcpy(&was, &p->slots[1], sizeof was);
    long double users = explain_find(&p->explain, "users")->result.value;
    type(p, CTRL_KV_HEADS, "3"); /* no divisor of the 64 heads: refused */
    assert_non_null(strstr(p->error, "KV heads: 3 does not divide"));
    assert_memory_equal(&p->slots[1].scenario, &was.scenario, sizeof was.scenario);
    assert_memory_equal(&p->slots[1].result, &was.result, sizeof was.result);
    assert_memory_equal(&p->slots[1].curve, &was.curve, sizeof was.curve);
    assert_int_equal(p->slots[1].undo_count, was.undo_count);
    assert_true(explain_find(&p->explain, "users")->result.value == users);
}

static void tp_splits_the_gpus_into_replicas_and_every_figure_follows(void **state)
{
    (void)state;
    /* 12 GPUs at TP 4: 3 replicas; users = 3 x one replica's, in the count and the rows */
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    type(p, CTRL_GPUS, "12");
    type(p, CTRL_TP, "4");
    assert_int_equal(planner_result(p)->tp, 4);
    assert_int_equal(planner_result(p)->replicas, 3);
    assert_int_equal(planner_result(p)->max_users, 3 * planner_result(p)->users_per_replica);
    const struct explain_row *u = explain_find(&p->explain, "users");
    assert_non_null(u);
    assert_string_equal(u->scope, "all replicas");
    assert_true(u->result.value == (long double)planner_result(p)->max_users);
    assert_non_null(explain_find(&p->explain, "users_replica"));
    /* GPUs that TP no longer divides: the default split, the largest TP of
     * the 10 the heads split over (64 heads, 8 KV heads: TP 2), in pipeline
     * stages rather than 5 replicas whose weights fill the budget (TP 2 x
     * PP 5: 65 GiB of weights a GPU would leave a replica no user at 32k) */
    type(p, CTRL_GPUS, "10");
    assert_int_equal(planner_scenario(p)->tp, 0);
    assert_int_equal(planner_result(p)->tp, 2);
    assert_int_equal(planner_result(p)->replicas, 1);
    assert_true(planner_result(p)->max_users > 0);
}

static void an_engine_brings_its_knobs_in_place_of_the_headroom(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    for (int i = 0; i < n; i++)
        assert_true(v[i] != CTRL_FRACTION && v[i] != CTRL_SEQS);
    assert_null(control_dim_reason(CTRL_HEADROOM, planner_scenario(p)));
    p->focus = CTRL_ENGINE;
    planner_key(p, KEY_RIGHT); /* generic -> vllm */
    /* its two knobs come in, the headroom (which moves nothing under it) goes */
    assert_int_equal(planner_controls(p, v), n + 1);
    assert_true(n + 1 <= CONTROLS_VISIBLE_MAX);
    for (int i = 0; i < n + 1; i++)
        assert_true(v[i] != CTRL_HEADROOM);
    assert_non_null(control_dim_reason(CTRL_HEADROOM, planner_scenario(p)));
    assert_string_equal(control_label(CTRL_FRACTION, planner_scenario(p)), "GPU util");
    /* the headroom moves nothing under vLLM: the answer is its rule's */
    uint64_t users = planner_result(p)->max_users;
    p->focus = CTRL_HEADROOM;
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_result(p)->max_users, users);
    /* 0.80 of the CUDA total instead of 0.90: fewer users, as the core says */
    type(p, CTRL_FRACTION, "0.8");
    assert_true(planner_scenario(p)->engine.gpu_memory_utilization == 0.8);
    assert_true(planner_result(p)->max_users < users);
    assert_int_equal(planner_result(p)->max_users, users_for(planner_scenario(p)));
    /* llama.cpp: the slots are the knob, and the launch line uses the count */
    p->focus = CTRL_ENGINE;
    for (int i = 0; i < 5; i++) /* vLLM's four older rules, then sglang */
        planner_key(p, KEY_RIGHT);
    assert_string_equal(control_label(CTRL_SEQS, planner_scenario(p)), "Max running");
    planner_key(p, KEY_RIGHT); /* llama.cpp */
    assert_string_equal(control_label(CTRL_SEQS, planner_scenario(p)), "Slots -np");
    char np[32];
    snprintf(np, sizeof np, "-np %llu ", (unsigned long long)planner_result(p)->max_users);
    assert_non_null(strstr(planner_result(p)->engine.launch, np));
}

static void w_lists_every_warning(void **state)
{
    (void)state;
    /* Llama 2 7B at 16k: past its 4k maximum, on an A100 without FP8 with an fp8 cache */
    struct planner *p = start("a100-80gb", "llama-2-7b", 16384);
    struct scenario s = *planner_scenario(p);
    s.kv_dtype = DTYPE_FP8;
    planner_apply(p, &s);
    assert_true(plan_shown_warnings(planner_result(p)) & WARN_CONTEXT_BEYOND_MODEL);
    assert_true(plan_shown_warnings(planner_result(p)) & WARN_FP8_UNSUPPORTED);
    planner_key(p, 'w');
    assert_int_equal(p->mode, MODE_WARNINGS);
    planner_key(p, ' ');
    assert_int_equal(p->mode, MODE_MAIN);
}

static void named_scenarios_switch_undo_and_travel_in_one_file(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    struct scenario s = *planner_scenario(p);
    s.gpus = 2;
    planner_apply(p, &s);
    uint64_t bf16 = planner_result(p)->max_users;
    planner_key(p, 'b'); /* A is the reference; B, a copy, is edited */
    assert_int_equal(p->count, 2);
    assert_int_equal(p->current, 1);
    type(p, CTRL_KV_DTYPE, "fp8");
    uint64_t fp8 = planner_result(p)->max_users;
    assert_true(fp8 > bf16);
    /* a label and a note, then a third scenario at 128k */
    planner_key(p, 'a');
    p->prompt.text[0] = '\0';
    for (const char *c = "fp8"; *c; c++)
        planner_key(p, *c);
    planner_key(p, '\n');
    assert_string_equal(p->slots[1].label, "fp8");
    planner_key(p, 'n');
    assert_int_equal(p->count, 3);
    type(p, CTRL_CONTEXT, "128k");
    /* undo and redo the context, in this scenario only */
    planner_key(p, 'z');
    assert_int_equal(planner_scenario(p)->context_tokens, 32768);
    planner_key(p, 'Z');
    assert_int_equal(planner_scenario(p)->context_tokens, 131072);
    /* switching keeps each scenario's own plan */
    planner_key(p, '1');
    assert_int_equal(p->current, 0);
    assert_int_equal(planner_result(p)->max_users, bf16);
    planner_key(p, '2');
    assert_int_equal(planner_result(p)->max_users, fp8);
    /* the versus view puts the reference first */
    int shown[4];
    assert_int_equal(planner_versus(p, shown), 3);
    assert_int_equal(shown[0], 0);
    planner_key(p, 'v');
    assert_int_equal(p->mode, MODE_VERSUS);
    planner_key(p, 27);
    /* the session round-trips through a file: labels, reference, current */
    static struct snapshot_session ss, back;
    const struct plan_result *results[PLANNER_SLOTS];
    planner_session(p, &ss, results);
    static struct explain scratch[PLANNER_SLOTS];
    const struct explain *explains[PLANNER_SLOTS];
    planner_explains(p, explains, scratch);
    char *json = snapshot_session_to_json(&ss, results, explains, "test");
    assert_non_null(json);
    struct diag d = {0};
    if (!snapshot_parse_session("s.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    free(json);
    assert_int_equal(back.count, 3);
    assert_int_equal(back.reference, 0);
    assert_int_equal(back.current, 1);
    assert_string_equal(back.entry[1].label, "fp8");
    assert_int_equal(back.entry[1].scenario.kv_dtype, DTYPE_FP8);
    assert_int_equal(snapshot_session_find(&back, "FP8"), 1); /* labels ignore case */
    static struct planner q;
    planner_init_session(&q, &cat, &back);
    assert_int_equal(planner_result(&q)->max_users, fp8);
    assert_int_equal(planner_result_of(&q, 2)->context_tokens, 131072);
}

/* Stepping TP keeps the stages of the layout in use: Llama 3.1 70B on 12
 * H100s is TP 4 x PP 3 (287 users); Left on TP gives TP 2 x PP 3, two
 * replicas, not six replicas of TP 2 without stages (24 users). */
static void stepping_tp_keeps_the_stages(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 8192);
    struct scenario s = *planner_scenario(p);
    s.gpus = 12;
    planner_apply(p, &s);
    assert_int_equal(scenario_tp(planner_scenario(p)), 4);
    assert_int_equal(scenario_pp(planner_scenario(p)), 3);
    p->focus = CTRL_TP;
    planner_key(p, KEY_LEFT);
    assert_int_equal(scenario_tp(planner_scenario(p)), 2);
    assert_int_equal(scenario_pp(planner_scenario(p)), 3);
    assert_int_equal(planner_result(p)->replicas, 2);
}

/* Stages steps below the default's: 70B on 12 H100s is TP 4 x PP 3; Left
 * gives 2 stages (three replicas of TP 2 x PP 2), then 1 (three of TP 4):
 * a stage need not be one replica's TP (it was a silent no-op). */
static void stepping_stages_goes_below_the_default(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 8192);
    struct scenario s = *planner_scenario(p);
    s.gpus = 12;
    planner_apply(p, &s);
    assert_int_equal(scenario_pp(planner_scenario(p)), 3);
    p->focus = CTRL_PP;
    planner_key(p, KEY_LEFT);
    assert_int_equal(scenario_pp(planner_scenario(p)), 2);
    planner_key(p, KEY_LEFT);
    assert_int_equal(scenario_pp(planner_scenario(p)), 1);
    assert_int_equal(scenario_tp(planner_scenario(p)), 4);
}

static void what_would_it_take_offers_single_changes_that_reach_the_target(void **state)
{
    (void)state;
    /* Llama 3.1 70B on 2 x H100 at 32k serves a few users; ask for 20 (40
     * would take a context under 1k, which T no longer offers) */
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    struct scenario s = *planner_scenario(p);
    s.gpus = 2;
    planner_apply(p, &s);
    assert_true(planner_result(p)->max_users < 20);
    planner_key(p, 'T');
    p->prompt.text[0] = '\0';
    planner_key(p, '2');
    planner_key(p, '0');
    planner_key(p, '\n');
    assert_int_equal(p->mode, MODE_OPTIONS);
    assert_true(p->option_count >= 3);
    for (int i = 0; i < p->option_count; i++)
        assert_true(p->options[i].users >= 20 && users_for(&p->options[i].scenario) >= 20);
    /* one keystroke applies it, and z takes it back */
    uint64_t before = planner_result(p)->max_users;
    planner_key(p, '1');
    assert_true(planner_result(p)->max_users >= 20);
    planner_key(p, 'z');
    assert_int_equal(planner_result(p)->max_users, before);
}

static void copy_sends_the_command_line_that_reproduces_the_plan(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    type(p, CTRL_GPUS, "12");
    type(p, CTRL_TP, "4");
    p->focus = CTRL_ENGINE;
    planner_key(p, KEY_RIGHT); /* vllm */
    planner_key(p, 'y');
    assert_int_equal(p->mode, MODE_COPIED);
    assert_true(p->copy_pending);
    assert_non_null(strstr(p->copied, "kvplan plan --gpu h100-sxm --model llama-3.1-70b --gpus 12 --tp 4"));
    assert_non_null(strstr(p->copied, "--engine vllm"));
    planner_key(p, ' ');
    planner_key(p, 'Y');
    assert_non_null(strstr(p->copied, "vllm serve"));
    assert_non_null(strstr(p->copied, "--data-parallel-size 3"));
}

static void a_prefilled_prompt_is_replaced_by_typing_and_cleared_by_ctrl_u(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 32768);
    struct scenario s = *planner_scenario(p);
    s.gpus = 2;
    planner_apply(p, &s);
    planner_key(p, 'T');
    planner_key(p, '6');
    planner_key(p, '0');
    planner_key(p, '\n');
    assert_int_equal(p->target_users, 60);
    planner_key(p, 27);
    /* T again: 60 is offered; typing 40 replaces it, it does not make 6040 */
    p->mode = MODE_MAIN;
    planner_key(p, 'T');
    assert_string_equal(p->prompt.text, "60");
    assert_true(p->prompt.fresh);
    planner_key(p, '4');
    planner_key(p, '0');
    assert_string_equal(p->prompt.text, "40");
    /* Ctrl-U clears; Backspace edits a prefilled value instead of replacing it */
    planner_key(p, 21);
    assert_string_equal(p->prompt.text, "");
    planner_key(p, 27);
    p->mode = MODE_MAIN;
    planner_key(p, 'T');
    planner_key(p, KEY_BACKSPACE);
    planner_key(p, '5');
    assert_string_equal(p->prompt.text, "65"); /* 60, Backspace, 5 */
}

static void removing_a_scenario_asks_first(void **state)
{
    (void)state;
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(p, 'n');
    assert_int_equal(p->count, 2);
    planner_key(p, 'D');
    assert_int_equal(p->mode, MODE_CONFIRM);
    planner_key(p, 'n'); /* anything but y keeps it */
    assert_int_equal(p->count, 2);
    assert_int_equal(p->mode, MODE_MAIN);
    assert_non_null(strstr(p->status, "kept scenario"));
    planner_key(p, 'D');
    planner_key(p, 'y');
    assert_int_equal(p->count, 1);
    assert_non_null(strstr(p->status, "removed scenario"));
}

static void llama_cpp_splits_layers_not_tensors(void **state)
{
    (void)state;
    /* llama.cpp's default split mode is by layer (src/llama-model.cpp
     * llama_model_default_params: LLAMA_SPLIT_MODE_LAYER): 4 GPUs in groups
     * of 2 are 4 / 2 = 2 replicas, each with its layers over 2 GPUs */
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    char text[64];
    struct scenario s = *planner_scenario(p);
    s.engine.kind = ENGINE_LLAMACPP;
    s.gpus = 4;
    s.tp = 2;
    assert_true(planner_apply(p, &s));
    control_format(CTRL_TP, planner_scenario(p), planner_result(p), text, sizeof text);
    assert_string_equal(text, "layers/2 x2");
    s = *planner_scenario(p);
    s.gpus = 2;
    s.tp = 0;
    assert_true(planner_apply(p, &s));
    control_format(CTRL_TP, planner_scenario(p), planner_result(p), text, sizeof text);
    assert_string_equal(text, "layers/2");
    /* other engines keep tensor parallel */
    s = *planner_scenario(p);
    s.engine.kind = ENGINE_VLLM;
    assert_true(planner_apply(p, &s));
    control_format(CTRL_TP, planner_scenario(p), planner_result(p), text, sizeof text);
    assert_string_equal(text, "2 x1 repl");
}

static void quitting_an_unexported_session_asks_first(void **state)
{
    (void)state;
    /* one unchanged scenario, or one changed scenario without a note: q quits */
    struct planner *p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_key(p, 'q') & PLAN_QUIT, PLAN_QUIT);
    /* b n Right: three scenarios never exported; q asks, anything but y stays */
    p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(p, 'b');
    planner_key(p, 'n');
    planner_key(p, KEY_RIGHT);
    assert_int_equal(planner_key(p, 'q') & PLAN_QUIT, 0);
    assert_int_equal(p->mode, MODE_CONFIRM);
    assert_int_equal(p->pending.kind, PROMPT_QUIT);
    assert_int_equal(planner_key(p, 'n') & PLAN_QUIT, 0);
    assert_false(p->quit);
    assert_int_equal(p->mode, MODE_MAIN);
    /* e answers by opening the export prompt */
    planner_key(p, 'q');
    planner_key(p, 'e');
    assert_int_equal(p->mode, MODE_PROMPT);
    assert_int_equal(p->prompt.kind, PROMPT_EXPORT);
    planner_key(p, 27);
    /* from the versus view, Q too */
    planner_key(p, 'v');
    assert_int_equal(planner_key(p, 'q') & PLAN_QUIT, 0);
    assert_int_equal(p->mode, MODE_CONFIRM);
    assert_int_equal(planner_key(p, 'y') & PLAN_QUIT, PLAN_QUIT);
    assert_true(p->quit);
    /* exported: unchanged since, q quits; a change after it asks again */
    p = start("h100-sxm", "llama-3.1-8b", 8192);
    planner_key(p, 'n');
    char path[] = "/tmp/kvplan-quit-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    prompt_export(p, path, PROMPT_EXPORT);
    unlink(path);
    assert_false(planner_unsaved(p));
    planner_key(p, KEY_RIGHT);
    assert_true(planner_unsaved(p));
    planner_key(p, KEY_LEFT); /* back where it was exported */
    assert_false(planner_unsaved(p));
    /* a note on a single scenario is work too */
    p = start("h100-sxm", "llama-3.1-8b", 8192);
    snprintf(p->slots[0].note, sizeof p->slots[0].note, "ask finance");
    assert_true(planner_unsaved(p));
}

static void the_service_level_counts_in_target_copy_and_picker(void **state)
{
    (void)state;
    /* 8 x H100, 70B, fp8, 30 tok/s: more users fit than keep the speed */
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 8192);
    struct scenario s = *planner_scenario(p);
    s.gpus = 8;
    s.kv_dtype = DTYPE_FP8;
    s.weight_dtype = DTYPE_FP8;
    s.min_tokens_per_s = 30;
    planner_apply(p, &s);
    uint64_t fit = planner_result(p)->max_users, served = planner_result(p)->speed.users_at_service_level;
    assert_true(served < fit);
    /* a target between the two is not "already" met */
    char want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)(served + 1));
    planner_key(p, 'T');
    for (const char *c = want; *c; c++)
        planner_key(p, *c);
    planner_key(p, '\n');
    assert_null(strstr(p->status, "already"));
    assert_int_equal(p->mode, MODE_OPTIONS);
    for (int i = 0; i < p->option_count; i++)
        assert_true(p->options[i].users > served);
    planner_key(p, 27);
    p->mode = MODE_MAIN;
    /* the copied command carries the service level, so it gives the same headline */
    planner_key(p, 'y');
    assert_non_null(strstr(p->copied, " --min-tok-s 30"));
    planner_key(p, ' ');
    /* the picker's users column counts the users served, as the headline does */
    bool fits = false;
    p->picker.of = CTRL_GPU;
    int h100 = -1;
    for (size_t i = 0; i < cat.gpu_count; i++)
        if (strcmp(cat.gpus[i].spec.id, "h100-sxm") == 0)
            h100 = (int)i;
    assert_true(h100 >= 0);
    assert_int_equal(planner_picker_users(p, h100, &fits), served);
}

static void pipeline_and_dp_attention_layouts_stay_editable(void **state)
{
    (void)state;
    /* 16 GPUs as TP 4 x PP 2: the GPUs step in whole replicas (8), the title
     * and the TP control name the stages */
    struct planner *p = start("h100-sxm", "llama-3.1-70b", 8192);
    struct scenario s = *planner_scenario(p);
    s.gpus = 16;
    s.tp = 4;
    s.pp = 2;
    s.engine.kind = ENGINE_VLLM;
    planner_apply(p, &s);
    assert_int_equal(planner_result(p)->pp, 2);
    p->focus = CTRL_GPUS;
    planner_key(p, KEY_LEFT);
    assert_int_equal(planner_scenario(p)->gpus, 8);
    assert_int_equal(planner_scenario(p)->tp, 4);
    assert_string_equal(p->error, "");
    char v[64];
    control_format(CTRL_TP, planner_scenario(p), planner_result(p), v, sizeof v);
    /* one form with and without stages (issue 21): the group, then " xN repl"
     * (was "4 x 2 repl" beside "4 pp2 x1 repl") */
    assert_string_equal(v, "4 pp2 x1 repl");
    s = *planner_scenario(p);
    s.pp = 0;
    planner_apply(p, &s);
    control_format(CTRL_TP, planner_scenario(p), planner_result(p), v, sizeof v);
    assert_string_equal(v, "4 x2 repl");
    /* DP attention belongs to SGLang: leaving it turns it off, not a refusal */
    struct planner *q = start("h200", "deepseek-v3", 8192);
    s = *planner_scenario(q);
    s.gpus = 8;
    s.engine.kind = ENGINE_SGLANG;
    s.dp_attention = true;
    planner_apply(q, &s);
    assert_true(planner_result(q)->dp_attention);
    q->focus = CTRL_ENGINE;
    planner_key(q, KEY_RIGHT);
    assert_int_not_equal(planner_scenario(q)->engine.kind, ENGINE_SGLANG);
    assert_false(planner_scenario(q)->dp_attention);
    assert_string_equal(q->error, "");
    assert_non_null(strstr(q->status, "DP attention (SGLang) is off with this engine"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(right_on_context_doubles_it_and_the_users_follow_the_core),
        cmocka_unit_test(context_slider_snaps_to_powers_of_two_and_the_model_maximum),
        cmocka_unit_test(typing_32k_sets_the_context_exactly),
        cmocka_unit_test(the_prefix_control_ends_where_the_context_holds_it),
        cmocka_unit_test(kv_heads_step_through_the_divisors_of_the_heads),
        cmocka_unit_test(the_picker_filters_and_picks),
        cmocka_unit_test(an_id_typed_whole_comes_first),
        cmocka_unit_test(baseline_then_compare_keeps_both_scenarios),
        cmocka_unit_test(export_writes_what_plan_json_prints_and_asks_before_overwriting),
        cmocka_unit_test(the_curve_matches_the_core_at_its_points),
        cmocka_unit_test(the_engine_control_switches_the_count_to_the_engines),
        cmocka_unit_test(an_engine_drops_a_cache_type_it_lacks_and_says_so),
        cmocka_unit_test(an_engine_step_drops_a_block_the_release_refuses),
        cmocka_unit_test(the_draft_control_adds_a_draft_and_its_tokens),
        cmocka_unit_test(the_draft_list_offers_small_models_of_the_same_vocabulary),
        cmocka_unit_test(every_spec_tokens_step_changes_the_number),
        cmocka_unit_test(the_host_kv_value_fits_its_column),
        cmocka_unit_test(q_quits_and_presentation_toggles),
        cmocka_unit_test(refusals_name_the_control_in_the_planners_words),
        cmocka_unit_test(each_scenario_keeps_its_plan_curve_and_rows_in_its_slot),
        cmocka_unit_test(tp_splits_the_gpus_into_replicas_and_every_figure_follows),
        cmocka_unit_test(an_engine_brings_its_knobs_in_place_of_the_headroom),
        cmocka_unit_test(w_lists_every_warning),
        cmocka_unit_test(named_scenarios_switch_undo_and_travel_in_one_file),
        cmocka_unit_test(stepping_tp_keeps_the_stages),
        cmocka_unit_test(stepping_stages_goes_below_the_default),
        cmocka_unit_test(what_would_it_take_offers_single_changes_that_reach_the_target),
        cmocka_unit_test(copy_sends_the_command_line_that_reproduces_the_plan),
        cmocka_unit_test(a_prefilled_prompt_is_replaced_by_typing_and_cleared_by_ctrl_u),
        cmocka_unit_test(removing_a_scenario_asks_first),
        cmocka_unit_test(quitting_an_unexported_session_asks_first),
        cmocka_unit_test(llama_cpp_splits_layers_not_tensors),
        cmocka_unit_test(the_service_level_counts_in_target_copy_and_picker),
        cmocka_unit_test(pipeline_and_dp_attention_layouts_stay_editable),
    };
    return cmocka_run_group_tests_name("planner", tests, load, unload);
}
