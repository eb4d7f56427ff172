/* The users-against-context chart's axes (core/curve.h: both logarithmic,
 * so one user sits at the foot and a count of a sixty-fourth of the peak is
 * well above it) and its braille plot (tui/plot.h) on a headless screen: a
 * series leaves no column empty between points that fit, and a second
 * series reads apart from the first by its dots alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>
#include <locale.h>

#include "catalog_fixture.h"
#include "core/curve.h"
#include "core/plan.h"
#include "tui/canvas.h"
#include "tui/plot.h"
#include "tui/term.h"
#include "screen_fixture.h"

static void the_users_axis_is_logarithmic(void **state)
{
    (void)state;
    double span = curve_span(453);
    assert_true(span > 2.6 && span < 2.7);
    assert_int_equal(curve_y_ticks(span), 3); /* 1, 10, 100 */
    assert_true(curve_y(0, span) < 0);       /* none fit: no point */
    assert_true(curve_y(1, span) == 0);      /* one user: the foot, drawn */
    assert_true(curve_y(453, span) > 0.999); /* the peak: the top */
    /* 7 users of 453 (under a sixtieth): a third of the way up, not nothing */
    assert_true(curve_y(7, span) > 0.3 && curve_y(7, span) < 0.35);
    assert_true(curve_span(0) == 1.0 && curve_span(3) == 1.0); /* at least a decade */
}

static void ticks_are_named(void **state)
{
    (void)state;
    static const char *const want[] = {"1", "10", "100", "1,000", "10,000", "100,000", "1M",
                                       "10M", "100M", "1G"};
    char buf[16];
    for (int d = 0; d < 10; d++) {
        curve_y_label(d, buf, sizeof buf);
        assert_string_equal(buf, want[d]);
    }
    assert_string_equal(curve_x_label(0), "1k");
    assert_string_equal(curve_x_label(CURVE_X_TICKS - 1), "1M");
    assert_true(curve_x(1024) == 0 && curve_x(1 << 20) == 1);
    assert_true(curve_x(1 << 15) == 0.5);
    assert_true(curve_x(512) < 0 && curve_x((1 << 20) + 1) < 0);
}

static int open_screen(void **state)
{
    (void)state;
    return screen_open(40, 8, true);
}

/* Cell (y, x) of stdscr. */
static wchar_t cell(int y, int x)
{
    cchar_t cc;
    attr_t attrs;
    short pair;
    wchar_t wch[CCHARW_MAX + 1];
    mvwin_wch(stdscr, y, x, &cc);
    getcchar(&cc, wch, &attrs, &pair, NULL);
    return wch[0];
}

static bool braille(wchar_t c)
{
    return c > 0x2800 && c <= 0x28ff;
}

static void a_steep_fall_leaves_no_column_empty(void **state)
{
    (void)state;
    /* from the top to the foot in one step, then along the foot */
    double y[5] = {1, 1, 0, 0, 0};
    struct plot_series s = {y, 5, ROLE_KV, PLOT_SOLID};
    struct rect r = {0, 0, 20, 6};
    canvas_erase();
    widget_plot(r, &s, 1);
    term_refresh();
    for (int x = 0; x < r.w; x++) {
        bool any = false;
        for (int row = 0; row < r.h; row++)
            any = any || braille(cell(row, x));
        assert_true(any);
    }
    /* the foot's row holds the low dots, the top row the high ones */
    assert_true(braille(cell(5, 19)) && (cell(5, 19) & 0xc0));
    assert_true(braille(cell(0, 0)) && (cell(0, 0) & 0x09));
}

static void a_gap_where_none_fit(void **state)
{
    (void)state;
    double y[4] = {0.5, -1, -1, 0.5};
    struct plot_series s = {y, 4, ROLE_KV, PLOT_SOLID};
    canvas_erase();
    widget_plot((struct rect){0, 0, 20, 6}, &s, 1);
    term_refresh();
    bool any = false;
    for (int row = 0; row < 6; row++)
        any = any || braille(cell(row, 10));
    assert_false(any);
}

static void a_dotted_series_has_other_dots(void **state)
{
    (void)state;
    double y[2] = {0.5, 0.5};
    struct plot_series solid = {y, 2, ROLE_KV, PLOT_SOLID}, dotted = {y, 2, ROLE_WARN, PLOT_DOTTED};
    canvas_erase();
    widget_plot((struct rect){0, 0, 20, 3}, &solid, 1);
    widget_plot((struct rect){0, 4, 20, 3}, &dotted, 1);
    term_refresh();
    for (int x = 0; x < 20; x++) {
        wchar_t a = 0, b = 0;
        for (int row = 0; row < 3; row++) {
            a = braille(cell(row, x)) ? cell(row, x) : a;
            b = braille(cell(4 + row, x)) ? cell(4 + row, x) : b;
        }
        assert_true(a != 0 && b != 0 && a != b); /* both drawn, with other dots */
    }
}

/* A context at or below the shared prefix: the prefix is held to the
 * context less one token, as plan and sweep hold it, so the curve is drawn
 * there instead of leaving the columns empty. */
static void a_prefix_past_the_context_is_held_as_plan_holds_it(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.prefix_tokens = 2048;
    struct users_curve c;
    curve_compute(&s, &c);
    assert_int_equal(c.context_tokens[0], 1024);
    struct scenario t = s;
    t.context_tokens = 1024;
    t.avg_context_tokens = 0;
    t.prefix_tokens = 1023;
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(&t, PLAN_NUMBERS, NULL, &r, &d));
    assert_true(r.max_users > 0);
    assert_int_equal(c.users[0], r.max_users);
}

int main(void)
{
    const struct CMUnitTest axes[] = {
        cmocka_unit_test(the_users_axis_is_logarithmic),
        cmocka_unit_test(ticks_are_named),
    };
    const struct CMUnitTest held[] = {
        cmocka_unit_test(a_prefix_past_the_context_is_held_as_plan_holds_it),
    };
    const struct CMUnitTest plot[] = {
        cmocka_unit_test(a_steep_fall_leaves_no_column_empty),
        cmocka_unit_test(a_gap_where_none_fit),
        cmocka_unit_test(a_dotted_series_has_other_dots),
    };
    return cmocka_run_group_tests(axes, NULL, NULL) | cmocka_run_group_tests(held, setup, teardown) |
           cmocka_run_group_tests(plot, open_screen, close_screen);
}
