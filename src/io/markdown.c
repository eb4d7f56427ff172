#include "markdown.h"

#include <stdbool.h>
#include <string.h>

#include "core/text.h"

/* Output that stops at the last whole piece that fits, NUL-terminated. */
struct sink {
    char *out;
    size_t size, len;
    bool full;
};

static void put(struct sink *k, const char *piece, size_t n)
{
    if (k->full || k->len + n >= k->size) {
        k->full = true;
        return;
    }
    memcpy(k->out + k->len, piece, n);
    k->len += n;
    k->out[k->len] = '\0';
}

/* A whole character at p: its length (a stray byte alone). */
static size_t char_len(const unsigned char *p)
{
    unsigned cp;
    size_t n = text_utf8_decode(p, &cp);
    return n ? n : 1;
}

static bool alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The byte of text at start that would make a list item of it ("- x",
 * "+ x", "12. x", "3) x"): its offset, or -1. */
static long list_marker(const unsigned char *t)
{
    if (t[0] == '-' || t[0] == '+')
        return 0;
    size_t digits = strspn((const char *)t, "0123456789");
    if (digits >= 1 && digits <= 9 && (t[digits] == '.' || t[digits] == ')') &&
        (t[digits + 1] == ' ' || t[digits + 1] == '\0'))
        return (long)digits;
    return -1;
}

const char *md_text(const char *text, char *out, size_t size)
{
    struct sink k = {out, size, 0, size == 0};
    if (size > 0)
        out[0] = '\0';
    const unsigned char *t = (const unsigned char *)text;
    long marker = list_marker(t);
    bool leading = true; /* only spaces so far: four would start a code block */
    for (size_t i = 0; t[i];) {
        unsigned char c = t[i] < 0x20 || t[i] == 0x7f ? ' ' : t[i];
        char esc[3] = {'\\', (char)c, '\0'};
        leading = leading && c == ' ';
        if (leading)
            put(&k, "&#32;", 5);
        else if (c == '<' || c == '>' || c == '&')
            put(&k, c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&amp;", c == '&' ? 5 : 4);
        else if ((c == '_' && !(i > 0 && alnum(t[i - 1]) && alnum(t[i + 1]))) ||
                 (c != '_' && strchr("\\`*[]|#!~", c)) || (long)i == marker)
            put(&k, esc, 2); /* an '_' inside a word is no emphasis (CommonMark 6.2) */
        else if (c >= 0x80) {
            size_t n = char_len(t + i);
            put(&k, (const char *)t + i, n);
            i += n;
            continue;
        } else
            put(&k, (const char *)&c, 1);
        i++;
    }
    return out;
}

/* A byte of a code span: a control character (a newline would end the
 * line, and the next could start a block) as a space. */
static char code_char(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f ? ' ' : c;
}

const char *md_code(const char *text, char *out, size_t size)
{
    struct sink k = {out, size, 0, size == 0};
    if (size > 0)
        out[0] = '\0';
    size_t len = strlen(text), run = 0, longest = 0;
    for (size_t i = 0; i < len; i++) {
        run = text[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    size_t fence = longest + 1;
    if (len == 0 || size < 2 * fence + 4)
        return out;
    /* the whole characters that fit beside both fences and their padding */
    size_t room = size - 1 - 2 * (fence + 1), keep = 0;
    while (keep < len) {
        size_t n = char_len((const unsigned char *)text + keep);
        if (keep + n > room)
            break;
        keep += n;
    }
    if (keep == 0)
        return out;
    bool spaces = true;
    for (size_t i = 0; i < keep; i++)
        spaces = spaces && code_char(text[i]) == ' ';
    char first = code_char(text[0]), last = code_char(text[keep - 1]);
    bool pad = first == '`' || last == '`' || (first == ' ' && last == ' ' && !spaces);
    for (size_t i = 0; i < fence; i++)
        put(&k, "`", 1);
    if (pad)
        put(&k, " ", 1);
    for (size_t i = 0; i < keep; i++) {
        char c = code_char(text[i]);
        put(&k, &c, 1);
    }
    if (pad)
        put(&k, " ", 1);
    for (size_t i = 0; i < fence; i++)
        put(&k, "`", 1);
    return out;
}
