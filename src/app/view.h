/* view: paints the planner's state on stdscr. Takes const data, only formats:
 * every number comes from the planner's one plan result. */
#ifndef KVPLAN_APP_VIEW_H
#define KVPLAN_APP_VIEW_H

#include "app/layout.h"
#include "app/planner.h"

/* Draws the whole screen as view_settle laid it out into a new frame: the
 * mode's screen (screens.h) over an erased one. term_refresh shows it
 * (only the cells that changed go to the terminal). */
void view_draw(const struct planner *p);

/* Lays out the frame for a cols x rows screen (p->frame): the base screen's
 * geometry (the main screen or the presentation), then the mode's own
 * (screens.h); called once before each frame is drawn, and the pointer's
 * functions below read what it found. */
void view_settle(struct planner *p, int cols, int rows);

/* The main screen's layout for the frame: its panes, and the first control
 * its list shows for the focus (p->control_top), so the list stays put
 * until the focus leaves it. */
void view_settle_main(struct planner *p);

/* Focuses control c where the pointer clicked it: the list does not scroll
 * under the pointer for it. */
void view_pointer_focus(struct planner *p, int c);

/* -1 or +1 when (x, y) is the margin's mark of more controls above or
 * below, else 0. */
int view_scroll_mark_at(const struct planner *p, int x, int y);

/* Scrolls the control list by delta rows (clamped to its ends), moving the
 * focus only as far as it must to stay in view; false when it cannot move. */
bool view_scroll_controls(struct planner *p, int delta);

/* The explain pane's page and last scroll for this frame, its scroll kept
 * in range (view_settle_main calls it); scrolls it by delta rows (clamped
 * to its ends), false when it cannot move. */
void view_settle_explain_pane(struct planner *p);
bool view_scroll_explain(struct planner *p, int delta);

/* What (x, y) is on the explain pane: its title row, the mark of more rows
 * above or below in its margin, another of its cells, or none of it. */
enum { EXPLAIN_HIT_NONE, EXPLAIN_HIT_TITLE, EXPLAIN_HIT_UP, EXPLAIN_HIT_DOWN, EXPLAIN_HIT_BODY };
int view_explain_hit(const struct planner *p, int x, int y);

/* The control under screen cell (x, y), or -1; track_x and track_w give the
 * slider track when there is one. */
int view_control_at(const struct planner *p, int x, int y, int *track_x, int *track_w);

/* The slider track of the focused control (x and width), for a drag in
 * progress; false when the screen is too small to have one. */
bool view_track(const struct planner *p, int *track_x, int *track_w);

/* -1 or +1 when column x is the left or right arrow of list control c, else 0. */
int view_arrow_at(const struct planner *p, int c, int x);

/* The key of the key bar `bar` under (x, y), or 0 (always 0 without a bar). */
int view_keybar_key_at(struct rect bar, int x, int y);

#endif
