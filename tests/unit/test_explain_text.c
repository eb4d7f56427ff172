/* Explain rows ended without their text (the planner's pane writes only the
 * rows it shows) read the same as rows written at once: over every
 * catalogue model, every profile, with and without a host tier, a draft and
 * LoRA slots, in GiB and GB, each row's formula and value as the pane reads
 * them, and every operand's text once explain_text writes the rest. */
#include "catalog_fixture.h"

#include "core/plan.h"

static struct explain now, later;

static void compare_rows(const char *what)
{
    assert_int_equal(now.count, later.count);
    for (int i = 0; i < now.count; i++) {
        const struct explain_row *a = &now.rows[i], *b = &later.rows[i];
        assert_true(a->written);
        assert_false(b->written);
        char formula[EXPLAIN_TEXT_MAX], value[EXPLAIN_VALUE_MAX];
        explain_row_strings(b, formula, sizeof formula, value, sizeof value);
        if (strcmp(formula, a->formula) != 0 || strcmp(value, a->result.text) != 0)
            fail_msg("%s, row %s: '%s = %s', written at once '%s = %s'", what, a->key, formula,
                     value, a->formula, a->result.text);
    }
    explain_text(&later);
    for (int i = 0; i < now.count; i++) {
        const struct explain_row *a = &now.rows[i], *b = &later.rows[i];
        assert_true(b->written);
        assert_string_equal(a->formula, b->formula);
        assert_string_equal(a->result.text, b->result.text);
        for (int t = 0; t < a->nterms; t++)
            assert_string_equal(a->terms[t].text, b->terms[t].text);
    }
}

static void deferred_rows_read_as_rows_written_at_once(void **state)
{
    (void)state;
    int plans = 0;
    for (size_t mi = 0; mi < cat.model_count; mi++) {
        for (int engine = 0; engine < ENGINE_COUNT; engine++) {
            for (int variant = 0; variant < 4; variant++) {
                const struct gpu_spec *g = &cat.gpus[(mi + (size_t)variant) % cat.gpu_count].spec;
                struct scenario s;
                scenario_default(&s, g, &cat.models[mi].spec);
                s.engine.kind = (enum engine_kind)engine;
                s.gpus = variant == 3 ? 8 : 1u << variant;
                s.units = variant % 2 ? UNITS_GB : UNITS_GIB;
                s.context_tokens = 4096ull << (2 * variant);
                if (variant == 1)
                    s.host_kv_bytes = 64ull << 30;
                if (variant == 2) {
                    s.spec_method = SPEC_DRAFT;
                    s.draft = cat.models[0].spec;
                }
                if (variant == 3 && engine == ENGINE_VLLM) {
                    s.max_loras = 4;
                    s.max_lora_rank = 16;
                }
                struct plan_result r1, r2;
                struct diag d = {0};
                later.deferred = true;
                bool ok = plan_compute(&s, &now, NULL, &r1, &d);
                assert_int_equal(ok, plan_compute(&s, &later, NULL, &r2, &d));
                if (!ok)
                    continue;
                char what[160];
                snprintf(what, sizeof what, "%s on %u x %s, engine %d", cat.models[mi].spec.id,
                         s.gpus, g->id, engine);
                compare_rows(what);
                plans++;
            }
        }
    }
    assert_true(plans > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deferred_rows_read_as_rows_written_at_once),
    };
    return cmocka_run_group_tests_name("explain_text", tests, setup, teardown);
}
