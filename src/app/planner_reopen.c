/* planner_reopen: z after o. Opening a file replaces the whole session;
 * the one replaced is kept (its scenarios with their plans, curves and
 * histories, its file and whether it was saved), so that z, with nothing
 * left to undo in the scenario, brings it back, and Z opens the file's
 * again, until a change is made. */
#include "planner.h"

#include <stdio.h>
#include <string.h>

void planner_hold_session(struct planner *p)
{
    struct planner_held *h = &p->held;
    h->valid = false;
    memcpy(h->slots, p->slots, (size_t)p->count * sizeof p->slots[0]);
    h->count = p->count;
    h->current = p->current;
    h->reference = p->reference;
    h->saved_print = p->saved_print;
}

void planner_held_opened(struct planner *p, const char *path)
{
    p->held.valid = true;
    p->held.before = true;
    snprintf(p->held.file, sizeof p->held.file, "%s", path);
}

/* The session in use and the one held change places. */
static void swap(struct planner *p)
{
    static struct planner_slot t; /* one slot at a time: a session is megabytes */
    struct planner_held *h = &p->held;
    int n = p->count > h->count ? p->count : h->count;
    for (int i = 0; i < n; i++) {
        t = p->slots[i];
        p->slots[i] = h->slots[i];
        h->slots[i] = t;
    }
    int count = p->count, current = p->current, reference = p->reference;
    uint64_t print = p->saved_print;
    p->count = h->count;
    p->current = h->current;
    p->reference = h->reference;
    p->saved_print = h->saved_print;
    h->count = count;
    h->current = current;
    h->reference = reference;
    h->saved_print = print;
    h->before = !h->before;
    p->compare_scroll = 0;
    planner_refresh_rows(p);
}

bool planner_undo_open(struct planner *p)
{
    if (!p->held.valid || !p->held.before)
        return false;
    swap(p);
    snprintf(p->status, sizeof p->status,
             "back to the %d scenario%s before %s was opened (Z opens it again)", p->count,
             p->count == 1 ? "" : "s", p->held.file);
    return true;
}

bool planner_redo_open(struct planner *p)
{
    if (!p->held.valid || p->held.before)
        return false;
    swap(p);
    snprintf(p->status, sizeof p->status, "%s again: %d scenario%s (z goes back)", p->held.file,
             p->count, p->count == 1 ? "" : "s");
    return true;
}

void planner_drop_reopen(struct planner *p)
{
    if (p->held.valid && !p->held.before)
        p->held.valid = false;
}
