/* The main screen's explain pane: the plan's explain rows, the answer
 * first, scrolled with [ and ] or the wheel, with the rows it shows out of
 * how many in its title and marks in its margin where more are hidden. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/view.h"
#include "app/view_parts.h"

/* The rows the pane shows first: the answer, then how it was reached, then
 * the speed and how it was reached; any other row follows in the plan's order. */
static const char *const explain_order[] = {
    "host_beyond",  "host_reload",   "host_recompute", "host_restore",   "users_replica",
    "pool",         "context",       "encoder_cache",  "lora",           "lora_slot",
    "budget",       "free",          "cache",          "units",          "units_per_user",
    "kv_per_user",  "state_per_user", "state_slots",   "kv_pool_after_state", "prefix",
    "kv_per_token", "kv_per_token_tp", "kv_per_layer", "state_conv",     "state_ssm",
    "kv_past_window", "weights_per_gpu", "users_paged", "users_paged_replica",
    "kv_per_user_paged", "waste",    "kv_tokens",      "kv_tokens_replica", "cost",
    "cost_output",  "cost_input",
    "decode",       "speed_total",   "ttft",           "speed_step",     "speed_bytes",
    "speed_weights", "speed_memory", "speed_flops",    "speed_compute",  "speed_comm",
    "speed_moe",    "host_users",    "host_user"};

/* Row i of e goes in the pane: with every user at the full context the
 * paged rows repeat the others, and without a service level its row says so. */
static bool pane_shows(const struct scenario *s, const struct explain_row *row)
{
    if (s->avg_context_tokens == 0 && strstr(row->key, "paged") != NULL)
        return false;
    return view_has_target(s) || strcmp(row->key, "users_slo") != 0;
}

enum { ORDER_COUNT = sizeof explain_order / sizeof explain_order[0] };

/* explain_order's keys sorted, each with its place, so a row finds its
 * place in a few comparisons (a frame orders every row) */
static struct order {
    const char *key;
    int place;
} sorted[ORDER_COUNT];

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct order *)a)->key, ((const struct order *)b)->key);
}

/* Where row i goes: the count's rows first (-2, -1), then explain_order's
 * places, then every other row in the plan's order. */
static int place_of(const struct explain_row *row, int i, const char *first, const char *second)
{
    if (strcmp(row->key, first) == 0)
        return -2;
    if (strcmp(row->key, second) == 0)
        return -1;
    if (sorted[0].key == NULL) {
        for (int k = 0; k < ORDER_COUNT; k++)
            sorted[k] = (struct order){explain_order[k], k};
        qsort(sorted, ORDER_COUNT, sizeof sorted[0], by_key);
    }
    struct order want = {row->key, 0};
    const struct order *o = bsearch(&want, sorted, ORDER_COUNT, sizeof sorted[0], by_key);
    return o ? o->place : ORDER_COUNT + i;
}

int view_explain_items(const struct planner *p, int *items)
{
    const struct explain *e = &p->explain;
    const struct scenario *s = planner_scenario(p);
    /* the count the big number shows first: with a service level, its users */
    bool target = view_has_target(s);
    const char *first = target ? "users_slo" : "users", *second = target ? "users" : "users_slo";
    int place[EXPLAIN_ROWS_MAX], n = 0;
    for (int i = 0; i < e->count && i < EXPLAIN_ROWS_MAX; i++) {
        if (!pane_shows(s, &e->rows[i]))
            continue;
        int at = place_of(&e->rows[i], i, first, second), k = n++;
        for (; k > 0 && place[k - 1] > at; k--) { /* in order of place, as they come */
            place[k] = place[k - 1];
            items[k] = items[k - 1];
        }
        place[k] = at;
        items[k] = i;
    }
    /* an engine's launch line follows the count's own row */
    if (n > 0 && place[0] == -2 && engine_desc(planner_result(p)->profile)->server) {
        memmove(items + 2, items + 1, (size_t)(n - 1) * sizeof items[0]);
        items[1] = VIEW_EXPLAIN_LAUNCH;
        n++;
    }
    return n;
}

/* One item on row y: an explain row, or the launch line cut to the pane. */
static int draw_item(const struct planner *p, int item, int y, struct rect r, int max_rows,
                     enum role role)
{
    if (item != VIEW_EXPLAIN_LAUNCH)
        return view_explain_row(&p->explain.rows[item], y, r.x, r.w, max_rows, role);
    widget_text(y, r.x, EXPLAIN_LABEL_W, ROLE_TITLE, "Launch");
    char launch[ENGINE_TEXT_MAX + 8];
    int lw = r.w - EXPLAIN_LABEL_W;
    widget_text(y, r.x + EXPLAIN_LABEL_W, lw, ROLE_GOOD,
                widget_fit(planner_result(p)->engine.launch, lw, launch, sizeof launch));
    return 1;
}

/* The title row: what the pane is, then at its right the rows shown out
 * of how many and the keys that show the others. */
static void draw_title(struct rect r, int first, int last, int n, bool scrolls)
{
    static const char title[] = "How the number is computed";
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    char where[96], brief[48];
    const char *sep = view_sep();
    if (scrolls) {
        snprintf(where, sizeof where, "rows %d-%d of %d%s[ ] scroll%sx full view", first + 1,
                 last + 1, n, sep, sep);
        snprintf(brief, sizeof brief, "%d-%d/%d [ ] x", first + 1, last + 1, n);
    } else {
        snprintf(where, sizeof where, "%d rows%sx full view", n, sep);
        snprintf(brief, sizeof brief, "x full view");
    }
    int room = r.w - (int)sizeof title; /* a blank after the title */
    const char *hint = view_cols(where) <= room ? where : view_cols(brief) <= room ? brief : "";
    int hw = view_cols(hint);
    if (hw > 0)
        widget_text(r.y, r.x + r.w - hw, hw, ROLE_DIM, hint);
}

void view_draw_explain_pane(const struct planner *p, struct rect r)
{
    const int *items = p->pane.items; /* put in order by view_settle_explain_pane */
    int n = p->pane.count, lines = r.h - 1;
    int top = layout_scroll_clamp(p->pane.scroll, n, lines);
    int y = r.y + 1, end = r.y + r.h, last = top - 1;
    for (int i = top; i < n && y < end; i++) {
        /* The answer may take three rows; the others wrap to a second row
         * while that leaves one row for each row still to come. */
        int spare = end - y - (n - i - 1);
        int max_rows = i == 0 ? (end - y < 3 ? end - y : 3) : spare >= 2 ? 2 : 1;
        y += draw_item(p, items[i], y, r, max_rows, i == 0 ? ROLE_TEXT : ROLE_DIM);
        last = i;
    }
    bool scrolls = top > 0 || last < n - 1;
    draw_title(r, top, last, n, scrolls);
    /* more rows above or below: a mark in the margin, as the controls have */
    if (top > 0)
        widget_text(r.y + 1, r.x - 1, 1, ROLE_DIM, roles_utf8() ? "\u25b2" : "^");
    if (last < n - 1)
        widget_text(y - 1, r.x - 1, 1, ROLE_DIM, roles_utf8() ? "\u25bc" : "v");
}

void view_settle_explain_pane(struct planner *p)
{
    const struct planner_layout *l = &p->frame.main;
    int n = l->too_small || l->explain.h < 2 ? 0 : view_explain_items(p, p->pane.items);
    p->pane.count = n;
    p->pane.page = l->explain.h > 1 ? l->explain.h - 1 : 0;
    p->pane.max = layout_scroll_max(n, p->pane.page);
    p->pane.scroll = layout_scroll_clamp(p->pane.scroll, n, p->pane.page);
}

bool view_scroll_explain(struct planner *p, int delta)
{
    int top = p->pane.scroll + delta;
    top = top < 0 ? 0 : top > p->pane.max ? p->pane.max : top;
    if (top == p->pane.scroll)
        return false;
    p->pane.scroll = top;
    return true;
}

int view_explain_hit(const struct planner *p, int x, int y)
{
    const struct planner_layout *l = &p->frame.main;
    struct rect r = l->explain;
    if (l->too_small || r.h < 2 || y < r.y || y >= r.y + r.h || x < r.x - 1 || x > r.x + r.w)
        return EXPLAIN_HIT_NONE;
    if (y == r.y)
        return EXPLAIN_HIT_TITLE;
    if (x == r.x - 1 && y == r.y + 1 && p->pane.scroll > 0)
        return EXPLAIN_HIT_UP;
    if (x == r.x - 1 && y == r.y + r.h - 1 && p->pane.scroll < p->pane.max)
        return EXPLAIN_HIT_DOWN;
    return EXPLAIN_HIT_BODY;
}
