/* The one-line prompt on the last row: a value, a file to write or open,
 * a name, a note or a number of users; Enter does what prompts.c says. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/prompts.h"
#include "app/screens.h"
#include "app/view_parts.h"

static void prompt_line(const struct planner *p, struct rect r)
{
    char line[PLANNER_TEXT_MAX + 96];
    int y = r.y;
    view_fill_row(y, r.x, r.w, ROLE_TEXT);
    char prefix[96], hint[96];
    prompt_describe(p, prefix, sizeof prefix, hint, sizeof hint);
    /* a prefilled value is shown selected: the first key typed replaces it */
    snprintf(line, sizeof line, "%s%s_   (%s%s)", prefix, p->prompt.text, hint,
             p->prompt.fresh ? "; typing replaces, Ctrl-U clears" : "");
    if (view_cols(line) > r.w) /* the hint alone, then none */
        snprintf(line, sizeof line, "%s%s_   (%s)", prefix, p->prompt.text, hint);
    if (view_cols(line) > r.w)
        snprintf(line, sizeof line, "%s%s_", prefix, p->prompt.text);
    widget_text(y, r.x, r.w, ROLE_TITLE, line);
    int at = (int)strlen(prefix);
    if (p->prompt.fresh && at < r.w)
        widget_text(y, r.x + at, r.w - at, ROLE_FOCUS, p->prompt.text);
}

bool screen_prompt_backdrop(const struct planner *p, int cols, int rows)
{
    if (p->prompt.from_versus && layout_versus_fits(cols, rows)) {
        view_draw_versus(p, cols, rows);
        return true;
    }
    return view_draw_base(p);
}

static void prompt_draw(const struct planner *p, int cols, int rows)
{
    if (screen_prompt_backdrop(p, cols, rows))
        prompt_line(p, layout_prompt(cols, rows));
}

static int prompt_key(struct planner *p, int key)
{
    if (prompt_open_key(p, key)) /* Tab, Up, Down: they keep a recent file selected */
        return PLAN_REDRAW;
    if (key == 27)
        p->mode = p->prompt.from_versus ? MODE_VERSUS : p->base;
    else if (key == '\n' || key == '\r' || key == KEY_ENTER)
        prompt_finish(p);
    else if (key == 21) /* Ctrl-U: clear the line */
        p->prompt.text[0] = '\0';
    else if (!prompt_type(p, key))
        return 0;
    p->prompt.fresh = false;
    return PLAN_REDRAW;
}

const struct screen screen_prompt = {.draw = prompt_draw, .key = prompt_key};
