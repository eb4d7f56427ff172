/* layout: where each pane of the planner goes, as a pure function of the
 * terminal size (no curses), so every size can be tested. */
#ifndef KVPLAN_APP_LAYOUT_H
#define KVPLAN_APP_LAYOUT_H

#include <stdbool.h>

#include "tui/widgets.h"

enum { LAYOUT_MIN_COLS = 64, LAYOUT_MIN_ROWS = 20 };

struct planner_layout {
    bool too_small;
    struct rect header;   /* title and scenario, 2 rows */
    struct rect controls; /* one row per control */
    struct rect summary;  /* the user count, its delta and key figures */
    struct rect bar;      /* memory bar and its legend */
    struct rect explain;  /* the formula with live numbers */
    struct rect keybar;   /* bottom row */
};

/* Computes the panes for a cols x rows screen with n_controls controls;
 * too_small (and zero rects) below LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS. */
struct planner_layout layout_compute(int cols, int rows, int n_controls);

/* True when r lies within cols x rows (a zero-size rect counts as inside). */
bool layout_rect_inside(struct rect r, int cols, int rows);

/* True when a and b share a cell. */
bool layout_rects_overlap(struct rect a, struct rect b);

#endif
