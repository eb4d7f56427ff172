/* The presentation: the count in large digits, the memory bar and the
 * focused control for a shared screen, without a key bar (view_screens.c
 * draws it). It is a base, as the main screen is: the boxes go over it and
 * come back to it. Every key of the main screen works on it; Esc or p
 * leaves it. The pointer: a tab or the help in the title, and the focused
 * control's slider (a click, a drag, the wheel). */
#include <curses.h>

#include "app/screens.h"
#include "app/view.h"
#include "app/view_parts.h"

static void present_layout(struct planner *p)
{
    p->frame.present = layout_presentation(p->frame.cols, p->frame.rows);
}

static void present_draw(const struct planner *p, int cols, int rows)
{
    (void)cols;
    (void)rows;
    view_draw_presentation(p);
}

static int present_key(struct planner *p, int key)
{
    if (key != 27)
        return keys_main(p, key);
    p->status[0] = '\0';
    p->base = p->mode = MODE_MAIN;
    return PLAN_REDRAW;
}

/* The focused control to the fraction of its track at column x. */
static void present_slide(struct planner *p, int x)
{
    struct rect t = p->frame.present.track;
    planner_set_fraction(p, p->focus, widget_slider_fraction_at(t.x, t.w, x));
}

static int present_mouse(struct planner *p, const MEVENT *ev)
{
    const struct presentation_layout *l = &p->frame.present;
    bool click = (ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) != 0;
    if (click && ev->y == 0)
        return screen_title_click(p, ev);
    bool on_slider = !l->too_small && ev->y == l->slider.y;
    if (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) { /* the wheel steps it */
        if (on_slider)
            planner_step(p, p->focus, ev->bstate & BUTTON4_PRESSED ? +1 : -1, false);
        return PLAN_REDRAW;
    }
    if (click) {
        if (!on_slider)
            return 0; /* no key bar here: the last row is the formula's */
        view_pointer_focus(p, p->focus);
        if (ev->x >= l->track.x && ev->x < l->track.x + l->track.w &&
            planner_control_fraction(p, p->focus) >= 0) {
            present_slide(p, ev->x);
            p->dragging = (ev->bstate & BUTTON1_PRESSED) != 0;
        }
        return PLAN_REDRAW;
    }
    if ((ev->bstate & (REPORT_MOUSE_POSITION | BUTTON1_RELEASED)) && p->dragging) {
        if (!l->too_small)
            present_slide(p, ev->x);
        if (ev->bstate & BUTTON1_RELEASED)
            p->dragging = false;
        return PLAN_REDRAW;
    }
    return 0;
}

const struct screen screen_present = {.layout = present_layout,
                                      .draw = present_draw,
                                      .key = present_key,
                                      .mouse = present_mouse};
