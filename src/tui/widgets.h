/* widgets: slider, stacked bar with legend, key bar and large digits, drawn
 * into given rectangles of the frame (canvas.h), which term_refresh shows.
 * They know nothing of GPUs: values come in as fractions and labels. */
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

/* Writes text within w columns (UTF-8 aware): text cut short ends in an
 * ellipsis ("~" without UTF-8). Returns columns used. */
int widget_text(int y, int x, int w, enum role role, const char *text);

/* w blank cells from (y, x) in the role's attributes. */
void widget_fill(int y, int x, int w, enum role role);

/* text when it fits in w columns, else its first w - 1 columns and a mark
 * (an ellipsis, or "~" without UTF-8) in buf: cut where seen, never silently. */
const char *widget_fit(const char *text, int w, char *buf, size_t size);

/* Large digits (0-9, ',' and '-') from a 3 x 5 font scaled by `scale`:
 * 5 x scale rows high. Returns the width drawn. */
int widget_big_number(int y, int x, const char *digits, int scale, enum role role);

/* The width widget_big_number needs. */
int widget_big_number_width(const char *digits, int scale);

/* A column chart filling r: values[c] in 0..1 is column c's height, drawn
 * with eighth blocks; column `marker` (or -1) is drawn in marker_role with a
 * rule where it is empty. */
void widget_columns(struct rect r, const double *values, int n, int marker, enum role role,
                    enum role marker_role);
/* The same columns drawn with one glyph in every filled cell (a second series
 * that must stay apart from the first without colour: "\u2591" or ":"). */
void widget_columns_fill(struct rect r, const double *values, int n, int marker, enum role role,
                         enum role marker_role, const char *fill);

#endif
