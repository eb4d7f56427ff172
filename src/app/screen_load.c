/* The Load screen (L): the current scenario under a stream of requests, as
 * `kvplan simulate` runs it (app/load.h): its settings as controls, the
 * current rate's percentiles (the p95 with its sampling spread), goodput
 * and queue, a chart of p50 and p95 TTFT and TPOT against the request rate
 * with the objectives and the knee, and the command line that runs it.
 * Up/Down pick a control, Left/Right step it (Shift or PgUp/PgDn: big
 * steps), r resets it, z undoes a change since the screen opened (Z
 * redoes), y copies the command line; Esc or L go back, q quits as
 * everywhere. The pointer: a click on a control's arrow steps it, the
 * wheel steps the control under it, a press on its value dragged steps it
 * once a column; a click or a drag in a chart sets the rate there. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "core/loadband.h"
#include "app/view_parts.h"

enum {
    LOAD_MIN_COLS = 80,
    LOAD_MIN_ROWS = 24,
    LOAD_LEFT_W = 34,
    LOAD_LABEL_W = 13,
    LOAD_TOP = 2,      /* the first control's row */
    CHART_LABEL_W = 7  /* a chart's axis labels, left of its plot */
};

/* An axis's milliseconds in at most 6 columns: "27ms", "1.5s". */
static void axis_ms(double ms, char *buf, size_t size)
{
    if (ms >= 1000)
        snprintf(buf, size, "%.2gs", ms / 1000);
    else
        snprintf(buf, size, "%.3gms", ms);
}

/* Milliseconds in few digits: "0.85 ms", "44.3 ms", "104 ms", "20.6 s". */
static void fmt_ms(double ms, char *buf, size_t size)
{
    if (ms >= 10000)
        snprintf(buf, size, "%.1f s", ms / 1000);
    else if (ms >= 100)
        snprintf(buf, size, "%.0f ms", ms);
    else if (ms >= 10)
        snprintf(buf, size, "%.1f ms", ms);
    else
        snprintf(buf, size, "%.2f ms", ms);
}

static void draw_controls(const struct planner *p, int y, int x)
{
    const struct load_settings *ls = &p->slots[p->current].load;
    bool utf8 = roles_utf8();
    for (int c = 0; c < LOAD_CONTROLS; c++) {
        bool focus = p->load.focus == (enum load_control)c;
        char value[48], shown[64];
        load_value_text(ls, p->load.point_n ? &p->load.fit : NULL, (enum load_control)c, value,
                        sizeof value);
        bool fixed = ls->profile && (c == LOAD_INPUT || c == LOAD_OUTPUT); /* the profile's */
        snprintf(shown, sizeof shown, "%s %s %s", fixed ? " " : utf8 ? "\u25c2" : "<", value,
                 fixed ? " " : utf8 ? "\u25b8" : ">");
        widget_text(y + c, x, LOAD_LABEL_W, focus ? ROLE_FOCUS : ROLE_TEXT, load_label(c));
        widget_text(y + c, x + LOAD_LABEL_W, LOAD_LEFT_W - LOAD_LABEL_W, focus ? ROLE_FOCUS : ROLE_TEXT,
                    shown);
    }
}

/* The current rate's line of one series: "TTFT  p50 44.3 ms  p95 104 ms ±9.8 ms". */
static void series_line(const char *name, const struct sim_stats *st, uint64_t n, char *buf,
                        size_t size)
{
    char p50[24], p95[24], spread[24];
    fmt_ms(st->median * 1000, p50, sizeof p50);
    fmt_ms(st->p95 * 1000, p95, sizeof p95);
    fmt_ms(load_p95_spread(st, n) * 1000, spread, sizeof spread);
    snprintf(buf, size, "%s  p50 %s  p95 %s %s%s", name, p50, p95, roles_utf8() ? "\u00b1" : "+-",
             spread);
}

/* How far simulate's mean TTFT and TPOT were off on public runs of the
 * plan's kind, family and engine (core/loadband.h), as simulate prints it:
 * "Measured TTFT -29%..+177%, TPOT -16%..+69%", then the group where it fits. */
static void spread_line(const struct planner *p, int y, int x, int w)
{
    const struct load_view *v = &p->load;
    const struct load_settings *ls = &p->slots[p->current].load;
    /* the runs were below their knee: none over capacity or past the sweep's */
    if (v->point.over_capacity)
        return;
    if (v->sweep_n && v->sweep.knee >= 0 && ls->rate > v->sweep.pt[v->sweep.knee].rate) {
        widget_text(y, x, w, ROLE_DIM, "Mean vs runs: none past the knee");
        return;
    }
    struct load_bands lb;
    char group[SPEEDBAND_GROUP_MAX], line[320];
    loadband_lookup(&p->load.s, &lb);
    speedband_group(&lb.ttft, group, sizeof group);
    int n = snprintf(line, sizeof line, "Mean vs runs: TTFT %+.0f..%+.0f%%, TPOT %+.0f..%+.0f%%",
                     100 * (lb.ttft.low - 1), 100 * (lb.ttft.high - 1), 100 * (lb.tpot.low - 1),
                     100 * (lb.tpot.high - 1));
    char more[SPEEDBAND_GROUP_MAX + 48];
    snprintf(more, sizeof more, " over %u %s cases", lb.ttft.cases,
             group[0] ? group : "measured");
    if (n > 0 && n + (int)strlen(more) <= w && (size_t)n + strlen(more) < sizeof line)
        strcat(line, more);
    widget_text(y, x, w, ROLE_DIM, line);
}

static void draw_figures(const struct planner *p, int y, int x, int w)
{
    const struct load_view *v = &p->load;
    const struct load_settings *ls = &p->slots[p->current].load;
    const struct sim_result *o = &v->point;
    char line[160];
    if (v->point_n == 0) {
        widget_text(y, x, w, ROLE_BAD, v->error[0] ? v->error : "no run");
        return;
    }
    snprintf(line, sizeof line, "At %g req/s: %llu requests%s", ls->rate,
             (unsigned long long)v->point_n,
             v->point_n < LOAD_FULL_REQUESTS ? " (quick)" : ", seed 0");
    widget_text(y, x, w, ROLE_TITLE, line);
    if (o->over_capacity) { /* as simulate says: no percentiles of a run that never settles */
        widget_text(y + 1, x, w, ROLE_BAD, "TTFT  over capacity: latencies never settle");
        widget_text(y + 2, x, w, ROLE_BAD, "TPOT  over capacity");
    } else {
        series_line("TTFT", &o->ttft, o->completed, line, sizeof line);
        widget_text(y + 1, x, w, o->ttft.p95 * 1000 > ls->slo_ttft_ms ? ROLE_BAD : ROLE_TEXT,
                    line);
        series_line("TPOT", &o->tpot, o->completed, line, sizeof line);
        widget_text(y + 2, x, w, o->tpot.p95 * 1000 > ls->slo_tpot_ms ? ROLE_BAD : ROLE_TEXT,
                    line);
    }
    double share = o->completed ? 100.0 * (double)o->good / (double)o->completed : 0;
    /* 998 of 1,000 is not all: a tenth where a whole percent would round to 100 */
    bool near = o->good < o->completed && share >= 99.5;
    snprintf(line, sizeof line, near ? "Goodput %.2f req/s: %.1f%% keep both SLOs"
                                     : "Goodput %.2f req/s: %.0f%% keep both SLOs",
             o->request_goodput, near ? floor(share * 10) / 10 : share);
    widget_text(y + 3, x, w, ROLE_TEXT, line);
    snprintf(line, sizeof line, "Queue   %.1f waiting (max %llu), %.1f running",
             o->mean_waiting, (unsigned long long)o->max_waiting, o->mean_running);
    widget_text(y + 4, x, w, o->over_capacity ? ROLE_BAD : ROLE_TEXT, line);
    /* the burst: every request sent at once (a steady stream can be served
     * faster: the knee may pass it) */
    if (o->over_capacity)
        snprintf(line, sizeof line, "Over capacity: %.2f more requests a second",
                 fmax(o->queue_growth_per_s, o->system_growth_per_s));
    else if (v->sweep_n && v->sweep.knee >= 0)
        snprintf(line, sizeof line, "Burst %.3g req/s; knee at %.3g req/s",
                 v->sweep.capacity, v->sweep.pt[v->sweep.knee].rate);
    else
        snprintf(line, sizeof line, "Burst %.3g req/s; no knee in the sweep",
                 v->sweep.capacity);
    widget_text(y + 5, x, w, o->over_capacity ? ROLE_BAD : ROLE_GOOD, line);
    spread_line(p, y + 6, x, w);
}

struct chart {
    struct rect r;       /* the whole chart: title, plot, axis, labels */
    const char *title;
    double p50[LOAD_SWEEP_POINTS], p95[LOAD_SWEEP_POINTS];
    double slo;
};

static int row_of(double v, double lo, double hi, int top, int h)
{
    double f = (log(v) - log(lo)) / (log(hi) - log(lo));
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return top + h - 1 - (int)lround(f * (h - 1));
}

static void put(int y, int x, enum role role, const char *glyph)
{
    widget_text(y, x, 1, role, glyph);
}

/* One chart: log milliseconds up, the rate along, 0 to the sweep's last. */
static void draw_chart(const struct planner *p, const struct chart *c)
{
    const struct load_sweep *sw = &p->load.sweep;
    bool u = roles_utf8();
    int lab = CHART_LABEL_W, top = c->r.y + 1, h = c->r.h - 3, x0 = c->r.x + lab, w = c->r.w - lab;
    double lo = c->slo, hi = c->slo;
    for (int i = 0; i < sw->count; i++) {
        if (sw->pt[i].over)
            continue;
        lo = fmin(lo, fmin(c->p50[i], c->p95[i]));
        hi = fmax(hi, fmax(c->p50[i], c->p95[i]));
    }
    lo = fmax(lo / 1.5, 1e-3);
    hi = fmax(hi * 1.5, lo * 10);
    widget_text(c->r.y, c->r.x, c->r.w, ROLE_TITLE, c->title);
    char t[24];
    axis_ms(hi, t, sizeof t);
    widget_text(top, c->r.x, lab - 1, ROLE_DIM, t);
    axis_ms(lo, t, sizeof t);
    widget_text(top + h - 1, c->r.x, lab - 1, ROLE_DIM, t);
    for (int y = top; y < top + h; y++)
        put(y, x0 - 1, ROLE_DIM, u ? "\u2502" : "|");
    double xmax = sw->count ? sw->pt[sw->count - 1].rate : 1;
    int knee_x = sw->knee >= 0 ? x0 + (int)lround(sw->pt[sw->knee].rate / xmax * (w - 1)) : -1;
    int slo_y = row_of(c->slo, lo, hi, top, h);
    for (int x = x0; x < x0 + w; x++)
        put(slo_y, x, ROLE_BAD, u ? "\u2504" : "-");
    widget_text(slo_y, c->r.x, lab - 1, ROLE_BAD, "SLO");
    for (int y = top; y < top + h && knee_x >= 0; y++)
        if (y != slo_y)
            put(y, knee_x, ROLE_WARN, u ? "\u2506" : ":");
    for (int i = 0; i < sw->count; i++) {
        if (sw->pt[i].over) /* over capacity: no percentiles, as simulate gives none */
            continue;
        int x = x0 + (int)lround(sw->pt[i].rate / xmax * (w - 1));
        put(row_of(c->p50[i], lo, hi, top, h), x, ROLE_KV, u ? "\u25cb" : "o");
        put(row_of(c->p95[i], lo, hi, top, h), x, ROLE_WEIGHTS, u ? "\u25cf" : "*");
    }
    int ay = top + h;
    put(ay, x0 - 1, ROLE_DIM, u ? "\u2514" : "+");
    for (int x = x0; x < x0 + w; x++)
        put(ay, x, ROLE_DIM, u ? "\u2500" : "-");
    const struct load_settings *ls = &p->slots[p->current].load;
    int cx = x0 + (int)lround(fmin(ls->rate / xmax, 1.0) * (w - 1));
    put(ay, cx, ROLE_FOCUS, u ? "\u25b2" : "^");
    if (knee_x >= 0)
        put(ay, knee_x, ROLE_WARN, u ? "\u2506" : ":");
    snprintf(t, sizeof t, "0");
    widget_text(ay + 1, x0, 2, ROLE_DIM, t);
    snprintf(t, sizeof t, "%.3g req/s", xmax);
    int tw = (int)strlen(t);
    widget_text(ay + 1, x0 + w - tw, tw, ROLE_DIM, t);
}

/* The command line's rows and the two charts' rectangles on a cols x rows
 * screen; false when the charts have no room. */
static bool chart_rects(int cols, int rows, int *cmd_rows, struct rect c[2])
{
    *cmd_rows = rows >= 36 ? 3 : 2;
    int bottom = rows - 2 - *cmd_rows; /* the legend's row */
    struct rect r = {1, 9, cols - 2, bottom - 9};
    int half = (r.w - 2) / 2;
    c[0] = (struct rect){r.x, r.y, half, r.h};
    c[1] = (struct rect){r.x + half + 2, r.y, r.w - half - 2, r.h};
    return r.h >= 6;
}

/* The rate chart i shows at column x (held to its ends); with i -1, the
 * chart whose plot or axis holds x, y, in *i; 0 off both. */
static double chart_rate_at(const struct planner *p, int x, int y, int *i)
{
    const struct load_sweep *sw = &p->load.sweep;
    struct rect c[2];
    int cmd_rows;
    if (p->load.sweep_n == 0 || sw->count == 0 ||
        !chart_rects(p->frame.cols, p->frame.rows, &cmd_rows, c))
        return 0;
    for (int k = 0; k < 2 && *i < 0; k++) {
        int x0 = c[k].x + CHART_LABEL_W, top = c[k].y + 1;
        if (x >= x0 && x < c[k].x + c[k].w && y >= top && y <= top + c[k].h - 3)
            *i = k;
    }
    if (*i < 0)
        return 0;
    int x0 = c[*i].x + CHART_LABEL_W, w = c[*i].w - CHART_LABEL_W;
    double f = (double)(x - x0) / (w - 1);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return fmax(f * sw->pt[sw->count - 1].rate, 0.01); /* the left end: the least rate */
}

static void draw_charts(const struct planner *p, int cols, int rows)
{
    const struct load_view *v = &p->load;
    const struct load_settings *ls = &p->slots[p->current].load;
    struct chart c[2] = {{.title = "TTFT against the request rate", .slo = ls->slo_ttft_ms},
                         {.title = "TPOT against the request rate", .slo = ls->slo_tpot_ms}};
    struct rect r[2];
    int cmd_rows;
    if (v->sweep_n == 0 || !chart_rects(cols, rows, &cmd_rows, r))
        return;
    c[0].r = r[0];
    c[1].r = r[1];
    for (int i = 0; i < v->sweep.count; i++) {
        c[0].p50[i] = v->sweep.pt[i].ttft_p50;
        c[0].p95[i] = v->sweep.pt[i].ttft_p95;
        c[1].p50[i] = v->sweep.pt[i].tpot_p50;
        c[1].p95[i] = v->sweep.pt[i].tpot_p95;
    }
    draw_chart(p, &c[0]);
    draw_chart(p, &c[1]);
}

static void draw_legend(int y, int x, int w)
{
    bool u = roles_utf8();
    struct { enum role role; const char *glyph, *what; } items[] = {
        {ROLE_KV, u ? "\u25cb" : "o", "p50"},     {ROLE_WEIGHTS, u ? "\u25cf" : "*", "p95"},
        {ROLE_BAD, u ? "\u2504" : "-", "SLO"},    {ROLE_WARN, u ? "\u2506" : ":", "knee"},
        {ROLE_FOCUS, u ? "\u25b2" : "^", "this rate"}};
    for (size_t i = 0; i < sizeof items / sizeof items[0] && x + 12 < w; i++) {
        put(y, x, items[i].role, items[i].glyph);
        x += 2 + widget_text(y, x + 2, w - x - 2, ROLE_TEXT, items[i].what) + 2;
    }
}

/* The command line over `rows` rows from y, broken at spaces, cut with a
 * mark when longer (y copies it whole). */
static void draw_command(const struct planner *p, int y, int x, int w, int rows)
{
    char line[PLANNER_COPY_MAX];
    load_command_line(p, line, sizeof line);
    const char *at = line;
    for (int i = 0; i < rows && *at; i++) {
        char piece[512], cut[512];
        size_t len = strlen(at), n = len;
        if (n > (size_t)w) {
            n = (size_t)w;
            while (n > (size_t)w / 2 && at[n] != ' ')
                n--;
        }
        if (n >= sizeof piece)
            n = sizeof piece - 1;
        const char *shown = piece;
        if (i == rows - 1 && n < len)
            shown = widget_fit(at, w, cut, sizeof cut);
        memcpy(piece, at, n);
        piece[n] = '\0';
        widget_text(y + i, x, w, ROLE_DIM, shown);
        at += n;
        while (*at == ' ')
            at++;
    }
}

static void draw_keybar(int y, int w)
{
    static const char *const k[][2] = {{"Esc", "back"},  {"Up/Dn", "control"},
                                       {"Lt/Rt", "step"}, {"S-Lt/Rt", "big step"},
                                       {"r", "reset"},   {"y", "copy command"},
                                       {"z", "undo"},
                                       {"q", "quit"}};
    view_fill_row(y, 0, w, ROLE_TEXT);
    int x = 1;
    for (size_t i = 0; i < sizeof k / sizeof k[0] && x >= 0; i++)
        x = view_key_item(y, x, w, k[i][0], k[i][1]);
}

static void load_draw(const struct planner *p, int cols, int rows)
{
    if (cols < LOAD_MIN_COLS || rows < LOAD_MIN_ROWS) {
        view_draw_too_small(cols, rows, LOAD_MIN_COLS, LOAD_MIN_ROWS);
        return;
    }
    const struct load_view *v = &p->load;
    const struct scenario *s = &v->s;
    char title[256];
    snprintf(title, sizeof title, " Load  %s on %u x %s, %s, context %llu", s->model.name, s->gpus,
             s->gpu.name, engine_desc(s->engine.kind)->title,
             (unsigned long long)s->context_tokens);
    view_fill_row(0, 0, cols, ROLE_TITLE);
    widget_text(0, 0, cols, ROLE_TITLE, title);
    if (!v->planned) {
        widget_text(2, 1, cols - 2, ROLE_BAD, v->error);
        widget_text(4, 1, cols - 2, ROLE_TEXT, "Esc goes back; the main screen changes the plan.");
        draw_keybar(rows - 1, cols);
        return;
    }
    draw_controls(p, LOAD_TOP, 1);
    draw_figures(p, 2, LOAD_LEFT_W + 2, cols - LOAD_LEFT_W - 3);
    struct rect unused[2];
    int cmd_rows;
    chart_rects(cols, rows, &cmd_rows, unused);
    int bottom = rows - 2 - cmd_rows; /* the legend's row */
    draw_charts(p, cols, rows);
    draw_legend(bottom, 1, cols - 1);
    draw_command(p, bottom + 1, 1, cols - 2, cmd_rows);
    const char *status = p->status[0] ? p->status : v->error;
    widget_text(rows - 2, 1, cols - 2, p->status[0] ? ROLE_TEXT : ROLE_BAD, status);
    draw_keybar(rows - 1, cols);
}

static int load_copy(struct planner *p)
{
    char line[PLANNER_COPY_MAX];
    load_command_line(p, line, sizeof line);
    if (line[0] == '\0' || strlen(line) >= sizeof p->copied) {
        snprintf(p->status, sizeof p->status, "the command line is longer than kvplan can copy");
        return PLAN_REDRAW;
    }
    snprintf(p->copied, sizeof p->copied, "%s", line);
    p->copy_pending = true;
    snprintf(p->status, sizeof p->status, "copied the simulate command line (OSC 52)");
    return PLAN_REDRAW;
}

static int load_key(struct planner *p, int key)
{
    struct load_view *v = &p->load;
    p->status[0] = '\0';
    switch (key) {
    case 27:
    case 'L':
        p->mode = p->base;
        return PLAN_REDRAW;
    case 'q':
    case 'Q':
        return screen_close(p, key);
    case KEY_UP:
    case KEY_BTAB:
        v->focus = (enum load_control)((v->focus + LOAD_CONTROLS - 1) % LOAD_CONTROLS);
        return PLAN_REDRAW;
    case KEY_DOWN:
    case '\t':
        v->focus = (enum load_control)((v->focus + 1) % LOAD_CONTROLS);
        return PLAN_REDRAW;
    case KEY_LEFT:
    case 'h':
    case KEY_RIGHT:
    case 'l':
        load_step(p, v->focus, key == KEY_LEFT || key == 'h' ? -1 : +1, false);
        return PLAN_REDRAW;
    case KEY_SLEFT:
    case KEY_NPAGE:
    case KEY_SRIGHT:
    case KEY_PPAGE:
        load_step(p, v->focus, key == KEY_SLEFT || key == KEY_NPAGE ? -1 : +1, true);
        return PLAN_REDRAW;
    case 'r':
        load_reset(p, v->focus);
        return PLAN_REDRAW;
    case 'z':
        if (!load_undo(p))
            snprintf(p->status, sizeof p->status, "nothing to undo on the Load screen");
        return PLAN_REDRAW;
    case 'Z':
        if (!load_redo(p))
            snprintf(p->status, sizeof p->status, "nothing to redo on the Load screen");
        return PLAN_REDRAW;
    case 'y':
        return load_copy(p);
    case 12:
        clearok(stdscr, TRUE);
        return PLAN_REDRAW;
    default:
        return 0;
    }
}

/* The control on row y and where x is on it: -1 its left arrow, +1 its
 * right arrow, 2 its value, 0 its label; -1 returned off the controls. */
static int control_at(const struct planner *p, int x, int y, int *part)
{
    int c = y - LOAD_TOP, vx = 1 + LOAD_LABEL_W;
    if (c < 0 || c >= LOAD_CONTROLS || x < 1 || x >= 1 + LOAD_LEFT_W)
        return -1;
    char value[48];
    load_value_text(&p->slots[p->current].load, &p->load.fit, (enum load_control)c, value,
                    sizeof value);
    int right = vx + 2 + (int)strlen(value) + 1;
    *part = x == vx ? -1 : x == right ? +1 : x > vx && x < right ? 2 : 0;
    return c;
}

/* A press, a click or the wheel on a control: the focus, an arrow steps
 * it, the wheel steps it, a press on its value starts a drag. */
static int control_mouse(struct planner *p, const MEVENT *ev, int c, int part)
{
    struct load_view *v = &p->load;
    v->focus = (enum load_control)c;
    if (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
        load_step(p, v->focus, ev->bstate & BUTTON4_PRESSED ? +1 : -1, false);
    else if (part == -1 || part == +1)
        load_step(p, v->focus, part, false);
    else if (part == 2 && (ev->bstate & BUTTON1_PRESSED)) {
        v->dragging = true;
        v->drag_x = ev->x;
    }
    return PLAN_REDRAW;
}

/* A drag of a value: a step for each column the pointer moved (right up,
 * left down), until one will not go. */
static void drag_value(struct planner *p, int x)
{
    struct load_view *v = &p->load;
    while (x != v->drag_x) {
        int d = x > v->drag_x ? +1 : -1;
        struct load_settings was = p->slots[p->current].load;
        load_step(p, v->focus, d, false);
        v->drag_x += d;
        if (memcmp(&was, &p->slots[p->current].load, sizeof was) == 0)
            break;
    }
    v->drag_x = x;
}

static int load_mouse(struct planner *p, const MEVENT *ev)
{
    struct load_view *v = &p->load;
    p->status[0] = '\0';
    if (p->frame.cols < LOAD_MIN_COLS || p->frame.rows < LOAD_MIN_ROWS || !v->planned)
        return 0;
    bool press = ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED);
    bool moved = ev->bstate & (REPORT_MOUSE_POSITION | BUTTON1_RELEASED);
    bool release = ev->bstate & BUTTON1_RELEASED;
    int part = 0, c = control_at(p, ev->x, ev->y, &part), chart = -1;
    if (moved && (v->dragging || v->chart_drag >= 0)) {
        /* motion carries no button bit: the drag is ours to remember */
        if (v->dragging)
            drag_value(p, ev->x);
        else
            load_set_rate(p, chart_rate_at(p, ev->x, ev->y, &v->chart_drag));
        if (release)
            v->dragging = false, v->chart_drag = -1;
        return PLAN_REDRAW;
    }
    if (c >= 0 && (press || (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))))
        return control_mouse(p, ev, c, part);
    double rate = press ? chart_rate_at(p, ev->x, ev->y, &chart) : 0;
    if (chart >= 0) {
        v->focus = LOAD_RATE;
        load_set_rate(p, rate);
        v->chart_drag = (ev->bstate & BUTTON1_PRESSED) ? chart : -1;
        return PLAN_REDRAW;
    }
    return 0;
}

const struct screen screen_load = {.draw = load_draw, .key = load_key, .mouse = load_mouse};
