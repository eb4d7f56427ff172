/* planner: the interactive planner's state and what changes it.
 *
 * Every change recomputes the plan once through core (plan_compute); the
 * result, with the explain rows of the live scenario, is what every view
 * paints. Key handlers
 * change the state and return flags; they never draw. */
#ifndef KVPLAN_APP_PLANNER_H
#define KVPLAN_APP_PLANNER_H

#include <stdbool.h>

#include "app/controls.h"
#include "app/load.h"
#include "app/layout.h"
#include "core/curve.h"
#include "core/plan.h"
#include "core/solve.h"
#include "io/catalog.h"
#include "io/recent.h"
#include "io/report.h"
#include "io/snapshot.h"

/* What the planner shows and where keys go: each mode is a screen of
 * screens.c, in its own file. The main screen and the presentation are
 * bases: the boxes go over the one in use (planner.base), and closing them
 * goes back to it. */
enum planner_mode {
    MODE_MAIN,
    MODE_PRESENT,  /* the count in large digits for a shared screen */
    MODE_HELP,
    MODE_PICKER,
    MODE_PROMPT,
    MODE_CONFIRM,
    MODE_COMPARE,
    MODE_WARNINGS,
    MODE_VERSUS,   /* two to four scenarios side by side */
    MODE_COPIED,   /* what was copied to the clipboard, to select by hand */
    MODE_OPTIONS,  /* what would it take: single changes that reach a target */
    MODE_EXPLAIN,  /* every explain row with its formula, full screen */
    MODE_LOAD      /* a stream of requests: latency against the request rate */
};

enum prompt_kind {
    PROMPT_VALUE,
    PROMPT_EXPORT,
    PROMPT_EXPORT_MD,
    PROMPT_EXPORT_SVG,
    PROMPT_OPEN,   /* also MODE_CONFIRM: replace a session not exported */
    PROMPT_LABEL,
    PROMPT_NOTE,
    PROMPT_TARGET,
    PROMPT_REMOVE, /* MODE_CONFIRM only: remove the current scenario */
    PROMPT_QUIT    /* MODE_CONFIRM only: quit without exporting the session */
};

enum {
    PLANNER_TEXT_MAX = 256,
    PLANNER_SLOTS = SNAPSHOT_SESSION_MAX, /* named scenarios in one session */
    PLANNER_UNDO = 24,                     /* changes each scenario can undo */
    PLANNER_OPTIONS = SOLVE_CHANGES_MAX, /* what would it take: a digit each */
    PLANNER_PATH_MAX = 1024, /* a file a scenario came from: a longer path is not kept */
    /* what y or Y copies, whole: the longest command or launch line */
    PLANNER_COPY_MAX = ((int)ENGINE_LAUNCH_MAX > (int)REPORT_COMMAND_MAX ? (int)ENGINE_LAUNCH_MAX
                                                                    : (int)REPORT_COMMAND_MAX) +
                       2 * PLANNER_PATH_MAX /* a --load FILE, --presets DIR */ +
                       48 * 1024 /* Y over several nodes or servers: every one's command */
};

/* The file a scenario was read from or last exported to, for the command y
 * copies (--load PATH, and --scenario LABEL in a file of several). */
struct planner_origin {
    char path[PLANNER_PATH_MAX];    /* "": none */
    char label[SNAPSHOT_LABEL_MAX]; /* its label in that file; "": the file's current one */
};

/* One named scenario of the session, with its plan and its curve: the
 * current one (planner.current) is the one being edited, and this is its
 * only home (planner_scenario, planner_result). */
struct planner_slot {
    char label[SNAPSHOT_LABEL_MAX];
    char note[SNAPSHOT_NOTE_MAX];
    struct planner_origin origin;
    struct load_settings load; /* the Load screen's; rate 0: never opened, not saved */
    struct scenario scenario;
    enum dtype kv_chosen; /* the cache precision last chosen: an engine step that cannot
                           * take it keeps it here, and the next engine that can gets it */
    struct engine_flags knobs_chosen; /* the engine knobs last chosen, kept the same way */
    uint64_t prefix_chosen; /* the prefix last asked: a context that reaches it holds it
                             * to the context less one token, one that grows brings it back */
    uint64_t saved_print; /* its planner_slot_print when last opened or exported */
    struct plan_result result;
    struct users_curve curve;
    int undo_count, redo_count;
    struct scenario undo[PLANNER_UNDO];
    struct scenario redo[PLANNER_UNDO];
};

/* A single change that reaches a target number of users. */
struct planner_option {
    char text[PLANNER_TEXT_MAX];
    struct scenario scenario;
    uint64_t users;
};

struct planner {
    const struct catalog *catalog;
    const char *const *preset_dirs; /* the --presets directories the catalogue read, the caller's */
    int preset_dir_count;
    struct explain explain;        /* the current scenario's explain rows (the others keep
                                    * none); their text is written as the pane shows them, or
                                    * explain_text */
    char error[DIAG_MESSAGE_MAX];  /* why the last change was refused */
    char status[PLANNER_TEXT_MAX]; /* one-line message (export done, ...) */
    int count, current, reference; /* the session's scenarios; reference -1: none */
    struct planner_slot slots[PLANNER_SLOTS];
    /* The session o replaced (z brings it back whole) or, once z has, the
     * one o opened (Z opens it again, until a change): planner_init drops it
     * (valid) but leaves its contents, so o can keep them across it. */
    struct planner_held {
        bool valid, before; /* before: the one o replaced */
        int count, current, reference;
        uint64_t saved_print;
        char file[PLANNER_PATH_MAX]; /* the file o opened */
        struct planner_slot slots[PLANNER_SLOTS];
    } held;
    char copied[PLANNER_COPY_MAX];     /* what the last copy sent (OSC 52) */
    char copied_note[PLANNER_TEXT_MAX]; /* why it does not plan this scenario; "" when it does */
    bool copy_pending;                 /* the app sends it with the next frame */
    uint64_t target_users;
    int option_count;
    struct planner_option options[PLANNER_OPTIONS];
    int compare_scroll;
    enum control focus;
    enum planner_mode mode;
    enum planner_mode base; /* MODE_MAIN or MODE_PRESENT: what the boxes and versus go over */
    struct {
        enum control of; /* the control it picks for: the GPU or the model */
        char filter[64];
        int sel;
        bool by_users; /* sorted by the users each entry gives, most first */
    } picker;
    /* prompt and confirmation */
    struct {
        enum prompt_kind kind;
        char text[PLANNER_TEXT_MAX];
        bool fresh;       /* it still holds its initial value: typing replaces it */
        bool from_versus; /* the Markdown prompt came from the versus view */
        bool cut;         /* a character was refused at the line's limit */
        int recent_at;    /* the open prompt: the recent file shown, -1 the text typed */
        char typed[PLANNER_TEXT_MAX]; /* what was typed before Up went to the recent files */
        struct recent_files recent;   /* io/recent.h, read as the open prompt opens */
    } prompt;
    struct {
        enum prompt_kind kind; /* what the question is about */
        char path[PLANNER_TEXT_MAX]; /* the file an export would overwrite */
    } pending;
    bool dragging;
    bool chart_dragging; /* a press in the chart: the drag sets the context */
    bool quit;
    struct frame_layout frame; /* where the last frame put everything (view_settle) */
    int control_top;           /* the first control the list showed last (view_settle keeps it) */
    enum control control_focus; /* the focus it was shown for */
    uint64_t saved_print;       /* planner_session_print when last opened or exported */
    struct {
        int scroll;    /* the first row of keys shown */
        int page, max; /* its rows of keys and last scroll (view_settle sets them) */
    } help;
    struct {
        int scroll;    /* the first of its rows the main screen's explain pane shows */
        int page, max; /* the rows it shows at once and its last scroll (view_settle) */
        int count, items[EXPLAIN_ROWS_MAX + 1]; /* its rows in order, for the frame */
    } pane;
    struct {
        int scroll;    /* the first line the full-screen explain view shows */
        int page, max; /* its lines on screen and its last scroll (view_settle) */
    } xview;
    struct load_view load; /* the Load screen's runs of the current scenario */
};

/* Flags returned by input handlers. */
enum { PLAN_REDRAW = 1, PLAN_QUIT = 2 };

/* A logged KV cache size (a memory calibration's) in s, changed from
 * before, moved from the log's own size by what s's memory fraction and
 * weights change in the engine's budget, as plan --calibration moves it
 * (planner_calibration.c); nothing when s holds no such cache. */
void planner_calibration_follow(struct planner *p, const struct scenario *before,
                                struct scenario *s);

/* A planner on scenario s (already validated) with the catalogue c. */
void planner_init(struct planner *p, const struct catalog *c, const struct scenario *s);

/* The current scenario's prefix was held below `asked` (a prefix that
 * reaches the context, held to it less one token): the Prefix control keeps
 * asking for `asked` and the status line says so; nothing when not held. */
void planner_prefix_held(struct planner *p, uint64_t asked);

/* A planner on a whole session (labels, notes, the current and the reference). */
void planner_init_session(struct planner *p, const struct catalog *c,
                          const struct snapshot_session *ss);

/* The session as it stands, for export. */
void planner_session(const struct planner *p, struct snapshot_session *ss,
                     const struct plan_result **results);

/* The scenario being edited, its plan (the one answer every view paints)
 * and its curve: the current slot's. */
static inline const struct scenario *planner_scenario(const struct planner *p)
{
    return &p->slots[p->current].scenario;
}
static inline const struct plan_result *planner_result(const struct planner *p)
{
    return &p->slots[p->current].result;
}
static inline const struct users_curve *planner_curve(const struct planner *p)
{
    return &p->slots[p->current].curve;
}

/* Scenario i's plan and curve. */
const struct plan_result *planner_result_of(const struct planner *p, int i);
/* The explain rows of every scenario: explains[i] is the current one's, or
 * scenario i's computed again into scratch[i] (p->count of them). */
void planner_explains(const struct planner *p, const struct explain **explains,
                      struct explain *scratch);
const struct users_curve *planner_curve_of(const struct planner *p, int i);

/* The reference scenario's plan when it is not the current one, else NULL. */
const struct plan_result *planner_reference(const struct planner *p);

/* Switches to scenario i; adds a copy of the current (returns false when the
 * session is full); removes the current (never the last). */
void planner_switch(struct planner *p, int i);
bool planner_duplicate(struct planner *p);
void planner_remove(struct planner *p);

/* Undoes or redoes the last change of the current scenario; false when none. */
bool planner_undo(struct planner *p);
bool planner_redo(struct planner *p);

/* o keeps the session it replaces (hold, before the file's replaces it;
 * opened, after); z with nothing to undo brings it back, Z opens the
 * file's again; false when there is none to bring. A change after z drops
 * the file's (drop_reopen). */
void planner_hold_session(struct planner *p);
void planner_held_opened(struct planner *p, const char *path);
bool planner_undo_open(struct planner *p);
bool planner_redo_open(struct planner *p);
void planner_drop_reopen(struct planner *p);

/* The current scenario's explain rows computed again (its plan kept). */
void planner_refresh_rows(struct planner *p);

/* The scenarios a versus view shows (the reference first, up to four). */
int planner_versus(const struct planner *p, int *out);

/* A fingerprint of the session (labels, notes, every scenario); the
 * session is unsaved when it holds more than one scenario or a note and its
 * fingerprint differs from the one taken when it was opened or exported. */
uint64_t planner_session_print(const struct planner *p);
bool planner_unsaved(const struct planner *p);
/* The session as it stands is the one on file: its print and each scenario's. */
void planner_mark_saved(struct planner *p);
/* The scenarios changed or added since the session was opened or exported
 * (0 when only a removal or an order changed). */
int planner_unsaved_count(const struct planner *p);

/* Scenario i came from the file at path (label: its label there, "" for
 * the file's current scenario); a path too long to keep leaves none. */
void planner_set_origin(struct planner *p, int i, const char *path, const char *label);

/* Every scenario of the session is now the one of that name in the file at
 * path (the file was just opened or exported). */
void planner_set_file(struct planner *p, const char *path);

/* The command line that plans the current scenario again: report_command_line's,
 * with --load FILE (and --scenario LABEL) in place of a --gpu or --model whose
 * spec is not the catalogue's but is still that of the file it came from,
 * and each --presets DIR; whole, or "" when size is too small. */
size_t planner_command_line(const struct planner *p, char *buf, size_t size);
/* The same for scenario s in place of the current one (its --load and
 * --presets the current scenario's). */
size_t planner_command_line_of(const struct planner *p, const struct scenario *s, char *buf,
                               size_t size);

/* Why that command does not plan the current scenario's GPU or model, in
 * one line ("" when it does). */
void planner_command_note(const struct planner *p, char *buf, size_t size);

/* Plans next and makes it the current scenario, with an undo entry; a
 * refused one leaves the scenario and its plan as they were, untouched
 * (the reason, in the planner's words, goes to p->error). */
bool planner_apply(struct planner *p, const struct scenario *next);

/* planner_apply for a change made with control c, saying in the status line
 * what the new engine or model dropped (DP attention, expert parallel, stages,
 * LoRA slots, images) and that z brings it back. */
void planner_apply_control(struct planner *p, enum control c, const struct scenario *next);

/* A step of the Engine control to next: the cache precision and the engine
 * knobs last chosen go with it where the new engine has them, and stay kept
 * for the next that has them where it does not (said on the status line). */
void planner_engine_step(struct planner *p, const struct scenario *next);

/* The visible controls in screen order; returns the count. */
int planner_controls(const struct planner *p, enum control *out);

/* The slider fraction of a control, or < 0 for one without a track. */
double planner_control_fraction(const struct planner *p, enum control c);

/* Steps a control by delta (+/-1, or a big step with big), to an end,
 * to a fraction of its track, or back to its default. */
void planner_step(struct planner *p, enum control c, int delta, bool big);
void planner_to_end(struct planner *p, enum control c, bool last);
void planner_set_fraction(struct planner *p, enum control c, double f);
/* Sets control c to the one of its steps nearest value (by ratio), as its
 * slider would set it. */
void planner_set_nearest(struct planner *p, enum control c, uint64_t value);
void planner_reset(struct planner *p, enum control c);

/* Keyboard input (curses key codes). */
int planner_key(struct planner *p, int key);

/* The entries of the open picker that match its filter: indexes into the
 * catalogue's GPUs or models; returns the count. */
int planner_picker_matches(const struct planner *p, int *out, int max);

/* The users the current scenario would serve with picker entry `index`
 * instead of its GPU or model; fits says whether it fits at all. */
uint64_t planner_picker_users(const struct planner *p, int index, bool *fits);

/* Default export name: kvplan-MODEL-GPU-CONTEXT.json */
void planner_export_name(const struct planner *p, char *buf, size_t size);

/* The SVG picture (io/svg.h) of the current scenario, or with `versus` of
 * the scenarios the versus view shows, written to path atomically. */
bool planner_export_svg(const struct planner *p, const char *path, bool versus, struct diag *d);

/* The keys, for the key bar, the help and the dispatch. */
struct planner_key_def {
    int key;
    const char *name;  /* "?" or "Enter" */
    const char *bar;   /* label in the key bar, NULL when not there */
    const char *help;  /* line in the help */
    int (*run)(struct planner *p);
};
const struct planner_key_def *planner_keys(int *count);

#endif
