/* The memory bar (widget_bar) on a headless screen: a segment that holds
 * anything has at least one cell, however small beside the others (a
 * draft of 589 MiB and a prefix of 176 MiB beside tens of GiB), the cell
 * taken from the largest, in colour and in monochrome alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>
#include <locale.h>

#include "tui/canvas.h"
#include "tui/term.h"
#include "screen_fixture.h"
#include "tui/widgets.h"

/* The attribute of cell (y, x) of stdscr, and its character. */
static wchar_t cell(int y, int x, attr_t *attrs, short *pair)
{
    cchar_t cc;
    wchar_t wch[CCHARW_MAX + 1];
    mvwin_wch(stdscr, y, x, &cc);
    getcchar(&cc, wch, attrs, pair, NULL);
    return wch[0];
}

/* How many of the bar's w cells look like segment k's first cell would:
 * the cells drawn with role's glyph and attribute. */
static int cells_of(enum role role, int w)
{
    int n = 0;
    for (int x = 0; x < w; x++) {
        attr_t a;
        short pair;
        wchar_t ch = cell(0, x, &a, &pair);
        char want[8];
        wchar_t wc = 0;
        snprintf(want, sizeof want, "%s", role_glyph(role));
        mbtowc(&wc, want, strlen(want));
        if (ch == wc && (a & ~A_COLOR) == (role_attr(role) & ~A_COLOR) &&
            pair == PAIR_NUMBER(role_attr(role)))
            n++;
    }
    return n;
}

static void small_segments_keep_a_cell(void)
{
    /* per GPU of 79.22 GiB: weights 32.85, runtime 3.46, draft 0.575,
     * prefix 0.172, users 33.53, spare 0.70 (GiB) */
    const double gib[] = {32.85, 3.46, 0.575, 0.172, 33.53, 0.70};
    const enum role role[] = {ROLE_WEIGHTS, ROLE_RUNTIME, ROLE_DRAFT,
                              ROLE_PREFIX,  ROLE_KV,      ROLE_REMAINDER};
    struct bar_segment seg[6];
    for (int i = 0; i < 6; i++)
        seg[i] = (struct bar_segment){gib[i] / 79.22, role[i]};
    canvas_erase();
    widget_bar(0, 0, 56, seg, 6, false);
    term_refresh();
    int sum = 0;
    for (int i = 0; i < 6; i++) {
        int n = cells_of(role[i], 56);
        assert_true(n >= 1);
        sum += n;
    }
    /* the bar covers what it covered (90% of 56 cells): the two cells the
     * small segments take come from the largest two, a cell each */
    assert_int_equal(sum, 50);
    assert_int_equal(cells_of(ROLE_WEIGHTS, 56) + cells_of(ROLE_KV, 56), 45);
    assert_int_equal(cells_of(ROLE_RUNTIME, 56), 2);
}

static void small_segments_keep_a_cell_in_colour(void **state)
{
    (void)state;
    screen_open(60, 2, false);
    small_segments_keep_a_cell();
    term_close();
}

static void small_segments_keep_a_cell_in_monochrome(void **state)
{
    (void)state;
    screen_open(60, 2, true);
    small_segments_keep_a_cell();
    term_close();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_segments_keep_a_cell_in_colour),
        cmocka_unit_test(small_segments_keep_a_cell_in_monochrome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
