#include "app.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/planner.h"
#include "app/screens.h"
#include "app/view.h"
#include "app/view_parts.h"
#include "io/fileio.h"
#include "tui/term.h"
#include "tui/widgets.h"

/* How long the keys stop before the Load screen's full run. */
enum { LOAD_IDLE_MS = 120 };

static int handle_mouse(struct planner *p)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return 0;
    const struct screen *sc = screen_of(p->mode);
    return sc->mouse ? sc->mouse(p, &ev) : 0;
}

/* The planner on a session of scenarios or on one (kept off the stack: a
 * session holds every scenario with its undo history). */
static struct planner *open_planner(const struct app_input *in)
{
    static struct planner p;
    const struct snapshot_session *ss = in->session;
    if (ss && ss->count > 1)
        planner_init_session(&p, in->catalog, ss);
    else
        planner_init(&p, in->catalog, in->scenario);
    if (ss && ss->count == 1)
        p.slots[0].load = ss->entry[0].load; /* the Load screen's settings */
    p.preset_dirs = in->preset_dirs;
    p.preset_dir_count = in->preset_dir_count;
    if (in->load_path && in->scenario_label)
        planner_set_origin(&p, 0, in->load_path, in->scenario_label);
    else if (in->load_path)
        planner_set_file(&p, in->load_path);
    if (in->load_path)
        planner_mark_saved(&p); /* each scenario as on file */
    planner_prefix_held(&p, in->prefix_asked); /* said on the status line, as a step says it */
    return &p;
}

/* Lays out, draws and shows a frame; with frame (KVPLAN_FRAME_COUNTER set),
 * its number on the last row. */
static void show_frame(struct planner *p, unsigned long *frame)
{
    view_settle(p, COLS, LINES);
    view_draw(p);
    if (frame) {
        char f[32];
        snprintf(f, sizeof f, "#%lu", ++*frame);
        /* last row: ncurses sends rows in order, so once a test sees
         * the counter, the whole frame has arrived */
        int fx = p->frame.cols - (int)strlen(f) - 1;
        widget_text(p->frame.rows - 1, fx, p->frame.cols - fx, ROLE_TEXT, f);
        widget_fill(p->frame.rows - 1, fx + (int)strlen(f), p->frame.cols - fx - (int)strlen(f),
                    ROLE_TEXT);
    }
    term_refresh();
    if (p->copy_pending) {
        term_clipboard(p->copied);
        p->copy_pending = false;
    }
}

int app_run(const struct app_input *in, bool mono, bool ascii, char *err, size_t errlen)
{
    struct term_caps caps;
    if (!term_open(mono, ascii, &caps, err, errlen))
        return 3;
    struct planner *p = open_planner(in);
    view_settle(p, COLS, LINES); /* the terminal's size, read once a frame */
    view_draw(p);
    term_refresh();
    const char *frames = getenv("KVPLAN_FRAME_COUNTER");
    unsigned long frame = 0;
    while (!p->quit) {
        /* the Load screen's full run waits until the keys stop a moment */
        if (p->mode == MODE_LOAD && p->load.idle && !term_input_within(LOAD_IDLE_MS)) {
            if (load_idle(p))
                show_frame(p, frames ? &frame : NULL);
            continue;
        }
        int key = term_read_key();
        if (key == ERR)
            break; /* end of input: treat as quit, never spin */
        int flags = 0;
        if (key == KEY_RESIZE) {
            /* terminals reflow or clear differently on a resize: repaint it all */
            clearok(curscr, TRUE);
            flags = PLAN_REDRAW;
        }
        else if (key == KEY_MOUSE)
            flags = handle_mouse(p);
        else
            flags = planner_key(p, key);
        if (flags & PLAN_QUIT)
            break;
        if (flags & PLAN_REDRAW)
            show_frame(p, frames ? &frame : NULL);
    }
    term_close();
    return 0;
}

static const struct {
    const char *name;
    int key;
} key_names[] = {{"<Right>", KEY_RIGHT}, {"<Left>", KEY_LEFT},   {"<Up>", KEY_UP},
                 {"<Down>", KEY_DOWN},   {"<Tab>", '\t'},        {"<S-Tab>", KEY_BTAB},
                 {"<Enter>", '\n'},      {"<Esc>", 27},          {"<PgUp>", KEY_PPAGE},
                 {"<PgDn>", KEY_NPAGE},  {"<Home>", KEY_HOME},   {"<End>", KEY_END},
                 {"<S-Left>", KEY_SLEFT}, {"<S-Right>", KEY_SRIGHT}, {"<BS>", KEY_BACKSPACE}};

/* The next key of a --keys string: a <NAME> from the table, or one
 * character as it is; -1 for a <NAME> the table does not know (a '<' not
 * followed by letters, digits or dashes and a '>' is typed as it is). */
static int next_key(const char **k)
{
    if (**k == '<') {
        for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
            size_t n = strlen(key_names[i].name);
            if (strncmp(*k, key_names[i].name, n) == 0) {
                *k += n;
                return key_names[i].key;
            }
        }
        size_t n = strspn(*k + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-");
        if (n > 0 && (*k)[1 + n] == '>')
            return -1;
    }
    return (unsigned char)*(*k)++;
}

/* Refuses a --keys string with a <NAME> the table does not know, listing those it does. */
static bool keys_check(const char *keys, char *err, size_t errlen)
{
    for (const char *k = keys ? keys : ""; *k;) {
        const char *at = k;
        if (next_key(&k) >= 0)
            continue;
        int n = (int)(strchr(at, '>') - at) + 1;
        size_t len = (size_t)snprintf(err, errlen, "--keys: '%.*s' is not a key name (known:", n, at);
        for (size_t i = 0; i < sizeof key_names / sizeof key_names[0] && len < errlen; i++)
            len += (size_t)snprintf(err + len, errlen - len, " %s", key_names[i].name);
        if (len < errlen)
            snprintf(err + len, errlen - len, "; other characters are typed as they are)");
        return false;
    }
    return true;
}

int app_dump(const struct app_input *in, const struct app_dump_options *o, char *err,
             size_t errlen)
{
    struct term_caps caps;
    if (!keys_check(o->keys, err, errlen))
        return 2;
    if (!term_open_headless(o->cols, o->rows, o->mono, o->ascii, &caps, err, errlen))
        return 2;
    struct planner *p = open_planner(in);
    view_settle(p, COLS, LINES);
    for (const char *k = o->keys ? o->keys : ""; *k && !p->quit;) {
        planner_key(p, next_key(&k));
        view_settle(p, COLS, LINES); /* as each frame of the live planner does */
    }
    if (p->mode == MODE_LOAD)
        load_idle(p); /* the keys have stopped: the Load screen's full run, as the live one */
    view_draw(p);
    size_t text = term_dump_text(NULL, 0), attrs = o->with_attrs ? term_dump_attrs(NULL, 0) : 0;
    size_t need = text + attrs + 32;
    char *buf = malloc(need);
    if (buf == NULL) {
        term_close();
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    term_dump_text(buf, need);
    if (o->with_attrs) {
        size_t n = strlen(buf);
        n += (size_t)snprintf(buf + n, need - n, "--- attributes\n");
        term_dump_attrs(buf + n, need - n);
    }
    term_close();
    int status = 0;
    if (strcmp(o->path, "-") == 0) {
        fputs(buf, stdout);
    } else {
        struct diag d = {0};
        if (!fileio_write_atomic(o->path, buf, strlen(buf), &d)) {
            snprintf(err, errlen, "--dump-screen: %s", d.message);
            status = 2;
        }
    }
    free(buf);
    return status;
}
