/* keys: what each key does in the planner, as one table that also makes
 * the key bar and the help; the modes (picker, prompt, confirm, compare,
 * help, warnings) take their keys first. */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/planner.h"
#include "core/version.h"
#include "io/snapshot.h"

static void open_prompt(struct planner *p, enum prompt_kind kind, const char *initial)
{
    p->mode = MODE_PROMPT;
    p->prompt_kind = kind;
    snprintf(p->prompt, sizeof p->prompt, "%s", initial);
}

static void do_export(struct planner *p, const char *path)
{
    struct diag d = {0};
    if (snapshot_export(path, &p->scenario, &p->result, KVPLAN_GENERATOR, &d))
        snprintf(p->status, sizeof p->status, "exported %s", path);
    else
        snprintf(p->error, sizeof p->error, "%s", d.message);
}

static void do_open(struct planner *p, const char *path)
{
    struct diag d = {0};
    struct scenario s;
    if (snapshot_load(path, &s, &d) && planner_apply(p, &s))
        snprintf(p->status, sizeof p->status, "opened %s", path);
    else if (d.failed)
        snprintf(p->error, sizeof p->error, "%s", d.message);
}

static void finish_prompt(struct planner *p)
{
    p->mode = MODE_MAIN;
    if (p->prompt[0] == '\0')
        return;
    switch (p->prompt_kind) {
    case PROMPT_VALUE: {
        struct scenario s = p->scenario;
        struct diag d = {0};
        if (!control_parse(p->focus, &s, p->prompt, &d))
            snprintf(p->error, sizeof p->error, "%s", d.message);
        else
            planner_apply(p, &s);
        break;
    }
    case PROMPT_EXPORT:
        if (access(p->prompt, F_OK) == 0) {
            snprintf(p->pending_path, sizeof p->pending_path, "%s", p->prompt);
            p->mode = MODE_CONFIRM;
        } else {
            do_export(p, p->prompt);
        }
        break;
    case PROMPT_OPEN:
        do_open(p, p->prompt);
        break;
    }
}

static bool text_key(char *buf, size_t size, int key)
{
    size_t n = strlen(buf);
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (n > 0)
            buf[n - 1] = '\0';
        return true;
    }
    if (key >= 32 && key < 127 && n + 1 < size) {
        buf[n] = (char)key;
        buf[n + 1] = '\0';
        return true;
    }
    return false;
}

static int picker_key(struct planner *p, int key)
{
    int idx[512];
    int n = planner_picker_matches(p, idx, (int)(sizeof idx / sizeof idx[0]));
    switch (key) {
    case 27:
        p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    case KEY_UP:
        p->picker_sel = p->picker_sel > 0 ? p->picker_sel - 1 : 0;
        return PLAN_REDRAW;
    case KEY_DOWN:
        p->picker_sel = p->picker_sel + 1 < n ? p->picker_sel + 1 : p->picker_sel;
        return PLAN_REDRAW;
    case KEY_PPAGE:
        p->picker_sel = p->picker_sel > 10 ? p->picker_sel - 10 : 0;
        return PLAN_REDRAW;
    case KEY_NPAGE:
        p->picker_sel = p->picker_sel + 10 < n ? p->picker_sel + 10 : (n > 0 ? n - 1 : 0);
        return PLAN_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (n > 0) {
            struct scenario s = p->scenario;
            control_set(p->picker_for, &s, p->catalog,
                        (uint64_t)idx[p->picker_sel < n ? p->picker_sel : 0]);
            planner_apply(p, &s);
        }
        p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    default:
        if (text_key(p->filter, sizeof p->filter, key)) {
            p->picker_sel = 0;
            return PLAN_REDRAW;
        }
        return 0;
    }
}

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

static int k_quit(struct planner *p)
{
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
        p->picker_for = p->focus;
        p->filter[0] = '\0';
        p->picker_sel = (int)control_current(p->focus, &p->scenario, &p->result, p->catalog);
    } else {
        open_prompt(p, PROMPT_VALUE, "");
    }
    return PLAN_REDRAW;
}

static int k_reset(struct planner *p) { planner_reset(p, p->focus); return PLAN_REDRAW; }

static int k_reset_all(struct planner *p)
{
    struct scenario s = p->scenario;
    for (int c = 0; c < CTRL_COUNT; c++)
        control_reset((enum control)c, &s);
    planner_apply(p, &s);
    return PLAN_REDRAW;
}

static int k_units(struct planner *p)
{
    struct scenario s = p->scenario;
    s.units = s.units == UNITS_GIB ? UNITS_GB : UNITS_GIB;
    planner_apply(p, &s);
    return PLAN_REDRAW;
}

static int k_baseline(struct planner *p)
{
    p->has_baseline = true;
    p->baseline = p->scenario;
    p->baseline_result = p->result;
    snprintf(p->status, sizeof p->status, "baseline set: %llu users",
             (unsigned long long)p->result.max_users);
    return PLAN_REDRAW;
}

static int k_export(struct planner *p)
{
    char name[PLANNER_TEXT_MAX];
    planner_export_name(p, name, sizeof name);
    open_prompt(p, PROMPT_EXPORT, name);
    return PLAN_REDRAW;
}

static int k_open(struct planner *p) { open_prompt(p, PROMPT_OPEN, ""); return PLAN_REDRAW; }
static int k_help(struct planner *p) { p->mode = MODE_HELP; return PLAN_REDRAW; }

static int k_compare(struct planner *p)
{
    if (!p->has_baseline) {
        snprintf(p->status, sizeof p->status,
                 "no baseline yet: press b to keep this scenario, change it, then c");
        return PLAN_REDRAW;
    }
    p->mode = MODE_COMPARE;
    return PLAN_REDRAW;
}

static int k_present(struct planner *p) { p->presentation = !p->presentation; return PLAN_REDRAW; }

static int k_warnings(struct planner *p)
{
    if (plan_shown_warnings(&p->result) == 0) {
        snprintf(p->status, sizeof p->status, "no warnings for this scenario");
        return PLAN_REDRAW;
    }
    p->mode = MODE_WARNINGS;
    return PLAN_REDRAW;
}

static int k_escape(struct planner *p)
{
    if (!p->presentation)
        return 0;
    p->presentation = false;
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
    {'q', "q", "quit", "quit", k_quit},
    {'\n', "Enter", "edit", "type a value (32k, fp8, 12.5); GPU, Model: pick one", k_edit},
    {'b', "b", "baseline", "keep this scenario as the baseline", k_baseline},
    {'c', "c", "compare", "compare the baseline with now, row by row", k_compare},
    {'p', "p", "present", "presentation mode for screen sharing (Esc leaves)", k_present},
    {'e', "e", "export", "export a JSON snapshot (asks before overwriting)", k_export},
    {'o', "o", "open", "open a JSON snapshot", k_open},
    {'w', "w", "warnings", "list every warning", k_warnings},
    {'u', "u", "GiB/GB", "show GiB or GB", k_units},
    {'r', "r", "reset", "reset the focused control", k_reset},
    {'R', "R", NULL, "reset every control", k_reset_all},
    {KEY_UP, "Up", NULL, "previous control (also Shift-Tab)", k_up},
    {KEY_BTAB, "S-Tab", NULL, NULL, k_up},
    {KEY_DOWN, "Down", NULL, "next control (also Tab)", k_down},
    {'\t', "Tab", NULL, NULL, k_down},
    {KEY_LEFT, "Left", NULL, "step the focused control down (also h)", k_left},
    {'h', "h", NULL, NULL, k_left},
    {KEY_RIGHT, "Right", NULL, "step it up (also l)", k_right},
    {'l', "l", NULL, NULL, k_right},
    {KEY_SLEFT, "S-Left", NULL, "a big step (also PgUp, PgDn, Shift-Right)", k_big_left},
    {KEY_PPAGE, "PgUp", NULL, NULL, k_big_left},
    {KEY_SRIGHT, "S-Right", NULL, NULL, k_big_right},
    {KEY_NPAGE, "PgDn", NULL, NULL, k_big_right},
    {KEY_HOME, "Home", NULL, "to either end (also End)", k_home},
    {KEY_END, "End", NULL, NULL, k_end},
    {'\r', "Enter", NULL, NULL, k_edit},
    {KEY_ENTER, "Enter", NULL, NULL, k_edit},
    {27, "Esc", NULL, NULL, k_escape},
    {12, "Ctrl-L", NULL, "repaint the screen", k_repaint},
};

const struct planner_key_def *planner_keys(int *count)
{
    *count = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}

int planner_key(struct planner *p, int key)
{
    switch (p->mode) {
    case MODE_HELP:
    case MODE_WARNINGS:
        p->mode = MODE_MAIN;
        return key == 'q' || key == 'Q' ? k_quit(p) : PLAN_REDRAW;
    case MODE_COMPARE:
        if (key == 'q' || key == 'Q')
            return k_quit(p);
        if (key == 'b')
            k_baseline(p);
        else if (key == 'c' || key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER)
            p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    case MODE_PICKER:
        return picker_key(p, key);
    case MODE_CONFIRM:
        p->mode = MODE_MAIN;
        if (key == 'y' || key == 'Y')
            do_export(p, p->pending_path);
        else
            snprintf(p->status, sizeof p->status, "export cancelled: %s kept", p->pending_path);
        return PLAN_REDRAW;
    case MODE_PROMPT:
        if (key == 27)
            p->mode = MODE_MAIN;
        else if (key == '\n' || key == '\r' || key == KEY_ENTER)
            finish_prompt(p);
        else if (!text_key(p->prompt, sizeof p->prompt, key))
            return 0;
        return PLAN_REDRAW;
    case MODE_MAIN:
        break;
    }
    p->status[0] = '\0';
    if (key == 'Q')
        return k_quit(p);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].key == key)
            return keys[i].run(p);
    if (isdigit(key) && control_kind(p->focus) == CK_SLIDER) {
        char first[2] = {(char)key, 0};
        open_prompt(p, PROMPT_VALUE, first);
        return PLAN_REDRAW;
    }
    return 0;
}
