#include "widgets.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "canvas.h"

/* The columns of UTF-8 text, every character one (the glyphs drawn here). */
static size_t text_cols(const char *text, size_t *bytes_of, size_t cols)
{
    size_t n = 0, b = 0;
    for (; text[b]; b++) {
        if (((unsigned char)text[b] & 0xC0) == 0x80)
            continue;
        if (n == cols)
            *bytes_of = b;
        n++;
    }
    if (n <= cols)
        *bytes_of = b;
    return n;
}

const char *widget_fit(const char *text, int w, char *buf, size_t size)
{
    size_t keep = 0;
    if (w < 2 || text_cols(text, &keep, (size_t)w - 1) <= (size_t)w)
        return text;
    snprintf(buf, size, "%.*s%s", (int)keep, text, roles_utf8() ? "\u2026" : "~");
    return buf;
}

int widget_text(int y, int x, int w, enum role role, const char *text)
{
    return canvas_text_marked(y, x, w, role_attr(role), text, roles_utf8());
}

void widget_fill(int y, int x, int w, enum role role)
{
    canvas_fill(y, x, w, L' ', role_attr(role));
}

/* A glyph's character. */
static wchar_t glyph_char(const char *glyph)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t used;
    return canvas_decode(glyph, strlen(glyph), roles_utf8(), &st, &used);
}

/* A run of n copies of a glyph at (y, x). */
static void put_run(int y, int x, int n, const char *glyph, attr_t a)
{
    canvas_fill(y, x, n, glyph_char(glyph), a);
}

static void put_glyph(int y, int x, const char *glyph, attr_t a)
{
    put_run(y, x, 1, glyph, a);
}

void widget_slider(int y, int x, int w, double fraction, bool focused)
{
    if (w < 3)
        return;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    int knob = (int)(fraction * (w - 1) + 0.5);
    const char *fill = roles_utf8() ? "\u2501" : "=";
    const char *kg = roles_utf8() ? "\u25cf" : "O";
    put_run(y, x, knob, fill, role_attr(focused ? ROLE_GOOD : ROLE_TEXT));
    put_glyph(y, x + knob, kg, role_attr(focused ? ROLE_FOCUS : ROLE_TITLE));
    put_run(y, x + knob + 1, w - knob - 1, role_glyph(ROLE_TRACK), role_attr(ROLE_TRACK));
}

double widget_slider_fraction_at(int x, int w, int cx)
{
    if (w < 2)
        return 0;
    double f = (double)(cx - x) / (double)(w - 1);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Every segment that holds anything keeps at least one cell, taken from the
 * largest (a draft or a prefix of a few hundred MiB beside tens of GiB
 * rounds to none, yet the legend lists it). */
static void bar_least_cells(int *cells, const struct bar_segment *seg, int n)
{
    for (int i = 0; i < n; i++) {
        if (cells[i] > 0 || seg[i].fraction <= 0)
            continue;
        int big = 0;
        for (int j = 1; j < n; j++)
            big = cells[j] > cells[big] ? j : big;
        if (cells[big] < 2)
            return;
        cells[big]--;
        cells[i] = 1;
    }
}

void widget_bar(int y, int x, int w, const struct bar_segment *seg, int n, bool over)
{
    if (w <= 0)
        return;
    /* Largest-remainder rounding: cells sum exactly to what the fractions
     * cover, and a non-zero segment keeps at least its share. */
    int cells[16] = {0};
    double rem[16] = {0};
    int total = 0;
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++) {
        double exact = seg[i].fraction * w;
        if (exact < 0)
            exact = 0;
        cells[i] = (int)exact;
        rem[i] = exact - cells[i];
        total += cells[i];
    }
    double covered = 0;
    for (int i = 0; i < n; i++)
        covered += seg[i].fraction;
    int target = (int)(covered * w + 0.5);
    if (target > w)
        target = w;
    while (total < target) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (best < 0 || rem[i] > rem[best])
                best = i;
        if (best < 0 || rem[best] <= 0)
            break;
        cells[best]++;
        rem[best] = 0;
        total++;
    }
    while (total > w) {
        for (int i = n - 1; i >= 0 && total > w; i--)
            if (cells[i] > 0) {
                cells[i]--;
                total--;
            }
    }
    bar_least_cells(cells, seg, n);
    int cx = x;
    for (int i = 0; i < n; i++) {
        put_run(y, cx, cells[i], role_glyph(seg[i].role), role_attr(seg[i].role));
        cx += cells[i];
    }
    put_run(y, cx, x + w - cx, " ", A_NORMAL);
    if (over)
        put_glyph(y, x + w - 1, roles_utf8() ? "\u25b6" : ">", role_attr(ROLE_OVER));
}

/* A 3 x 5 font for 0-9, ',' and '-': each row is 3 bits, high bit left. */
static const unsigned char font[12][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
    {0, 0, 0, 2, 4}, {0, 0, 7, 0, 0},
};

static int glyph_index(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c == ',')
        return 10;
    return 11;
}

static int glyph_width(char c, int scale)
{
    return (c == ',' ? 2 : 4) * scale;
}

int widget_big_number_width(const char *digits, int scale)
{
    int w = 0;
    for (size_t i = 0; digits[i]; i++)
        w += glyph_width(digits[i], scale);
    return w > 0 ? w - scale : 0;
}

int widget_big_number(int y, int x, const char *digits, int scale, enum role role)
{
    const char *cell = roles_utf8() ? "\u2588" : "#";
    attr_t a = role_attr(role) | role_emphasis();
    int w = widget_big_number_width(digits, scale);
    /* the gaps take the digits' attribute too: each row is then one run of
     * one attribute, and a changed count costs no attribute resets */
    for (int r = 0; r < 5 * scale; r++)
        canvas_fill(y + r, x, w, L' ', a & ~(attr_t)A_UNDERLINE);
    int cx = x;
    for (size_t i = 0; digits[i]; i++) {
        int g = glyph_index(digits[i]);
        int bits = digits[i] == ',' ? 2 : 3; /* the comma uses its two right columns */
        for (int r = 0; r < 5 * scale; r++) {
            unsigned char row = font[g][r / scale];
            for (int b = 0; b < bits; b++) {
                int bit = digits[i] == ',' ? 1 - b : 2 - b;
                if ((row >> bit) & 1)
                    put_run(y + r, cx + b * scale, scale, cell, a);
            }
        }
        cx += glyph_width(digits[i], scale);
    }
    return cx - x;
}

void widget_columns(struct rect r, const double *values, int n, int marker, enum role role,
                    enum role marker_role)
{
    widget_columns_fill(r, values, n, marker, role, marker_role, NULL);
}

void widget_columns_fill(struct rect r, const double *values, int n, int marker, enum role role,
                         enum role marker_role, const char *fill)
{
    static const char *eighths[9] = {" ",      "\u2581", "\u2582", "\u2583", "\u2584",
                                     "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char *ascii[9] = {" ", ".", ".", "_", "_", "o", "o", "#", "#"};
    const char **set = roles_utf8() ? eighths : ascii;
    wchar_t glyphs[9]; /* each level's character, decoded once for every cell */
    for (int i = 0; i < 9; i++)
        glyphs[i] = glyph_char(fill ? fill : set[i]);
    wchar_t rule = glyph_char(roles_utf8() ? "\u2502" : "|");
    attr_t plain = role_attr(role), marked = role_attr(marker_role);
    for (int c = 0; c < n && c < r.w; c++) {
        double v = values[c] < 0 ? 0 : values[c] > 1 ? 1 : values[c];
        int units = (int)(v * r.h * 8 + 0.5);
        attr_t a = c == marker ? marked : plain;
        for (int row = 0; row < r.h; row++) {
            int level = units - (r.h - 1 - row) * 8;
            level = level < 0 ? 0 : level > 8 ? 8 : level;
            if (level > 0)
                canvas_fill(r.y + row, r.x + c, 1, glyphs[level], a);
            else if (c == marker && row == r.h - 1)
                canvas_fill(r.y + row, r.x + c, 1, rule, a);
        }
    }
}
