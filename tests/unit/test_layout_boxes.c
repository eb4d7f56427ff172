/* The boxes drawn over the planner (picker, help, warnings, copied text,
 * what would it take, compare, prompt) as pure functions of the screen
 * size: inside the screen, centred, and the picker's rows found by a
 * click exactly where they are drawn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/layout.h"

/* the smallest screen a box is drawn on: the presentation's */
static bool drawn_on(int cols, int rows)
{
    return cols >= LAYOUT_PRESENT_MIN_COLS && rows >= LAYOUT_PRESENT_MIN_ROWS;
}

static void assert_centred_inside(struct rect r, int cols, int rows)
{
    assert_true(r.w > 0 && r.h > 0);
    assert_true(layout_rect_inside(r, cols, rows));
    int left = r.x, right = cols - r.x - r.w, top = r.y, bottom = rows - r.y - r.h;
    assert_true(right - left == 0 || right - left == 1);
    assert_true(bottom - top == 0 || bottom - top == 1);
}

static void every_box_is_centred_inside_the_screen(void **state)
{
    (void)state;
    for (int cols = 1; cols <= 240; cols++)
        for (int rows = 1; rows <= 80; rows++) {
            if (!drawn_on(cols, rows))
                continue;
            for (int n = 0; n <= 120; n += 7) {
                assert_centred_inside(layout_warnings(cols, rows, n), cols, rows);
                assert_centred_inside(layout_copied(cols, rows, n + 5), cols, rows);
                assert_centred_inside(layout_options(cols, rows, n % 7), cols, rows);
                assert_centred_inside(layout_help(cols, rows, 60 + n, n, 3), cols, rows);
            }
        }
}

static void boxes_take_what_they_need_up_to_the_screen(void **state)
{
    (void)state;
    /* the warnings keep two columns each side and grow with their lines */
    struct rect w = layout_warnings(100, 30, 3);
    assert_int_equal(w.x, 2);
    assert_int_equal(w.w, 96);
    assert_int_equal(w.h, 7);
    assert_int_equal(layout_warnings(100, 30, 40).h, 30);
    /* the options' box is at most 100 wide; the help's what it wants */
    assert_int_equal(layout_options(200, 40, 6).w, 100);
    assert_int_equal(layout_options(80, 40, 6).w, 76);
    assert_int_equal(layout_options(80, 40, 6).h, 11);
    assert_int_equal(layout_help(200, 40, 60, 20, 3).w, 60);
    assert_int_equal(layout_help(50, 40, 60, 20, 3).w, 48);
    assert_int_equal(layout_help(50, 20, 60, 20, 3).h, 20);
}

static void a_picker_row_is_clicked_where_it_is_drawn(void **state)
{
    (void)state;
    for (int cols = 1; cols <= 200; cols++)
        for (int rows = 1; rows <= 70; rows++) {
            struct rect box = layout_picker(cols, rows);
            if (cols < LAYOUT_PICKER_MIN_COLS || rows < LAYOUT_PICKER_MIN_ROWS) {
                assert_int_equal(box.w, 0);
                assert_int_equal(layout_picker_row_at(box, cols / 2, rows / 2), -1);
                continue;
            }
            assert_true(layout_rect_inside(box, cols, rows));
            int shown = layout_picker_rows(box);
            assert_int_equal(shown, box.h - 3); /* a title row, a heading, a border */
            for (int y = 0; y < rows; y++)
                for (int x = 0; x < cols; x += 3) {
                    int i = layout_picker_row_at(box, x, y);
                    bool on_row = y >= box.y + 2 && y < box.y + 2 + shown && x > box.x &&
                                  x < box.x + box.w - 1;
                    assert_int_equal(i, on_row ? y - box.y - 2 : -1);
                }
        }
}

static void the_picker_scrolls_to_keep_the_selection_shown(void **state)
{
    (void)state;
    struct rect box = layout_picker(100, 30);
    int shown = layout_picker_rows(box);
    for (int sel = 0; sel < 300; sel++) {
        int top = layout_picker_top(box, sel);
        assert_true(top <= sel && sel < top + shown);
        assert_int_equal(top, sel < shown ? 0 : sel - shown + 1);
    }
}

static void compare_and_versus_need_their_sizes(void **state)
{
    (void)state;
    assert_int_equal(layout_compare(LAYOUT_COMPARE_MIN_COLS - 1, 40).w, 0);
    assert_int_equal(layout_compare(80, LAYOUT_COMPARE_MIN_ROWS - 1).h, 0);
    struct rect c = layout_compare(80, 24);
    assert_true(c.x == 1 && c.y == 0 && c.w == 78 && c.h == 22);
    struct rect pr = layout_prompt(80, 24);
    assert_true(pr.x == 0 && pr.y == 23 && pr.w == 80 && pr.h == 1);
    assert_false(layout_rects_overlap(c, pr));
    assert_true(layout_versus_fits(LAYOUT_VERSUS_MIN_COLS, LAYOUT_VERSUS_MIN_ROWS));
    assert_false(layout_versus_fits(LAYOUT_VERSUS_MIN_COLS - 1, 40));
    assert_false(layout_versus_fits(100, LAYOUT_VERSUS_MIN_ROWS - 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_box_is_centred_inside_the_screen),
        cmocka_unit_test(boxes_take_what_they_need_up_to_the_screen),
        cmocka_unit_test(a_picker_row_is_clicked_where_it_is_drawn),
        cmocka_unit_test(the_picker_scrolls_to_keep_the_selection_shown),
        cmocka_unit_test(compare_and_versus_need_their_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
