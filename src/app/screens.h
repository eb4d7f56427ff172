/* screens: each mode of the planner is one module (screen_*.c) with its
 * draw and key functions, found through one table indexed by the mode.
 * A screen's draw paints over an erased screen cols x rows (its boxes'
 * geometry comes from layout.c); its key function changes the state and
 * returns PLAN_* flags, and never draws; so does its mouse function. Internal
 * to app/. */
#ifndef KVPLAN_APP_SCREENS_H
#define KVPLAN_APP_SCREENS_H

#include <curses.h>
#include <stdbool.h>

#include "app/layout.h"
#include "app/planner.h"

struct screen {
    void (*draw)(const struct planner *p, int cols, int rows);
    int (*key)(struct planner *p, int key);
    int (*mouse)(struct planner *p, const MEVENT *ev); /* NULL: the pointer does nothing */
};

/* The screen of a mode. */
const struct screen *screen_of(enum planner_mode mode);

extern const struct screen screen_main, screen_help, screen_picker, screen_prompt, screen_confirm,
    screen_compare, screen_warnings, screen_versus, screen_copied, screen_options;

/* The main screen, or the presentation, that the boxes go over; false when
 * the screen is too small for it (it says so, and no box goes over it). */
bool view_draw_base(const struct planner *p);

/* Leaves a box for the main screen: q or Q quits (asking first when the
 * session is unsaved), any other key only closes it. */
int screen_close(struct planner *p, int key);

/* The main screen's keys (keys.c): one key, and the keys other screens offer too. */
int keys_main(struct planner *p, int key);
int keys_quit(struct planner *p);
int keys_export(struct planner *p);
int keys_markdown(struct planner *p);
int keys_present(struct planner *p);

/* What the prompt and the question go over: the versus view when the
 * Markdown export came from there, else the main screen; false when
 * nothing may go over it (a screen too small for it). */
bool screen_prompt_backdrop(const struct planner *p, int cols, int rows);

#endif
