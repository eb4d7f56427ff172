/* command: the `kvplan plan` line y copies. Pasted, it plans the scenario on
 * the screen: report_command_line's options, the --presets directories the
 * catalogue was read with, and, for a GPU or model spec the catalogue does
 * not hold (a snapshot's, edited or custom), a --load of the file that
 * holds it. When no file does, the note says what the command plans
 * instead. */
#include "app/planner.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shell.h"
#include "io/preset.h"
#include "io/report.h"
#include "io/snapshot.h"

/* Which specs of the scenario are the catalogue's entries for their ids, whole. */
struct catalogued {
    bool gpu, model, draft;
};

static struct catalogued catalogued(const struct catalog *c, const struct scenario *s)
{
    const struct catalog_gpu *g = catalog_find_gpu(c, s->gpu.id);
    const struct catalog_model *m = catalog_find_model(c, s->model.id);
    const struct catalog_model *dm = catalog_find_model(c, s->draft.id);
    struct catalogued k = {g && preset_gpu_same(&g->spec, &s->gpu),
                           m && preset_model_same(&m->spec, &s->model),
                           s->spec_method != SPEC_DRAFT || (dm && preset_model_same(&dm->spec, &s->draft))};
    return k;
}

/* The scenario the origin names, as its file holds it now; false when the
 * file no longer reads or has no scenario of that label. */
static bool origin_scenario(const struct planner_origin *o, struct scenario *out)
{
    static struct snapshot_session ss;
    struct diag d = {0};
    if (o->path[0] == '\0' || !snapshot_load_session(o->path, &ss, &d))
        return false;
    int i = o->label[0] ? snapshot_session_find(&ss, o->label) : ss.current;
    if (i < 0)
        return false;
    *out = ss.entry[i].scenario;
    return true;
}

static const char *next_word(const char *end)
{
    while (*end == ' ')
        end++;
    return end;
}

static bool word_is(const char *w, const char *end, const char *word)
{
    return (size_t)(end - w) == strlen(word) && strncmp(w, word, (size_t)(end - w)) == 0;
}

static bool has_word(const char *line, const char *w, const char *end)
{
    for (const char *x = next_word(line); *x;) {
        const char *e = shell_word_end(x);
        if (e - x == end - w && strncmp(x, w, (size_t)(end - w)) == 0)
            return true;
        x = next_word(e);
    }
    return false;
}

/* True when every option of the file's scenario (file_line) is also in
 * line, --gpu and --model aside: the options of line, applied to the file's
 * scenario, then leave nothing of it that line would not set. */
static bool options_cover(const char *line, const char *file_line)
{
    for (const char *w = next_word(file_line); *w;) {
        const char *e = shell_word_end(w);
        if (strncmp(w, "--", 2) == 0 && !word_is(w, e, "--gpu") && !word_is(w, e, "--model") &&
            !has_word(line, w, e))
            return false;
        w = next_word(e);
    }
    return true;
}

/* A path as it reads from any directory, so the command pastes anywhere:
 * the file's absolute path, or the path as given when it cannot be found. */
static const char *absolute(const char *path, char *buf)
{
    return path[0] != '/' && realpath(path, buf) ? buf : path;
}

/* How the command is made: with --load of the current scenario's file, and
 * without --gpu or --model when that spec comes from the file. */
struct how {
    bool load, drop_gpu, drop_model;
};

/* The way the command plans the current scenario (line: its
 * report_command_line); false, with the note said, when none does. */
static bool command_how(const struct planner *p, const char *line, struct how *h, char *note,
                        size_t size)
{
    const struct scenario *s = planner_scenario(p);
    struct catalogued k = catalogued(p->catalog, s);
    memset(h, 0, sizeof *h);
    if (k.gpu && k.model && k.draft)
        return true;
    static struct scenario file;
    static char file_line[REPORT_COMMAND_MAX];
    if (k.draft && origin_scenario(&p->slots[p->current].origin, &file) &&
        (k.gpu || preset_gpu_same(&s->gpu, &file.gpu)) &&
        (k.model || preset_model_same(&s->model, &file.model)) &&
        report_command_line(&file, file_line, sizeof file_line) > 0 && file_line[0] &&
        options_cover(line, file_line)) {
        h->load = true;
        h->drop_gpu = !k.gpu;
        h->drop_model = !k.model;
        return true;
    }
    const char *what = !k.gpu ? "GPU" : !k.model ? "model" : "draft model";
    const char *id = !k.gpu ? s->gpu.id : !k.model ? s->model.id : s->draft.id;
    bool known = !k.gpu ? catalog_find_gpu(p->catalog, id) != NULL
                        : catalog_find_model(p->catalog, id) != NULL;
    if (known)
        snprintf(note, size, "Note: the command plans the catalogue's %s, not this scenario's %s "
                 "(e exports the scenario; y then copies its --load)", id, what);
    else
        snprintf(note, size, "Note: no preset is %s, this scenario's %s, so the command fails "
                 "(e exports the scenario; y then copies its --load)", id, what);
    return false;
}

size_t planner_command_line(const struct planner *p, char *buf, size_t size)
{
    return planner_command_line_of(p, planner_scenario(p), buf, size);
}

size_t planner_command_line_of(const struct planner *p, const struct scenario *s, char *buf,
                               size_t size)
{
    char line[REPORT_COMMAND_MAX], note[PLANNER_TEXT_MAX];
    struct how h;
    size_t need = report_command_line(s, line, sizeof line);
    if (line[0] == '\0') { /* the options alone do not fit: no line at all */
        buf[0] = '\0';
        return need;
    }
    command_how(p, line, &h, note, sizeof note);
    const struct planner_origin *o = &p->slots[p->current].origin;
    struct shell_line l;
    shell_line_init(&l, buf, size);
    const char *w = next_word(line);
    for (int i = 0; i < 2 && *w; i++) { /* kvplan plan */
        const char *e = shell_word_end(w);
        shell_raw(&l, w, (size_t)(e - w));
        w = next_word(e);
    }
    if (h.load) {
        char abs[PATH_MAX];
        shell_word(&l, "--load");
        shell_word(&l, absolute(o->path, abs));
        if (o->label[0]) {
            shell_word(&l, "--scenario");
            shell_word(&l, o->label);
        }
    }
    while (*w) {
        const char *e = shell_word_end(w);
        if ((h.drop_gpu && word_is(w, e, "--gpu")) || (h.drop_model && word_is(w, e, "--model")))
            e = shell_word_end(next_word(e)); /* the option and its value */
        else
            shell_raw(&l, w, (size_t)(e - w));
        w = next_word(e);
    }
    for (int i = 0; i < p->preset_dir_count; i++) {
        char abs[PATH_MAX];
        shell_word(&l, "--presets");
        shell_word(&l, absolute(p->preset_dirs[i], abs));
    }
    shell_line_done(&l, &need);
    return need;
}

void planner_command_note(const struct planner *p, char *buf, size_t size)
{
    char line[REPORT_COMMAND_MAX];
    struct how h;
    buf[0] = '\0';
    report_command_line(planner_scenario(p), line, sizeof line);
    command_how(p, line, &h, buf, size);
}

void planner_set_origin(struct planner *p, int i, const char *path, const char *label)
{
    struct planner_origin *o = &p->slots[i].origin;
    memset(o, 0, sizeof *o);
    if (strlen(path) < sizeof o->path) {
        snprintf(o->path, sizeof o->path, "%s", path);
        snprintf(o->label, sizeof o->label, "%s", label);
    }
}

void planner_set_file(struct planner *p, const char *path)
{
    for (int i = 0; i < p->count; i++)
        planner_set_origin(p, i, path, p->count > 1 ? p->slots[i].label : "");
}
