#include "emit.h"

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

/* A terminfo string. `plain`: it holds only text, %i, %p1%d, %p2%d and %%,
 * which are expanded here (tiparm interprets the whole language, some
 * 2,500 instructions a cursor move); otherwise tiparm expands it. */
struct cap {
    const char *s; /* NULL: the terminal has none */
    size_t len;
    bool plain;
};

static struct {
    struct cap cup, hpa, cuf, cuf1, cub1, cr, clear, el;
    bool bce, utf8;
} tc;

/* What the terminal has now, as far as the emitter knows. */
static uint32_t cur_attr;  /* the attributes curses last set, or we */
static int cur_y = -1, cur_x = -1; /* the cursor; -1: unknown (or pending a wrap) */

static char *buf;
static size_t len, size;

/* Attribute changes, as curses writes them, each worked out once. */
enum { TRANS_SLOTS = 256, TRANS_MAX = 60 };
struct trans {
    uint32_t from, to;
    bool used;
    unsigned char len;
    char s[TRANS_MAX];
};
static struct trans *trans;

/* Pairs whose colours are the terminal's own (an erase without bce leaves
 * those): 0 not yet asked, 1 default, 2 not. */
static unsigned char pair_default[256];

/* The attribute strings: an attribute the terminal cannot show (no
 * string, or no_color_video's with a colour pair) is left out, as curses
 * leaves it out. */
static const struct {
    attr_t attr;
    const char *name;
} attr_caps[] = {{A_STANDOUT, "smso"}, {A_UNDERLINE, "smul"}, {A_REVERSE, "rev"},
                 {A_BLINK, "blink"},   {A_DIM, "dim"},       {A_BOLD, "bold"},
                 {A_INVIS, "invis"},   {A_PROTECT, "prot"},  {A_ITALIC, "sitm"}};
enum { ATTR_CAPS = sizeof attr_caps / sizeof attr_caps[0] };
static struct cap attr_str[ATTR_CAPS], sgr0, op, setaf, setab;
static attr_t shown_attrs, ncv_attrs; /* those with a string; those not with colour */
static bool ax;                       /* default colours one at a time (SGR 39, 49) */

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
static char *expand(const struct cap *c, int p1, int p2, char *p)
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

/* Loads a string; false when it needs padding (a delay the emitter does
 * not make). A plain one is checked against tiparm once. */
static bool load(struct cap *c, const char *name)
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
        struct cap *c;
        const char *name;
    } caps[] = {{&tc.cup, "cup"},   {&tc.hpa, "hpa"}, {&tc.cuf, "cuf"},     {&tc.cuf1, "cuf1"},
                {&tc.cub1, "cub1"}, {&tc.cr, "cr"},   {&tc.clear, "clear"}, {&tc.el, "el"}};
    const char *no = NULL;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0] && !no; i++)
        if (!load(caps[i].c, caps[i].name))
            no = "the terminal needs padding";
    shown_attrs = ncv_attrs = 0;
    int ncv = tigetnum("ncv");
    for (int i = 0; i < ATTR_CAPS && !no; i++) {
        if (!load(&attr_str[i], attr_caps[i].name))
            no = "the terminal needs padding";
        if (attr_str[i].s)
            shown_attrs |= attr_caps[i].attr;
        if (ncv > 0 && i < 8 && (ncv & 1 << i)) /* ncv's bits, in the order of the table */
            ncv_attrs |= attr_caps[i].attr;
    }
    if (!no && (!load(&sgr0, "sgr0") || !load(&op, "op") || !load(&setaf, "setaf") ||
                !load(&setab, "setab")))
        no = "the terminal needs padding";
    if (!no && sgr0.s == NULL && shown_attrs)
        no = "the terminal cannot reset its attributes";
    if (!no && (tc.cup.s == NULL || tc.clear.s == NULL))
        no = "the terminal cannot position the cursor or clear the screen";
    if (!no && tigetflag("am") > 0 && tigetflag("xenl") <= 0)
        no = "the terminal wraps as soon as the last column is written";
    if (!no && tigetflag("msgr") <= 0)
        no = "the terminal cannot move the cursor with attributes on";
    if (!no && (trans = calloc(TRANS_SLOTS, sizeof *trans)) == NULL)
        no = "out of memory";
    if (no) {
        snprintf(why, whylen, "%s", no);
        return false;
    }
    tc.bce = tigetflag("bce") > 0;
    ax = tigetflag("AX") > 0;
    const char *cs = nl_langinfo(CODESET);
    tc.utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
    cur_attr = A_NORMAL;
    cur_y = cur_x = -1;
    memset(pair_default, 0, sizeof pair_default);
    return true;
}

void emit_close(void)
{
    free(buf);
    free(trans);
    buf = NULL;
    trans = NULL;
    len = size = 0;
}

/* Room for n more bytes (the buffer grows; out of memory, the frame is
 * dropped and the next one written whole). */
static bool room(size_t n)
{
    if (len + n <= size)
        return true;
    size_t want = size ? size : 16384;
    while (want < len + n)
        want *= 2;
    char *p = realloc(buf, want);
    if (p == NULL)
        return false;
    buf = p;
    size = want;
    return true;
}

static void append(const char *s, size_t n)
{
    if (room(n)) {
        memcpy(buf + len, s, n);
        len += n;
    }
}

static char seq[256];
static size_t seq_len;

static void seq_add(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (seq_len + n <= sizeof seq) {
        memcpy(seq + seq_len, s, n);
        seq_len += n;
    }
}

static void pair_colors(int pair, short *fg, short *bg)
{
    *fg = *bg = -1;
    if (pair != 0 && pair_content((short)pair, fg, bg) != OK)
        *fg = *bg = -1;
}

/* Length of the SGR (ESC [ digits and semicolons m) at s, or 0. */
static size_t sgr_at(const char *s, size_t n)
{
    if (n < 3 || s[0] != '\033' || s[1] != '[')
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] == 'm')
            return i + 1;
        if (s[i] != ';' && (s[i] < '0' || s[i] > '9'))
            return 0;
    }
    return 0;
}

/* Back-to-back SGRs as one (ESC [30m ESC [46m as ESC [30;46m: ECMA-48's
 * parameters, in the same order), an empty parameter list written as 0. */
static void merge_sgrs(void)
{
    char out[sizeof seq];
    size_t o = 0, last = 0; /* last: where the previous SGR ends in out, 0: none */
    for (size_t i = 0; i < seq_len;) {
        size_t k = sgr_at(seq + i, seq_len - i);
        if (k > 0 && last == o && o > 0) {
            out[o - 1] = ';'; /* its m */
            if (k == 3)
                out[o++] = '0';
            memcpy(out + o, seq + i + 2, k - 2);
            o += k - 2;
        } else {
            memcpy(out + o, seq + i, k ? k : 1);
            o += k ? k : 1;
        }
        last = k > 0 ? o : last;
        i += k ? k : 1;
    }
    memcpy(seq, out, o);
    seq_len = o;
}

/* What goes from attributes a to b (each with its pair), into seq. */
static void transition(uint32_t a, uint32_t b)
{
    int pa = PAIR_NUMBER((attr_t)a), pb = PAIR_NUMBER((attr_t)b);
    attr_t from = (attr_t)a & shown_attrs & ~(pa ? ncv_attrs : 0);
    attr_t to = (attr_t)b & shown_attrs & ~(pb ? ncv_attrs : 0);
    short fa, ba, fb, bb;
    pair_colors(pa, &fa, &ba);
    pair_colors(pb, &fb, &bb);
    seq_len = 0;
    if (from & ~to) { /* an attribute goes off: only a reset does that */
        seq_add(sgr0.s);
        from = A_NORMAL;
        fa = ba = -1;
    }
    for (int i = 0; i < ATTR_CAPS; i++)
        if (to & ~from & attr_caps[i].attr)
            seq_add(attr_str[i].s);
    bool fg_off = fb < 0 && fa >= 0, bg_off = bb < 0 && ba >= 0;
    if (ax && fg_off != bg_off) {
        /* AX: the terminal takes ECMA-48's default foreground (39) and
         * background (49) one at a time, as curses then writes them */
        seq_add(fg_off ? "\033[39m" : "\033[49m");
        fa = fg_off ? -1 : fa;
        ba = bg_off ? -1 : ba;
    } else if ((fg_off || bg_off) && op.s) {
        seq_add(op.s);
        fa = ba = -1;
    }
    if (fb >= 0 && fb != fa && setaf.s)
        seq_add(tiparm(setaf.s, fb));
    if (bb >= 0 && bb != ba && setab.s)
        seq_add(tiparm(setab.s, bb));
    merge_sgrs();
}

/* The terminal's attributes to a. */
static void set_attr(uint32_t a)
{
    if (a == cur_attr)
        return;
    uint32_t h = cur_attr * 0x9e3779b1u + a; /* the pair is in bits 8-15 */
    h ^= h >> 15;
    h = (h * 0x85ebca6bu) >> 24;
    struct trans *t = NULL;
    for (uint32_t i = 0; i < TRANS_SLOTS; i++) {
        struct trans *s = &trans[(h + i) & (TRANS_SLOTS - 1)];
        if (s->used && s->from == cur_attr && s->to == a) {
            append(s->s, s->len);
            cur_attr = a;
            return;
        }
        if (!s->used) {
            t = s;
            break;
        }
    }
    transition(cur_attr, a);
    if (t != NULL && seq_len <= TRANS_MAX) {
        *t = (struct trans){.from = cur_attr, .to = a, .used = true, .len = (unsigned char)seq_len};
        memcpy(t->s, seq, seq_len);
    }
    append(seq, seq_len);
    cur_attr = a;
}

/* Whether an erase in attributes a leaves what blanks written in a
 * would: no attribute but the colour, and the colour one an erase keeps
 * (bce), or the terminal's own. */
static bool clearable(uint32_t a)
{
    if ((attr_t)a & (A_ATTRIBUTES & ~(attr_t)A_COLOR))
        return false;
    int pair = PAIR_NUMBER((attr_t)a);
    if (tc.bce || pair == 0)
        return true;
    if (pair >= (int)sizeof pair_default)
        return false;
    if (pair_default[pair] == 0) {
        short fg, bg;
        bool own = pair_content((short)pair, &fg, &bg) == OK && fg == -1 && bg == -1;
        pair_default[pair] = own ? 1 : 2;
    }
    return pair_default[pair] == 1;
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
    if (tc.el.s == NULL || last.ch != ' ' || !clearable(last.attr))
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
    if (cols <= 0 || rows <= 0 || trans == NULL)
        return;
    if (whole) {
        uint32_t bg = (uint32_t)(getbkgd(stdscr) & A_COLOR);
        set_attr(bg);
        append(tc.clear.s, tc.clear.len);
        cur_y = cur_x = 0;
        struct canvas_cell b = {clearable(bg) ? ' ' : UNKNOWN, bg};
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
    if (trans != NULL)
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
