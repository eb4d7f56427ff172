/* The main screen: its panes (view.c), its keys (keys.c) and what the
 * pointer does on it: a tab or the help in the title, the margin's marks,
 * the explain pane, a control, a slider's knob dragged, a key of the key bar. */
#include <curses.h>

#include "app/screens.h"
#include "app/view.h"
#include "app/view_parts.h"
#include "tui/widgets.h"

static void main_draw(const struct planner *p, int cols, int rows)
{
    (void)cols;
    (void)rows;
    view_draw_base(p);
}

int screen_title_click(struct planner *p, const MEVENT *ev)
{
    int cols = p->frame.cols; /* the title spans the screen, as view_title draws it */
    if (ev->x >= cols - 7)
        return planner_key(p, '?');
    int tail = view_title_tail(p, cols), hit = ev->x;
    int tab = p->count > 1 ? view_tabs(p, 0, cols - tail, tail - 8, &hit) : -1;
    if (tab >= 0) {
        planner_switch(p, tab);
        return PLAN_REDRAW;
    }
    return 0;
}

/* A click, or the wheel, on the controls, their margin or the key bar. */
static int controls_mouse(struct planner *p, const MEVENT *ev)
{
    int mark = view_scroll_mark_at(p, ev->x, ev->y);
    if (mark) {
        /* the margin's marks scroll the list: a click by one row towards the
         * mark, the wheel up or down by one row wherever it points */
        int delta = ev->bstate & BUTTON4_PRESSED ? -1 : ev->bstate & BUTTON5_PRESSED ? +1 : mark;
        view_scroll_controls(p, delta);
        return PLAN_REDRAW;
    }
    int tx = 0, tw = 0;
    int c = view_control_at(p, ev->x, ev->y, &tx, &tw);
    if (ev->bstate & BUTTON4_PRESSED) {
        if (c >= 0)
            planner_step(p, (enum control)c, +1, false);
        return PLAN_REDRAW;
    }
    if (ev->bstate & BUTTON5_PRESSED) {
        if (c >= 0)
            planner_step(p, (enum control)c, -1, false);
        return PLAN_REDRAW;
    }
    /* a click */
    int key = view_keybar_key_at(p->frame.main.keybar, ev->x, ev->y);
    if (key)
        return planner_key(p, key);
    if (c < 0)
        return 0;
    view_pointer_focus(p, c);
    int side = view_arrow_at(p, c, ev->x);
    if (side != 0) { /* the arrows beside a list step it */
        planner_step(p, (enum control)c, side, false);
        return PLAN_REDRAW;
    }
    if (ev->x >= tx && ev->x < tx + tw && planner_control_fraction(p, (enum control)c) >= 0) {
        planner_set_fraction(p, (enum control)c, widget_slider_fraction_at(tx, tw, ev->x));
        p->dragging = (ev->bstate & BUTTON1_PRESSED) != 0;
    }
    return PLAN_REDRAW;
}

/* The wheel over the explain pane scrolls it, and so does a click on the
 * marks in its margin; a click on its title opens every row full screen. */
static int explain_mouse(struct planner *p, const MEVENT *ev, int hit)
{
    if (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        view_scroll_explain(p, ev->bstate & BUTTON4_PRESSED ? -1 : +1);
        return PLAN_REDRAW;
    }
    if (hit == EXPLAIN_HIT_TITLE)
        return planner_key(p, 'x');
    if (hit == EXPLAIN_HIT_UP || hit == EXPLAIN_HIT_DOWN) {
        view_scroll_explain(p, hit == EXPLAIN_HIT_UP ? -1 : +1);
        return PLAN_REDRAW;
    }
    return 0;
}

/* The context under the pointer set to the Context slider's nearest step
 * (its undo, its status), held to the model's longest context: the chart
 * past it shows what a plan would say, not a context the model takes. */
static void chart_set(struct planner *p, uint64_t ctx)
{
    uint64_t max = planner_scenario(p)->model.max_context_tokens;
    planner_set_nearest(p, CTRL_CONTEXT, ctx < max ? ctx : max);
    if (ctx > max && !p->status[0]) {
        char m[32];
        snprintf(p->status, sizeof p->status,
                 "Context held at %s, the model's longest: the chart past it is faint",
                 units_format_tokens_short(max, m, sizeof m));
    }
}

/* A click or a drag in the chart's plot sets the context under the pointer. */
static int chart_mouse(struct planner *p, const MEVENT *ev, uint64_t ctx)
{
    view_pointer_focus(p, CTRL_CONTEXT);
    chart_set(p, ctx);
    p->chart_dragging = (ev->bstate & BUTTON1_PRESSED) != 0;
    return PLAN_REDRAW;
}

static int main_mouse(struct planner *p, const MEVENT *ev)
{
    if ((ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) && ev->y == 0)
        return screen_title_click(p, ev);
    uint64_t ctx = view_chart_context_at(p, ev->x, ev->y, false);
    if ((ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) && ctx)
        return chart_mouse(p, ev, ctx);
    if ((ev->bstate & (REPORT_MOUSE_POSITION | BUTTON1_RELEASED)) && p->chart_dragging) {
        ctx = view_chart_context_at(p, ev->x, ev->y, true);
        if (ctx)
            chart_set(p, ctx);
        if (ev->bstate & BUTTON1_RELEASED)
            p->chart_dragging = false;
        return PLAN_REDRAW;
    }
    if (ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        int hit = view_explain_hit(p, ev->x, ev->y);
        return hit ? explain_mouse(p, ev, hit) : controls_mouse(p, ev);
    }
    if (((ev->bstate & REPORT_MOUSE_POSITION) || (ev->bstate & BUTTON1_RELEASED)) && p->dragging) {
        /* Motion carries no button bit: the drag is ours to remember. */
        int x0, w;
        if (view_track(p, &x0, &w))
            planner_set_fraction(p, (enum control)p->focus, widget_slider_fraction_at(x0, w, ev->x));
        if (ev->bstate & BUTTON1_RELEASED)
            p->dragging = false;
        return PLAN_REDRAW;
    }
    return 0;
}

const struct screen screen_main = {
    .layout = view_settle_main, .draw = main_draw, .key = keys_main, .mouse = main_mouse};
