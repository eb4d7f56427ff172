/* What y or Y copied to the clipboard, wrapped so that a selection by hand
 * pastes it whole; a key closes the box and does what it does. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"
#include "core/shell.h"

/* The note's lines at width w (broken at spaces), drawn from row y when
 * draw; returns how many. */
static int copied_note(const char *note, int y, int x, int w, bool draw)
{
    int rows = 0;
    for (const char *t = note; *t && w > 0; rows++) {
        int n = (int)strlen(t);
        if (n > w) { /* the last space that leaves the line within w */
            n = w;
            while (n > 0 && t[n] != ' ')
                n--;
            n = n > 0 ? n : w;
        }
        if (draw) {
            char line[PLANNER_TEXT_MAX];
            snprintf(line, sizeof line, "%.*s", n, t);
            widget_text(y + rows, x, w, ROLE_WARN, line);
        }
        t += n;
        while (*t == ' ')
            t++;
    }
    return rows;
}

/* Each line of text (several commands, a line each) wrapped at width as
 * shell_wrap wraps one, into out (NULL: none); returns the bytes needed. */
static size_t wrap_lines(const char *text, size_t width, char *out, size_t size)
{
    size_t need = 0;
    static char one[PLANNER_COPY_MAX];
    for (const char *t = text; *t;) {
        const char *eol = strchr(t, '\n');
        size_t n = eol ? (size_t)(eol - t) : strlen(t);
        snprintf(one, sizeof one, "%.*s", (int)n, t);
        need += shell_wrap(one, width, out ? out + need : NULL, out ? size - need : 0);
        t += n + (eol != NULL);
    }
    return need;
}

static void copied_draw(const struct planner *p, int cols, int lines)
{
    if (!view_draw_base(p))
        return;
    int w = layout_copied(cols, lines, 0).w;
    int room = w - 4 < 480 ? w - 4 : 480; /* widget_text draws 512 cells */
    /* wrapped so that a selection of every line pastes as the one command
     * (core/shell.h: " \\" between words, a word too long for a line
     * continued on the next) */
    size_t need = wrap_lines(p->copied, room > 0 ? (size_t)room : 0, NULL, 0);
    char *text = malloc(need + 1);
    if (text) {
        text[0] = '\0';
        wrap_lines(p->copied, room > 0 ? (size_t)room : 0, text, need + 1);
    }
    int n = 0;
    for (const char *c = text ? text : ""; *c; c++)
        n += *c == '\n';
    /* what the command does not plan, below it: a blank row, then the note */
    int note = copied_note(p->copied_note, 0, 0, w - 4, false);
    if (note && n + 6 + note > lines)
        note = 0; /* the command first; the status line says the note too */
    struct rect box = layout_copied(cols, lines, n + 5 + (note ? note + 1 : 0));
    int h = box.h, x = box.x, y = box.y, rows = h - 4 - (note ? note + 1 : 0);
    view_box(y, x, h, w, " Copied to the clipboard (OSC 52) ");
    widget_text(y + 1, x + 2, w - 4, ROLE_DIM,
                "If your terminal does not pass OSC 52, select the text below:");
    char *line = text;
    for (int row = 0; line && *line && row < rows; row++) {
        char *eol = strchr(line, '\n');
        *eol = '\0';
        if (row == rows - 1 && row < n - 1) { /* never a part that looks whole */
            char more[96];
            snprintf(more, sizeof more, "(%d more lines: a taller terminal shows them all)",
                     n - row);
            widget_text(y + 2 + row, x + 2, w - 4, ROLE_WARN, more);
        } else {
            widget_text(y + 2 + row, x + 2, w - 4, ROLE_GOOD, line);
        }
        line = eol + 1;
    }
    if (text == NULL)
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN, "(out of memory: not shown)");
    free(text);
    if (note)
        copied_note(p->copied_note, y + 2 + rows, x + 2, w - 4, true);
    /* as copied_key does: Esc and Enter close it, any other key also acts */
    widget_text(y + h - 2, x + 2, w - 4, ROLE_DIM,
                "any key closes; Esc or Enter only close, other keys also act");
}

static int copied_key(struct planner *p, int key)
{
    p->mode = p->base;
    if (key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER)
        return PLAN_REDRAW;
    int acted = keys_main(p, key);
    return acted ? acted : PLAN_REDRAW;
}

const struct screen screen_copied = {.draw = copied_draw, .key = copied_key};
