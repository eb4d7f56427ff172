/* The canvas (tui/canvas.h) on a headless screen: a frame reaches stdscr
 * whole the first time and after a change of size, then only the rows that
 * changed, and stdscr ends up holding what drawing the same cells through
 * curses holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>
#include <locale.h>

#include "tui/canvas.h"
#include "tui/term.h"
#include "screen_fixture.h"
#include "tui/widgets.h"

static int open_screen(void **state)
{
    (void)state;
    return screen_open(40, 6, false);
}

/* Row y of stdscr as text (UTF-8, trailing blanks trimmed). */
static void row_text(int y, char *out, size_t size)
{
    static char dump[64 * 1024];
    term_dump_text(dump, sizeof dump);
    const char *p = dump;
    for (int i = 0; i < y && p; i++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    assert_non_null(p);
    size_t n = strcspn(p, "\n");
    snprintf(out, size, "%.*s", (int)n, p);
}

static void draw(const char *a, const char *b)
{
    canvas_erase();
    widget_text(1, 2, 20, ROLE_TEXT, a);
    widget_text(3, 0, 40, ROLE_GOOD, b);
}

static int touched_rows(void)
{
    int n = 0;
    for (int y = 0; y < LINES; y++)
        n += is_linetouched(stdscr, y) == TRUE;
    return n;
}

static void a_frame_reaches_the_screen_then_only_its_changes(void **state)
{
    (void)state;
    char text[64];
    draw("hello", "world");
    term_refresh();
    row_text(1, text, sizeof text);
    assert_string_equal(text, "  hello");
    row_text(3, text, sizeof text);
    assert_string_equal(text, "world");
    cchar_t cc;
    attr_t attrs;
    short pair;
    wchar_t wch[CCHARW_MAX + 1];
    mvwin_wch(stdscr, 3, 0, &cc);
    getcchar(&cc, wch, &attrs, &pair, NULL);
    assert_int_equal(pair, PAIR_NUMBER(role_attr(ROLE_GOOD)));

    draw("hello", "world"); /* the same frame: curses is handed nothing */
    canvas_present();
    assert_int_equal(touched_rows(), 0);
    term_refresh();

    draw("help", "world"); /* one row changed, and shorter */
    canvas_present();
    assert_int_equal(touched_rows(), 1);
    assert_true(is_linetouched(stdscr, 1));
    row_text(1, text, sizeof text);
    assert_string_equal(text, "  help");
    term_refresh();
}

static void a_new_size_is_written_whole(void **state)
{
    (void)state;
    char text[64];
    draw("hello", "world");
    term_refresh();
    resizeterm(8, 50);
    draw("hello", "world");
    widget_text(7, 45, 5, ROLE_TEXT, "edge!");
    term_refresh();
    row_text(1, text, sizeof text);
    assert_string_equal(text, "  hello");
    row_text(7, text, sizeof text);
    assert_string_equal(text, "                                             edge!");
    resizeterm(6, 40);
}

/* A two-column character cut by what is drawn over half of it: the canvas
 * leaves what curses leaves when the same cells are drawn through it. */
static void cut_wide_characters_end_as_curses_leaves_them(void **state)
{
    (void)state;
    char canvas_row[64], curses_row[64];
    canvas_erase();
    widget_text(0, 0, 10, ROLE_TEXT, "\u65e5\u672c\u8a9e");
    widget_text(0, 1, 1, ROLE_TEXT, "a"); /* the right half of the first */
    widget_text(0, 4, 1, ROLE_TEXT, "b"); /* the left half of the third */
    term_refresh();
    row_text(0, canvas_row, sizeof canvas_row);

    /* the same cells drawn straight into row 5, which the frame leaves blank */
    wchar_t wide[] = L"\u65e5\u672c\u8a9e";
    cchar_t cells[3], one;
    attr_t a = role_attr(ROLE_TEXT);
    for (int i = 0; i < 3; i++) {
        wchar_t w[2] = {wide[i], 0};
        setcchar(&cells[i], w, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
    }
    mvwadd_wchnstr(stdscr, 5, 0, cells, 3);
    wchar_t ca[2] = {L'a', 0}, cb[2] = {L'b', 0};
    setcchar(&one, ca, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
    mvwadd_wchnstr(stdscr, 5, 1, &one, 1);
    setcchar(&one, cb, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
    mvwadd_wchnstr(stdscr, 5, 4, &one, 1);
    row_text(5, curses_row, sizeof curses_row);
    assert_string_equal(canvas_row, curses_row);
    for (int x = 0; x < 6; x++) { /* and cell by cell, attributes included */
        cchar_t drawn, direct;
        mvwin_wch(stdscr, 0, x, &drawn);
        mvwin_wch(stdscr, 5, x, &direct);
        assert_memory_equal(&drawn, &direct, sizeof drawn);
    }
    cchar_t first;
    wchar_t w[CCHARW_MAX + 1];
    attr_t attrs;
    short pair;
    mvwin_wch(stdscr, 0, 0, &first);
    getcchar(&first, w, &attrs, &pair, NULL);
    assert_int_equal(w[0], L' '); /* the first character's left half, blanked */
}

/* A widget's text cut short ends in an ellipsis, at its width and at the
 * screen's edge alike; the canvas's own text is only clipped. */
static void text_stops_at_its_width_and_the_edge(void **state)
{
    (void)state;
    char text[64];
    canvas_erase();
    assert_int_equal(widget_text(2, 0, 3, ROLE_TEXT, "abcdef"), 3);
    assert_int_equal(widget_text(4, 36, 10, ROLE_TEXT, "wxyz12"), 4);
    assert_int_equal(widget_text(4, 40, 10, ROLE_TEXT, "off"), 0);
    assert_int_equal(widget_text(0, 0, 1, ROLE_TEXT, "\u65e5"), 0); /* two columns: no room */
    assert_int_equal(widget_text(1, 0, 4, ROLE_TEXT, "abcd"), 4); /* fits: no mark */
    assert_int_equal(widget_text(3, 0, 4, ROLE_TEXT, "a\u65e5\u65e5"), 4); /* a wide one gives way */
    assert_int_equal(canvas_text(0, 0, 3, A_NORMAL, "abcdef", true), 3);
    term_refresh();
    row_text(2, text, sizeof text);
    assert_string_equal(text, "ab\u2026");
    row_text(4, text, sizeof text);
    assert_string_equal(text, "                                    wxy\u2026");
    row_text(1, text, sizeof text);
    assert_string_equal(text, "abcd");
    cchar_t cell; /* the wide character whole, the mark in the last column */
    wchar_t wc[CCHARW_MAX + 1];
    attr_t attrs;
    short pair;
    mvwin_wch(stdscr, 3, 1, &cell);
    getcchar(&cell, wc, &attrs, &pair, NULL);
    assert_int_equal(wc[0], 0x65e5);
    mvwin_wch(stdscr, 3, 3, &cell);
    getcchar(&cell, wc, &attrs, &pair, NULL);
    assert_int_equal(wc[0], 0x2026);
    row_text(0, text, sizeof text);
    assert_string_equal(text, "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_frame_reaches_the_screen_then_only_its_changes),
        cmocka_unit_test(a_new_size_is_written_whole),
        cmocka_unit_test(cut_wide_characters_end_as_curses_leaves_them),
        cmocka_unit_test(text_stops_at_its_width_and_the_edge),
    };
    return cmocka_run_group_tests(tests, open_screen, close_screen);
}
