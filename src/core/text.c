#include "text.h"

#include <stdio.h>
#include <string.h>

size_t text_utf8_decode(const unsigned char *p, unsigned *cp)
{
    unsigned c = p[0];
    size_t extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2
                 : (c & 0xF8) == 0xF0 ? 3 : 4;
    if (extra == 4 || (extra == 1 && c < 0xC2) || c > 0xF4)
        return 0;
    unsigned v = extra ? c & (0x3Fu >> extra) : c;
    for (size_t i = 1; i <= extra; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3Fu);
    }
    if ((extra == 2 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
        (extra == 3 && (v < 0x10000 || v > 0x10FFFF)))
        return 0;
    *cp = v;
    return extra + 1;
}

static bool bidi_override(unsigned cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static bool control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

bool text_unsafe_char(unsigned cp)
{
    return control(cp) || bidi_override(cp) || cp == 0x200E || cp == 0x200F || cp == 0x061C ||
           cp == 0x2028 || cp == 0x2029;
}

size_t text_escape(const char *text, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t o = 0, kept = 0; /* kept: the whole characters that fit */
    bool full = size == 0;
    while (*p) {
        unsigned cp = 0;
        size_t n = text_utf8_decode(p, &cp);
        char esc[12];
        const char *piece = (const char *)p;
        size_t len = n;
        if (n == 0 || text_unsafe_char(cp)) {
            /* a byte that is not text, or a character that would steer the
             * terminal: shown, never sent */
            if (n == 0 || cp < 0x80)
                snprintf(esc, sizeof esc, "\\x%02x", p[0]);
            else
                snprintf(esc, sizeof esc, "\\u%04x", cp);
            piece = esc;
            len = strlen(esc);
            if (n == 0)
                n = 1;
        }
        if (!full && o + len < size) {
            memcpy(out + o, piece, len);
            kept = o + len;
        } else {
            full = true; /* stop at a whole character, never half an escape */
        }
        o += len;
        p += n;
    }
    if (size > 0)
        out[kept] = '\0';
    return o;
}

enum text_fault text_check(const char *text, size_t max, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)text;
    enum text_fault f = strlen(text) > max ? TEXT_TOO_LONG : TEXT_OK;
    while (*p) {
        size_t n = text_utf8_decode(p, cp);
        if (n == 0)
            return TEXT_NOT_UTF8;
        if (text_unsafe_char(*cp))
            return TEXT_UNSAFE;
        p += n;
    }
    return f; /* what is in it first, its length after */
}

void text_fault_describe(enum text_fault f, unsigned cp, size_t max, char *buf, size_t size)
{
    const char *what = control(cp)         ? "a control character"
                       : bidi_override(cp) ? "a bidirectional override"
                       : cp >= 0x2028      ? "a line or paragraph separator"
                                           : "a bidirectional mark";
    if (f == TEXT_TOO_LONG)
        snprintf(buf, size, "longer than %zu bytes", max);
    else if (f == TEXT_NOT_UTF8)
        snprintf(buf, size, "is not valid UTF-8 text");
    else if (f == TEXT_UNSAFE)
        snprintf(buf, size, "contains %s (U+%04X)", what, cp);
    else
        snprintf(buf, size, "is text");
}

bool text_sanitize(const char *text, char *out, size_t size)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)text;
    size_t o = 0;
    bool changed = false;
    while (*p && size > 0) {
        unsigned cp = 0;
        size_t n = text_utf8_decode(p, &cp);
        const char *piece = (const char *)p;
        size_t len = n;
        if (n == 0) {
            piece = replacement;
            len = 3;
            n = 1;
        } else if (text_unsafe_char(cp)) {
            len = 0;
        }
        changed = changed || len != n || piece != (const char *)p;
        if (o + len >= size) {
            changed = true; /* cut: only ever before a whole character */
            break;
        }
        memcpy(out + o, piece, len);
        o += len;
        p += n;
    }
    if (size > 0)
        out[o] = '\0';
    return changed;
}

const char *text_trim(const char *text, size_t *len)
{
    while (*text == ' ')
        text++;
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == ' ')
        n--;
    *len = n;
    return text;
}

size_t text_last_char(const char *text, size_t n)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t at = n;
    /* back over up to three continuation bytes to the byte that leads them */
    while (at > 0 && n - at < 4) {
        at--;
        if ((p[at] & 0xC0) != 0x80) {
            size_t need = p[at] >= 0xF0 ? 4 : p[at] >= 0xE0 ? 3 : p[at] >= 0xC0 ? 2 : 1;
            return n - at <= need ? at : n - 1; /* past its sequence: a stray byte */
        }
    }
    return n > 0 ? n - 1 : 0; /* stray continuation bytes: one at a time */
}
