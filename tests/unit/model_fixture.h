/* One fixture per catalogue model and GPU the unit tests use: each is the
 * preset compiled into the binary (presets/models/ID.json), so a test's
 * worked numbers rest on the same facts the planner shows and a fixture
 * cannot drift from its preset. Static inline so each test file takes
 * what it uses. */
#ifndef KVPLAN_TESTS_MODEL_FIXTURE_H
#define KVPLAN_TESTS_MODEL_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/plan.h"
#include "io/catalog.h"

/* The embedded catalogue, loaded on first use and kept for the process. */
static inline const struct catalog *fixture_catalog(void)
{
    static struct catalog c;
    static int loaded;
    if (!loaded) {
        struct diag d = {0};
        catalog_init(&c);
        if (!catalog_load_embedded(&c, &d))
            fail_msg("embedded catalogue: %s", d.message);
        loaded = 1;
    }
    return &c;
}

static inline struct model_spec preset_model(const char *id)
{
    const struct catalog_model *m = catalog_find_model(fixture_catalog(), id);
    if (!m)
        fail_msg("no model preset %s", id);
    return m->spec;
}

static inline struct gpu_spec preset_gpu(const char *id)
{
    const struct catalog_gpu *g = catalog_find_gpu(fixture_catalog(), id);
    if (!g)
        fail_msg("no GPU preset %s", id);
    return g->spec;
}

static inline struct model_spec llama2_7b(void) { return preset_model("llama-2-7b"); }
static inline struct model_spec llama3_8b(void) { return preset_model("llama-3-8b"); }
static inline struct model_spec llama31_8b(void) { return preset_model("llama-3.1-8b"); }
static inline struct model_spec llama31_70b(void) { return preset_model("llama-3.1-70b"); }
static inline struct model_spec deepseek_v3(void) { return preset_model("deepseek-v3"); }
static inline struct model_spec deepseek_v32(void) { return preset_model("deepseek-v3.2"); }
static inline struct model_spec gemma3_27b(void) { return preset_model("gemma-3-27b"); }
static inline struct model_spec qwen3_next(void) { return preset_model("qwen3-next-80b-a3b"); }
static inline struct model_spec nemotron_9b_v2(void) { return preset_model("nemotron-9b-v2"); }
/* Llama 3.1 8B with half its parameters in 8 experts of 2 a token: a coarse
 * MoE with round numbers (5/8 of the weights read by one user) */
static inline struct model_spec coarse_moe_8b(void)
{
    struct model_spec m = llama31_8b();
    m.experts = 8;
    m.experts_per_token = 2;
    m.expert_params = m.params / 2;
    return m;
}
static inline struct gpu_spec h100_sxm(void) { return preset_gpu("h100-sxm"); }
static inline struct gpu_spec a100_40gb(void) { return preset_gpu("a100-40gb"); }

/* The numbers of a scenario that must plan: a refusal fails the test with its message. */
static inline struct plan_result fixture_plan(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

/* Llama 2 7B F16, one 512-token prompt alone, as llama-bench's pp512 */
static inline struct scenario pp512_fixture(const struct gpu_spec *g, const struct model_spec *m,
                                            enum engine_kind kind)
{
    struct scenario s;
    scenario_default(&s, g, m);
    s.engine.kind = kind;
    s.weight_dtype = DTYPE_FP16;
    s.context_tokens = 640;
    s.prompt_tokens = 512;
    s.concurrency = 1;
    return s;
}

/* pp512's FLOPs for Llama 2 7B: 2 x 6,738,415,616 params x 512 + 4 x 32
 * heads x 128 x 32 layers x (512 x 513 / 2) attended pairs =
 * 6,900,137,590,784 + 68,853,694,464 */
#define PP512_FLOPS 6968991285248.0

#endif
