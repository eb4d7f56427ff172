/* The Load screen's settings in a session file (io/loadjson.h): written
 * beside each scenario's label, read back the same, a scenario without
 * them (an older file) read with none, a value out of range refused naming
 * its field; a single scenario with them is written as a session, so they
 * are kept. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/snapshot.h"
#include "model_fixture.h"

static struct snapshot_session ss, back;
static struct plan_result r[2];

static char *two_scenarios(void)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    ss.reference = -1;
    for (int i = 0; i < 2; i++) {
        scenario_default(&ss.entry[i].scenario, &g, &m);
        snprintf(ss.entry[i].label, sizeof ss.entry[i].label, "%c", 'A' + i);
        struct diag d = {0};
        if (!plan_compute(&ss.entry[i].scenario, PLAN_NUMBERS, NULL, &r[i], &d))
            fail_msg("%s", d.message);
    }
    ss.entry[1].load = (struct load_settings){.rate = 12.5, .input_len = 1100, .output_len = 96,
                                              .max_concurrency = 64, .slo_ttft_ms = 800,
                                              .slo_tpot_ms = 40, .seed = 7};
    const struct plan_result *res[2] = {&r[0], &r[1]};
    const struct explain *x[2] = {NULL, NULL};
    return snapshot_session_to_json(&ss, res, x, "test");
}

static void the_settings_load_back_and_none_stay_none(void **state)
{
    (void)state;
    char *json = two_scenarios();
    assert_non_null(json);
    assert_non_null(strstr(json, "\"request_rate\":\t12.5"));
    struct diag d = {0};
    assert_true(snapshot_parse_session("s.json", json, strlen(json), &back, &d));
    assert_memory_equal(&back.entry[1].load, &ss.entry[1].load, sizeof ss.entry[1].load);
    struct load_settings none = {0};
    assert_memory_equal(&back.entry[0].load, &none, sizeof none);
    free(json);
}

static void a_value_out_of_range_names_its_field(void **state)
{
    (void)state;
    char *json = two_scenarios();
    char *at = strstr(json, "\"random_output_len\":\t96");
    assert_non_null(at);
    memcpy(at, "\"random_output_len\":\t-1", 23);
    struct diag d = {0};
    assert_false(snapshot_parse_session("s.json", json, strlen(json), &back, &d));
    assert_non_null(strstr(d.message, "s.json:"));
    assert_non_null(strstr(d.message, "random_output_len"));
    free(json);
}

static void one_scenario_with_settings_is_a_session(void **state)
{
    (void)state;
    char *json = two_scenarios();
    free(json);
    ss.count = 1;
    ss.entry[0].load = ss.entry[1].load;
    const struct plan_result *res[1] = {&r[0]};
    const struct explain *x[1] = {NULL};
    json = snapshot_session_to_json(&ss, res, x, "test");
    assert_non_null(strstr(json, "\"session\""));
    struct diag d = {0};
    assert_true(snapshot_parse_session("one.json", json, strlen(json), &back, &d));
    assert_true(back.entry[0].load.rate == 12.5 && back.entry[0].load.max_concurrency == 64);
    free(json);
    ss.entry[0].load.rate = 0; /* without them, the plain snapshot as before */
    json = snapshot_session_to_json(&ss, res, x, "test");
    assert_null(strstr(json, "\"session\""));
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_settings_load_back_and_none_stay_none),
        cmocka_unit_test(a_value_out_of_range_names_its_field),
        cmocka_unit_test(one_scenario_with_settings_is_a_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
