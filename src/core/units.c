#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

/* Copies text without its digit-group separators or surrounding blanks.
 * A comma or underscore is accepted only where it cannot be misread: between
 * groups of exactly three digits after a first group of one to three, in the
 * whole part ("131,072", "1_000", "1,000.5"). "79,65GiB", "1,5" and "1,5k"
 * are refused with the reason: in many locales that comma is a decimal point,
 * and dropping it would multiply the value silently. False with d set on a
 * misplaced separator; false with d untouched when empty or too long. */
static bool strip_number(const char *text, char *buf, size_t size, struct diag *d)
{
    const char *s = text;
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= size)
        return false;
    size_t i = 0, o = 0, group = 0;
    char sep = 0;
    bool misplaced = false;
    if (s[i] == '+' || s[i] == '-')
        buf[o++] = s[i++];
    for (; i < n && !misplaced; i++) {
        char c = s[i];
        if (isdigit((unsigned char)c)) {
            buf[o++] = c;
            group++;
        } else if (c == ',' || c == '_') {
            misplaced = group == 0 || group > 3 || (sep != 0 && group != 3) || (sep && c != sep);
            sep = c;
            group = 0;
        } else {
            break;
        }
    }
    if (sep && group != 3)
        misplaced = true;
    for (; i < n && !misplaced; i++) {
        if (s[i] == ',' || s[i] == '_')
            misplaced = true;
        buf[o++] = s[i];
    }
    if (misplaced) {
        if (memchr(s, ',', n) != NULL)
            diag_fail(d, "'%s': a comma is not a decimal point (write 1.5, not 1,5); commas "
                         "and underscores may only group digits in threes, as in 131,072",
                      text);
        else
            diag_fail(d, "'%s': an underscore may only group digits in threes, as in 1_000",
                      text);
        return false;
    }
    buf[o] = '\0';
    return true;
}

bool units_parse_tokens(const char *text, bool allow_zero, uint64_t *out, struct diag *d)
{
    char buf[64];
    if (text == NULL || !strip_number(text, buf, sizeof buf, d))
        return diag_fail(d, "'%s' is not a token count (examples: 4000, 8k, 128k, 1M)",
                         text ? text : "");
    size_t len = strlen(buf);
    uint64_t mult = 1;
    char last = buf[len - 1];
    if (last == 'k' || last == 'K') {
        mult = 1024;
        buf[--len] = '\0';
    } else if (last == 'm' || last == 'M') {
        mult = 1024 * 1024;
        buf[--len] = '\0';
    }
    if (len == 0 || buf[0] == '-' || buf[0] == '+')
        return diag_fail(d, "'%s' is not a token count (examples: 4000, 8k, 128k, 1M)", text);
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)buf[i]) && !(mult > 1 && buf[i] == '.'))
            return diag_fail(d, "'%s' is not a token count (examples: 4000, 8k, 128k, 1M)",
                             text);
    }
    errno = 0;
    double value = strtod(buf, NULL);
    if (errno != 0 || !isfinite(value))
        return diag_fail(d, "'%s' is not a token count", text);
    double tokens = value * (double)mult;
    if (tokens > (double)TOKENS_MAX)
        return diag_fail(d, "'%s' is too many tokens (at most %llu)", text,
                         (unsigned long long)TOKENS_MAX);
    if (tokens != floor(tokens))
        return diag_fail(d, "'%s' is not a whole number of tokens", text);
    if (tokens == 0 && !allow_zero)
        return diag_fail(d, "'%s': the token count must be at least 1", text);
    *out = (uint64_t)tokens;
    return true;
}

static const struct {
    const char *name;
    double bytes;
} size_units[] = {
    {"B", 1.0},          {"KB", 1e3},          {"MB", 1e6},           {"GB", 1e9},
    {"TB", 1e12},        {"KiB", 1024.0},      {"MiB", 1048576.0},    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
};

bool units_parse_size(const char *text, uint64_t *out, struct diag *d)
{
    char buf[64];
    if (text == NULL || !strip_number(text, buf, sizeof buf, d))
        return diag_fail(d, "'%s' is not a size (examples: 80GB, 79.65GiB, 512MiB)",
                         text ? text : "");
    char *end = NULL;
    errno = 0;
    if (buf[0] == '-' || buf[0] == '+' || !(isdigit((unsigned char)buf[0]) || buf[0] == '.'))
        return diag_fail(d, "'%s' is not a size (examples: 80GB, 79.65GiB, 512MiB)", text);
    double value = strtod(buf, &end);
    if (end == buf || errno != 0 || !isfinite(value) || value < 0)
        return diag_fail(d, "'%s' is not a size (examples: 80GB, 79.65GiB, 512MiB)", text);
    while (*end && isspace((unsigned char)*end))
        end++;
    if (*end == '\0')
        return diag_fail(d, "'%s' needs a unit: GB (10^9 bytes) or GiB (2^30 bytes), "
                            "also B, MB, MiB, TB, TiB",
                         text);
    for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++) {
        if (strcasecmp(end, size_units[i].name) == 0) {
            /* Case-insensitive "gib" vs "gb" stays distinct because of the 'i'. */
            double bytes = value * size_units[i].bytes;
            if (bytes >= 9.0e18)
                return diag_fail(d, "'%s' is too large", text);
            *out = (uint64_t)llround(bytes);
            return true;
        }
    }
    return diag_fail(d, "'%s': unknown unit '%s' (use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB)",
                     text, end);
}

bool units_parse_number(const char *text, double min, double max, double *out, struct diag *d)
{
    char buf[64];
    if (text == NULL || !strip_number(text, buf, sizeof buf, d))
        return diag_fail(d, "'%s' is not a number", text ? text : "");
    char *end = NULL;
    errno = 0;
    double value = strtod(buf, &end);
    if (end == buf || *end != '\0' || errno != 0 || !isfinite(value))
        return diag_fail(d, "'%s' is not a number", text);
    if (value < min || value > max)
        return diag_fail(d, "'%s' is out of range (%g to %g)", text, min, max);
    /* "-0" is zero: never print "$-0.00/h" or "-0 %" */
    *out = value == 0 ? 0.0 : value;
    return true;
}

bool units_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out,
                       struct diag *d)
{
    char buf[64];
    if (text == NULL || !strip_number(text, buf, sizeof buf, d))
        return diag_fail(d, "'%s' is not a whole number from %llu to %llu", text ? text : "",
                         (unsigned long long)min, (unsigned long long)max);
    const char *first = buf[0] == '+' ? buf + 1 : buf;
    bool digits = *first != '\0';
    for (const char *p = first; *p; p++)
        digits = digits && isdigit((unsigned char)*p);
    char *end = NULL;
    errno = 0;
    double value = strtod(buf, &end);
    if (!digits && end != buf && *end == '\0' && isfinite(value) && value != floor(value))
        return diag_fail(d, "'%s' is not a whole number: a count cannot be a fraction", text);
    errno = 0;
    unsigned long long v = digits ? strtoull(buf, NULL, 10) : 0;
    if (!digits || errno != 0 || v < min || v > max)
        return diag_fail(d, "'%s' is not a whole number from %llu to %llu", text,
                         (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return true;
}

/* Text written into a caller's buffer as snprintf would: cut to size - 1
 * bytes and always ended (nothing when size is 0). The formatters below are
 * called for every number the planner shows, each frame: printf's
 * machinery cost more than the rest of the frame's text. */
struct text_out {
    char *buf;
    size_t size, len;
};

static void out_text(struct text_out *o, const char *s)
{
    text_append(o->buf, o->size, &o->len, s);
}

/* value in decimal, its digits grouped in thousands with commas or not */
static void out_uint(struct text_out *o, uint64_t value, bool grouped)
{
    char tmp[32]; /* 20 digits and 6 separators */
    int i = (int)sizeof tmp - 1, digits = 0;
    tmp[i] = '\0';
    do {
        if (grouped && digits > 0 && digits % 3 == 0)
            tmp[--i] = ',';
        tmp[--i] = (char)('0' + value % 10);
        value /= 10;
        digits++;
    } while (value != 0);
    out_text(o, tmp + i);
}

char *units_format_int(uint64_t value, char *buf, size_t size)
{
    struct text_out o = {buf, size, 0};
    out_uint(&o, value, true);
    return buf;
}

/* bytes in the unit units_format_bytes shows them in: the value and the unit's index */
static double bytes_scaled(uint64_t bytes, enum unit_system units, int *unit)
{
    double base = units == UNITS_GB ? 1000.0 : 1024.0;
    double v = (double)bytes;
    int i = 0;
    while (i < 3 && v >= base) {
        v /= base;
        i++;
    }
    /* Stay in GiB/GB up to 100,000 so cluster totals read in one unit. */
    while (i < 5 && v >= 100000.0) {
        v /= base;
        i++;
    }
    *unit = i;
    return v;
}

char *units_format_bytes_places(uint64_t bytes, enum unit_system units, int places, char *buf,
                                size_t size)
{
    const char *names_gib[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    const char *names_gb[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    const char **names = units == UNITS_GB ? names_gb : names_gib;
    struct text_out o = {buf, size, 0};
    if (bytes < (uint64_t)(units == UNITS_GB ? 1000 : 1024)) {
        out_uint(&o, bytes, false);
        out_text(&o, " B");
        return buf;
    }
    int i;
    double v = bytes_scaled(bytes, units, &i);
    places = places < 2 ? 2 : places > 6 ? 6 : places;
    uint64_t scale = 1;
    for (int k = 0; k < places; k++)
        scale *= 10;
    /* the whole part grouped in thousands: 3,671.44 GiB */
    uint64_t parts = (uint64_t)(v * (double)scale + 0.5);
    char frac[10] = {'.'};
    for (int k = places; k >= 1; k--, parts /= 10)
        frac[k] = (char)('0' + parts % 10);
    frac[places + 1] = ' ';
    frac[places + 2] = '\0';
    out_uint(&o, (uint64_t)(v * (double)scale + 0.5) / scale, true);
    out_text(&o, frac);
    out_text(&o, names[i]);
    return buf;
}

double units_bytes_shown(uint64_t bytes, enum unit_system units, int places)
{
    int i;
    double v = bytes_scaled(bytes, units, &i), scale = 1;
    for (int k = 0; k < places; k++)
        scale *= 10;
    return floor(v * scale + 0.5) / scale;
}

char *units_format_bytes(uint64_t bytes, enum unit_system units, char *buf, size_t size)
{
    return units_format_bytes_places(bytes, units, 2, buf, size);
}

char *units_format_bytes_exact(uint64_t bytes, char *buf, size_t size)
{
    static const struct {
        uint64_t unit;
        const char *name;
    } steps[] = {{TIB, " TiB"}, {GIB, " GiB"}, {MIB, " MiB"}, {KIB, " KiB"}};
    struct text_out o = {buf, size, 0};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (bytes >= steps[i].unit && bytes % steps[i].unit == 0) {
            out_uint(&o, bytes / steps[i].unit, true);
            out_text(&o, steps[i].name);
            return buf;
        }
    }
    if (bytes < KIB) {
        out_uint(&o, bytes, false);
        out_text(&o, " B");
        return buf;
    }
    return units_format_bytes(bytes, UNITS_GIB, buf, size);
}

char *units_format_tokens(uint64_t tokens, char *buf, size_t size)
{
    struct text_out o = {buf, size, 0};
    out_uint(&o, tokens, true);
    if (tokens >= 1024 && tokens % 1024 == 0) {
        bool mega = tokens % (1024 * 1024) == 0;
        out_text(&o, " (");
        out_uint(&o, mega ? tokens / (1024 * 1024) : tokens / 1024, false);
        out_text(&o, mega ? "M)" : "k)");
    }
    return buf;
}

char *units_format_tokens_arg(uint64_t tokens, char *buf, size_t size)
{
    struct text_out o = {buf, size, 0};
    if (tokens >= 1024 * 1024 && tokens % (1024 * 1024) == 0) {
        out_uint(&o, tokens / (1024 * 1024), false);
        out_text(&o, "M");
    } else if (tokens >= 1024 && tokens % 1024 == 0) {
        out_uint(&o, tokens / 1024, false);
        out_text(&o, "k");
    } else {
        out_uint(&o, tokens, false);
    }
    return buf;
}

char *units_format_tokens_short(uint64_t tokens, char *buf, size_t size)
{
    const uint64_t mi = 1024 * 1024;
    if (tokens > mi && tokens % mi != 0 && tokens * 10 % mi == 0) { /* 1536k: "1.5M" */
        struct text_out o = {buf, size, 0};
        out_uint(&o, tokens / mi, false);
        out_text(&o, ".");
        out_uint(&o, tokens * 10 / mi % 10, false);
        out_text(&o, "M");
        return buf;
    }
    if (tokens >= 1024 && tokens % 1024 == 0)
        return units_format_tokens_arg(tokens, buf, size);
    return units_format_int(tokens, buf, size); /* 5,546: grouped like every other count */
}

const char *units_article(const char *number)
{
    /* the leading group of digits is what is said first: "eight...",
     * "eleven thousand", "eighteen k"; but "a hundred and ten" */
    size_t digits = 0;
    while (number[digits] >= '0' && number[digits] <= '9')
        digits++;
    if (digits == 0)
        return "a";
    if (number[0] == '8')
        return "an";
    if (digits == 2 && number[0] == '1' && (number[1] == '1' || number[1] == '8'))
        return "an";
    return "a";
}

const char *units_name(enum unit_system units)
{
    return units == UNITS_GB ? "GB" : "GiB";
}

double units_scale(enum unit_system units)
{
    return units == UNITS_GB ? 1e9 : 1073741824.0;
}
