#include "widgets.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int widget_text(int y, int x, int w, enum role role, const char *text)
{
    if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    wchar_t wbuf[1024];
    mbstate_t st;
    memset(&st, 0, sizeof st);
    const char *src = text;
    size_t n = mbsrtowcs(wbuf, &src, 1023, &st);
    if (n == (size_t)-1) {
        /* not valid in this locale: fall back to bytes */
        attr_t a = role_attr(role);
        attron(a);
        mvaddnstr(y, x, text, w);
        attroff(a);
        return (int)strlen(text) < w ? (int)strlen(text) : w;
    }
    wbuf[n] = 0;
    int cols = 0;
    size_t i = 0;
    for (; i < n; i++) {
        int cw = wcwidth(wbuf[i]);
        if (cw < 0)
            cw = 1;
        if (cols + cw > w)
            break;
        cols += cw;
    }
    wbuf[i] = 0;
    attr_t a = role_attr(role);
    attron(a);
    mvaddwstr(y, x, wbuf);
    attroff(a);
    return cols;
}

static void put_glyph(int y, int x, const char *glyph, attr_t a)
{
    attron(a);
    mvaddstr(y, x, glyph);
    attroff(a);
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
    const char *track = role_glyph(ROLE_TRACK);
    const char *fill = roles_utf8() ? "\u2501" : "=";
    const char *kg = roles_utf8() ? "\u25cf" : "O";
    for (int i = 0; i < w; i++) {
        if (i < knob)
            put_glyph(y, x + i, fill, role_attr(focused ? ROLE_GOOD : ROLE_TEXT));
        else if (i == knob)
            put_glyph(y, x + i, kg, role_attr(focused ? ROLE_FOCUS : ROLE_TITLE));
        else
            put_glyph(y, x + i, track, role_attr(ROLE_TRACK));
    }
}

double widget_slider_fraction_at(int x, int w, int cx)
{
    if (w < 2)
        return 0;
    double f = (double)(cx - x) / (double)(w - 1);
    return f < 0 ? 0 : f > 1 ? 1 : f;
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
    int cx = x;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < cells[i]; k++)
            put_glyph(y, cx++, role_glyph(seg[i].role), role_attr(seg[i].role));
    while (cx < x + w)
        put_glyph(y, cx++, " ", A_NORMAL);
    if (over)
        put_glyph(y, x + w - 1, roles_utf8() ? "\u25b6" : ">", role_attr(ROLE_OVER));
}

/* 3x3 glyphs for 0-9, ',' and '-': rows of 3 characters. */
static const char *big_ascii[12][3] = {
    {" _ ", "| |", "|_|"}, {"   ", "  |", "  |"}, {" _ ", " _|", "|_ "}, {" _ ", " _|", " _|"},
    {"   ", "|_|", "  |"}, {" _ ", "|_ ", " _|"}, {" _ ", "|_ ", "|_|"}, {" _ ", "  |", "  |"},
    {" _ ", "|_|", "|_|"}, {" _ ", "|_|", " _|"}, {"   ", "   ", " , "}, {"   ", " _ ", "   "},
};

static int glyph_index(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c == ',')
        return 10;
    return 11;
}

int widget_big_number_width(const char *digits)
{
    return (int)strlen(digits) * 3;
}

int widget_big_number(int y, int x, int w, const char *digits, enum role role)
{
    int need = widget_big_number_width(digits);
    if (need > w)
        return widget_text(y + 1, x, w, role, digits);
    attr_t a = role_attr(role);
    attron(a | A_BOLD);
    for (size_t i = 0; digits[i]; i++) {
        int g = glyph_index(digits[i]);
        for (int r = 0; r < 3; r++)
            mvaddstr(y + r, x + (int)i * 3, big_ascii[g][r]);
    }
    attroff(a | A_BOLD);
    return need;
}
