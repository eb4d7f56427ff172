/* load: the Load screen's state and runs (load.c), internal to app/. The
 * settings are each scenario's (planner_slot.load: the rate, the lengths,
 * the client's cap, the objectives; rate 0 until the screen first opens on
 * it); the runs are the current scenario's, on its plan as `kvplan
 * simulate` plans it (a generic rule's on vLLM V1).
 *
 * A key runs little: a change of the rate or an objective runs only the
 * current rate (LOAD_QUICK_REQUESTS requests), a change of a length or the
 * cap the sweep too (LOAD_QUICK_SWEEP a point); the full run (LOAD_FULL_REQUESTS a point)
 * waits for the keys to stop (load_idle, from the app's loop when no key
 * comes for a moment, and before a dumped screen is drawn). */
#ifndef KVPLAN_APP_LOAD_H
#define KVPLAN_APP_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/loadrun.h"

enum load_control {
    LOAD_RATE,
    LOAD_LENGTHS, /* the random dataset's (Input, Output) or a length profile */
    LOAD_INPUT,
    LOAD_OUTPUT,
    LOAD_CONCURRENCY,
    LOAD_SLO_TTFT,
    LOAD_SLO_TPOT,
    LOAD_CONTROLS
};

enum { LOAD_UNDO = 64 }; /* changes of the settings the screen can undo */

struct load_view {
    enum load_control focus;
    struct scenario s;           /* what simulate plans: the generic rule's on vLLM V1 */
    struct plan_result r;
    bool planned;                /* s and r are the current scenario's */
    char error[DIAG_MESSAGE_MAX]; /* why it cannot simulate; "" when it can */
    struct load_sweep sweep;
    uint64_t sweep_n;            /* requests a point of the sweep ran; 0: none */
    struct sim_result point;     /* the current rate */
    uint64_t point_n;            /* its requests; 0: none */
    struct workload_fit fit;     /* a profile's requests the run drew from */
    double quick_capacity;       /* the last quick sweep's: r's default rate comes from it */
    bool idle;                   /* a full run waits for the keys to stop */
    /* the settings before each change since the screen opened (z), and those undone (Z) */
    int undo_count, redo_count;
    struct load_settings undo[LOAD_UNDO], redo[LOAD_UNDO];
    bool dragging;       /* a press on a control's value: the drag steps it a column a step */
    int drag_x;          /* the column the drag last stepped at */
    int chart_drag;      /* the chart a press was in (its drag sets the rate); -1: none */
};

struct planner;

/* Opens the screen on the current scenario: plans it, picks its settings
 * (defaults and a rate near half the capacity on its first opening) and
 * runs it quickly. */
void load_open(struct planner *p);

/* Steps control c by delta (a big step with big); to its default. */
void load_step(struct planner *p, enum load_control c, int delta, bool big);
void load_reset(struct planner *p, enum load_control c);

/* Sets the rate to rate at two significant figures (a click on a chart). */
void load_set_rate(struct planner *p, double rate);

/* Undoes or redoes the last change of the settings since the screen
 * opened; false when none. */
bool load_undo(struct planner *p);
bool load_redo(struct planner *p);

/* The full run when one waits; true when it ran (the screen changed). */
bool load_idle(struct planner *p);

/* The command line that runs the current rate: `kvplan simulate` with the
 * plan's options and the settings; "" when it does not fit. */
void load_command_line(const struct planner *p, char *buf, size_t size);

/* The Load section of the Markdown report for the current scenario, when
 * the screen was opened on it: its full run done again, then written. */
void load_markdown(struct planner *p, FILE *out);

/* A control's label and its value as the screen shows it. */
const char *load_label(enum load_control c);
/* A control's value as the screen shows it; a profile's Input and Output
 * are the means of fit (NULL: not known yet). */
void load_value_text(const struct load_settings *ls, const struct workload_fit *fit,
                     enum load_control c, char *buf, size_t size);

#endif
