#include "layout.h"

#include <string.h>

struct planner_layout layout_compute(int cols, int rows, int n_controls)
{
    struct planner_layout l;
    memset(&l, 0, sizeof l);
    if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
        l.too_small = true;
        return l;
    }
    l.header = (struct rect){0, 0, cols, 2};
    l.keybar = (struct rect){0, rows - 1, cols, 1};
    /* Explain pane: a third of what is left on tall screens, 4 rows at least. */
    int body_top = 3;
    int explain_h = rows >= 40 ? (rows - body_top - 1) / 3 : 4;
    int body_h = rows - body_top - 1 - explain_h - 1;
    if (body_h < n_controls) {
        explain_h -= n_controls - body_h;
        body_h = n_controls;
    }
    int left_w = cols >= 120 ? 56 : cols * 11 / 20;
    l.controls = (struct rect){1, body_top, left_w - 2, body_h};
    int right_x = left_w + 1;
    int right_w = cols - right_x - 1;
    int summary_h = body_h >= 14 ? 7 : 5;
    if (summary_h > body_h)
        summary_h = body_h;
    l.summary = (struct rect){right_x, body_top, right_w, summary_h};
    l.bar = (struct rect){right_x, body_top + summary_h, right_w, body_h - summary_h};
    l.explain = (struct rect){1, body_top + body_h + 1, cols - 2, explain_h};
    return l;
}

bool layout_rect_inside(struct rect r, int cols, int rows)
{
    if (r.w == 0 || r.h == 0)
        return true;
    return r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x + r.w <= cols && r.y + r.h <= rows;
}

bool layout_rects_overlap(struct rect a, struct rect b)
{
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
        return false;
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
