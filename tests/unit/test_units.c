/* Parsing and formatting of token counts and sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/dtype.h"
#include "core/text.h"
#include "core/units.h"

static uint64_t tokens(const char *text)
{
    uint64_t v = 0;
    struct diag d = {0};
    if (!units_parse_tokens(text, true, &v, &d))
        fail_msg("%s", d.message);
    return v;
}

static uint64_t size(const char *text)
{
    uint64_t v = 0;
    struct diag d = {0};
    if (!units_parse_size(text, &v, &d))
        fail_msg("%s", d.message);
    return v;
}

static void token_suffixes_are_binary_as_context_windows_are_named(void **state)
{
    (void)state;
    assert_int_equal(tokens("4000"), 4000);
    assert_int_equal(tokens("8k"), 8192);
    assert_int_equal(tokens("128K"), 131072);
    assert_int_equal(tokens("1M"), 1048576);
    assert_int_equal(tokens("32,768"), 32768);
    assert_int_equal(tokens("1.5k"), 1536);
}

static void bad_token_counts_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", "abc", "-5", "8x", "1.5", "0.0001k", "99999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        struct diag d = {0};
        assert_false(units_parse_tokens(bad[i], true, &v, &d));
        assert_true(d.message[0] != '\0');
    }
    uint64_t v;
    struct diag d = {0};
    assert_false(units_parse_tokens("0", false, &v, &d));
}

static void sizes_need_a_unit_and_keep_gb_and_gib_apart(void **state)
{
    (void)state;
    assert_int_equal(size("80GB"), 80000000000ull);
    assert_int_equal(size("80GiB"), 85899345920ull);
    assert_int_equal(size("80 gib"), 85899345920ull);
    assert_int_equal(size("512MiB"), 536870912ull);
    assert_int_equal(size("1TB"), 1000000000000ull);
    assert_int_equal(size("14GB"), 14000000000ull);
    uint64_t v;
    struct diag d = {0};
    assert_false(units_parse_size("80", &v, &d));
    assert_non_null(strstr(d.message, "needs a unit"));
    diag_clear(&d);
    assert_false(units_parse_size("80GX", &v, &d));
    assert_non_null(strstr(d.message, "unknown unit"));
    diag_clear(&d);
    assert_false(units_parse_size("-1GB", &v, &d));
}

static void formatting_is_readable_and_exact(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(units_format_int(85520809984ull, buf, sizeof buf), "85,520,809,984");
    assert_string_equal(units_format_bytes(85520809984ull, UNITS_GIB, buf, sizeof buf),
                        "79.65 GiB");
    assert_string_equal(units_format_bytes(85520809984ull, UNITS_GB, buf, sizeof buf), "85.52 GB");
    assert_string_equal(units_format_bytes(512, UNITS_GIB, buf, sizeof buf), "512 B");
    assert_string_equal(units_format_bytes_exact(131072, buf, sizeof buf), "128 KiB");
    assert_string_equal(units_format_bytes_exact(17179869184ull, buf, sizeof buf), "16 GiB");
    assert_string_equal(units_format_tokens(131072, buf, sizeof buf), "131,072 (128k)");
    assert_string_equal(units_format_tokens_short(1048576, buf, sizeof buf), "1M");
    assert_string_equal(units_format_tokens_short(5546, buf, sizeof buf), "5,546");
    /* the argument form: what --context and a CSV field take back */
    assert_string_equal(units_format_tokens_arg(8192, buf, sizeof buf), "8k");
    assert_string_equal(units_format_tokens_arg(1048576, buf, sizeof buf), "1M");
    assert_string_equal(units_format_tokens_arg(5546, buf, sizeof buf), "5546");
}

/* Issue 9: "79,65GiB" became 7965 GiB and "1,5k" 15,360 tokens; only
 * groups of three are digit grouping, the rest is refused with the reason. */
static void commas_group_thousands_and_are_never_a_decimal_point(void **state)
{
    (void)state;
    assert_int_equal(tokens("131,072"), 131072);
    assert_int_equal(tokens("1_048_576"), 1048576);
    assert_int_equal(size("1,000GB"), 1000000000000ull);
    double x = 0;
    struct diag d = {0};
    assert_true(units_parse_number("1,000.5", 0, 1e6, &x, &d));
    assert_true(x == 1000.5);
    const char *bad_sizes[] = {"79,65GiB", "1,5GB", "80,GB", ",80GB", "1,0000GB", "1__000GB",
                               "1,000_000GB", "1.000,5GB", "1234,567GB"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        uint64_t v;
        diag_clear(&d);
        assert_false(units_parse_size(bad_sizes[i], &v, &d));
        assert_non_null(strstr(d.message, "digits in threes"));
    }
    uint64_t v;
    diag_clear(&d);
    assert_false(units_parse_tokens("1,5k", true, &v, &d));
    assert_non_null(strstr(d.message, "a comma is not a decimal point"));
    diag_clear(&d);
    assert_false(units_parse_number("1,5", 0, 1e6, &x, &d));
    assert_non_null(strstr(d.message, "'1,5': a comma is not a decimal point"));
    diag_clear(&d);
    assert_false(units_parse_count("1_5", 1, 100, &v, &d));
    assert_non_null(strstr(d.message, "an underscore may only group digits in threes"));
}

/* Issue 9: "2.5" GPUs became 2 and "--max-gpus 1.9" became 1. */
static void counts_refuse_fractions_instead_of_truncating(void **state)
{
    (void)state;
    uint64_t v = 0;
    struct diag d = {0};
    assert_true(units_parse_count("8", 1, 65536, &v, &d));
    assert_int_equal(v, 8);
    assert_true(units_parse_count(" 1,024 ", 1, 65536, &v, &d));
    assert_int_equal(v, 1024);
    const char *fractions[] = {"2.5", "1.9", "0.5", "1e-1"};
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++) {
        diag_clear(&d);
        assert_false(units_parse_count(fractions[i], 1, 65536, &v, &d));
        assert_non_null(strstr(d.message, "a count cannot be a fraction"));
    }
    const char *bad[] = {"0", "65537", "-1", "+", "", "2x", "1e3", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diag_clear(&d);
        assert_false(units_parse_count(bad[i], 1, 65536, &v, &d));
        assert_non_null(strstr(d.message, "is not a whole number from 1 to 65536"));
    }
}

/* Issue 9: "--price -0" printed "$-0.00/h" and "--headroom -0" "-0 %". */
static void negative_zero_is_read_as_zero(void **state)
{
    (void)state;
    double x = 1;
    struct diag d = {0};
    assert_true(units_parse_number("-0", 0, 100, &x, &d));
    char buf[16];
    snprintf(buf, sizeof buf, "%.2f", x);
    assert_string_equal(buf, "0.00");
}

/* Issue 9: messages quote input; controls come out as escapes. A message
 * longer than its buffer is cut at a whole escape and never written past
 * it (the units fuzz target found the cut moving on with every escape). */
static void escapes_are_whole_and_stay_in_their_buffer(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(text_escape("a\x1b[2J\xc2\x9b\xe2\x80\xae\x9b\x7f", out, sizeof out), 28);
    assert_string_equal(out, "a\\x1b[2J\\u009b\\u202e\\x9b\\x7f");
    char guarded[16];
    memset(guarded, 'Z', sizeof guarded);
    assert_int_equal(text_escape("\x1b\x1b\x1b\x1b", guarded, 8), 16);
    assert_string_equal(guarded, "\\x1b");
    for (size_t i = 8; i < sizeof guarded; i++)
        assert_int_equal(guarded[i], 'Z');
}

static void articles_follow_the_number_as_read(void **state)
{
    (void)state;
    static const char *an[] = {"8", "8,192", "8k", "11", "11,000", "18", "18k", "80", "800", "86"};
    static const char *a[] = {"1", "2,048", "110", "1,800", "180k", "16k", "100", "12", ""};
    for (size_t i = 0; i < sizeof an / sizeof an[0]; i++)
        assert_string_equal(units_article(an[i]), "an");
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        assert_string_equal(units_article(a[i]), "a");
}

static void dtypes_know_their_exact_size(void **state)
{
    (void)state;
    enum dtype d;
    assert_true(dtype_parse("bfloat16", &d));
    assert_int_equal(d, DTYPE_BF16);
    assert_true(dtype_parse("Q8_0", &d));
    assert_int_equal(dtype_bytes_for(d, 32), 34);
    assert_true(dtype_parse("int4", &d));
    assert_int_equal(dtype_bytes_for(d, 3), 2); /* 1.5 bytes rounds up */
    assert_false(dtype_parse("fp7", &d));
}

/* text_append and text_copy write what snprintf writes, texts cut to the
 * buffer included: the formatters and the planner's every-frame texts rely
 * on it. */
static void text_append_cuts_as_snprintf(void **state)
{
    (void)state;
    const char *parts[] = {"", "kv", "_per_token", "\u2026 GiB", "x"};
    for (size_t size = 0; size < 24; size++) {
        char got[32], want[32];
        memset(got, '#', sizeof got);
        memset(want, '#', sizeof want);
        size_t len = 0;
        char whole[64] = "";
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            text_append(got, size, &len, parts[i]);
            strcat(whole, parts[i]);
        }
        snprintf(want, size, "%s", whole);
        assert_memory_equal(got, want, sizeof got);
        memset(got, '#', sizeof got);
        text_copy(got, size, whole);
        assert_memory_equal(got, want, sizeof got);
    }
}

/* The formatters cut their text to a short buffer as snprintf would. */
static void formatted_numbers_are_cut_as_snprintf_cuts(void **state)
{
    (void)state;
    const uint64_t values[] = {0, 7, 999, 1024, 123456789, 85520809984ull, 3ull << 40,
                               UINT64_MAX};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        char full[5][64];
        units_format_int(values[v], full[0], sizeof full[0]);
        units_format_bytes(values[v], UNITS_GIB, full[1], sizeof full[1]);
        units_format_bytes_exact(values[v], full[2], sizeof full[2]);
        units_format_tokens(values[v], full[3], sizeof full[3]);
        units_format_tokens_arg(values[v], full[4], sizeof full[4]);
        for (size_t size = 1; size < 12; size++) {
            char got[5][16], want[16];
            units_format_int(values[v], got[0], size);
            units_format_bytes(values[v], UNITS_GIB, got[1], size);
            units_format_bytes_exact(values[v], got[2], size);
            units_format_tokens(values[v], got[3], size);
            units_format_tokens_arg(values[v], got[4], size);
            for (int f = 0; f < 5; f++) {
                snprintf(want, size, "%s", full[f]);
                assert_string_equal(got[f], want);
            }
        }
    }
    char buf[32];
    assert_string_equal(units_format_tokens(3u << 20, buf, sizeof buf), "3,145,728 (3M)");
    assert_string_equal(units_format_bytes(1536, UNITS_GB, buf, sizeof buf), "1.54 KB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_suffixes_are_binary_as_context_windows_are_named),
        cmocka_unit_test(bad_token_counts_are_refused),
        cmocka_unit_test(sizes_need_a_unit_and_keep_gb_and_gib_apart),
        cmocka_unit_test(formatting_is_readable_and_exact),
        cmocka_unit_test(text_append_cuts_as_snprintf),
        cmocka_unit_test(formatted_numbers_are_cut_as_snprintf_cuts),
        cmocka_unit_test(dtypes_know_their_exact_size),
        cmocka_unit_test(articles_follow_the_number_as_read),
        cmocka_unit_test(commas_group_thousands_and_are_never_a_decimal_point),
        cmocka_unit_test(counts_refuse_fractions_instead_of_truncating),
        cmocka_unit_test(negative_zero_is_read_as_zero),
        cmocka_unit_test(escapes_are_whole_and_stay_in_their_buffer),
    };
    return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
