/* outbuf's numbers against printf's: "%.6g" and "%llu" byte for byte, over
 * halves and near-halves at the sixth digit, the edges between fixed and
 * exponent notation, and 200,000 random doubles and as many figures. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/outbuf.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void same_as_printf(double v)
{
    char want[64], got[OUTBUF_G6_MAX + 1];
    snprintf(want, sizeof want, "%.6g", v);
    size_t n = outbuf_format_g6(v, got);
    got[n] = '\0';
    if (strcmp(want, got) != 0)
        fail_msg("%.17g: printf %s, outbuf %s", v, want, got);
}

static void halves_and_edges_print_as_printf_prints_them(void **state)
{
    (void)state;
    const double edges[] = {0.0,        -0.0,      1,           -1,         0.5,
                            2.5,        1234565,   1234575,     12345.65,   0.1234565,
                            999999.5,   999999.4,  9999995,     99999.95,   100000,
                            999999,     1000000,   0.0001,      0.00009999995, 0.000099999949,
                            1e-5,       1e-17,     1e-18,       1e27,       1e28,
                            123456789e20, DBL_MAX, DBL_MIN,     5e-324,     1.0 / 3,
                            2.0 / 3,    19.390983885444133, 271.47377439621783, 0.1, 0.3,
                            9870.84248016187, 1e21, 1e22,      1e23,       4.35e-5};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        same_as_printf(edges[i]);
        same_as_printf(-edges[i]);
        same_as_printf(nextafter(edges[i], 0));
        same_as_printf(nextafter(edges[i], INFINITY));
    }
    same_as_printf(INFINITY);
    same_as_printf(-INFINITY);
    same_as_printf(NAN);
    /* every half at the seventh digit, at every exponent a double scales exactly */
    for (int e = -17; e <= 22; e++)
        for (int k = 0; k < 2000; k++) {
            double v = (double)(1000000 + (next() % 9000000)) * pow(10, e - 6);
            same_as_printf(v);
            same_as_printf(v * 1.0000000000001);
            same_as_printf((double)(2 * (100000 + next() % 900000) + 1) / 2 * pow(10, e - 5));
        }
}

static void random_doubles_print_as_printf_prints_them(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = next();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            same_as_printf(v);
        /* and a figure of the magnitudes a plan gives: 1e-6 .. 1e12 */
        same_as_printf(exp((double)(next() % 4000000) / 100000.0 - 14.0));
    }
}

/* The i-th integer of the buffered test: every length of digits. */
static uint64_t some_integer(int i)
{
    uint64_t v = next();
    return i % 3 ? v >> (next() % 64) : (uint64_t)i;
}

static void buffered_text_and_integers_reach_the_stream_whole(void **state)
{
    (void)state;
    rng = 0x2545F4914F6CDD1Dull;
    FILE *f = tmpfile();
    assert_non_null(f);
    static struct outbuf o; /* 64 KiB: not on the stack */
    outbuf_init(&o, f);
    char want[64];
    size_t total = 0;
    for (int i = 0; i < 20000; i++) { /* several buffers' worth */
        uint64_t v = some_integer(i);
        outbuf_uint(&o, v);
        outbuf_str(&o, ",");
        total += (size_t)snprintf(want, sizeof want, "%llu,", (unsigned long long)v);
    }
    outbuf_uint(&o, UINT64_MAX);
    total += strlen("18446744073709551615");
    assert_true(outbuf_flush(&o));
    assert_int_equal(ftell(f), (long)total);
    rewind(f);
    rng = 0x2545F4914F6CDD1Dull;
    char got[64];
    for (int i = 0; i < 20000; i++) {
        uint64_t v = some_integer(i);
        snprintf(want, sizeof want, "%llu,", (unsigned long long)v);
        assert_non_null(fgets(got, (int)strlen(want) + 1, f));
        assert_string_equal(got, want);
    }
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(halves_and_edges_print_as_printf_prints_them),
        cmocka_unit_test(random_doubles_print_as_printf_prints_them),
        cmocka_unit_test(buffered_text_and_integers_reach_the_stream_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
