/* layout: where each pane of the planner goes, as a pure function of the
 * terminal size (no curses), so every size can be tested. */
#ifndef KVPLAN_APP_LAYOUT_H
#define KVPLAN_APP_LAYOUT_H

#include <stdbool.h>

#include "tui/widgets.h"

enum { LAYOUT_MIN_COLS = 70, LAYOUT_MIN_ROWS = 22, LAYOUT_EXPLAIN_MIN = 4 };
enum { LAYOUT_PRESENT_MIN_COLS = 40, LAYOUT_PRESENT_MIN_ROWS = 12 };
/* A control's row: its label, a blank, the slider's track, a blank, its value. */
enum { LAYOUT_LABEL_W = 11, LAYOUT_VALUE_W = 13 };

struct planner_layout {
    bool too_small;
    struct rect title;    /* row 0: what is planned */
    struct rect info;     /* row 1: the model's and GPU's key figures */
    struct rect controls; /* one control every control_pitch rows */
    int control_pitch;    /* 1, or 2 on tall screens */
    int control_rows;     /* controls shown at once; past it the list scrolls */
    int track_x, track_w; /* a slider's track on each control row */
    struct rect summary;  /* the user count, its change, key figures */
    bool big_digits;      /* room for the 5-row digits */
    struct rect bar;      /* title, memory bar, legend */
    struct rect chart;    /* users against context; h = 0 when no room */
    struct rect explain;  /* title row, then the arithmetic */
    struct rect status;   /* messages and warnings */
    struct rect keybar;   /* last row */
};

struct presentation_layout {
    bool too_small;
    struct rect title;
    struct rect number;  /* large digits, centred */
    int scale;           /* digit scale: 1 (5 rows) or 2 (10 rows) */
    struct rect caption; /* "users at 32k tokens on ..." */
    struct rect speed;   /* speed per user, throughput, first token, cost */
    struct rect bar;     /* full-width bar and a one-line legend */
    struct rect slider;  /* the focused control, full width */
    struct rect track;   /* its slider's track on that row */
    struct rect explain; /* the users formula */
    struct rect keybar;
};

/* The full-screen explain view: the title row, the lines of rows, the
 * scroll bar beside them (the last column) and the key row. */
enum { LAYOUT_EXPLAIN_VIEW_MIN_COLS = 40, LAYOUT_EXPLAIN_VIEW_MIN_ROWS = 8 };
struct explain_view_layout {
    bool too_small;
    struct rect title, body, scrollbar, keybar;
};

/* One frame's geometry: the screen's size and where the screen's panes and
 * its box go, computed once a frame before it is drawn (view_settle); the
 * draw and the pointer both read it, so a click finds what was drawn. */
struct frame_layout {
    int cols, rows;
    /* the base's panes: the main screen's or the presentation's; the other
     * is too_small, with nothing to draw or to click */
    struct planner_layout main;
    struct presentation_layout present;
    struct explain_view_layout xview; /* the full-screen explain view's, when it is open */
    struct rect box; /* the open box's (the picker's); zero when none */
};

/* Computes the panes for a cols x rows screen with n_controls controls;
 * too_small (and zero rects) below LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS. */
struct planner_layout layout_compute(int cols, int rows, int n_controls);

/* Below 30 rows, a status row with nothing to say goes to the explain pane
 * (no blank row above the key bar); a message or warning takes it back. */
void layout_take_status(struct planner_layout *l, int rows);

/* The first control shown when n controls share `shown` rows, the one at
 * index `focus` has the focus and `top` was shown first in the last frame:
 * the list moves only as far as it must to keep the focus in view (with
 * `context`, a row beside it when three rows or more are shown, for a focus
 * the keys moved; without, for one the pointer put where it is) and never
 * scrolls past its ends (0 when every control fits). */
int layout_control_top(int n, int shown, int focus, int top, bool context);

/* The focus kept in view when the list is scrolled to `top` by hand (the
 * margin's marks or the wheel over them): the nearest control that
 * layout_control_top(n, shown, result, top, true) leaves at `top`. */
int layout_control_focus(int n, int shown, int top, int focus);

/* A list of `total` rows that shows `shown` at once: its last first row
 * (0 when every row fits), and `top` kept between 0 and that. */
int layout_scroll_max(int total, int shown);
int layout_scroll_clamp(int top, int total, int shown);

/* The thumb of a scroll bar `h` rows tall beside that list, from row `top`:
 * its first row in the bar and its length (at least one row; the whole bar
 * when every row fits); and the first row a click on row y of the bar
 * scrolls to (the thumb's ends reach the bar's ends). */
struct layout_thumb {
    int y, h;
};
struct layout_thumb layout_scroll_thumb(int h, int total, int shown, int top);
int layout_scroll_at(int h, int total, int shown, int y);

/* The full-screen explain view's panes; too_small below
 * LAYOUT_EXPLAIN_VIEW_MIN_COLS x LAYOUT_EXPLAIN_VIEW_MIN_ROWS. */
struct explain_view_layout layout_explain_view(int cols, int rows);

/* The presentation mode's panes; too_small below LAYOUT_PRESENT_MIN_COLS x
 * LAYOUT_PRESENT_MIN_ROWS. */
struct presentation_layout layout_presentation(int cols, int rows);

/* True when r lies within cols x rows (a zero-size rect counts as inside). */
bool layout_rect_inside(struct rect r, int cols, int rows);

/* True when a and b share a cell. */
bool layout_rects_overlap(struct rect a, struct rect b);

/* The boxes drawn over the main screen, each as a pure function of the
 * screen size, used to draw them and to find what a click hit. */
enum { LAYOUT_PICKER_MIN_COLS = 40, LAYOUT_PICKER_MIN_ROWS = 8 };
enum { LAYOUT_COMPARE_MIN_COLS = 50, LAYOUT_COMPARE_MIN_ROWS = 12 };
enum { LAYOUT_VERSUS_MIN_COLS = 60, LAYOUT_VERSUS_MIN_ROWS = 16 };

/* A box want_w x want_h (at most the width between margins of `margin`
 * columns and the screen's height), centred. */
struct rect layout_box(int cols, int rows, int want_w, int want_h, int margin);

/* The picker's box (a zero rect below LAYOUT_PICKER_MIN_*), the rows of
 * entries it shows, the first entry shown with entry sel selected, and the
 * entry row under (x, y) (-1 none). */
struct rect layout_picker(int cols, int rows);
int layout_picker_rows(struct rect box);
int layout_picker_top(struct rect box, int sel);
int layout_picker_row_at(struct rect box, int x, int y);

/* The warnings' box for `lines` rows of text, the copied text's box
 * `height` rows tall, and the what-would-it-take box for `options` changes. */
struct rect layout_warnings(int cols, int rows, int lines);
struct rect layout_copied(int cols, int rows, int height);
struct rect layout_options(int cols, int rows, int options);

/* The help: the width it wants, its rows of keys and its closing notes. */
struct rect layout_help(int cols, int rows, int want_w, int key_rows, int tails);

/* The compare box (a zero rect below LAYOUT_COMPARE_MIN_*) and the
 * one-line prompt (the last row). */
struct rect layout_compare(int cols, int rows);
struct rect layout_prompt(int cols, int rows);

/* True when the versus view fits cols x rows. */
bool layout_versus_fits(int cols, int rows);

#endif
