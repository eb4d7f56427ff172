/* A sweep along the context (core/plan.h plan_prepare, plan_at_context)
 * gives plan_compute's plan byte for byte: every model of the catalogue on
 * every engine and version, with windows, MLA, hybrids, a shared prefix, an
 * average, a draft, MTP, images, LoRA, pipeline stages, DP attention, a host
 * tier, a service level and a speed calibration, each at contexts up and
 * down in turn (those refused among them, refused with plan_compute's
 * message). */
#include "catalog_fixture.h"

#include "core/engine_desc.h"
#include "core/plan.h"

enum { VARIANTS = 13 };

/* The smallest model of the catalogue: the draft. */
static const struct model_spec *smallest_model(void)
{
    const struct model_spec *best = &cat.models[0].spec;
    for (size_t i = 1; i < cat.model_count; i++)
        if (cat.models[i].spec.params < best->params)
            best = &cat.models[i].spec;
    return best;
}

/* Scenario `variant` of model m on GPU g, engine k at its version `version`. */
static struct scenario variant_of(size_t m, size_t g, enum engine_kind k, size_t version,
                                  int variant)
{
    struct scenario s;
    scenario_default(&s, &cat.gpus[g].spec, &cat.models[m].spec);
    const struct engine_desc *e = engine_desc(k);
    size_t versions = 0;
    while (versions < ENGINE_VERSIONS_MAX && e->versions[versions].label)
        versions++;
    s.engine.kind = k;
    s.engine.rule = versions ? e->versions[version % versions].rule : RULE_CURRENT;
    switch (variant) {
    case 1: /* replicas */
        s.gpus = 8;
        s.tp = 4;
        break;
    case 2: /* stages */
        s.gpus = 4;
        s.pp = 2;
        break;
    case 3: /* a draft model */
        s.spec_method = SPEC_DRAFT;
        s.draft = *smallest_model();
        s.spec_tokens = 3;
        break;
    case 4: /* the model's own MTP layers, where it has them */
        s.spec_method = SPEC_MTP;
        break;
    case 5: /* images, and a prompt the small contexts are below */
        s.images = 2;
        s.image_tokens = 576;
        s.prompt_tokens = 2048;
        break;
    case 6:
        s.max_loras = 4;
        s.max_lora_rank = 32;
        break;
    case 7: /* DP attention */
        s.gpus = 4;
        s.dp_attention = true;
        break;
    case 8: /* a host tier and a service level */
        s.host_kv_bytes = 256ull << 30;
        s.has_prefix_hit_rate = true;
        s.prefix_hit_rate = 0.5;
        s.min_tokens_per_s = 20;
        s.max_ttft_seconds = 4;
        break;
    case 9: /* an FP8 cache, every layer global, a fixed batch */
        s.kv_dtype = DTYPE_FP8;
        s.full_attention = true;
        s.concurrency = 64;
        break;
    case 10: /* llama.cpp's slots (refused elsewhere), a tighter GPU */
        s.engine.parallel = 4;
        s.headroom_percent = 30;
        break;
    case 11: /* expert parallel, where there are experts */
        s.gpus = 8;
        s.tp = 2;
        s.expert_parallel = true;
        break;
    case 12: /* a speed calibration's figures, and no public band for them */
        s.mbu = 0.6;
        s.has_step_overhead = true;
        s.step_overhead_s = 2e-3;
        s.speed_calibrated = SPEED_CAL_MBU | SPEED_CAL_OVERHEAD | SPEED_CAL_MFU;
        snprintf(s.speed_basis, sizeof s.speed_basis, "a benchmark");
        break;
    default:
        break;
    }
    return s;
}

struct tally {
    size_t planned, refused, prepared, bases;
};

/* plan_compute and plan_at_context at one context, prefix and average. */
static void same_at(struct plan_base *b, uint64_t ctx, uint64_t prefix, uint64_t avg,
                    struct tally *t)
{
    struct scenario s = b->s;
    s.context_tokens = ctx;
    s.prefix_tokens = prefix;
    s.avg_context_tokens = avg;
    static struct plan_result want;
    struct diag dw = {0}, dg = {0};
    bool ok = plan_compute(&s, PLAN_NUMBERS, NULL, &want, &dw);
    const struct plan_result *got = plan_at_context(b, ctx, prefix, avg, &dg);
    if (ok != (got != NULL))
        fail_msg("%s on %s, %s, context %llu: plan_compute %s, plan_at_context %s", s.model.id,
                 s.gpu.id, engine_label(s.engine.kind, s.engine.rule), (unsigned long long)ctx,
                 ok ? "plans" : dw.message, got ? "plans" : dg.message);
    if (!ok) {
        assert_string_equal(dw.message, dg.message);
        t->refused++;
        return;
    }
    if (memcmp(&want, got, sizeof want) != 0) {
        size_t at = 0;
        while (((const unsigned char *)&want)[at] == ((const unsigned char *)got)[at])
            at++;
        fail_msg("%s on %s, %s, context %llu, prefix %llu, average %llu: the plans differ "
                 "from byte %zu of %zu",
                 s.model.id, s.gpu.id, engine_label(s.engine.kind, s.engine.rule),
                 (unsigned long long)ctx, (unsigned long long)prefix, (unsigned long long)avg, at,
                 sizeof want);
    }
    t->planned++;
}

/* Up and down, refused ones between (a prefix or average the context is
 * not above, a context past TOKENS_MAX). */
static void contexts_up_and_down(struct plan_base *b, struct tally *t)
{
    static const uint64_t ctx[] = {32768, 1, 1 << 20, 3000, TOKENS_MAX + 1, 512, 200000};
    for (size_t i = 0; i < sizeof ctx / sizeof ctx[0]; i++) {
        same_at(b, ctx[i], 0, 0, t);
        same_at(b, ctx[i], 1000, i % 2 ? 2500 : 0, t);
    }
}

static void every_model_engine_and_variant_plans_as_plan_compute(void **state)
{
    (void)state;
    static struct plan_base b; /* 20 KB */
    struct tally t = {0};
    for (size_t m = 0; m < cat.model_count; m++)
        for (int k = 0; k < ENGINE_COUNT; k++)
            for (int v = 0; v < VARIANTS; v++) {
                struct scenario s = variant_of(m, (m + (size_t)v) % cat.gpu_count,
                                               (enum engine_kind)k, m + (size_t)v, v);
                /* plan_prepare ignores the context: a nonsense one must not matter */
                s.context_tokens = 0;
                s.prefix_tokens = 7;
                plan_prepare(&s, NULL, &b);
                t.bases++;
                t.prepared += b.ready;
                contexts_up_and_down(&b, &t);
            }
    /* most scenarios take the path along the context, and plan at most of
     * its contexts; some contexts are refused */
    assert_true(t.prepared > t.bases / 2);
    assert_true(t.planned > t.prepared * 7);
    assert_true(t.refused > t.bases);
}

/* A scenario plan_prepare refuses (an engine's option given to another)
 * still plans along the context as plan_compute does: refused, with its
 * message. */
static void a_scenario_refused_whatever_its_context_fails_as_plan_compute_fails(void **state)
{
    (void)state;
    static struct plan_base b;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.gpu_memory_utilization = 0.8; /* vLLM's, given to the generic rule */
    plan_prepare(&s, NULL, &b);
    assert_false(b.ready);
    struct tally t = {0};
    contexts_up_and_down(&b, &t);
    assert_int_equal(t.planned, 0);
}

/* A context whose users' bytes pass 64 bits is refused, as plan_compute
 * refuses it, between contexts that plan. */
static void a_context_past_64_bits_is_refused_as_plan_compute_refuses_it(void **state)
{
    (void)state;
    static struct plan_base b;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.model.layers = 100000; /* 400 MB a token */
    plan_prepare(&s, NULL, &b);
    assert_true(b.ready);
    struct tally t = {0};
    const uint64_t ctx[] = {1024, TOKENS_MAX, 4096};
    for (size_t i = 0; i < 3; i++)
        same_at(&b, ctx[i], 0, 0, &t);
    assert_int_equal(t.planned, 2);
    assert_int_equal(t.refused, 1);
    struct diag d = {0};
    assert_null(plan_at_context(&b, TOKENS_MAX, 0, 0, &d));
    assert_non_null(strstr(d.message, "exceed 64 bits"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_model_engine_and_variant_plans_as_plan_compute),
        cmocka_unit_test(a_scenario_refused_whatever_its_context_fails_as_plan_compute_fails),
        cmocka_unit_test(a_context_past_64_bits_is_refused_as_plan_compute_refuses_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
