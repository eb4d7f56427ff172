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
    widget_text(y, r.x, r.w, ROLE_TITLE, line);
    int at = (int)strlen(prefix);
    if (p->prompt.fresh && at < r.w)
        widget_text(y, r.x + at, r.w - at, ROLE_FOCUS, p->prompt.text);
}

/* The prompt, and the question after it, go over the versus view when
 * the Markdown export came from there; false when nothing may go over
 * what is behind (a screen too small for it). */
static bool prompt_backdrop(const struct planner *p, int cols, int rows)
{
    if (p->prompt.from_versus && layout_versus_fits(cols, rows)) {
        view_draw_versus(p, cols, rows);
        return true;
    }
    return view_draw_base(p);
}

static void prompt_draw(const struct planner *p, int cols, int rows)
{
    if (prompt_backdrop(p, cols, rows))
        prompt_line(p, layout_prompt(cols, rows));
}

static int prompt_key(struct planner *p, int key)
{
    if (key == 27)
        p->mode = p->prompt.from_versus ? MODE_VERSUS : MODE_MAIN;
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

void screen_confirm_line(const struct planner *p, struct rect r)
{
    char line[PLANNER_TEXT_MAX + 96];
    view_fill_row(r.y, r.x, r.w, ROLE_TEXT);
    if (p->pending.kind == PROMPT_QUIT)
        snprintf(line, sizeof line, "Quit? %d scenario%s not exported (e exports). (y/N) ",
                 p->count, p->count == 1 ? "" : "s");
    else if (p->pending.kind == PROMPT_REMOVE)
        snprintf(line, sizeof line, "Remove scenario %d %s%s? It cannot be undone. (y/N) ",
                 p->current + 1, p->slots[p->current].label,
                 p->slots[p->current].note[0] ? " and its note" : "");
    else
        snprintf(line, sizeof line, "%s exists. Overwrite it? (y/N) ", p->pending.path);
    widget_text(r.y, r.x, r.w, ROLE_TITLE, line);
}

/* A question is never asked unseen: on a screen too small for what is
 * behind it, it goes under the message that says so. */
static void confirm_draw(const struct planner *p, int cols, int rows)
{
    if (prompt_backdrop(p, cols, rows) || rows > 1)
        screen_confirm_line(p, layout_prompt(cols, rows));
}

/* Quit without exporting? y quits, e exports first, anything else stays. */
static int quit_answer(struct planner *p, int key)
{
    p->mode = MODE_MAIN;
    if (key == 'y' || key == 'Y') {
        p->quit = true;
        return PLAN_QUIT;
    }
    if (key == 'e') /* export first, as the question offers */
        return keys_export(p);
    snprintf(p->status, sizeof p->status, "not quitting: e exports the session");
    return PLAN_REDRAW;
}

static int remove_answer(struct planner *p, int key)
{
    char gone[SNAPSHOT_LABEL_MAX];
    snprintf(gone, sizeof gone, "%s", p->slots[p->current].label);
    p->mode = MODE_MAIN;
    if (key == 'y' || key == 'Y') {
        planner_remove(p);
        snprintf(p->status, sizeof p->status, "removed scenario %s", gone);
    } else {
        snprintf(p->status, sizeof p->status, "kept scenario %s", gone);
    }
    return PLAN_REDRAW;
}

static int overwrite_answer(struct planner *p, int key)
{
    p->mode = p->prompt.from_versus ? MODE_VERSUS : MODE_MAIN;
    if (key == 'y' || key == 'Y')
        prompt_export(p, p->pending.path, p->pending.kind);
    else
        snprintf(p->status, sizeof p->status, "export cancelled: %s kept", p->pending.path);
    return PLAN_REDRAW;
}

static int confirm_key(struct planner *p, int key)
{
    if (p->pending.kind == PROMPT_QUIT)
        return quit_answer(p, key);
    if (p->pending.kind == PROMPT_REMOVE)
        return remove_answer(p, key);
    return overwrite_answer(p, key);
}

const struct screen screen_confirm = {.draw = confirm_draw, .key = confirm_key};
