/* keys: what each key of the main screen does, as one table that also
 * makes the key bar and the help; the other screens' keys are in their own
 * files (screens.h), and planner_key finds the screen of the mode. */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/planner.h"
#include "app/prompts.h"
#include "app/screens.h"
#include "app/view.h"
#include "core/launch.h"
#include "core/solve.h"
#include "core/version.h"
#include "io/fileio.h"
#include "io/report.h"
#include "io/snapshot.h"


/* ---- the keys of the main screen ---- */

static int move_focus(struct planner *p, int delta)
{
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v), at = 0;
    for (int i = 0; i < n; i++)
        if (v[i] == p->focus)
            at = i;
    p->focus = v[((at + delta) % n + n) % n];
    return PLAN_REDRAW;
}

int keys_quit(struct planner *p)
{
    if (planner_unsaved(p)) { /* named scenarios or notes not yet exported: ask first */
        p->pending.kind = PROMPT_QUIT;
        p->mode = MODE_CONFIRM;
        return PLAN_REDRAW;
    }
    p->quit = true;
    return PLAN_QUIT;
}
static int k_up(struct planner *p) { return move_focus(p, -1); }
static int k_down(struct planner *p) { return move_focus(p, +1); }
static int k_left(struct planner *p) { planner_step(p, p->focus, -1, false); return PLAN_REDRAW; }
static int k_right(struct planner *p) { planner_step(p, p->focus, +1, false); return PLAN_REDRAW; }
static int k_big_left(struct planner *p) { planner_step(p, p->focus, -1, true); return PLAN_REDRAW; }
static int k_big_right(struct planner *p) { planner_step(p, p->focus, +1, true); return PLAN_REDRAW; }
static int k_home(struct planner *p) { planner_to_end(p, p->focus, false); return PLAN_REDRAW; }
static int k_end(struct planner *p) { planner_to_end(p, p->focus, true); return PLAN_REDRAW; }

static int k_edit(struct planner *p)
{
    if (control_kind(p->focus) == CK_PICKER) {
        p->mode = MODE_PICKER;
        p->picker.of = p->focus;
        p->picker.filter[0] = '\0';
        p->picker.by_users = false;
        p->picker.sel =
            (int)control_current(p->focus, planner_scenario(p), planner_result(p), p->catalog);
    } else {
        prompt_open(p, PROMPT_VALUE, "");
    }
    return PLAN_REDRAW;
}

static int k_reset(struct planner *p) { planner_reset(p, p->focus); return PLAN_REDRAW; }

/* Every control to its default, the model kept: on as few GPUs as hold it
 * (one, when it fits there), or the status line says it fits on none. */
static int k_reset_all(struct planner *p)
{
    struct scenario s = *planner_scenario(p);
    for (int c = 0; c < CTRL_COUNT; c++)
        control_reset((enum control)c, &s);
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(CTRL_GPUS, &s, NULL, p->catalog, v);
    struct plan_result r;
    bool fits = false;
    for (int i = 0; i < n && !fits; i++) {
        struct scenario t = s;
        struct diag d = {0};
        control_set(CTRL_GPUS, &t, p->catalog, v[i]);
        fits = plan_compute(&t, PLAN_NUMBERS, NULL, &r, &d) && r.fits;
        if (fits)
            s = t;
    }
    if (!planner_apply(p, &s))
        return PLAN_REDRAW;
    if (!fits)
        snprintf(p->status, sizeof p->status, "every control reset: %s fits on no %s here",
                 s.model.name, s.gpu.name);
    else if (s.gpus > 1)
        snprintf(p->status, sizeof p->status, "every control reset: %s needs %u GPUs to fit",
                 s.model.name, s.gpus);
    else
        snprintf(p->status, sizeof p->status, "every control reset");
    return PLAN_REDRAW;
}

static int k_units(struct planner *p)
{
    struct scenario s = *planner_scenario(p);
    s.units = s.units == UNITS_GIB ? UNITS_GB : UNITS_GIB;
    planner_apply(p, &s);
    return PLAN_REDRAW;
}

/* The current scenario becomes the reference; the changes that follow go to
 * a copy of it, so the reference stays as it was. */
static int k_baseline(struct planner *p)
{
    p->reference = p->current;
    const char *ref = p->slots[p->current].label;
    char label[SNAPSHOT_LABEL_MAX];
    snprintf(label, sizeof label, "%s", ref);
    if (planner_duplicate(p))
        snprintf(p->status, sizeof p->status, "%s is the reference (%llu users); now editing %s",
                 label, (unsigned long long)planner_result(p)->max_users,
                 p->slots[p->current].label);
    else
        snprintf(p->status, sizeof p->status, "%s is the reference (the session is full)", label);
    return PLAN_REDRAW;
}

static int k_new(struct planner *p)
{
    if (!planner_duplicate(p))
        snprintf(p->status, sizeof p->status, "the session holds %d scenarios: D removes one",
                 PLANNER_SLOTS);
    else
        snprintf(p->status, sizeof p->status, "scenario %s: a copy of the last one, a to rename",
                 p->slots[p->current].label);
    return PLAN_REDRAW;
}

static int k_remove(struct planner *p)
{
    if (p->count <= 1) {
        snprintf(p->status, sizeof p->status, "the last scenario stays");
        return PLAN_REDRAW;
    }
    /* a scenario and its note are a meeting's work: ask first */
    p->pending.kind = PROMPT_REMOVE;
    p->mode = MODE_CONFIRM;
    return PLAN_REDRAW;
}

static int k_label(struct planner *p)
{
    prompt_open(p, PROMPT_LABEL, p->slots[p->current].label);
    return PLAN_REDRAW;
}

static int k_note(struct planner *p)
{
    prompt_open(p, PROMPT_NOTE, p->slots[p->current].note);
    return PLAN_REDRAW;
}

static int k_undo(struct planner *p)
{
    /* the oldest thing to undo is the open that brought this session */
    bool none = p->slots[p->current].undo_count == 0;
    if (none ? !planner_undo_open(p) : !planner_undo(p))
        snprintf(p->status, sizeof p->status, "nothing to undo in %s", p->slots[p->current].label);
    return PLAN_REDRAW;
}

static int k_redo(struct planner *p)
{
    bool none = p->slots[p->current].redo_count == 0;
    if (none ? !planner_redo_open(p) : !planner_redo(p))
        snprintf(p->status, sizeof p->status, "nothing to redo in %s", p->slots[p->current].label);
    return PLAN_REDRAW;
}

static int k_versus(struct planner *p)
{
    if (p->count < 2) {
        snprintf(p->status, sizeof p->status,
                 "one scenario: n adds another (b keeps this one as the reference)");
        return PLAN_REDRAW;
    }
    p->mode = MODE_VERSUS;
    return PLAN_REDRAW;
}

int keys_export(struct planner *p)
{
    char name[PLANNER_TEXT_MAX];
    planner_export_name(p, name, sizeof name);
    prompt_open(p, PROMPT_EXPORT, name);
    return PLAN_REDRAW;
}

/* The prompt for an export of the current view (the versus view's when
 * asked from it), named after the session's file with ext for ".json". */
static int export_prompt(struct planner *p, enum prompt_kind kind, const char *ext)
{
    char name[PLANNER_TEXT_MAX];
    planner_export_name(p, name, sizeof name);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        snprintf(name + n - 5, sizeof name - (n - 5), "%s", ext);
    enum planner_mode back = p->mode;
    prompt_open(p, kind, name);
    p->prompt.from_versus = back == MODE_VERSUS;
    return PLAN_REDRAW;
}

int keys_markdown(struct planner *p)
{
    return export_prompt(p, PROMPT_EXPORT_MD, ".md");
}

int keys_svg(struct planner *p)
{
    return export_prompt(p, PROMPT_EXPORT_SVG, ".svg");
}

static int copy(struct planner *p, const char *text, const char *what)
{
    if (text[0] == '\0' || strlen(text) >= sizeof p->copied) { /* never a cut command */
        snprintf(p->status, sizeof p->status, "the %s is longer than kvplan can copy: not copied",
                 what);
        return PLAN_REDRAW;
    }
    snprintf(p->copied, sizeof p->copied, "%s", text);
    p->copied_note[0] = '\0';
    p->copy_pending = true;
    snprintf(p->status, sizeof p->status, "copied the %s to the clipboard (OSC 52)", what);
    p->mode = MODE_COPIED;
    return PLAN_REDRAW;
}

static int k_copy_command(struct planner *p)
{
    char line[PLANNER_COPY_MAX];
    planner_command_line(p, line, sizeof line);
    int flags = copy(p, line, "command line");
    if (p->mode == MODE_COPIED) { /* copied: say what it does not plan */
        planner_command_note(p, p->copied_note, sizeof p->copied_note);
        if (p->copied_note[0])
            snprintf(p->status, sizeof p->status, "%s", p->copied_note);
    }
    return flags;
}

/* The launch line, or over several nodes or servers every one's command
 * (core/launch.h), a line each, as JSON's engine.launch_servers lists them. */
static int k_copy_launch(struct planner *p)
{
    const struct plan_result *r = planner_result(p);
    if (!engine_desc(r->profile)->server) {
        snprintf(p->status, sizeof p->status, "the generic rule has no launch line: pick an engine");
        return PLAN_REDRAW;
    }
    int n = launch_servers(r);
    if (n == 0)
        return copy(p, r->engine.launch, "launch line");
    static char all[PLANNER_COPY_MAX], one[ENGINE_LAUNCH_MAX + 1024];
    size_t len = 0;
    all[0] = '\0';
    for (int k = 0; k < n && len < sizeof all; k++)
        len = launch_server(r, k, one, sizeof one)
                  ? len + (size_t)snprintf(all + len, sizeof all - len, k ? "\n%s" : "%s", one)
                  : sizeof all;
    char what[64];
    snprintf(what, sizeof what, "%d commands (one a node or server)", n);
    if (len >= sizeof all) { /* never a part of them */
        snprintf(p->status, sizeof p->status, "the %s are longer than kvplan can copy: not copied",
                 what);
        return PLAN_REDRAW;
    }
    return copy(p, all, what);
}

static int k_target(struct planner *p)
{
    char first[32] = "";
    if (p->target_users)
        snprintf(first, sizeof first, "%llu", (unsigned long long)p->target_users);
    prompt_open(p, PROMPT_TARGET, first);
    return PLAN_REDRAW;
}

static int k_open(struct planner *p)
{
    if (planner_unsaved(p)) { /* what the file replaces is not exported: ask, as q does */
        p->pending.kind = PROMPT_OPEN;
        p->mode = MODE_CONFIRM;
        return PLAN_REDRAW;
    }
    prompt_open(p, PROMPT_OPEN, "");
    return PLAN_REDRAW;
}
static int k_help(struct planner *p)
{
    p->mode = MODE_HELP;
    p->help.scroll = 0;
    return PLAN_REDRAW;
}

static int k_compare(struct planner *p)
{
    if (planner_reference(p) == NULL) {
        snprintf(p->status, sizeof p->status,
                 "no reference yet: press b to keep this scenario, change it, then c");
        return PLAN_REDRAW;
    }
    p->compare_scroll = 0;
    p->mode = MODE_COMPARE;
    return PLAN_REDRAW;
}

int keys_present(struct planner *p)
{
    p->base = p->base == MODE_PRESENT ? MODE_MAIN : MODE_PRESENT;
    if (p->mode != MODE_VERSUS) /* the versus view stays, presented or not */
        p->mode = p->base;
    return PLAN_REDRAW;
}

static int k_warnings(struct planner *p)
{
    if (plan_shown_warnings(planner_result(p)) == 0) {
        snprintf(p->status, sizeof p->status, "no warnings for this scenario");
        return PLAN_REDRAW;
    }
    p->mode = MODE_WARNINGS;
    return PLAN_REDRAW;
}

/* The explain pane by one row, or every row full screen. */
static int k_explain_up(struct planner *p)
{
    view_scroll_explain(p, -1);
    return PLAN_REDRAW;
}
static int k_explain_down(struct planner *p)
{
    view_scroll_explain(p, +1);
    return PLAN_REDRAW;
}
static int k_explain(struct planner *p)
{
    p->mode = MODE_EXPLAIN;
    p->xview.scroll = 0;
    return PLAN_REDRAW;
}

static int k_load(struct planner *p)
{
    p->mode = MODE_LOAD;
    load_open(p);
    return PLAN_REDRAW;
}

static int k_repaint(struct planner *p)
{
    (void)p;
    clearok(stdscr, TRUE);
    return PLAN_REDRAW;
}

static const struct planner_key_def keys[] = {
    {'?', "?", "help", NULL, k_help},
    {'q', "q", "quit", "quit", keys_quit},
    {'\n', "Enter", "edit", "type a value (GPU: a list)", k_edit},
    {'b', "b", "reference", "keep as reference, edit copy", k_baseline},
    {'n', "n", "new", "new scenario; 1-6 switch", k_new},
    {'v', "v", "versus", "scenarios side by side", k_versus},
    {'c', "c", "compare", "compare with the reference", k_compare},
    {'T', "T", "target", "what would it take: N users", k_target},
    {'L', "L", "load", NULL, k_load}, /* in the help at the end, beside the keys it adds */
    {'p', "p", "present", "present (Esc leaves)", keys_present},
    {'e', "e", "export", "export the session as JSON", keys_export},
    {'m', "m", "markdown", "export Markdown", keys_markdown},
    {'g', "g", NULL, "export bar and chart as SVG", keys_svg},
    {'y', "y", "copy", "copy command (Y: launch)", k_copy_command},
    {'Y', "Y", NULL, NULL, k_copy_launch},
    {'o', "o", "open", "open a snapshot or session", k_open},
    {'a', "a", NULL, "name this scenario (N: note)", k_label},
    {'N', "N", NULL, NULL, k_note},
    {'z', "z", NULL, "undo (Z: redo)", k_undo},
    {'Z', "Z", NULL, NULL, k_redo},
    {'D', "D", NULL, "remove this scenario", k_remove},
    {'w', "w", "warnings", "every warning", k_warnings},
    {'x', "x", "explain", "explain rows, full screen", k_explain},
    {'[', "[", NULL, "scroll explain rows (])", k_explain_up},
    {']', "]", NULL, NULL, k_explain_down},
    {'u', "u", "GiB/GB", "show GiB or GB", k_units},
    {'r', "r", "reset", "reset this control", k_reset},
    {'R', "R", NULL, "reset every control", k_reset_all},
    {KEY_UP, "Up", NULL, "previous control (S-Tab)", k_up},
    {KEY_BTAB, "S-Tab", NULL, NULL, k_up},
    {KEY_DOWN, "Down", NULL, "next control (Tab)", k_down},
    {'\t', "Tab", NULL, NULL, k_down},
    {KEY_LEFT, "Left", NULL, "step down (h)", k_left},
    {'h', "h", NULL, NULL, k_left},
    {KEY_RIGHT, "Right", NULL, "step up (l)", k_right},
    {'l', "l", NULL, NULL, k_right},
    {KEY_SLEFT, "S-Left", NULL, "big step (PgUp, PgDn)", k_big_left},
    {KEY_PPAGE, "PgUp", NULL, NULL, k_big_right}, /* up is more */
    {KEY_SRIGHT, "S-Right", NULL, NULL, k_big_right},
    {KEY_NPAGE, "PgDn", NULL, NULL, k_big_left},
    {KEY_HOME, "Home", NULL, "to either end (End)", k_home},
    {KEY_END, "End", NULL, NULL, k_end},
    {'\r', "Enter", NULL, NULL, k_edit},
    {KEY_ENTER, "Enter", NULL, NULL, k_edit},
    {12, "Ctrl-L", NULL, "repaint", k_repaint},
    {'L', "L", NULL, "latency against request rate", k_load},
};

const struct planner_key_def *planner_keys(int *count)
{
    *count = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}

int planner_key(struct planner *p, int key)
{
    return screen_of(p->mode)->key(p, key);
}

int keys_main(struct planner *p, int key)
{
    p->status[0] = '\0';
    if (key == 'Q')
        return keys_quit(p);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].key == key)
            return keys[i].run(p);
    if (key >= '1' && key <= '0' + PLANNER_SLOTS) {
        if (key - '1' < p->count)
            planner_switch(p, key - '1');
        else
            snprintf(p->status, sizeof p->status, "no scenario %c yet: n adds one", key);
        return PLAN_REDRAW;
    }
    return 0;
}
