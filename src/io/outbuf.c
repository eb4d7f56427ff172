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

/* "00" "01" ... "99": two digits a division */
static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                            "25262728293031323334353637383940414243444546474849"
                            "50515253545556575859606162636465666768697071727374"
                            "75767778798081828384858687888990919293949596979899";

char *outbuf_put_uint(char *p, uint64_t v)
{
    static const uint64_t tens[] = {10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                    100000000000ull, 1000000000000ull, 10000000000000ull,
                                    100000000000000ull, 1000000000000000ull,
                                    10000000000000000ull, 100000000000000000ull,
                                    1000000000000000000ull, 10000000000000000000ull};
    if (v < 10) {
        *p = (char)('0' + v);
        return p + 1;
    }
    /* the digits: m = floor(bits x log10 2) or one more, m >= 1 past 9 */
    unsigned m = (unsigned)((64 - __builtin_clzll(v)) * 1233) >> 12;
    char *end = p + m + (v >= tens[m - 1]), *q = end;
    /* eight digits a division by 10^8, their two halves apart (two chains,
     * not one), then two a division */
    while (v >= 100000000) {
        uint32_t low = (uint32_t)(v % 100000000), a = low / 10000, b = low % 10000;
        v /= 100000000;
        memcpy(q - 8, pairs + a / 100 * 2, 2);
        memcpy(q - 6, pairs + a % 100 * 2, 2);
        memcpy(q - 4, pairs + b / 100 * 2, 2);
        memcpy(q - 2, pairs + b % 100 * 2, 2);
        q -= 8;
    }
    uint32_t w = (uint32_t)v;
    for (; w >= 100; w /= 100, q -= 2)
        memcpy(q - 2, pairs + w % 100 * 2, 2);
    if (w >= 10)
        memcpy(q - 2, pairs + w * 2, 2);
    else
        q[-1] = (char)('0' + w);
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
    /* the decimal exponent from the binary one b (a = m x 2^b, m in [1, 2),
     * a normal double): floor(b x log10 2), with 78913 / 2^18 for log10 2, is
     * floor(log10(a)) or one or two below it, which the loop below corrects */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int b = (int)(bits >> 52 & 0x7ff) - 1023;
    if (b == -1023) /* subnormal: printf's */
        return false;
    int t = b * 78913;
    int e = t >= 0 ? t >> 18 : -((-t + (1 << 18) - 1) >> 18);
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
    double whole = (double)(uint32_t)scaled, frac = scaled - whole; /* floor: scaled > 0 */
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

/* The six digits of d (100000 to 999999) and "00" as a word whose bytes,
 * as memory holds them, are the text, shifted by k bytes towards the first:
 * made in a register and stored whole, as a read of narrow stores as one
 * word waits for them. */
static uint64_t six_digits_word(uint32_t d, int k)
{
    const union {
        uint16_t word;
        unsigned char first;
    } probe = {1};
    bool little = probe.first == 1; /* a constant to the compiler */
    uint16_t hi, mid, lo, zz;
    memcpy(&hi, pairs + d / 10000 * 2, 2);
    memcpy(&mid, pairs + d / 100 % 100 * 2, 2);
    memcpy(&lo, pairs + d % 100 * 2, 2);
    memcpy(&zz, pairs, 2);
    uint64_t w = little ? hi | (uint64_t)mid << 16 | (uint64_t)lo << 32 | (uint64_t)zz << 48
                        : (uint64_t)hi << 48 | (uint64_t)mid << 32 | (uint64_t)lo << 16 | zz;
    return little ? w >> 8 * k : w << 8 * k;
}

/* "%.6g" of d x 10^(x - 5): fixed from 10^-4 up to 10^6, else with an
 * exponent; trailing zeros of the fraction and a bare point dropped. The
 * digits go in words of 8 bytes, what follows the text overwritten later
 * or never read: out has OUTBUF_G6_MAX bytes, the text and a word fit. */
static size_t g6_text(bool negative, uint32_t d, int x, char *out)
{
    int last = 5; /* the last significant digit to keep */
    for (uint32_t t = d; last > 0 && t % 10 == 0; t /= 10)
        last--;
    size_t n = 0;
    if (negative)
        out[n++] = '-';
    uint64_t w = six_digits_word(d, 0);
    if (x >= -4 && x < 0) { /* 0.0001 .. 0.999999 */
        memcpy(out + n, "0.000000", 8);
        n += (size_t)(1 - x);
        memcpy(out + n, &w, 8);
        return n + (size_t)last + 1;
    }
    int whole = x >= 0 && x < 6 ? x : 0; /* the digits before the point */
    memcpy(out + n, &w, 8);
    n += (size_t)whole + 1;
    if (last > whole) {
        out[n] = '.';
        w = six_digits_word(d, whole + 1);
        memcpy(out + n + 1, &w, 8);
        n += (size_t)(last - whole) + 1;
    }
    if (x >= 0 && x < 6)
        return n;
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
