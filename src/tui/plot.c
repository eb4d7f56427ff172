#include "plot.h"

#include <curses.h>
#include <math.h>
#include <string.h>
#include <wchar.h>

#include "canvas.h"

/* A braille cell's dot bits, by column and by row from the top. */
static const unsigned char dot_bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
/* Without UTF-8, one character a cell for each pattern. */
static const char ascii_glyph[PLOT_PATTERNS] = {'=', '.', '-', '\''};

/* Whether the dot at (px, py) is drawn: counted along a level line and
 * along a rule alike, so a step keeps its series' pattern. */
static bool pattern_on(enum plot_pattern p, int px, int py)
{
    int at = px + py;
    switch (p) {
    case PLOT_DOTTED:
        return at % 2 == 0;
    case PLOT_DASHED:
        return at % 4 < 2;
    case PLOT_SPARSE:
        return at % 4 == 0;
    default:
        return true;
    }
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* the dot row (0 at the bottom) of height v in 0..1 over `dots` rows */
static int dot_row(double v, int dots)
{
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return (int)lround(v * (dots - 1));
}

static unsigned char cells[PLOT_MAX_H][PLOT_MAX_W];
static signed char owner[PLOT_MAX_H][PLOT_MAX_W];

static void set_dot(int h, int px, int py, int k)
{
    int col = px / 2, row = h - 1 - py / 4;
    if (cells[row][col] == 0)
        owner[row][col] = (signed char)k;
    cells[row][col] |= dot_bit[px % 2][3 - py % 4];
}

static void plot_series(int w, int h, const struct plot_series *s, int k)
{
    int xdots = 2 * w, ydots = 4 * h, prev = -1;
    for (int px = 0; px < xdots; px++) {
        int i = s->n > 1 && xdots > 1 ? (int)lround((double)px * (s->n - 1) / (xdots - 1)) : 0;
        double v = s->n > 0 ? s->y[i] : -1;
        if (v < 0) {
            prev = -1;
            continue;
        }
        int py = dot_row(v, ydots);
        int lo = prev < 0 ? py : prev < py ? prev : py, hi = prev < 0 ? py : prev > py ? prev : py;
        for (int y = lo; y <= hi; y++)
            if (pattern_on(s->pattern, px, y))
                set_dot(h, px, y, k);
        prev = py;
    }
}

void widget_plot(struct rect r, const struct plot_series *s, int count)
{
    int w = clamp(r.w, 0, PLOT_MAX_W), h = clamp(r.h, 0, PLOT_MAX_H);
    if (w == 0 || h == 0)
        return;
    for (int row = 0; row < h; row++)
        memset(cells[row], 0, (size_t)w);
    for (int k = 0; k < count && k < 127; k++)
        plot_series(w, h, &s[k], k);
    bool utf8 = roles_utf8();
    for (int row = 0; row < h; row++)
        for (int col = 0; col < w; col++) {
            if (cells[row][col] == 0)
                continue;
            const struct plot_series *o = &s[owner[row][col]];
            wchar_t ch = utf8 ? (wchar_t)(0x2800 + cells[row][col])
                              : (wchar_t)ascii_glyph[o->pattern % PLOT_PATTERNS];
            canvas_fill(r.y + row, r.x + col, 1, ch, role_attr(o->role));
        }
}

void widget_plot_cell(struct rect r, double fx, double fy, int *x, int *y)
{
    int xdots = 2 * (r.w > 0 ? r.w : 1), ydots = 4 * (r.h > 0 ? r.h : 1);
    *x = r.x + dot_row(fx, xdots) / 2;
    *y = r.y + (ydots / 4 - 1) - dot_row(fy, ydots) / 4;
}

void widget_plot_sample(int y, int x, int w, enum plot_pattern pattern, enum role role)
{
    bool utf8 = roles_utf8();
    for (int c = 0; c < w; c++) {
        unsigned char bits = 0;
        for (int d = 0; d < 2; d++)
            if (pattern_on(pattern, 2 * c + d, 0))
                bits |= dot_bit[d][1];
        wchar_t ch = utf8 ? (wchar_t)(0x2800 + bits) : (wchar_t)ascii_glyph[pattern % PLOT_PATTERNS];
        if (bits || !utf8)
            canvas_fill(y, x + c, 1, ch, role_attr(role));
    }
}
