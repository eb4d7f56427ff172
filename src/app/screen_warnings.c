/* The warnings: every warning of the plan, each wrapped onto the rows it
 * needs; any key closes them. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"

static void warnings_draw(const struct planner *p, int cols, int rows)
{
    if (!view_draw_base(p))
        return;
    uint32_t shown = plan_shown_warnings(planner_result(p));
    int w = layout_warnings(cols, rows, 0).w, room = w - 4 - 2;
    /* each warning wraps at a space onto as many rows as it needs (in a box
     * too narrow to wrap in, none: the caller draws boxes on screens that fit) */
    char lines[64][320];
    int nl = 0;
    for (uint32_t bit = 1; bit <= WARN_LAST && nl < 64; bit <<= 1) {
        if (!(shown & bit))
            continue;
        char text[300];
        plan_warning_format(planner_result(p), (enum plan_warning)bit, text, sizeof text);
        const char *t = text;
        bool first = true;
        while (*t && nl < 64 && room > 8) {
            int len = (int)strlen(t), cut = len;
            if (len > room) {
                cut = room;
                while (cut > room / 2 && t[cut] != ' ')
                    cut--;
            }
            snprintf(lines[nl++], sizeof lines[0], "%s%.*s", first ? "! " : "  ", cut, t);
            t += cut;
            while (*t == ' ')
                t++;
            first = false;
        }
    }
    struct rect box = layout_warnings(cols, rows, nl);
    int h = box.h, x = box.x, y = box.y;
    view_box(y, x, h, w, " Warnings (any key closes) ");
    for (int i = 0; i < nl && i < h - 3; i++)
        widget_text(y + 2 + i, x + 2, w - 4, ROLE_WARN, lines[i]);
}

static int warnings_key(struct planner *p, int key)
{
    (void)key; /* as its title says: any key, q too, closes it */
    return screen_close_any(p);
}

const struct screen screen_warnings = {.draw = warnings_draw, .key = warnings_key};
