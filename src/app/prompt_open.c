/* prompt_open: the open prompt's own keys: Tab completes the path typed as
 * a shell does (io/pathcomplete.h), Up and Down go through the files opened
 * or exported last (io/recent.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/prompts.h"
#include "io/pathcomplete.h"

void prompt_open_begin(struct planner *p)
{
    recent_read(&p->prompt.recent);
    p->prompt.recent_at = -1;
    p->prompt.typed[0] = '\0';
}

static void complete(struct planner *p)
{
    char out[PLANNER_TEXT_MAX], list[PLANNER_TEXT_MAX - 32];
    int n = path_complete(p->prompt.text, out, sizeof out, list, sizeof list);
    p->prompt.recent_at = -1;
    p->error[0] = '\0';
    if (n == 0) {
        const char *slash = strrchr(p->prompt.text, '/');
        snprintf(p->status, sizeof p->status, "no file begins with '%s' there",
                 slash ? slash + 1 : p->prompt.text);
        return;
    }
    snprintf(p->prompt.text, sizeof p->prompt.text, "%s", out);
    if (n == 1)
        p->status[0] = '\0';
    else
        snprintf(p->status, sizeof p->status, "%d match: %s", n, list);
}

/* Up (older, by +1) and Down (newer, back to the text typed at the end). */
static void recent_step(struct planner *p, int by)
{
    const struct recent_files *r = &p->prompt.recent;
    if (r->count == 0) {
        snprintf(p->status, sizeof p->status, "no recent files yet: those opened or exported "
                 "are offered here");
        return;
    }
    int at = p->prompt.recent_at + by;
    if (at >= r->count)
        at = r->count - 1;
    if (p->prompt.recent_at < 0 && at >= 0)
        snprintf(p->prompt.typed, sizeof p->prompt.typed, "%s", p->prompt.text);
    p->prompt.recent_at = at < -1 ? -1 : at;
    if (p->prompt.recent_at < 0) {
        snprintf(p->prompt.text, sizeof p->prompt.text, "%s", p->prompt.typed);
        p->prompt.fresh = false;
        p->status[0] = '\0';
        return;
    }
    snprintf(p->prompt.text, sizeof p->prompt.text, "%s", r->path[p->prompt.recent_at]);
    p->prompt.fresh = true; /* shown selected: Enter opens it, typing replaces it */
    snprintf(p->status, sizeof p->status, "recent file %d of %d (Up: older, Down: newer)",
             p->prompt.recent_at + 1, r->count);
}

bool prompt_open_key(struct planner *p, int key)
{
    if (p->prompt.kind != PROMPT_OPEN)
        return false;
    if (key == '\t')
        complete(p);
    else if (key == KEY_UP)
        recent_step(p, 1);
    else if (key == KEY_DOWN)
        recent_step(p, -1);
    else
        return false;
    if (key == '\t')
        p->prompt.fresh = false;
    return true;
}
