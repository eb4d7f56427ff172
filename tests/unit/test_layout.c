/* The planner's layout as a pure function: every terminal size from 1x1 to
 * 300x100 gives panes inside the screen that never overlap, or the
 * "too small" state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/layout.h"
#include "app/planner.h"

static void every_size_gives_a_valid_layout_or_too_small(void **state)
{
    (void)state;
    int valid = 0;
    for (int cols = 1; cols <= 300; cols++) {
        for (int rows = 1; rows <= 100; rows++) {
            struct planner_layout l = layout_compute(cols, rows, CONTROLS_VISIBLE_MAX);
            if (l.too_small) {
                assert_true(cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS);
                continue;
            }
            valid++;
            struct rect panes[] = {l.title,   l.info,  l.controls, l.summary, l.bar,
                                   l.chart,   l.explain, l.status, l.keybar};
            int n = (int)(sizeof panes / sizeof panes[0]);
            for (int i = 0; i < n; i++) {
                if (!layout_rect_inside(panes[i], cols, rows))
                    fail_msg("%dx%d: pane %d outside the screen", cols, rows, i);
                for (int j = i + 1; j < n; j++)
                    if (layout_rects_overlap(panes[i], panes[j]))
                        fail_msg("%dx%d: panes %d and %d overlap", cols, rows, i, j);
            }
            /* every control has its row, or the list scrolls over at least 12 rows
             * and the explain pane keeps its title and three rows */
            if (l.control_rows < CONTROLS_VISIBLE_MAX)
                assert_true(l.control_rows >= 12 && l.explain.h >= LAYOUT_EXPLAIN_MIN);
            assert_true(l.controls.h >= (l.control_rows - 1) * l.control_pitch + 1);
            /* the bar has its title, the bar and a legend row at least */
            assert_true(l.bar.h >= 3);
            /* a slider's track: after the label and a blank, a blank and the value after it */
            assert_int_equal(l.track_x, l.controls.x + LAYOUT_LABEL_W + 1);
            assert_true(l.track_w > 0);
            assert_int_equal(l.track_x + l.track_w + 1 + LAYOUT_VALUE_W, l.controls.x + l.controls.w);
        }
    }
    assert_int_equal(valid, (301 - LAYOUT_MIN_COLS) * (101 - LAYOUT_MIN_ROWS));
}

/* The list stays put while the focus is in view (with a row of context when
 * three rows or more are shown), moves only as far as it must, and never
 * scrolls past its ends. */
static void the_control_list_scrolls_to_keep_the_focus_in_view(void **state)
{
    (void)state;
    assert_int_equal(layout_control_top(10, 16, 9, 0, true), 0);  /* all fit */
    assert_int_equal(layout_control_top(20, 16, 0, 0, true), 0);
    assert_int_equal(layout_control_top(20, 16, 14, 0, true), 0); /* row 15 below it: context */
    assert_int_equal(layout_control_top(20, 16, 15, 0, true), 1); /* 15 + 1 - 16 + 1 */
    assert_int_equal(layout_control_top(20, 16, 19, 0, true), 4); /* the last row is the last control */
    assert_int_equal(layout_control_top(20, 16, 10, 3, true), 3); /* in view: the list stays */
    assert_int_equal(layout_control_top(20, 16, 3, 3, true), 2);  /* a row of context above */
    assert_int_equal(layout_control_top(20, 16, 0, 3, true), 0);
    assert_int_equal(layout_control_top(20, 16, 5, 99, true), 4); /* a stale top: clamped */
    assert_int_equal(layout_control_top(20, 2, 7, 0, true), 6);   /* two rows: no context */
    /* Down to the bottom row scrolls one for context; a click there (no
     * context) leaves the list under the pointer */
    assert_int_equal(layout_control_top(20, 16, 15, 0, true), 1);
    assert_int_equal(layout_control_top(20, 16, 15, 0, false), 0);
    assert_int_equal(layout_control_top(20, 16, 0, 3, false), 0); /* out of view: it still scrolls */
    assert_int_equal(layout_control_top(20, 16, 19, 0, false), 4);
    for (int n = 1; n <= 30; n++)
        for (int shown = 1; shown <= 20; shown++)
            for (int f = 0; f < n; f++)
                for (int t0 = 0; t0 < n; t0++) {
                    int t = layout_control_top(n, shown, f, t0, true);
                    assert_true(t >= 0 && f >= t && f < t + shown);
                    assert_true(n <= shown ? t == 0 : t + shown <= n);
                    /* settled: the next frame draws the same list */
                    assert_int_equal(layout_control_top(n, shown, f, t, true), t);
                    /* a hand scroll keeps a focus the list then leaves where it is */
                    if (n > shown && t0 <= n - shown) {
                        int g = layout_control_focus(n, shown, t0, f);
                        assert_int_equal(layout_control_top(n, shown, g, t0, true), t0);
                        if (layout_control_top(n, shown, f, t0, true) == t0)
                            assert_int_equal(g, f);
                    }
                }
    /* at 80x24 with more controls than rows, the explain pane keeps four rows */
    struct planner_layout l = layout_compute(80, 24, 20);
    assert_int_equal(l.explain.h, LAYOUT_EXPLAIN_MIN);
    assert_int_equal(l.control_rows, 16);
}

static void the_minimum_sizes_work_and_one_less_does_not(void **state)
{
    (void)state;
    assert_false(layout_compute(LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, CONTROLS_VISIBLE_MAX).too_small);
    assert_true(layout_compute(LAYOUT_MIN_COLS - 1, LAYOUT_MIN_ROWS, CONTROLS_VISIBLE_MAX).too_small);
    assert_true(layout_compute(LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS - 1, CONTROLS_VISIBLE_MAX).too_small);
    /* 80x24 is the size people share: big digits, full legend */
    struct planner_layout l = layout_compute(80, 24, CONTROLS_VISIBLE_MAX);
    assert_true(l.big_digits);
    assert_int_equal(l.bar.h, 7);
    /* and no room for the chart: one row of it below the bar, not nothing */
    assert_int_equal(l.chart.h, 1);
    assert_int_equal(l.chart.y, l.bar.y + l.bar.h);
    assert_true(l.chart.y < l.explain.y);
    /* 160x48 adds breathing room and the chart (the generic rule's 16
     * controls; with every extra shown they close up to one a row) */
    l = layout_compute(160, 48, 16);
    assert_int_equal(l.control_pitch, 2);
    assert_true(l.chart.h >= 6);
    l = layout_compute(160, 48, CONTROLS_VISIBLE_MAX);
    assert_true(l.chart.h >= 6);
}

static void presentation_layout_fits_every_size(void **state)
{
    (void)state;
    for (int cols = 1; cols <= 300; cols++) {
        for (int rows = 1; rows <= 100; rows++) {
            struct presentation_layout p = layout_presentation(cols, rows);
            if (p.too_small) {
                assert_true(cols < 40 || rows < 12);
                continue;
            }
            struct rect panes[] = {p.title,  p.number,  p.caption, p.speed,
                                   p.bar,    p.slider,  p.explain, p.keybar};
            int n = (int)(sizeof panes / sizeof panes[0]);
            for (int i = 0; i < n; i++) {
                if (!layout_rect_inside(panes[i], cols, rows))
                    fail_msg("%dx%d: presentation pane %d outside", cols, rows, i);
                for (int j = i + 1; j < n; j++)
                    if (layout_rects_overlap(panes[i], panes[j]))
                        fail_msg("%dx%d: presentation panes %d and %d overlap", cols, rows, i, j);
            }
            assert_int_equal(p.number.h, 5 * p.scale);
            /* the speed lines right under the caption, as wide: the speeds
             * and the costs, one line on a screen with no row to spare */
            assert_int_equal(p.speed.y, p.caption.y + 1);
            assert_int_equal(p.speed.h, rows - 1 - p.number.h - 8 >= 0 ? 2 : 1);
            assert_int_equal(p.speed.w, p.caption.w);
            /* the focused control's track, on its row between its label and value */
            assert_int_equal(p.track.y, p.slider.y);
            assert_int_equal(p.track.x, p.slider.x + LAYOUT_LABEL_W + 1);
            assert_true(p.track.w > 0 && p.track.h == 1);
            assert_int_equal(p.track.x + p.track.w + 1 + LAYOUT_VALUE_W, p.slider.x + p.slider.w);
        }
    }
}


static void a_scrolled_list_stays_between_its_ends(void **state)
{
    (void)state;
    /* 27 rows, 8 shown: the last first row is 19; every row fits: 0 */
    assert_int_equal(layout_scroll_max(27, 8), 19);
    assert_int_equal(layout_scroll_max(8, 8), 0);
    assert_int_equal(layout_scroll_max(5, 0), 0);
    assert_int_equal(layout_scroll_clamp(25, 27, 8), 19);
    assert_int_equal(layout_scroll_clamp(-3, 27, 8), 0);
    for (int total = 0; total <= 60; total++)
        for (int shown = 0; shown <= 30; shown++)
            for (int top = -5; top <= 70; top++) {
                int max = layout_scroll_max(total, shown), t = layout_scroll_clamp(top, total, shown);
                assert_true(max >= 0 && t >= 0 && t <= max);
                if (shown > 0 && total > shown)
                    assert_int_equal(max, total - shown);
                if (top >= 0 && top <= max)
                    assert_int_equal(t, top);
            }
}

static void a_scroll_thumb_shows_where_the_list_is(void **state)
{
    (void)state;
    /* a bar of 10 rows over 100 lines, 10 shown: a thumb of 10 x 10 / 100 = 1
     * row; from line 45 of 90 it sits (10 - 1) x 45 / 90 = 4.5, rounded: 5 */
    struct layout_thumb t = layout_scroll_thumb(10, 100, 10, 45);
    assert_int_equal(t.h, 1);
    assert_int_equal(t.y, 5);
    /* 40 lines, 20 shown on 20 rows: half the bar, at the top, then at the bottom */
    t = layout_scroll_thumb(20, 40, 20, 0);
    assert_int_equal(t.y, 0);
    assert_int_equal(t.h, 10);
    t = layout_scroll_thumb(20, 40, 20, 20);
    assert_int_equal(t.y, 10);
    /* every row fits: the whole bar */
    t = layout_scroll_thumb(12, 5, 12, 0);
    assert_int_equal(t.y, 0);
    assert_int_equal(t.h, 12);
    for (int h = 1; h <= 40; h++)
        for (int total = 0; total <= 120; total += 3)
            for (int shown = 1; shown <= h; shown++) {
                int max = layout_scroll_max(total, shown), last_y = 0;
                for (int top = 0; top <= max; top++) {
                    t = layout_scroll_thumb(h, total, shown, top);
                    if (t.h < 1 || t.y < 0 || t.y + t.h > h)
                        fail_msg("bar %d, %d of %d from %d: thumb %d+%d", h, shown, total, top,
                                 t.y, t.h);
                    assert_true(t.y >= last_y); /* it moves down as the list does */
                    last_y = t.y;
                    if (max == 0)
                        continue;
                    /* at the ends, at the ends; between them, off them when it can be */
                    if (top == 0)
                        assert_int_equal(t.y, 0);
                    if (top == max)
                        assert_int_equal(t.y + t.h, h);
                    if (top > 0 && top < max && h - t.h >= 2)
                        assert_true(t.y > 0 && t.y + t.h < h);
                }
                /* a click on the bar's first row goes to the top, on its last to the end */
                if (h > 1) {
                    assert_int_equal(layout_scroll_at(h, total, shown, 0), 0);
                    assert_int_equal(layout_scroll_at(h, total, shown, h - 1), max);
                    assert_int_equal(layout_scroll_at(h, total, shown, h + 5), max);
                }
            }
}

static void the_explain_view_fits_every_size(void **state)
{
    (void)state;
    for (int cols = 1; cols <= 300; cols++)
        for (int rows = 1; rows <= 100; rows++) {
            struct explain_view_layout v = layout_explain_view(cols, rows);
            bool small = cols < LAYOUT_EXPLAIN_VIEW_MIN_COLS || rows < LAYOUT_EXPLAIN_VIEW_MIN_ROWS;
            assert_int_equal(v.too_small, small);
            if (small)
                continue;
            struct rect panes[] = {v.title, v.body, v.scrollbar, v.keybar};
            for (int i = 0; i < 4; i++) {
                if (!layout_rect_inside(panes[i], cols, rows) || panes[i].w <= 0 || panes[i].h <= 0)
                    fail_msg("%dx%d: explain view pane %d outside or empty", cols, rows, i);
                for (int j = i + 1; j < 4; j++)
                    if (layout_rects_overlap(panes[i], panes[j]))
                        fail_msg("%dx%d: explain view panes %d and %d overlap", cols, rows, i, j);
            }
            /* every row between the title and the keys holds lines, the bar beside them */
            assert_int_equal(v.body.h, rows - 2);
            assert_int_equal(v.scrollbar.h, v.body.h);
            assert_int_equal(v.scrollbar.x, cols - 1);
            assert_true(v.body.x + v.body.w < v.scrollbar.x);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_size_gives_a_valid_layout_or_too_small),
        cmocka_unit_test(the_control_list_scrolls_to_keep_the_focus_in_view),
        cmocka_unit_test(the_minimum_sizes_work_and_one_less_does_not),
        cmocka_unit_test(presentation_layout_fits_every_size),
        cmocka_unit_test(a_scrolled_list_stays_between_its_ends),
        cmocka_unit_test(a_scroll_thumb_shows_where_the_list_is),
        cmocka_unit_test(the_explain_view_fits_every_size),
    };
    return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
