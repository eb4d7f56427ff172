/* The emitter (tui/emit.h): the bytes it writes for small frames' changes
 * on xterm-256color (the headless screen's terminal type), with the
 * planner's colour pairs. */
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
#include "tui/emit.h"
#include "tui/roles.h"
#include "tui/term.h"

enum { W = 12, H = 3 };
static struct canvas_cell now[W * H], was[W * H];

static int open_screen(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    struct term_caps caps;
    char err[128];
    if (!term_open_headless(W, H, false, false, &caps, err, sizeof err))
        fail_msg("%s", err);
    if (!emit_open(err, sizeof err))
        fail_msg("%s", err);
    return 0;
}

static int close_screen(void **state)
{
    (void)state;
    emit_close();
    term_close();
    return 0;
}

/* Both frames blank in plain text; the cursor's place unknown, the
 * terminal's attributes curses' normal. */
static void blank(void)
{
    struct canvas_cell b = {' ', (uint32_t)role_attr(ROLE_TEXT)};
    for (int i = 0; i < W * H; i++)
        now[i] = was[i] = b;
    emit_release();
    emit_discard();
}

static void put(struct canvas_cell *f, int y, int x, enum role r, const wchar_t *s)
{
    for (; *s; s++, x++) {
        f[y * W + x] = (struct canvas_cell){(uint32_t)*s, (uint32_t)role_attr(r)};
        if (*s >= 0x1100 && wcwidth(*s) == 2)
            f[y * W + ++x] = (struct canvas_cell){CANVAS_CONT, (uint32_t)role_attr(r)};
    }
}

/* The frame's bytes are `want`, and `was` is `now` after it. */
static void frame_is(const char *want)
{
    emit_frame(now, was, W, H, false);
    size_t n;
    const char *got = emit_bytes(&n);
    char shown[512];
    snprintf(shown, sizeof shown, "%.*s", (int)n, got ? got : "");
    assert_string_equal(shown, want);
    assert_memory_equal(now, was, sizeof now);
    emit_discard();
}

static void moves_are_absolute_then_the_shortest(void **state)
{
    (void)state;
    blank();
    put(now, 0, 2, ROLE_TEXT, L"ab");
    put(now, 2, 5, ROLE_TEXT, L"c");
    /* plain text is pair 1, the terminal's own colours: no attribute change */
    frame_is("\033[1;3Hab\033[3;6Hc");
    /* the cursor is after the c: one cell on, nothing to move */
    put(now, 2, 6, ROLE_TEXT, L"d");
    frame_is("d");
    /* a changed cell two on: the cell between is written again (1 byte,
     * not \033[C); seven on: a move by a count (\033[7C, not seven bytes) */
    put(now, 1, 0, ROLE_TEXT, L"x");
    put(now, 1, 2, ROLE_TEXT, L"y");
    put(now, 1, 10, ROLE_TEXT, L"z");
    frame_is("\033[2;1Hx y\033[7Cz");
    /* back to the first column of the row: a carriage return */
    put(now, 1, 0, ROLE_TEXT, L"w");
    frame_is("\rw");
}

static void attributes_change_once_and_by_the_least(void **state)
{
    (void)state;
    blank();
    /* bright green (pair GOOD), plain again (default foreground only: AX's
     * SGR 39), black on cyan in one SGR; a dim run, and its end needs a
     * reset */
    put(now, 0, 0, ROLE_GOOD, L"ok");
    put(now, 0, 2, ROLE_TEXT, L"-");
    put(now, 0, 3, ROLE_KEY, L"k");
    put(now, 0, 4, ROLE_TRACK, L"\u2500\u2500");
    put(now, 0, 6, ROLE_TEXT, L"e");
    frame_is("\033[1;1H\033[92mok\033[39m-\033[30;46mk"
             "\033[2;49;37m\u2500\u2500\033(B\033[me");
    /* the same changes again: the same bytes, from what was kept (and a
     * carriage return to the row's start) */
    for (int x = 0; x < 7; x++)
        was[x].ch = '?';
    frame_is("\r\033[92mok\033[39m-\033[30;46mk"
             "\033[2;49;37m\u2500\u2500\033(B\033[me");
}

static void two_column_characters_go_whole(void **state)
{
    (void)state;
    blank();
    put(now, 0, 3, ROLE_TEXT, L"\u6a21\u578b!");
    frame_is("\033[1;4H\u6a21\u578b!");
    /* the right half of the first one changes: it is written from its left
     * half; then a narrow character over the left half of the second, and
     * the cell that half covered, which the terminal decides, again; the
     * cursor goes back five columns to the column (\033[4G) */
    put(now, 0, 3, ROLE_TEXT, L"\u4e00");
    put(now, 0, 5, ROLE_TEXT, L"a ");
    frame_is("\033[4G\u4e00a ");
}

static void a_row_ending_in_blanks_is_erased_to_its_end(void **state)
{
    (void)state;
    blank();
    put(was, 1, 0, ROLE_TEXT, L"hello world!");
    put(now, 1, 0, ROLE_TEXT, L"help");
    frame_is("\033[2;4Hp\033[K");
    /* two blanks are shorter written than erased (\033[K is three bytes) */
    put(was, 2, 8, ROLE_TEXT, L"ab");
    frame_is("\033[3;9H  ");
    /* blanks in another colour than the terminal's own still erase (bce) */
    put(was, 0, 4, ROLE_TEXT, L"abcdefgh");
    put(now, 0, 4, ROLE_KEY, L"        ");
    frame_is("\033[1;5H\033[30;46m\033[K");
}

static void a_whole_frame_clears_first(void **state)
{
    (void)state;
    blank();
    put(now, 0, 0, ROLE_TEXT, L"top");
    put(now, 2, 9, ROLE_TEXT, L"end");
    emit_frame(now, was, W, H, true);
    size_t n;
    const char *got = emit_bytes(&n);
    const char *want = "\033[H\033[2Jtop\033[3;10Hend";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(got, want, n);
    emit_discard();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moves_are_absolute_then_the_shortest),
        cmocka_unit_test(attributes_change_once_and_by_the_least),
        cmocka_unit_test(two_column_characters_go_whole),
        cmocka_unit_test(a_row_ending_in_blanks_is_erased_to_its_end),
        cmocka_unit_test(a_whole_frame_clears_first),
    };
    return cmocka_run_group_tests(tests, open_screen, close_screen);
}
