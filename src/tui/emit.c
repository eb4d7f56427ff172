#include "emit.h"
#include "emit_attr.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

/* A cell whose content on the terminal is not known: it equals no cell of
 * a frame, so it is always written. */
#define UNKNOWN 0xffffffffu
/* Room for one expanded move and for one cell with its move and attributes. */
enum { MOVE_MAX = 64, CELL_MAX = MOVE_MAX + 256 + 16 };

static struct {
    struct emit_cap cup, hpa, cuf, cuf1, cub1, cr, clear, el;
    bool bce, utf8;
} tc;

/* What the terminal has now, as far as the emitter knows. */
static uint32_t cur_attr;  /* the attributes curses last set, or we */
static int cur_y = -1, cur_x = -1; /* the cursor; -1: unknown (or pending a wrap) */

static char *buf;
static size_t len, size;
static bool opened, lost; /* lost: bytes dropped (out of memory), the next frame goes whole */

static bool plain(const char *s)
{
    for (; *s; s++) {
        if (*s != '%')
            continue;
        s++;
        if (*s == '%' || *s == 'i')
            continue;
        if (s[0] == 'p' && (s[1] == '1' || s[1] == '2') && s[2] == '%' && s[3] == 'd') {
            s += 3;
            continue;
        }
        return false;
    }
    return true;
}

static char *put_uint(char *p, unsigned v)
{
    char digits[12];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* c with parameters p1, p2 at p (room MOVE_MAX); returns the end. */
static char *expand(const struct emit_cap *c, int p1, int p2, char *p)
{
    if (!c->plain) {
        const char *s = tiparm(c->s, p1, p2);
        size_t n = s ? strlen(s) : 0;
        if (n >= MOVE_MAX)
            n = 0;
        memcpy(p, s, n);
        return p + n;
    }
    int inc = 0;
    for (const char *s = c->s; *s; s++) {
        if (*s != '%') {
            *p++ = *s;
            continue;
        }
        s++;
        if (*s == '%')
            *p++ = '%';
        else if (*s == 'i')
            inc = 1;
        else { /* p1%d or p2%d */
            p = put_uint(p, (unsigned)((s[1] == '1' ? p1 : p2) + inc));
            s += 3;
        }
    }
    return p;
}

bool emit_cap_load(struct emit_cap *c, const char *name)
{
    char *s = tigetstr(name);
    memset(c, 0, sizeof *c);
    if (s == NULL || s == (char *)-1 || s[0] == '\0')
        return true;
    if (strstr(s, "$<"))
        return false;
    c->s = s;
    c->len = strlen(s);
    c->plain = plain(s);
    if (c->plain && strchr(s, '%')) {
        char mine[MOVE_MAX];
        const char *theirs = tiparm(s, 12, 345);
        size_t n = (size_t)(expand(c, 12, 345, mine) - mine);
        c->plain = theirs != NULL && strlen(theirs) == n && memcmp(theirs, mine, n) == 0;
    }
    return true;
}

bool emit_open(char *why, size_t whylen)
{
    struct {
        struct emit_cap *c;
        const char *name;
    } caps[] = {{&tc.cup, "cup"},   {&tc.hpa, "hpa"}, {&tc.cuf, "cuf"},     {&tc.cuf1, "cuf1"},
                {&tc.cub1, "cub1"}, {&tc.cr, "cr"},   {&tc.clear, "clear"}, {&tc.el, "el"}};
    const char *no = NULL;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0] && !no; i++)
        if (!emit_cap_load(caps[i].c, caps[i].name))
            no = "the terminal needs padding";
    if (!no)
        no = emit_attr_open();
    if (!no && (tc.cup.s == NULL || tc.clear.s == NULL))
        no = "the terminal cannot position the cursor or clear the screen";
    if (!no && tigetflag("am") > 0 && tigetflag("xenl") <= 0)
        no = "the terminal wraps as soon as the last column is written";
    if (!no && tigetflag("msgr") <= 0)
        no = "the terminal cannot move the cursor with attributes on";
    if (no) {
        snprintf(why, whylen, "%s", no);
        return false;
    }
    tc.bce = tigetflag("bce") > 0;
    opened = true;
    const char *cs = nl_langinfo(CODESET);
    tc.utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
    cur_attr = A_NORMAL;
    cur_y = cur_x = -1;
    return true;
}

void emit_close(void)
{
    emit_attr_close();
    free(buf);
    buf = NULL;
    len = size = 0;
    opened = false;
}

/* Room for n more bytes (the buffer grows; out of memory, what does not
 * fit is dropped and the next frame written whole). */
static bool room(size_t n)
{
    if (len + n <= size)
        return true;
    size_t want = size ? size : 16384;
    while (want < len + n)
        want *= 2;
    char *p = realloc(buf, want);
    if (p == NULL) {
        lost = true;
        return false;
    }
    buf = p;
    size = want;
    return true;
}

static void append(const char *s, size_t n)
{
    if (n > 0 && room(n)) {
        memcpy(buf + len, s, n);
        len += n;
    }
}

/* The terminal's attributes to a. */
static void set_attr(uint32_t a)
{
    if (a == cur_attr)
        return;
    size_t n;
    const char *s = emit_attr_change(cur_attr, a, &n);
    append(s, n);
    cur_attr = a;
}

static char *put_char(char *p, uint32_t ch)
{
    if (ch < 0x80) {
        *p++ = (char)(ch == CANVAS_CONT ? ' ' : ch);
    } else if (tc.utf8) {
        if (ch < 0x800) {
            *p++ = (char)(0xc0 | ch >> 6);
        } else {
            if (ch < 0x10000) {
                *p++ = (char)(0xe0 | ch >> 12);
            } else {
                *p++ = (char)(0xf0 | ch >> 18);
                *p++ = (char)(0x80 | (ch >> 12 & 0x3f));
            }
            *p++ = (char)(0x80 | (ch >> 6 & 0x3f));
        }
        *p++ = (char)(0x80 | (ch & 0x3f));
    } else {
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t n = wcrtomb(p, (wchar_t)ch, &st);
        if (n == (size_t)-1)
            *p++ = '?';
        else
            p += n;
    }
    return p;
}

static size_t char_len(uint32_t ch)
{
    if (ch < 0x80)
        return 1;
    char tmp[16];
    return (size_t)(put_char(tmp, ch) - tmp);
}

/* The bytes that rewriting cells [from, to) of the row as the terminal
 * has them would take, or SIZE_MAX when that is not less than `limit` or
 * would need an attribute change. */
static size_t rewrite_cost(const struct canvas_cell *row, int from, int to, size_t limit)
{
    if (row[from].ch == CANVAS_CONT)
        return SIZE_MAX;
    size_t n = 0;
    for (int k = from; k < to; k++) {
        if (row[k].attr != cur_attr || row[k].ch == UNKNOWN)
            return SIZE_MAX;
        if (row[k].ch != CANVAS_CONT && (n += char_len(row[k].ch)) >= limit)
            return SIZE_MAX;
    }
    return n;
}

/* best := s when it is shorter. */
static void consider(char *best, size_t *n, const char *s, size_t k)
{
    if (k < *n) {
        memcpy(best, s, k);
        *n = k;
    }
}

/* The cursor to (y, x) the shortest way: an absolute move, or on the same
 * row the cells between written again, a move right or left by a count or
 * a step, a carriage return, a move to the column. `row`: the terminal's. */
static void move_to(int y, int x, const struct canvas_cell *row)
{
    if (y == cur_y && x == cur_x)
        return;
    char best[MOVE_MAX], alt[MOVE_MAX];
    size_t n = (size_t)(expand(&tc.cup, y, x, best) - best);
    if (y == cur_y && cur_x >= 0) {
        if (x > cur_x) {
            size_t k = rewrite_cost(row, cur_x, x, n);
            if (k != SIZE_MAX) {
                char *p = buf + len; /* room: a frame reserves CELL_MAX a cell */
                for (int c = cur_x; c < x; c++)
                    if (row[c].ch != CANVAS_CONT)
                        p = put_char(p, row[c].ch);
                len = (size_t)(p - buf);
                cur_x = x;
                return;
            }
            if (x == cur_x + 1 && tc.cuf1.s)
                consider(best, &n, tc.cuf1.s, tc.cuf1.len);
            else if (tc.cuf.s)
                consider(best, &n, alt, (size_t)(expand(&tc.cuf, x - cur_x, 0, alt) - alt));
        } else if (tc.cub1.s && (size_t)(cur_x - x) * tc.cub1.len < n) {
            n = 0;
            for (int c = x; c < cur_x; c++, n += tc.cub1.len)
                memcpy(best + n, tc.cub1.s, tc.cub1.len);
        }
        if (x == 0 && tc.cr.s)
            consider(best, &n, tc.cr.s, tc.cr.len);
        if (tc.hpa.s)
            consider(best, &n, alt, (size_t)(expand(&tc.hpa, x, 0, alt) - alt));
    }
    append(best, n);
    cur_y = y;
    cur_x = x;
}

/* The first column of the row's trailing run of one blank that an erase
 * to the end of the line can write; cols when there is none. */
static int blank_tail(const struct canvas_cell *row, int cols)
{
    const struct canvas_cell last = row[cols - 1];
    if (tc.el.s == NULL || last.ch != ' ' || !emit_attr_clearable(last.attr, tc.bce))
        return cols;
    int x = cols - 1;
    while (x > 0 && row[x - 1].ch == last.ch && row[x - 1].attr == last.attr)
        x--;
    return x;
}

static bool same(const struct canvas_cell *a, const struct canvas_cell *b)
{
    return a->ch == b->ch && a->attr == b->attr;
}

/* Whether erasing from x to the end of the row is shorter than writing
 * the blanks up to the last one that changed. */
static bool erase_pays(const struct canvas_cell *now, const struct canvas_cell *was, int x,
                       int cols)
{
    int last = cols - 1;
    while (last > x && same(now + last, was + last))
        last--;
    return (size_t)(last - x + 1) > tc.el.len;
}

/* Writes the changed cells from x on that need neither a move nor an
 * attribute change (and lie before `end`); returns the column after them. */
static int write_run(const struct canvas_cell *now, struct canvas_cell *was, int x, int cols,
                     int end)
{
    char *p = buf + len; /* room: emit_row reserved it */
    do {
        p = put_char(p, now[x].ch);
        was[x] = now[x];
        if (x + 1 < cols && now[x + 1].ch == CANVAS_CONT) {
            x++;
            was[x] = now[x];
        }
        x++;
        /* half of a two-column character written over: what is left of it
         * is the terminal's to decide */
        if (x < cols && was[x].ch == CANVAS_CONT)
            was[x].ch = UNKNOWN;
    } while (x < end && now[x].attr == cur_attr && now[x].ch != CANVAS_CONT &&
             !same(now + x, was + x));
    len = (size_t)(p - buf);
    cur_x = x < cols ? x : -1; /* past the last column: a wrap is pending */
    return x;
}

/* Row y from `was` to `now`. */
static void emit_row(int y, const struct canvas_cell *now, struct canvas_cell *was, int cols)
{
    int tail = blank_tail(now, cols);
    if (!room((size_t)cols * 16 + CELL_MAX))
        return;
    for (int x = 0;;) {
        x = canvas_next_change(now, was, x, cols);
        if (x == cols)
            return;
        /* a two-column character is written whole, on either frame */
        while (x > 0 && (now[x].ch == CANVAS_CONT || was[x].ch == CANVAS_CONT))
            x--;
        if (!room((size_t)(cols - x) * 16 + CELL_MAX))
            return;
        if (x >= tail && erase_pays(now, was, x, cols)) {
            move_to(y, x, was);
            set_attr(now[x].attr);
            append(tc.el.s, tc.el.len);
            memcpy(was + x, now + x, (size_t)(cols - x) * sizeof *now);
            return;
        }
        if (x >= tail)
            tail = cols; /* it did not pay here: it pays nowhere further right */
        move_to(y, x, was);
        set_attr(now[x].attr);
        x = write_run(now, was, x, cols, tail);
    }
}

void emit_frame(const struct canvas_cell *now, struct canvas_cell *was, int cols, int rows,
                bool whole)
{
    if (cols <= 0 || rows <= 0 || !opened)
        return;
    whole = whole || lost;
    lost = false;
    if (whole) {
        uint32_t bg = (uint32_t)(getbkgd(stdscr) & A_COLOR);
        set_attr(bg);
        append(tc.clear.s, tc.clear.len);
        cur_y = cur_x = 0;
        struct canvas_cell b = {emit_attr_clearable(bg, tc.bce) ? ' ' : UNKNOWN, bg};
        for (size_t i = 0; i < (size_t)cols * (size_t)rows; i++)
            was[i] = b;
    }
    for (int y = 0; y < rows; y++) {
        const struct canvas_cell *n = now + (size_t)y * cols;
        struct canvas_cell *w = was + (size_t)y * cols;
        if (memcmp(n, w, (size_t)cols * sizeof *n) != 0)
            emit_row(y, n, w, cols);
    }
}

void emit_release(void)
{
    if (opened)
        set_attr(A_NORMAL);
    cur_y = cur_x = -1;
}

const char *emit_bytes(size_t *n)
{
    *n = len;
    return buf;
}

void emit_discard(void)
{
    len = 0;
}

bool emit_flush(int fd)
{
    size_t done = 0;
    while (done < len) {
        ssize_t k = write(fd, buf + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    bool ok = done == len;
    len = 0;
    return ok;
}
