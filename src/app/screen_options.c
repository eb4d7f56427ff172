/* What would it take: the single changes that reach a number of users; a
 * digit applies one. */
#include <curses.h>
#include <stdio.h>

#include "app/screens.h"
#include "app/view_parts.h"

static void options_draw(const struct planner *p, int cols, int rows)
{
    if (!view_draw_base(p))
        return;
    struct rect box = layout_options(cols, rows, p->option_count);
    int w = box.w, x = box.x, h = box.h, y = box.y;
    char title[96], n[32];
    units_format_int(p->target_users, n, sizeof n);
    snprintf(title, sizeof title, " What would it take to serve %s users? ", n);
    view_box(y, x, h, w, title);
    if (p->option_count == 0) {
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN,
                    "no single change reaches it: combine them, or ask kvplan solve");
        return;
    }
    for (int i = 0; i < p->option_count && i < h - 4; i++) {
        char line[PLANNER_TEXT_MAX + 8];
        snprintf(line, sizeof line, "%d  %s", i + 1, p->options[i].text);
        widget_text(y + 2 + i, x + 2, w - 4, ROLE_TEXT, line);
        widget_text(y + 2 + i, x + 2, 1, ROLE_KEY, line);
    }
    widget_text(y + h - 2, x + 2, w - 4, ROLE_DIM, "a digit applies that change (z undoes it); any other key closes");
}

static int options_key(struct planner *p, int key)
{
    p->mode = p->base;
    if (key >= '1' && key < '1' + p->option_count) {
        const struct planner_option *o = &p->options[key - '1'];
        char text[PLANNER_TEXT_MAX];
        snprintf(text, sizeof text, "%s", o->text);
        if (planner_apply(p, &o->scenario))
            snprintf(p->status, sizeof p->status, "applied: %s (z undoes)", text);
    }
    return screen_close(p, key);
}

const struct screen screen_options = {.draw = options_draw, .key = options_key};
