#include "shell.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A formatted word or remark is at most this long (numbers, an id with a
 * suffix, a sentence); a longer one fails the line rather than cutting it. */
enum { SHELL_FORMAT_MAX = 1024 };

static bool plain_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("_-./,:=+@%", c) != NULL);
}

bool shell_word_plain(const char *word)
{
    if (word[0] == '\0')
        return false;
    for (const unsigned char *p = (const unsigned char *)word; *p; p++)
        if (!plain_char(*p))
            return false;
    return true;
}

size_t shell_quote(const char *word, char *out, size_t size)
{
    size_t n = 0;
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (n + 1 < size)                                                                          \
            out[n] = (ch);                                                                         \
        n++;                                                                                       \
    } while (0)
    bool plain = shell_word_plain(word);
    if (!plain)
        PUT('\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'') { /* close, an escaped quote, reopen */
            PUT('\'');
            PUT('\\');
            PUT('\'');
        }
        PUT(*p);
    }
    if (!plain)
        PUT('\'');
#undef PUT
    if (size)
        out[n < size ? n : size - 1] = '\0';
    return n;
}

void shell_line_init(struct shell_line *l, char *buf, size_t size)
{
    l->buf = buf;
    l->size = size;
    l->need = 0;
    l->remarked = false;
    buf[0] = '\0';
}

static void put(struct shell_line *l, const char *text, size_t len)
{
    if (l->need < l->size && len < l->size - l->need) {
        memcpy(l->buf + l->need, text, len);
        l->buf[l->need + len] = '\0';
    }
    l->need = len < SIZE_MAX / 2 - l->need ? l->need + len : SIZE_MAX / 2;
}

void shell_word(struct shell_line *l, const char *word)
{
    if (l->need)
        put(l, " ", 1);
    size_t end = l->need;
    size_t room = end < l->size ? l->size - end : 0;
    size_t n = shell_quote(word, room ? l->buf + end : NULL, room);
    if (n >= room && room) /* did not fit: the line keeps its whole words */
        l->buf[end] = '\0';
    l->need = n < SIZE_MAX / 2 - end ? end + n : SIZE_MAX / 2;
}

void shell_raw(struct shell_line *l, const char *text, size_t len)
{
    if (l->need)
        put(l, " ", 1);
    put(l, text, len);
}

/* Formats into tmp (SHELL_FORMAT_MAX bytes); false, the line failed, when
 * the text is longer. */
__attribute__((format(printf, 3, 0))) static bool format(struct shell_line *l, char *tmp,
                                                         const char *fmt, va_list ap)
{
    int n = vsnprintf(tmp, SHELL_FORMAT_MAX, fmt, ap);
    if (n >= 0 && n < SHELL_FORMAT_MAX)
        return true;
    l->need = SIZE_MAX / 2;
    return false;
}

__attribute__((format(printf, 2, 0))) static void vword(struct shell_line *l, const char *fmt,
                                                        va_list ap)
{
    char tmp[SHELL_FORMAT_MAX];
    if (format(l, tmp, fmt, ap))
        shell_word(l, tmp);
}

void shell_wordf(struct shell_line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vword(l, fmt, ap);
    va_end(ap);
}

void shell_option(struct shell_line *l, const char *name, const char *fmt, ...)
{
    shell_word(l, name);
    va_list ap;
    va_start(ap, fmt);
    vword(l, fmt, ap);
    va_end(ap);
}

void shell_words(struct shell_line *l, const char *text)
{
    char word[SHELL_FORMAT_MAX];
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, " ");
        if (n >= sizeof word) {
            l->need = SIZE_MAX / 2;
            return;
        }
        if (n) {
            memcpy(word, p, n);
            word[n] = '\0';
            shell_word(l, word);
        }
        p += n;
        p += *p == ' ';
    }
}

void shell_comment(struct shell_line *l, const char *fmt, ...)
{
    char tmp[SHELL_FORMAT_MAX];
    va_list ap;
    va_start(ap, fmt);
    bool ok = format(l, tmp, fmt, ap);
    va_end(ap);
    if (!ok)
        return;
    for (char *p = tmp; *p; p++) /* a newline would end the remark and run the rest */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    put(l, tmp, strlen(tmp));
    l->remarked = true;
}

bool shell_line_done(struct shell_line *l, size_t *need)
{
    if (need)
        *need = l->need;
    if (l->need < l->size)
        return true;
    l->buf[0] = '\0';
    return false;
}

/* ---- wrapping for display ---- */

struct wrap {
    char *out;
    size_t size, n;
    size_t col;   /* bytes on the current line */
    bool empty;   /* no word on the current line yet */
    size_t width;
};

static void wput(struct wrap *w, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++, w->n++)
        if (w->n + 1 < w->size)
            w->out[w->n] = s[i];
    w->col += len;
}

/* Ends the line with `tail` and starts the next with `head`. */
static void wbreak(struct wrap *w, const char *tail, const char *head)
{
    wput(w, tail, strlen(tail));
    wput(w, "\n", 1);
    w->col = 0;
    wput(w, head, strlen(head));
    w->empty = true;
}

/* Moves the quoting state over k bytes of a word as the builder writes it
 * (single quotes, and \' outside them). */
static void scan(const char *p, size_t k, bool *quoted, bool *escaped)
{
    for (size_t i = 0; i < k; i++) {
        if (*escaped)
            *escaped = false;
        else if (*quoted)
            *quoted = p[i] != '\'';
        else if (p[i] == '\'')
            *quoted = true;
        else if (p[i] == '\\')
            *escaped = true;
    }
}

/* Where the word at p ends: at an unquoted space (in a remark, any space). */
static const char *word_end(const char *p, bool remark)
{
    bool quoted = false, escaped = false;
    for (; *p; p++) {
        if (*p == ' ' && (remark || (!quoted && !escaped)))
            break;
        if (!remark)
            scan(p, 1, &quoted, &escaped);
    }
    return p;
}

/* Writes a word too long for a line in pieces: each piece but the last ends
 * in a continuation that the shell removes ("\", or "'\" with the quote
 * reopened on the next line), so the pieces stay one word. A remark's word
 * is simply cut and goes on in a remark line. `reserve`: the room the line
 * must keep after the word. */
static void long_word(struct wrap *w, const char *p, size_t len, bool remark, size_t reserve)
{
    bool quoted = false;
    while (w->col + len + reserve > w->width) {
        size_t k = w->width - w->col - (remark ? 0 : 2);
        while (k > 1 && ((unsigned char)p[k] & 0xC0) == 0x80) /* not inside a character */
            k--;
        bool q = quoted, escaped = false;
        scan(p, k, &q, &escaped);
        if (escaped) { /* not between a backslash and what it escapes */
            k--;
            q = quoted;
            escaped = false;
            scan(p, k, &q, &escaped);
        }
        wput(w, p, k);
        if (remark)
            wbreak(w, "", "  # ");
        else if (q)
            wbreak(w, "'\\", "'");
        else
            wbreak(w, "\\", "");
        quoted = q;
        p += k;
        len -= k;
    }
    wput(w, p, len);
}

const char *shell_word_end(const char *p)
{
    return word_end(p, false);
}

size_t shell_wrap(const char *line, size_t width, char *out, size_t size)
{
    struct wrap w = {out, size, 0, 0, true, width < 16 ? 16 : width};
    bool remark = false;
    const char *p = line;
    while (*p == ' ')
        p++;
    while (*p) {
        bool starts_remark = !remark && *p == '#';
        const char *end = word_end(p, remark || starts_remark);
        const char *next = end;
        while (*next == ' ')
            next++;
        /* room for the " \\" that follows, unless nothing does */
        size_t len = (size_t)(end - p), reserve = remark || starts_remark || !*next ? 0 : 2;
        if (!w.empty && w.col + 1 + len + reserve > w.width) {
            if (remark)
                wbreak(&w, "", "  # ");
            else
                wbreak(&w, " \\", "  ");
        } else if (!w.empty) {
            wput(&w, " ", 1);
        }
        remark = remark || starts_remark;
        if (w.col + len + reserve > w.width)
            long_word(&w, p, len, remark, reserve);
        else
            wput(&w, p, len);
        w.empty = false;
        p = next;
    }
    if (w.n)
        wput(&w, "\n", 1);
    if (size)
        out[w.n < size ? w.n : 0] = '\0';
    return w.n;
}
