#include "canvas.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CONT = CANVAS_CONT };

static struct canvas_cell *frame, *shown; /* being drawn; last shown (stdscr or the terminal) */
static int cols, rows;
static bool shown_valid; /* false: stdscr's content is not `shown` (new size) */
static attr_t background;

/* The canvas for the current size; false when it cannot be had. */
static bool fit(void)
{
    if (frame != NULL && cols == COLS && rows == LINES)
        return true;
    canvas_close();
    if (COLS <= 0 || LINES <= 0)
        return false;
    size_t n = (size_t)COLS * (size_t)LINES;
    frame = malloc(n * sizeof *frame);
    shown = malloc(n * sizeof *shown);
    if (frame == NULL || shown == NULL) {
        canvas_close();
        return false;
    }
    cols = COLS;
    rows = LINES;
    return true;
}

void canvas_close(void)
{
    free(frame);
    free(shown);
    frame = shown = NULL;
    cols = rows = 0;
    shown_valid = false;
}

/* What curses does to a character it draws: no colour pair, the background's. */
static uint32_t rendered(attr_t a)
{
    return (uint32_t)((a & A_COLOR) ? a : a | (background & A_COLOR));
}

void canvas_erase(void)
{
    if (!fit())
        return;
    background = (attr_t)(getbkgd(stdscr) & A_ATTRIBUTES);
    struct canvas_cell blank = {L' ', rendered(A_NORMAL)};
    for (int x = 0; x < cols; x++)
        frame[x] = blank;
    for (int y = 1; y < rows; y++)
        memcpy(frame + (size_t)y * cols, frame, (size_t)cols * sizeof *frame);
}

/* Writing from column x on cuts a two-column character whose right half is
 * there: its left half becomes a blank, as curses leaves it. */
static void cut_left(struct canvas_cell *row, int x)
{
    if (x > 0 && row[x].ch == CONT)
        row[x - 1] = (struct canvas_cell){L' ', rendered(A_NORMAL)};
}

/* ... and writing up to column end cuts one whose left half was before it. */
static void cut_right(struct canvas_cell *row, int end)
{
    for (int i = end; i < cols && row[i].ch == CONT; i++)
        row[i] = (struct canvas_cell){L' ', rendered(A_NORMAL)};
}

wchar_t canvas_decode(const char *p, size_t left, bool utf8, mbstate_t *st, size_t *used)
{
    unsigned char c0 = (unsigned char)*p;
    if (c0 < 0x80) {
        *used = 1;
        return (wchar_t)c0;
    }
    if (c0 >= 0xe0 && c0 < 0xf0 && left >= 3 && ((unsigned char)p[1] & 0xc0) == 0x80 &&
        ((unsigned char)p[2] & 0xc0) == 0x80 && utf8) {
        /* the box, block and arrow glyphs: three bytes, decoded here (mbrtowc
         * costs more than the rest of the cell) */
        *used = 3;
        return (wchar_t)(((c0 & 0x0f) << 12) | (((unsigned char)p[1] & 0x3f) << 6) |
                         ((unsigned char)p[2] & 0x3f));
    }
    wchar_t wc = 0;
    *used = mbrtowc(&wc, p, left, st);
    if (*used == (size_t)-1 || *used == (size_t)-2 || *used == 0) {
        memset(st, 0, sizeof *st);
        *used = 1;
        return L'?';
    }
    return wc;
}

/* What put_text drew: the columns, and whether text was left over. */
struct drawn {
    int used;
    bool cut;
};

/* Text into row from column x within w columns. */
static struct drawn put_text(struct canvas_cell *row, int x, int w, uint32_t at, const char *text,
                             bool utf8)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    struct drawn d = {0, false};
    for (;;) {
        unsigned char c = (unsigned char)*text;
        if (c == 0)
            break;
        if (c < 0x80) { /* most text: one byte, one column */
            if (d.used == w) {
                d.cut = true;
                break;
            }
            row[x + d.used++] = (struct canvas_cell){c, at};
            text++;
            continue;
        }
        size_t n; /* the text ends in a NUL, which ends any character cut short */
        wchar_t wc = canvas_decode(text, MB_LEN_MAX, utf8, &st, &n);
        int cw = wc >= 0x2500 && wc < 0x2600 ? 1 : wcwidth(wc);
        if (cw < 0) { /* not printable: a mark in its place */
            wc = L'?';
            cw = 1;
        }
        text += n;
        if (cw == 0)
            continue; /* a combining mark: curses draws the next character over it */
        if (d.used + cw > w) {
            d.cut = true;
            break;
        }
        row[x + d.used] = (struct canvas_cell){(uint32_t)wc, at};
        if (cw == 2)
            row[x + d.used + 1] = (struct canvas_cell){CONT, at};
        d.used += cw;
    }
    return d;
}

/* The last of w columns from x becomes the mark (a two-column character
 * under it gives way whole). */
static void put_mark(struct canvas_cell *row, int x, int w, uint32_t at, bool utf8)
{
    int last = x + w - 1;
    if (row[last].ch == CONT && last > x)
        row[last - 1] = (struct canvas_cell){L' ', at};
    row[last] = (struct canvas_cell){utf8 ? 0x2026 : '~', at};
}

static int text_at(int y, int x, int w, attr_t a, const char *text, bool marked, bool utf8)
{
    if (frame == NULL || w <= 0 || y < 0 || y >= rows || x < 0 || x >= cols || *text == '\0')
        return 0;
    if (x + w > cols)
        w = cols - x;
    struct canvas_cell *row = frame + (size_t)y * cols;
    uint32_t at = rendered(a);
    cut_left(row, x);
    struct drawn d = put_text(row, x, w, at, text, utf8);
    if (d.cut && marked && w >= 2) {
        put_mark(row, x, w, at, utf8);
        d.used = w;
    }
    if (d.used > 0)
        cut_right(row, x + d.used);
    return d.used;
}

int canvas_text(int y, int x, int w, attr_t a, const char *text, bool utf8)
{
    return text_at(y, x, w, a, text, false, utf8);
}

int canvas_text_marked(int y, int x, int w, attr_t a, const char *text, bool utf8)
{
    return text_at(y, x, w, a, text, true, utf8);
}

void canvas_fill(int y, int x, int n, wchar_t ch, attr_t a)
{
    if (frame == NULL || n <= 0 || y < 0 || y >= rows || x >= cols)
        return;
    if (x < 0) {
        n += x;
        x = 0;
    }
    if (x + n > cols)
        n = cols - x;
    if (n <= 0)
        return;
    struct canvas_cell *row = frame + (size_t)y * cols;
    cut_left(row, x);
    cut_right(row, x + n);
    struct canvas_cell c = {(uint32_t)ch, rendered(a)};
    for (int i = 0; i < n; i++)
        row[x + i] = c;
}

static bool same(const struct canvas_cell *a, const struct canvas_cell *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

int canvas_next_change(const struct canvas_cell *now, const struct canvas_cell *was, int x,
                       int ncols)
{
    while (x + 4 <= ncols && memcmp(now + x, was + x, 4 * sizeof *now) == 0)
        x += 4; /* unchanged stretches four cells at a time */
    while (x < ncols && same(now + x, was + x))
        x++;
    return x;
}

/* Cells [x0, x1] of row y to stdscr, each two-column character once, in
 * calls of at most SPAN cells. */
enum { SPAN = 256 };

static void put_span(int y, int x0, int x1, const struct canvas_cell *row)
{
    cchar_t cells[SPAN], model;
    uint32_t model_attr = 0;
    bool have_model = false;
    int n = 0, at = x0;
    for (int x = x0; x <= x1; x++) {
        if (row[x].ch == CONT)
            continue;
        if (n == SPAN) {
            mvwadd_wchnstr(stdscr, y, at, cells, n);
            n = 0;
            at = x;
        }
        if (!have_model || row[x].attr != model_attr) {
            wchar_t space[2] = {L' ', 0};
            model_attr = row[x].attr;
            setcchar(&model, space, (attr_t)model_attr & ~A_COLOR,
                     (short)PAIR_NUMBER((attr_t)model_attr), NULL);
            have_model = true;
        }
        cells[n] = model;
        cells[n++].chars[0] = (wchar_t)row[x].ch;
    }
    if (n > 0)
        mvwadd_wchnstr(stdscr, y, at, cells, n);
}

/* Unchanged cells between two changes of a row that still go to curses
 * with them rather than in a call of their own: a call costs about as much
 * as two or three cells more. */
enum { GAP = 2 };

/* The changed cells of row y, in spans, to stdscr; `was` becomes `now`. */
static void present_row(int y, const struct canvas_cell *now, struct canvas_cell *was)
{
    for (int x = 0;;) {
        x = canvas_next_change(now, was, x, cols);
        if (x == cols)
            break;
        int start = x, end = x;
        for (int k = x + 1; k < cols && k - end <= GAP; k++)
            if (!same(now + k, was + k))
                end = k;
        /* whole two-column characters, on either frame */
        while (start > 0 && (now[start].ch == CONT || was[start].ch == CONT))
            start--;
        while (end + 1 < cols && (now[end + 1].ch == CONT || was[end + 1].ch == CONT))
            end++;
        put_span(y, start, end, now);
        memcpy(was + start, now + start, (size_t)(end - start + 1) * sizeof *now);
        x = end + 1;
    }
}

bool canvas_frames(struct canvas_cell **now, struct canvas_cell **was, int *ncols, int *nrows,
                   bool *whole)
{
    if (frame == NULL || cols != COLS || rows != LINES)
        return false;
    *now = frame;
    *was = shown;
    *ncols = cols;
    *nrows = rows;
    *whole = !shown_valid;
    shown_valid = true;
    return true;
}

void canvas_present(void)
{
    if (frame == NULL || cols != COLS || rows != LINES)
        return;
    for (int y = 0; y < rows; y++) {
        struct canvas_cell *now = frame + (size_t)y * cols, *was = shown + (size_t)y * cols;
        if (!shown_valid) {
            put_span(y, 0, cols - 1, now);
            memcpy(was, now, (size_t)cols * sizeof *now);
        } else if (memcmp(now, was, (size_t)cols * sizeof *now) != 0) {
            present_row(y, now, was);
        }
    }
    shown_valid = true;
}
