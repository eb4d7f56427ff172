/* screens: each mode of the planner is one module (screen_*.c) with its
 * layout, draw and key functions, found through one table indexed by the
 * mode. A screen's layout puts its geometry (from layout.c) in p->frame once
 * a frame, before the draw; its draw paints from it over an erased screen
 * cols x rows; its key function changes the state and returns PLAN_* flags,
 * and never draws; so does its mouse function, which finds what a click hit
 * in the same p->frame. Internal to app/. */
#ifndef KVPLAN_APP_SCREENS_H
#define KVPLAN_APP_SCREENS_H

#include <curses.h>
#include <stdbool.h>

#include "app/layout.h"
#include "app/planner.h"

struct screen {
    /* NULL: nothing of its own (it draws over the base, or from cols x rows
     * alone); a base's (the main screen's, the presentation's) never is */
    void (*layout)(struct planner *p);
    void (*draw)(const struct planner *p, int cols, int rows);
    int (*key)(struct planner *p, int key);
    int (*mouse)(struct planner *p, const MEVENT *ev); /* NULL: the pointer does nothing */
};

/* The screen of a mode. */
const struct screen *screen_of(enum planner_mode mode);

extern const struct screen screen_main, screen_present, screen_help, screen_picker, screen_prompt,
    screen_confirm, screen_compare, screen_warnings, screen_versus, screen_copied, screen_options,
    screen_explain, screen_load;

/* The base the boxes go over (the main screen or the presentation); false
 * when the screen is too small for it (it says so, and no box goes over it). */
bool view_draw_base(const struct planner *p);

/* Leaves a box for the base: q or Q quits (asking first when the session
 * is unsaved), any other key only closes it. */
int screen_close(struct planner *p, int key);

/* Leaves a box that says any key closes it (the help, the warnings): q too
 * only closes it. */
int screen_close_any(struct planner *p);

/* A click on the title row of the main screen or the presentation: a
 * scenario's tab, or "? help" at its end. */
int screen_title_click(struct planner *p, const MEVENT *ev);

/* The main screen's keys (keys.c): one key, and the keys other screens offer too. */
int keys_main(struct planner *p, int key);
int keys_quit(struct planner *p);
int keys_export(struct planner *p);
int keys_markdown(struct planner *p);
int keys_svg(struct planner *p); /* g: the SVG picture (of the versus view from it) */
int keys_present(struct planner *p); /* into the presentation, or out of it */

/* What the prompt and the question go over: the versus view when the
 * Markdown export came from there, else the main screen; false when
 * nothing may go over it (a screen too small for it). */
bool screen_prompt_backdrop(const struct planner *p, int cols, int rows);

#endif
