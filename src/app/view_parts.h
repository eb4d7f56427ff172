/* view_parts: the pieces the planner's screens share (internal to app/):
 * rows, boxes, the key bar, the memory bar, explain rows, the title. */
#ifndef KVPLAN_APP_VIEW_PARTS_H
#define KVPLAN_APP_VIEW_PARTS_H

#include "app/layout.h"
#include "app/planner.h"
#include "tui/roles.h"
#include "tui/widgets.h"

enum { LABEL_W = LAYOUT_LABEL_W, VALUE_W = LAYOUT_VALUE_W, EXPLAIN_LABEL_W = 19 };

void view_fill_row(int y, int x, int w, enum role role);
void view_box(int y, int x, int h, int w, const char *title);
void view_keybar(struct rect r);
void view_title(const struct planner *p, struct rect r);

/* The memory of one GPU as bar segments; true when the weights overflow it. */
bool view_bar_segments(const struct planner *p, struct bar_segment bs[SEG_COUNT]);
extern const enum role view_segment_roles[SEG_COUNT];

/* An explain row: label, then the formula wrapped to the pane, then
 * "= value scope"; at most max_rows rows (one row: the formula shortened,
 * never the value). Returns the rows used. */
int view_explain_row(const struct explain_row *row, int y, int x, int w, int max_rows,
                     enum role role);

/* The role of the big count: bad when it does not fit, a warning at 0. */
enum role view_users_role(const struct plan_result *r);

/* "A 29 -> 3 users (-90%)": the reference's count against this one's */
void view_baseline_text(const struct planner *p, char *buf, size_t size);

/* The scenarios' tabs from (x, y) within w columns; returns the width drawn,
 * or with hit_x, the tab under that column (-1 none) without drawing. */
int view_tabs(const struct planner *p, int y, int x, int w, int *hit_x);

/* The width the title keeps for the tabs and "? help" at its right. */
int view_title_tail(const struct planner *p, int w);

/* The cols x rows screen is below min_cols x min_rows: says so, in what
 * fits, and nothing else. */
void view_draw_too_small(int cols, int rows, int min_cols, int min_rows);

/* Screens drawn instead of the main one, or behind a prompt: the
 * presentation (false when the screen is too small for it: it says so)
 * and the versus view. */
bool view_draw_presentation(const struct planner *p);
void view_draw_versus(const struct planner *p, int cols, int rows);

/* The main screen's summary pane: the count and the figures behind it. */
void view_draw_summary(const struct planner *p, const struct planner_layout *l);

/* Users against context: the curve, its axis and the current point (and
 * the speed limit's series when a target is set). */
void view_draw_chart(const struct planner *p, struct rect r);

#endif
