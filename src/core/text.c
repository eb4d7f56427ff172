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
    else if (f == TEXT_INVISIBLE)
        snprintf(buf, size, "contains an invisible character (U+%04X)", cp);
    else if (f == TEXT_MARK_FIRST)
        snprintf(buf, size, "starts with a combining mark (U+%04X)", cp);
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

bool text_space_char(unsigned cp)
{
    return cp == ' ' || cp == 0x00A0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* The bytes of the character at p (a stray byte counts as one), its code
 * point in *cp (0x110000 up for a stray byte: no character's). */
static size_t char_at(const char *p, unsigned *cp)
{
    size_t n = text_utf8_decode((const unsigned char *)p, cp);
    if (n == 0)
        *cp = 0x110000u + (unsigned char)*p;
    return n ? n : 1;
}

const char *text_trim(const char *text, size_t *len)
{
    unsigned cp = 0;
    for (size_t n; *text; text += n) {
        n = char_at(text, &cp);
        if (!text_space_char(cp))
            break;
    }
    size_t end = 0;
    for (size_t i = 0, n; text[i]; i += n) {
        n = char_at(text + i, &cp);
        if (!text_space_char(cp))
            end = i + n;
    }
    *len = end;
    return text;
}

/* Invisible format characters: a name holding one looks like another. */
static bool invisible(unsigned cp)
{
    return cp == 0x00AD || (cp >= 0x200B && cp <= 0x200D) || (cp >= 0x2060 && cp <= 0x2064) ||
           cp == 0xFEFF || cp == 0x180E;
}

static bool combining(unsigned cp)
{
    return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
           (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
           (cp >= 0xFE20 && cp <= 0xFE2F);
}

enum text_fault text_check_name(const char *text, size_t max, unsigned *cp)
{
    enum text_fault f = text_check(text, max, cp);
    if (f != TEXT_OK && f != TEXT_TOO_LONG)
        return f;
    for (const char *p = text; *p;) {
        p += char_at(p, cp);
        if (invisible(*cp))
            return TEXT_INVISIBLE;
    }
    size_t n;
    const char *first = text_trim(text, &n);
    if (n > 0) {
        char_at(first, cp);
        if (combining(*cp))
            return TEXT_MARK_FIRST;
    }
    return f;
}

/* The next character of a name as names compare it, from *p on. */
static unsigned name_char(const char **p)
{
    unsigned cp = 0;
    *p += char_at(*p, &cp);
    if (cp >= 0xFF01 && cp <= 0xFF5E) /* full-width ASCII */
        cp -= 0xFEE0;
    if (text_space_char(cp))
        cp = ' ';
    if (cp >= 'A' && cp <= 'Z')
        cp += 'a' - 'A';
    return cp;
}

bool text_same_name(const char *a, const char *b)
{
    size_t na, nb;
    a = text_trim(a, &na);
    b = text_trim(b, &nb);
    const char *end_a = a + na, *end_b = b + nb;
    while (a < end_a && b < end_b)
        if (name_char(&a) != name_char(&b))
            return false;
    return a >= end_a && b >= end_b;
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

char *text_append(char *buf, size_t size, size_t *len, const char *src)
{
    if (size == 0)
        return buf;
    if (*len > size - 1)
        *len = size - 1;
    size_t n = strlen(src), room = size - 1 - *len;
    if (n > room)
        n = room;
    memcpy(buf + *len, src, n);
    *len += n;
    buf[*len] = '\0';
    return buf;
}

char *text_copy(char *buf, size_t size, const char *src)
{
    size_t len = 0;
    return text_append(buf, size, &len, src);
}

const char *text_possessive(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && name[n - 1] == 's' ? "'" : "'s";
}
