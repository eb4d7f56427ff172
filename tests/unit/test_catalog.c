/* The catalogue's embedded presets: copied straight into an empty
 * catalogue, merged by id into one that holds presets already. Both ways
 * must give the same catalogue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/catalog.h"
#include "io/embedded.h"
#include "io/preset.h"

static void assert_same_json(cJSON *x, cJSON *y)
{
    char *sx = cJSON_PrintUnformatted(x), *sy = cJSON_PrintUnformatted(y);
    assert_non_null(sx);
    assert_non_null(sy);
    assert_string_equal(sx, sy);
    free(sx);
    free(sy);
    cJSON_Delete(x);
    cJSON_Delete(y);
}

static void the_embedded_presets_load_the_same_fresh_and_over_themselves(void **state)
{
    (void)state;
    struct catalog fresh, twice;
    catalog_init(&fresh);
    catalog_init(&twice);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&fresh, &d));
    assert_true(catalog_load_embedded(&twice, &d));
    assert_true(catalog_load_embedded(&twice, &d)); /* every id again: each replaces itself */
    assert_int_equal(fresh.gpu_count, embedded_gpu_count);
    assert_int_equal(fresh.model_count, embedded_model_count);
    assert_int_equal(twice.gpu_count, fresh.gpu_count);
    assert_int_equal(twice.model_count, fresh.model_count);
    for (size_t i = 0; i < fresh.gpu_count; i++) {
        assert_string_equal(fresh.gpus[i].path, embedded_gpus[i].path);
        assert_string_equal(twice.gpus[i].path, fresh.gpus[i].path);
        assert_string_equal(fresh.gpus[i].spec.id, embedded_gpus[i].spec.id);
        assert_same_json(preset_gpu_to_json(&fresh.gpus[i].spec, true),
                         preset_gpu_to_json(&twice.gpus[i].spec, true));
    }
    for (size_t i = 0; i < fresh.model_count; i++) {
        assert_string_equal(fresh.models[i].path, embedded_models[i].path);
        assert_string_equal(twice.models[i].path, fresh.models[i].path);
        assert_string_equal(fresh.models[i].spec.id, embedded_models[i].spec.id);
        assert_same_json(preset_model_to_json(&fresh.models[i].spec, true),
                         preset_model_to_json(&twice.models[i].spec, true));
    }
    assert_non_null(catalog_find_gpu(&fresh, "a100-80gb"));
    assert_non_null(catalog_find_model(&fresh, "llama-2-7b"));
    catalog_free(&fresh);
    catalog_free(&twice);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_embedded_presets_load_the_same_fresh_and_over_themselves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
