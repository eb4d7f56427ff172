/* Users against context: both axes logarithmic (core/curve.h places the
 * points and names the ticks), the curves in braille dots (tui/plot.h), the
 * users ticks labelled at the left and the current context marked on its
 * curve. The planner's chart and the versus view's share the frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"
#include "tui/plot.h"

void view_chart_heights(const uint64_t *users, double span, double out[CHART_POINTS])
{
    for (int i = 0; i < CHART_POINTS; i++)
        out[i] = curve_y(users[i], span);
}

void view_chart_within(const struct users_curve *c, uint64_t max, double y[CHART_POINTS])
{
    /* past the model's longest context the plan's count is no answer: the
     * model takes no such context, so the curve stops there */
    for (int i = 0; i < CHART_POINTS; i++)
        if (c->context_tokens[i] > max)
            y[i] = -1;
}

/* A users tick: its height on the axis and its label. */
struct chart_tick {
    double at;
    char label[32];
};

enum { CHART_TICKS_MAX = 3 * CURVE_Y_TICKS_MAX + 1 };

/* The users ticks in the order they claim their rows: 1, the peak (at its
 * height: the top, or below 10 when fewer fit), the highest decade, the
 * decades between, then, with `minor`, 2 and 5 times each decade under the
 * peak; returns their count and the widest label's width in *gw. */
static int chart_y_ticks(uint64_t peak, double span, bool minor, struct chart_tick *t, int *gw)
{
    int decades = curve_y_ticks(span), n = 0;
    int order[CURVE_Y_TICKS_MAX + 1], m = 0;
    order[m++] = 0;
    if (peak > 1)
        order[m++] = -1; /* the peak */
    for (int d = decades - 1; d > 0; d--)
        order[m++] = d;
    for (int k = 0; k < m; k++) {
        int d = order[k];
        if (d < 0)
            units_format_int(peak, t[n].label, sizeof t[n].label);
        else
            curve_y_label(d, t[n].label, sizeof t[n].label);
        t[n++].at = d < 0 ? curve_y(peak, span) : curve_y((uint64_t)pow(10, d), span);
    }
    for (int d = 0; minor && d < decades && d < 6; d++)
        for (int f = 2; f <= 5; f += 3) {
            uint64_t v = (uint64_t)f * (uint64_t)pow(10, d);
            if (v >= peak)
                continue;
            units_format_int(v, t[n].label, sizeof t[n].label);
            t[n++].at = curve_y(v, span);
        }
    *gw = 0;
    for (int k = 0; k < n; k++) {
        int len = (int)strlen(t[k].label);
        *gw = len > *gw ? len : *gw;
    }
    return n;
}

/* Rows of a plot h rows tall a decade takes, as many as 2 and 5 between the
 * decades need to be told apart. */
static bool chart_minor_ticks(int h, double span)
{
    return span > 0 && h / span >= 4;
}

struct rect view_chart_axes(struct rect r, uint64_t peak, double *span)
{
    *span = curve_span(peak);
    struct chart_tick yt[CHART_TICKS_MAX];
    int gw, n = chart_y_ticks(peak, *span, chart_minor_ticks(r.h - 1, *span), yt, &gw);
    struct rect plot = {r.x + gw + 1, r.y, r.w - gw - 1, r.h - 1};
    bool u = roles_utf8();
    for (int row = 0; row < plot.h; row++)
        widget_text(plot.y + row, plot.x - 1, 1, ROLE_DIM, u ? "\u2502" : "|");
    /* each tick where its row is free, in the order they claim them */
    bool taken[PLOT_MAX_H] = {false};
    for (int k = 0; k < n; k++) {
        int x, y;
        widget_plot_cell(plot, 0, yt[k].at, &x, &y);
        if (y - plot.y < 0 || y - plot.y >= PLOT_MAX_H || taken[y - plot.y])
            continue;
        taken[y - plot.y] = true;
        int len = (int)strlen(yt[k].label);
        widget_text(y, plot.x - 1 - len, len, ROLE_DIM, yt[k].label);
        widget_text(y, plot.x - 1, 1, ROLE_DIM, u ? "\u2524" : "+");
    }
    int ay = plot.y + plot.h;
    view_fill_row(ay, r.x, r.w, ROLE_TEXT);
    for (int t = 0; t < CURVE_X_TICKS; t++) {
        int x, y;
        widget_plot_cell(plot, (double)t / (CURVE_X_TICKS - 1), 0, &x, &y);
        const char *tick = curve_x_label(t);
        int len = (int)strlen(tick);
        widget_text(ay, t == CURVE_X_TICKS - 1 ? x - len + 1 : x, len, ROLE_DIM, tick);
    }
    return plot;
}

/* The point of the current context on its curve: its mark, and its column. */
int view_chart_off_scale(uint64_t ctx)
{
    return curve_x(ctx) >= 0 ? 0 : ctx < curve_context(0) ? -1 : 1;
}

int view_chart_mark(struct rect plot, uint64_t ctx, uint64_t users, double span,
                    const char *glyph, enum role role)
{
    /* off the axis: at its end, an arrow pointing past it */
    int off = view_chart_off_scale(ctx);
    bool u = roles_utf8();
    double fx = off < 0 ? 0 : off > 0 ? 1 : curve_x(ctx);
    if (off)
        glyph = off > 0 ? (u ? "\u25b6" : ">") : (u ? "\u25c0" : "<");
    int x, y;
    double fy = curve_y(users, span);
    widget_plot_cell(plot, fx, fy < 0 ? 0 : fy, &x, &y);
    widget_text(y, x, 1, users ? role : ROLE_BAD, users || off ? glyph : u ? "\u00d7" : "x");
    return x;
}

/* The title: the longest of the texts that fits, then the legend's series
 * (a sample of each line and its name) where there is room. */
static void chart_title(const struct planner *p, struct rect r)
{
    const struct users_curve *c = planner_curve(p);
    const struct scenario *s = planner_scenario(p);
    char top[32], title[3][128];
    units_format_int(c->max_users, top, sizeof top);
    snprintf(title[0], sizeof title[0], "Users (log scale) against context tokens (log scale)%s%s",
             c->slo ? "" : ", peak ", c->slo ? "" : top);
    snprintf(title[1], sizeof title[1], "Users (log) against context (log)%s%s",
             c->slo ? "" : ", peak ", c->slo ? "" : top);
    snprintf(title[2], sizeof title[2], "Users by context, log");
    char keep[48];
    if (s->min_tokens_per_s > 0)
        snprintf(keep, sizeof keep, "keep %g tok/s", s->min_tokens_per_s);
    else
        snprintf(keep, sizeof keep, "keep the first token");
    int legend = c->slo ? 4 + 3 + (int)strlen("fit") + 3 + (int)strlen(keep) : 0;
    int k = 0;
    while (k < 2 && (int)strlen(title[k]) + legend > r.w)
        k++;
    int x = r.x + widget_text(r.y, r.x, r.w, ROLE_TITLE, title[k]);
    if (!c->slo || x + legend > r.x + r.w)
        return;
    x += widget_text(r.y, x, 2, ROLE_TITLE, ": ");
    widget_plot_sample(r.y, x, 2, PLOT_SOLID, ROLE_KV);
    x += 3 + widget_text(r.y, x + 3, r.x + r.w - x - 3, ROLE_TEXT, keep);
    widget_plot_sample(r.y, x + 2, 2, PLOT_DOTTED, ROLE_WARN);
    widget_text(r.y, x + 5, r.x + r.w - x - 5, ROLE_TEXT, "fit");
}

/* The planner chart's plot area in its pane r, as view_draw_chart lays it
 * out (a zero rect when r is too small for a chart). */
static struct rect chart_plot(const struct planner *p, struct rect r)
{
    if (r.h < 6 || r.w < 20)
        return (struct rect){0, 0, 0, 0};
    uint64_t peak = planner_curve(p)->max_users;
    double span = curve_span(peak);
    struct chart_tick t[CHART_TICKS_MAX];
    int gw;
    chart_y_ticks(peak, span, chart_minor_ticks(r.h - 3, span), t, &gw);
    return (struct rect){r.x + gw + 1, r.y + 1, r.w - gw - 1, r.h - 3};
}

/* The plot's column of the model's longest context; -1 off the axis (or
 * at its very end). */
static int rule_column(struct rect plot, uint64_t max_context)
{
    double fx = curve_x(max_context);
    if (fx < 0 || fx >= 1)
        return -1;
    int x, y;
    widget_plot_cell(plot, fx, 0, &x, &y);
    return x;
}

/* The model's longest context as a dotted rule down the plot, named at its
 * top ("max 128k"), drawn under the curves; none when the axis ends first. */
void view_chart_max_context(struct rect plot, uint64_t max_context)
{
    int x = rule_column(plot, max_context);
    if (x < 0 || plot.w < 2)
        return;
    for (int row = 0; row < plot.h; row++)
        widget_text(plot.y + row, x, 1, ROLE_DIM, roles_utf8() ? "\u250a" : ":");
    char name[40], t[32];
    snprintf(name, sizeof name, "max %s", units_format_tokens_short(max_context, t, sizeof t));
    int len = (int)strlen(name);
    if (x + 1 + len <= plot.x + plot.w)
        widget_text(plot.y, x + 1, len, ROLE_DIM, name);
    else if (x - len >= plot.x)
        widget_text(plot.y, x - len, len, ROLE_DIM, name);
}

void view_chart_beyond(struct rect plot, uint64_t max_context)
{
    int x = rule_column(plot, max_context);
    if (x < 0 || plot.h < 3)
        return;
    int from = x + 1, w = plot.x + plot.w - from;
    static const char *const names[] = {"not available", "n/a"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        int len = (int)strlen(names[k]);
        if (len <= w - 1) { /* a column clear of the rule */
            widget_text(plot.y + plot.h / 2, from + 1 + (w - 1 - len) / 2, len, ROLE_DIM,
                        names[k]);
            return;
        }
    }
}

uint64_t view_chart_context_at(const struct planner *p, int x, int y, bool drag)
{
    struct rect plot = chart_plot(p, p->frame.main.chart);
    if (plot.w < 1)
        return 0;
    if (drag) /* a drag holds at the ends wherever the pointer goes */
        x = x < plot.x ? plot.x : x >= plot.x + plot.w ? plot.x + plot.w - 1 : x;
    else if (x < plot.x || x >= plot.x + plot.w || y < plot.y || y >= plot.y + plot.h)
        return 0;
    /* the middle of the column's two dots (widget_plot_cell's inverse) */
    double fx = plot.w > 1 ? (2.0 * (x - plot.x) + 0.5) / (2.0 * plot.w - 1) : 0;
    return curve_context(fx < 0 ? 0 : fx > 1 ? 1 : fx);
}

/* The terminal rows the chart first shows at, this wide, with these
 * controls; 0 past any terminal's. */
static int chart_rows_needed(const struct planner *p)
{
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    for (int rows = p->frame.rows + 1; rows <= PLOT_MAX_H; rows++)
        if (layout_compute(p->frame.cols, rows, n).chart.h >= 6)
            return rows;
    return 0;
}

/* The curve at the context ticks up to the model's longest context and at
 * the last power of two within it, and the current context among them, its
 * mark leading: "4k 113", "\u25cf8k 56", or "4k:113" when tight; returns their
 * count and in *cur the current context's. */
static int chart_line_items(const struct planner *p, bool tight, char item[][40], int *cur)
{
    const struct users_curve *c = planner_curve(p);
    const struct plan_result *res = planner_result(p);
    uint64_t max = planner_scenario(p)->model.max_context_tokens;
    uint64_t ctx = planner_scenario(p)->context_tokens;
    uint64_t here = c->slo ? res->speed.users_at_service_level : res->max_users;
    const char *mark = roles_utf8() ? "\u25cf" : "@";
    int n = 0, octave = (CHART_POINTS - 1) / 10, tick = 2 * octave;
    *cur = -1;
    char t[32], u[32];
    for (int i = 0; i < CHART_POINTS && c->context_tokens[i] <= max; i += octave) {
        bool last = i + octave >= CHART_POINTS || c->context_tokens[i + octave] > max;
        if (i % tick != 0 && !last)
            continue;
        if (*cur < 0 && c->context_tokens[i] >= ctx) { /* the current context, in its place */
            *cur = n;
            units_format_tokens_short(ctx, t, sizeof t);
            units_format_int(here, u, sizeof u);
            snprintf(item[n++], sizeof item[0], "%s%s%s%s", mark, t, tight ? ":" : " ", u);
            if (c->context_tokens[i] == ctx)
                continue;
        }
        units_format_tokens_short(c->context_tokens[i], t, sizeof t);
        /* one kind of count on the line: with a target, those who keep it
         * at each context (sweep's AT LEVEL), as at the current one */
        units_format_int(c->slo ? c->users_slo[i] : c->users[i], u, sizeof u);
        snprintf(item[n++], sizeof item[0], "%s%s%s", t, tight ? ":" : " ", u);
    }
    if (*cur < 0) { /* past the last tick */
        *cur = n;
        units_format_tokens_short(ctx, t, sizeof t);
        units_format_int(here, u, sizeof u);
        snprintf(item[n++], sizeof item[0], "%s%s%s%s", mark, t, tight ? ":" : " ", u);
    }
    return n;
}

/* Items [from, to) after the line's head, then `need`. */
static void chart_line_join(char *line, size_t size, int k, bool slo, char item[][40], int from,
                            int to, const char *need)
{
    const char *head = slo ? (k == 0 ? "Users at the service level by context:" : "At level")
                           : (k == 0 ? "Users by context:" : "Users");
    int at = snprintf(line, size, "%s", head);
    for (int i = from; i < to && at < (int)size; i++)
        at += snprintf(line + at, size - (size_t)at, "%s%s",
                       i > from && k == 0 ? view_sep() : " ", item[i]);
    if (at < (int)size)
        snprintf(line + at, size - (size_t)at, "%s", need);
}

void view_chart_line(const struct planner *p, struct rect r)
{
    char need[64] = "", item[CURVE_X_TICKS + 2][40], line[320];
    int rows = chart_rows_needed(p);
    if (planner_curve(p)->max_users == 0) {
        widget_text(r.y, r.x, r.w, ROLE_DIM, "No user fits at any context");
        return;
    }
    for (int k = 0; k < 3; k++) {
        int cur, n = chart_line_items(p, k > 0, item, &cur);
        if (rows && k == 0)
            snprintf(need, sizeof need, " (the chart needs %d rows)", rows);
        else if (rows && k == 1)
            snprintf(need, sizeof need, "%schart at %d rows", view_sep(), rows);
        else
            need[0] = '\0';
        /* the most items that fit, the current context's always among them:
         * the shortest contexts give way first, then the longest */
        int least = k < 2 ? 3 : 1;
        for (int len = n; len >= least || len == 1; len--) {
            for (int from = cur; from >= 0 && from + len > cur; from--) {
                if (from + len > n)
                    continue;
                chart_line_join(line, sizeof line, k, planner_curve(p)->slo, item, from, from + len,
                                need);
                if (view_cols(line) <= r.w) {
                    widget_text(r.y, r.x, r.w, ROLE_DIM, line);
                    return;
                }
            }
            if (len == 1)
                break;
        }
    }
}

void view_draw_chart(const struct planner *p, struct rect r)
{
    if (r.h >= 1 && r.h < 6) {
        view_chart_line(p, r);
        return;
    }
    if (r.h < 6 || r.w < 20)
        return;
    const struct users_curve *c = planner_curve(p);
    const struct plan_result *res = planner_result(p);
    double span;
    chart_title(p, r);
    struct rect plot =
        view_chart_axes((struct rect){r.x, r.y + 1, r.w, r.h - 2}, c->max_users, &span);
    uint64_t max = planner_scenario(p)->model.max_context_tokens;
    double fit[CHART_POINTS], keep[CHART_POINTS];
    view_chart_heights(c->users, span, fit);
    view_chart_heights(c->users_slo, span, keep);
    view_chart_within(c, max, fit);
    view_chart_within(c, max, keep);
    /* with a service level, what keeps it solid over what fits in memory,
     * dotted; past the model's longest context no curve, a rule and "not
     * available" */
    struct plot_series series[2] = {
        {keep, CHART_POINTS, ROLE_KV, PLOT_SOLID},
        {fit, CHART_POINTS, c->slo ? ROLE_WARN : ROLE_KV, c->slo ? PLOT_DOTTED : PLOT_SOLID}};
    if (!c->slo)
        series[0] = series[1];
    view_chart_max_context(plot, max);
    view_chart_beyond(plot, max);
    widget_plot(plot, series, c->slo ? 2 : 1);
    uint64_t ctx = planner_scenario(p)->context_tokens;
    uint64_t here_users = c->slo ? res->speed.users_at_service_level : res->max_users;
    int mx = view_chart_mark(plot, ctx, here_users, span, roles_utf8() ? "\u25cf" : "@",
                             ROLE_TITLE);
    char here[96], ctxs[32], u[32], k[32];
    units_format_tokens_short(ctx, ctxs, sizeof ctxs);
    units_format_int(res->max_users, u, sizeof u);
    units_format_int(res->speed.users_at_service_level, k, sizeof k);
    if (c->slo && res->speed.users_at_service_level != res->max_users)
        snprintf(here, sizeof here, "%s %s now: %s fit, %s %s", roles_utf8() ? "\u25cf" : "@",
                 ctxs, u, k,
                 res->speed.binding == BIND_PREFILL ? "served (first token)" : "keep the speed");
    else
        snprintf(here, sizeof here, "%s %s now: %s %s", roles_utf8() ? "\u25cf" : "@", ctxs, u,
                 res->max_users == 1 ? "user" : "users");
    int off = view_chart_off_scale(ctx);
    if (ctx > max && !off) { /* a context the model does not take: said, as on the plot */
        char m[32];
        size_t at = strlen(here);
        snprintf(here + at, sizeof here - at, " (past max %s)",
                 units_format_tokens_short(max, m, sizeof m));
    }
    if (off) { /* the mark at the axis's end, and the caption says so */
        size_t at = strlen(here);
        snprintf(here + at, sizeof here - at, " (off scale)");
        memcpy(here, off > 0 ? (roles_utf8() ? "\u25b6" : ">") : (roles_utf8() ? "\u25c0" : "<"),
               roles_utf8() ? 3 : 1); /* the mark's glyph leads, as on the plot */
    }
    int len = view_cols(here);
    int x = mx - len / 2;
    x = x < r.x ? r.x : x + len > r.x + r.w ? r.x + r.w - len : x;
    widget_text(r.y + r.h - 1, x, len, ROLE_TITLE, here);
}
