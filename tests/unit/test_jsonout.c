/* jsonout writes integers as their digits (raw text) instead of cJSON
 * numbers: the printed document must stay what cJSON's own printer writes
 * for the number, below 10^15, and the exact digits from there on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog_fixture.h"

#include "core/plan.h"
#include "io/jsonout.h"
#include "io/snapshot.h"

/* {"v": value} printed unformatted: by jsonout (as_uint: jsonout_uint), and
 * by cJSON from the number. */
static void print_both(double value, bool as_uint, char *ours, char *theirs, size_t size)
{
    struct jsonout o = jsonout_begin();
    if (as_uint)
        jsonout_uint(&o, "v", (uint64_t)value);
    else
        jsonout_double(&o, "v", value);
    cJSON *a = jsonout_end(&o);
    cJSON *b = cJSON_CreateObject();
    assert_non_null(a);
    assert_non_null(cJSON_AddNumberToObject(b, "v", value));
    char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
    snprintf(ours, size, "%s", ta);
    snprintf(theirs, size, "%s", tb);
    free(ta);
    free(tb);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void integers_below_1e15_print_as_cjson_prints_them(void **state)
{
    (void)state;
    const double values[] = {0,           1,          9,          10,         99,
                             100,         1024,       65536,      4294967295, 4294967296,
                             2039000000000, 81920.0 * 1048576, 123456789012345, 999999999999999};
    char ours[64], theirs[64];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        print_both(values[i], true, ours, theirs, sizeof ours);
        assert_string_equal(ours, theirs);
        print_both(values[i], false, ours, theirs, sizeof ours);
        assert_string_equal(ours, theirs);
        print_both(-values[i], false, ours, theirs, sizeof ours); /* -0 too */
        assert_string_equal(ours, theirs);
    }
    print_both(-0.0, false, ours, theirs, sizeof ours);
    assert_string_equal(ours, "{\"v\":-0}");
    assert_string_equal(ours, theirs);
}

static void fractions_stay_cjson_numbers(void **state)
{
    (void)state;
    const double values[] = {0.5, 0.1, 1.0 / 3, 19.390983885444133, 0.82991902833664333, 1e-7,
                             -2.25, 1e15 + 0.5, 123456.789};
    char ours[64], theirs[64];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        print_both(values[i], false, ours, theirs, sizeof ours);
        assert_string_equal(ours, theirs);
    }
}

/* From 10^15 on the digits are exact, where cJSON's 15 digits would round. */
static void integers_from_1e15_keep_every_digit(void **state)
{
    (void)state;
    const struct {
        uint64_t v;
        const char *text;
    } cases[] = {{1000000000000000ull, "{\"v\":1000000000000000}"},
                 {9007199254740993ull, "{\"v\":9007199254740993}"},
                 {UINT64_MAX, "{\"v\":18446744073709551615}"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct jsonout o = jsonout_begin();
        jsonout_uint(&o, "v", cases[i].v);
        cJSON *a = jsonout_end(&o);
        char *t = cJSON_PrintUnformatted(a);
        assert_string_equal(t, cases[i].text);
        free(t);
        cJSON_Delete(a);
    }
}

/* plan --format json writes the document export writes, byte for byte. */
static void the_written_snapshot_is_the_snapshot_text(void **state)
{
    (void)state;
    struct scenario s = base("a100-80gb", "llama-2-7b");
    s.context_tokens = 8192;
    struct plan_result r;
    struct explain x;
    x.deferred = false;
    struct diag d = {0};
    assert_true(plan_compute(&s, &x, NULL, &r, &d));
    char *text = snapshot_to_json(&s, &r, &x, "test");
    assert_non_null(text);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_true(snapshot_write_json(f, &s, &r, &x, "test"));
    long n = ftell(f);
    assert_int_equal(n, (long)strlen(text));
    rewind(f);
    char *back = calloc(1, (size_t)n + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, (size_t)n, f), (size_t)n);
    assert_string_equal(back, text);
    assert_non_null(strstr(text, "\"explain\":"));
    fclose(f);
    free(back);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_below_1e15_print_as_cjson_prints_them),
        cmocka_unit_test(fractions_stay_cjson_numbers),
        cmocka_unit_test(integers_from_1e15_keep_every_digit),
        cmocka_unit_test(the_written_snapshot_is_the_snapshot_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
