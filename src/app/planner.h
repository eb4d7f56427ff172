/* planner: the interactive planner's state, its controls and its keys.
 *
 * Key handlers change the state and return flags; they never draw. Every
 * change recomputes the plan once through the capacity core; view.c only
 * paints what is here. */
#ifndef KVPLAN_APP_PLANNER_H
#define KVPLAN_APP_PLANNER_H

#include <stdbool.h>

#include "core/capacity.h"
#include "core/explain.h"
#include "io/catalog.h"

enum control {
    CTRL_GPU,
    CTRL_GPUS,
    CTRL_MODEL,
    CTRL_CONTEXT,
    CTRL_KV_HEADS,
    CTRL_KV_DTYPE,
    CTRL_WEIGHT_DTYPE,
    CTRL_PREFIX,
    CTRL_AVG,
    CTRL_HEADROOM,
    CTRL_ENGINE,
    CTRL_COUNT
};

enum planner_mode { MODE_MAIN, MODE_HELP, MODE_PICKER, MODE_PROMPT, MODE_CONFIRM, MODE_COMPARE };

enum prompt_kind { PROMPT_VALUE, PROMPT_EXPORT, PROMPT_OPEN };

enum { PLANNER_TEXT_MAX = 256, CHART_POINTS = 61 };

/* Users against context, 1k to 1M tokens on a log scale, everything else as
 * in the scenario; computed once per change, drawn as often as needed. */
struct users_curve {
    uint64_t context_tokens[CHART_POINTS];
    uint64_t users[CHART_POINTS];
    uint64_t max_users;
};

struct planner {
    const struct catalog *catalog;
    struct scenario scenario;
    struct plan_result result;
    struct explain explain;        /* the arithmetic of result, formatted once per change */
    char error[DIAG_MESSAGE_MAX];  /* why the last change was refused */
    char status[PLANNER_TEXT_MAX]; /* one-line message (export done, ...) */
    bool has_baseline;
    struct scenario baseline;
    struct plan_result baseline_result;
    int focus;
    enum planner_mode mode;
    /* picker */
    enum control picker_for;
    char filter[64];
    int picker_sel;
    /* prompt and confirmation */
    enum prompt_kind prompt_kind;
    char prompt[PLANNER_TEXT_MAX];
    char pending_path[PLANNER_TEXT_MAX];
    bool dragging;
    bool presentation;
    bool quit;
    struct users_curve curve;
    struct scenario curve_of; /* the scenario the curve was computed for, context aside */
    bool curve_valid;
};

/* Flags returned by input handlers. */
enum { PLAN_REDRAW = 1, PLAN_QUIT = 2 };

/* The users the planner shows: the engine's when an engine is chosen. */
uint64_t planner_users(const struct planner *p);

/* A planner on scenario s (already validated) with the catalogue c. */
void planner_init(struct planner *p, const struct catalog *c, const struct scenario *s);

/* Recomputes the result; keeps the old scenario if the new one is invalid. */
bool planner_apply(struct planner *p, const struct scenario *next);

/* The label, value text and slider fraction (or < 0 for no slider) of a control. */
const char *planner_control_label(enum control c);
void planner_control_value(const struct planner *p, enum control c, char *buf, size_t size);
double planner_control_fraction(const struct planner *p, enum control c);

/* Steps a control by delta (+/-1, or a big step with big), to an end
 * (home/end), to a fraction of its track, or back to the model's own value. */
void planner_step(struct planner *p, enum control c, int delta, bool big);
void planner_to_end(struct planner *p, enum control c, bool last);
void planner_set_fraction(struct planner *p, enum control c, double f);
void planner_reset(struct planner *p, enum control c);

/* Keyboard input (curses key codes). */
int planner_key(struct planner *p, int key);

/* The entries of the open picker that match its filter: indexes into the
 * catalogue's GPUs or models; returns the count. */
int planner_picker_matches(const struct planner *p, int *out, int max);

/* Default export name: kvplan-MODEL-GPU-CONTEXT.json */
void planner_export_name(const struct planner *p, char *buf, size_t size);

#endif
