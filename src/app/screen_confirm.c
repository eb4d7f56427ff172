/* The questions asked on the last row before an action that loses work:
 * quit or open a file with the session not exported, remove a scenario, overwrite a file. */
#include <stdio.h>

#include "app/prompts.h"
#include "app/screens.h"
#include "app/view_parts.h"

/* "3 scenarios not exported", counting those changed or added since the
 * export (or the opening); "changes not exported" when only a removal is. */
static void unsaved_words(const struct planner *p, char *buf, size_t size)
{
    int n = planner_unsaved_count(p);
    if (n > 0)
        snprintf(buf, size, "%d scenario%s not exported", n, n == 1 ? "" : "s");
    else
        snprintf(buf, size, "changes not exported");
}

static void confirm_line(const struct planner *p, struct rect r)
{
    char line[PLANNER_TEXT_MAX + 96], what[48];
    view_fill_row(r.y, r.x, r.w, ROLE_TEXT);
    unsaved_words(p, what, sizeof what);
    /* every key the question takes is in its choices, the longest form that fits */
    bool quit = p->pending.kind == PROMPT_QUIT;
    if (quit || p->pending.kind == PROMPT_OPEN) {
        const char *q = quit ? "Quit?" : "Open another file? It replaces";
        const char *act = quit ? "quits" : "opens one";
        snprintf(line, sizeof line, "%s %s: y %s, e exports, N stays. (y/e/N) ", q, what, act);
        if (view_cols(line) > r.w)
            snprintf(line, sizeof line, "%s %s (y %s, e exports, N stays)",
                     quit ? "Quit?" : "Open? Replaces", what, quit ? "quits" : "opens");
        if (view_cols(line) > r.w)
            snprintf(line, sizeof line, "%s %s (y/e export/N)", quit ? "Quit?" : "Open?", what);
    }
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
    if (screen_prompt_backdrop(p, cols, rows) || rows > 1)
        confirm_line(p, layout_prompt(cols, rows));
}

/* Quit without exporting? y quits, e exports first, anything else stays. */
static int quit_answer(struct planner *p, int key)
{
    p->mode = p->base;
    if (key == 'y' || key == 'Y') {
        p->quit = true;
        return PLAN_QUIT;
    }
    if (key == 'e' || key == 'E') /* export first, as the question offers */
        return keys_export(p);
    snprintf(p->status, sizeof p->status, "not quitting: e exports the session");
    return PLAN_REDRAW;
}

/* Replace the session with a file's? y asks for the file, e exports first. */
static int open_answer(struct planner *p, int key)
{
    p->mode = p->base;
    if (key == 'y' || key == 'Y') {
        prompt_open(p, PROMPT_OPEN, "");
        return PLAN_REDRAW;
    }
    if (key == 'e' || key == 'E')
        return keys_export(p);
    snprintf(p->status, sizeof p->status, "not opening: e exports the session first");
    return PLAN_REDRAW;
}

static int remove_answer(struct planner *p, int key)
{
    char gone[SNAPSHOT_LABEL_MAX];
    snprintf(gone, sizeof gone, "%s", p->slots[p->current].label);
    p->mode = p->base;
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
    p->mode = p->prompt.from_versus ? MODE_VERSUS : p->base;
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
    if (p->pending.kind == PROMPT_OPEN)
        return open_answer(p, key);
    if (p->pending.kind == PROMPT_REMOVE)
        return remove_answer(p, key);
    return overwrite_answer(p, key);
}

const struct screen screen_confirm = {.draw = confirm_draw, .key = confirm_key};
