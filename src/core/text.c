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

bool text_unsafe_char(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
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
