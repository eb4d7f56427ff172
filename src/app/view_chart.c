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

/* The users ticks' labels and heights; returns their count less one (the
 * peak's), and the widest label's width in *gw. */
static int chart_y_ticks(uint64_t peak, double span, char label[][32], double *at, int *gw)
{
    /* the ticks 1, 10, 100 ... within the span, then the peak at the top */
    int ticks = curve_y_ticks(span);
    *gw = 0;
    for (int d = 0; d <= ticks; d++) {
        if (d < ticks)
            curve_y_label(d, label[d], sizeof label[d]);
        else
            units_format_int(peak, label[d], sizeof label[d]);
        at[d] = d < ticks ? curve_y(d == 0 ? 1 : (uint64_t)pow(10, d), span) : 1;
        int len = (int)strlen(label[d]);
        *gw = len > *gw ? len : *gw;
    }
    return ticks;
}

struct rect view_chart_axes(struct rect r, uint64_t peak, double *span)
{
    *span = curve_span(peak);
    char label[CURVE_Y_TICKS_MAX + 1][32];
    double at[CURVE_Y_TICKS_MAX + 1];
    int gw, ticks = chart_y_ticks(peak, *span, label, at, &gw);
    struct rect plot = {r.x + gw + 1, r.y, r.w - gw - 1, r.h - 1};
    bool u = roles_utf8();
    for (int row = 0; row < plot.h; row++)
        widget_text(plot.y + row, plot.x - 1, 1, ROLE_DIM, u ? "\u2502" : "|");
    /* 1 and the highest tick always, the peak and the decades between where
     * their rows are free */
    bool taken[PLOT_MAX_H] = {false};
    int order[CURVE_Y_TICKS_MAX + 1], n = 0;
    order[n++] = 0;
    if (ticks > 1)
        order[n++] = ticks - 1;
    if (peak > 1)
        order[n++] = ticks;
    for (int d = 1; d < ticks - 1; d++)
        order[n++] = d;
    for (int k = 0; k < n; k++) {
        int d = order[k], x, y;
        widget_plot_cell(plot, 0, at[d], &x, &y);
        if (y - plot.y < 0 || y - plot.y >= PLOT_MAX_H || taken[y - plot.y])
            continue;
        taken[y - plot.y] = true;
        int len = (int)strlen(label[d]);
        widget_text(y, plot.x - 1 - len, len, ROLE_DIM, label[d]);
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
int view_chart_mark(struct rect plot, uint64_t ctx, uint64_t users, double span,
                    const char *glyph, enum role role)
{
    double fx = curve_x(ctx);
    if (fx < 0)
        return -1;
    int x, y;
    double fy = curve_y(users, span);
    widget_plot_cell(plot, fx, fy < 0 ? 0 : fy, &x, &y);
    widget_text(y, x, 1, users ? role : ROLE_BAD, users ? glyph : roles_utf8() ? "\u00d7" : "x");
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
    char label[CURVE_Y_TICKS_MAX + 1][32];
    double at[CURVE_Y_TICKS_MAX + 1];
    int gw;
    chart_y_ticks(peak, curve_span(peak), label, at, &gw);
    return (struct rect){r.x + gw + 1, r.y + 1, r.w - gw - 1, r.h - 3};
}

/* The model's longest context as a dotted rule down the plot, named at its
 * top ("max 128k"), drawn under the curves; none when the axis ends first. */
static void chart_max_context(struct rect plot, uint64_t max_context)
{
    double fx = curve_x(max_context);
    if (fx < 0 || fx >= 1 || plot.w < 2)
        return;
    int x, y;
    widget_plot_cell(plot, fx, 0, &x, &y);
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

void view_draw_chart(const struct planner *p, struct rect r)
{
    if (r.h < 6 || r.w < 20)
        return;
    const struct users_curve *c = planner_curve(p);
    const struct plan_result *res = planner_result(p);
    double span;
    chart_title(p, r);
    struct rect plot =
        view_chart_axes((struct rect){r.x, r.y + 1, r.w, r.h - 2}, c->max_users, &span);
    double fit[CHART_POINTS], keep[CHART_POINTS];
    view_chart_heights(c->users, span, fit);
    view_chart_heights(c->users_slo, span, keep);
    /* with a service level, what keeps it solid over what fits in memory, dotted */
    struct plot_series series[2] = {
        {keep, CHART_POINTS, ROLE_KV, PLOT_SOLID},
        {fit, CHART_POINTS, c->slo ? ROLE_WARN : ROLE_KV, c->slo ? PLOT_DOTTED : PLOT_SOLID}};
    chart_max_context(plot, planner_scenario(p)->model.max_context_tokens);
    widget_plot(plot, c->slo ? series : series + 1, c->slo ? 2 : 1);
    uint64_t ctx = planner_scenario(p)->context_tokens;
    uint64_t here_users = c->slo ? res->speed.users_at_service_level : res->max_users;
    int mx = view_chart_mark(plot, ctx, here_users, span, roles_utf8() ? "\u25cf" : "@",
                             ROLE_TITLE);
    if (mx < 0)
        return;
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
    int len = view_cols(here);
    int x = mx - len / 2;
    x = x < r.x ? r.x : x + len > r.x + r.w ? r.x + r.w - len : x;
    widget_text(r.y + r.h - 1, x, len, ROLE_TITLE, here);
}
