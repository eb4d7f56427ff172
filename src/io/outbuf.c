#include "outbuf.h"

#include <math.h>
#include <string.h>

void outbuf_init(struct outbuf *o, FILE *f)
{
    o->f = f;
    o->n = 0;
    o->failed = false;
}

bool outbuf_flush(struct outbuf *o)
{
    if (o->n && !o->failed && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
    return !o->failed;
}

void outbuf_mem(struct outbuf *o, const char *s, size_t n)
{
    while (n > 0) {
        if (o->n == sizeof o->buf)
            outbuf_flush(o);
        size_t room = sizeof o->buf - o->n, k = n < room ? n : room;
        memcpy(o->buf + o->n, s, k);
        o->n += k;
        s += k;
        n -= k;
    }
}

void outbuf_str(struct outbuf *o, const char *s)
{
    outbuf_mem(o, s, strlen(s));
}

char *outbuf_room(struct outbuf *o, size_t n)
{
    if (sizeof o->buf - o->n < n)
        outbuf_flush(o);
    return o->buf + o->n;
}

void outbuf_commit(struct outbuf *o, const char *end)
{
    o->n = (size_t)(end - o->buf);
}

/* v's decimal digits, ending at end; returns where they begin. */
static char *digits(uint64_t v, char *end)
{
    char *p = end;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

char *outbuf_put_uint(char *p, uint64_t v)
{
    /* "00" "01" ... "99": two digits a division */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    static const uint64_t tens[] = {10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                    100000000000ull, 1000000000000ull, 10000000000000ull,
                                    100000000000000ull, 1000000000000000ull,
                                    10000000000000000ull, 100000000000000000ull,
                                    1000000000000000000ull, 10000000000000000000ull};
    size_t n = 1;
    while (n < 20 && v >= tens[n - 1])
        n++;
    char *end = p + n, *q = end;
    while (v > UINT32_MAX) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--q = pairs[d + 1];
        *--q = pairs[d];
    }
    uint32_t w = (uint32_t)v; /* most figures: 32-bit divisions are cheaper */
    while (w >= 100) {
        unsigned d = w % 100 * 2;
        w /= 100;
        *--q = pairs[d + 1];
        *--q = pairs[d];
    }
    if (w >= 10) {
        *--q = pairs[w * 2 + 1];
        *--q = pairs[w * 2];
    } else {
        *--q = (char)('0' + w);
    }
    return end;
}

char *outbuf_put_g6(char *p, double v)
{
    return p + outbuf_format_g6(v, p);
}

void outbuf_uint(struct outbuf *o, uint64_t v)
{
    outbuf_commit(o, outbuf_put_uint(outbuf_room(o, 24), v));
}

void outbuf_g6(struct outbuf *o, double v)
{
    outbuf_commit(o, outbuf_put_g6(outbuf_room(o, OUTBUF_G6_MAX), v));
}

/* Powers of ten a double holds exactly. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
enum { POW10_MAX = 22 };

/* a (positive) times 10^k, one rounding away from the exact product; false
 * when 10^|k| is not exact in a double. */
static bool scale10(double a, int k, double *out)
{
    if (k > POW10_MAX || k < -POW10_MAX)
        return false;
    *out = k >= 0 ? a * pow10_exact[k] : a / pow10_exact[-k];
    return true;
}

/* The six significant digits of a (positive, finite) rounded as printf
 * rounds them, and the decimal exponent of the first: a ~ d x 10^(x - 5).
 * False when the rounding is in doubt. The scaled value is within 2^-53 of
 * a x 10^(5 - x) relatively, under 1.2e-10 absolutely; a fraction at least
 * 1e-9 from a half rounds the same way as the exact value would. */
static bool six_digits(double a, uint32_t *d, int *x)
{
    int e = (int)floor(log10(a));
    double scaled = 0;
    for (int tries = 0; tries < 3; tries++) {
        if (!scale10(a, 5 - e, &scaled))
            return false;
        if (scaled < 100000.0)
            e--;
        else if (scaled >= 1000000.0)
            e++;
        else
            break;
    }
    if (scaled < 100000.0 || scaled >= 1000000.0)
        return false;
    double whole = floor(scaled), frac = scaled - whole;
    if (fabs(frac - 0.5) < 1e-9)
        return false;
    uint32_t r = (uint32_t)whole + (frac > 0.5);
    if (r == 1000000) {
        r = 100000;
        e++;
    }
    *d = r;
    *x = e;
    return true;
}

/* "%.6g" of d x 10^(x - 5): fixed from 10^-4 up to 10^6, else with an
 * exponent; trailing zeros of the fraction and a bare point dropped. */
static size_t g6_text(bool negative, uint32_t d, int x, char *out)
{
    char six[6];
    for (int i = 5; i >= 0; i--, d /= 10)
        six[i] = (char)('0' + d % 10);
    int last = 5; /* the last significant digit to keep */
    while (last > 0 && six[last] == '0')
        last--;
    size_t n = 0;
    if (negative)
        out[n++] = '-';
    if (x >= -4 && x < 6) {
        if (x < 0) {
            out[n++] = '0';
            out[n++] = '.';
            for (int i = -1; i > x; i--)
                out[n++] = '0';
            for (int i = 0; i <= last; i++)
                out[n++] = six[i];
            return n;
        }
        for (int i = 0; i <= x; i++)
            out[n++] = six[i];
        if (last > x) {
            out[n++] = '.';
            for (int i = x + 1; i <= last; i++)
                out[n++] = six[i];
        }
        return n;
    }
    out[n++] = six[0];
    if (last > 0) {
        out[n++] = '.';
        for (int i = 1; i <= last; i++)
            out[n++] = six[i];
    }
    out[n++] = 'e';
    out[n++] = x < 0 ? '-' : '+';
    unsigned ax = (unsigned)(x < 0 ? -x : x);
    char exp[8];
    char *p = digits(ax, exp + sizeof exp);
    if (ax < 10)
        *--p = '0';
    size_t len = (size_t)(exp + sizeof exp - p);
    memcpy(out + n, p, len);
    return n + len;
}

size_t outbuf_format_g6(double v, char *out)
{
    uint32_t d;
    int x;
    if (isfinite(v) && v != 0 && six_digits(fabs(v), &d, &x))
        return g6_text(signbit(v), d, x, out);
    int n = snprintf(out, OUTBUF_G6_MAX, "%.6g", v); /* zero, inf, nan, or in doubt */
    return n > 0 && n < OUTBUF_G6_MAX ? (size_t)n : 0;
}
