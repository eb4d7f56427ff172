/* widgets: slider, stacked bar with legend, key bar and large digits, drawn
 * on stdscr into given rectangles. They know nothing of GPUs: values come in
 * as fractions and labels. */
#ifndef KVPLAN_TUI_WIDGETS_H
#define KVPLAN_TUI_WIDGETS_H

#include <stdbool.h>

#include "roles.h"

struct rect {
    int x, y, w, h;
};

/* A slider track of width w at (y, x): the knob at `fraction` (0..1). */
void widget_slider(int y, int x, int w, double fraction, bool focused);

/* The knob fraction for a click at column cx within a track at x, width w. */
double widget_slider_fraction_at(int x, int w, int cx);

struct bar_segment {
    double fraction; /* of the bar's width */
    enum role role;
};

/* A stacked bar; segments are drawn left to right with their role glyph,
 * whole cells rounded so the sum never exceeds w. `over` paints the last
 * cell with ROLE_OVER to show an overflow. */
void widget_bar(int y, int x, int w, const struct bar_segment *seg, int n, bool over);

/* Writes text clipped to w columns (UTF-8 aware). Returns columns used. */
int widget_text(int y, int x, int w, enum role role, const char *text);

/* Big seven-segment style digits (3 rows high); returns width used. */
int widget_big_number(int y, int x, int w, const char *digits, enum role role);

/* Width a big_number needs for `digits`. */
int widget_big_number_width(const char *digits);

#endif
