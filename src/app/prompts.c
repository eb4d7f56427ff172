/* prompts: the planner's one-line prompts (a value, a file to export to or
 * open, a label, a note, a target), what Enter does with each, and the text
 * editing they share with the picker's filter. */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/prompts.h"
#include "core/solve.h"
#include "core/text.h"
#include "core/version.h"
#include "io/fileio.h"
#include "io/markdown.h"
#include "io/report.h"
#include "io/snapshot.h"

void prompt_open(struct planner *p, enum prompt_kind kind, const char *initial)
{
    p->prompt.from_versus = false;
    p->mode = MODE_PROMPT;
    p->prompt.kind = kind;
    snprintf(p->prompt.text, sizeof p->prompt.text, "%s", initial);
    p->prompt.fresh = p->prompt.text[0] != '\0';
    p->prompt.cut = false;
    if (kind == PROMPT_OPEN)
        prompt_open_begin(p);
}

/* Whether the planner may write an export to path, said in p->error when
 * not: a name of only spaces, standard output and the terminal the planner
 * draws on are refused, and so is anything there but a regular file (a
 * directory, a device, a FIFO), before any question. *exists: a file is
 * there, to be replaced. */
static bool export_target(struct planner *p, const char *path, bool *exists)
{
    static const char *const screen[] = {"-", "/dev/stdout", "/dev/stderr", "/dev/tty"};
    size_t n;
    text_trim(path, &n);
    if (n == 0) {
        snprintf(p->error, sizeof p->error, "'%s' is only spaces: name a file", path);
        return false;
    }
    for (size_t i = 0; i < sizeof screen / sizeof screen[0]; i++)
        if (strcmp(path, screen[i]) == 0) {
            snprintf(p->error, sizeof p->error, "%s is the planner's own screen: name a file",
                     path);
            return false;
        }
    struct stat st;
    *exists = stat(path, &st) == 0;
    if (*exists && S_ISDIR(st.st_mode))
        snprintf(p->error, sizeof p->error, "%s is a directory: name a file", path);
    else if (*exists && S_ISCHR(st.st_mode))
        snprintf(p->error, sizeof p->error, "%s is a terminal or device, not a file: name a file",
                 path);
    else if (*exists && !S_ISREG(st.st_mode))
        snprintf(p->error, sizeof p->error, "%s is not a regular file (a FIFO or socket): name a "
                 "file", path);
    return !*exists || S_ISREG(st.st_mode);
}

/* The export typed: refused, asked about (a file there is replaced only on
 * y), or written. */
static void export_or_ask(struct planner *p, enum prompt_kind kind)
{
    bool exists = false;
    if (!export_target(p, p->prompt.text, &exists))
        return;
    if (exists) {
        snprintf(p->pending.path, sizeof p->pending.path, "%s", p->prompt.text);
        p->pending.kind = kind;
        p->mode = MODE_CONFIRM;
    } else {
        prompt_export(p, p->prompt.text, kind);
    }
}

/* The session (every scenario) as JSON, or the current scenario or the
 * versus view as Markdown. */
/* One scenario as Markdown, then its name and note as the versus table
 * ends with them ("- A: note"). */
static void markdown_named(FILE *f, struct planner *p)
{
    const struct planner_slot *sl = &p->slots[p->current];
    char label[MD_TEXT_SIZE(SNAPSHOT_LABEL_MAX)], note[MD_TEXT_SIZE(SNAPSHOT_NOTE_MAX)];
    report_markdown(f, planner_scenario(p), planner_result(p), &p->explain);
    load_markdown(p, f); /* the Load screen's, when it was opened */
    fprintf(f, "\n- Scenario %d, %s%s%s\n", p->current + 1, md_text(sl->label, label, sizeof label),
            sl->note[0] ? ": " : "", sl->note[0] ? md_text(sl->note, note, sizeof note) : "");
}

void prompt_export(struct planner *p, const char *path, enum prompt_kind kind)
{
    struct diag d = {0};
    bool exists;
    if (!export_target(p, path, &exists)) /* checked again: y may come much later */
        return;
    static struct snapshot_session ss;
    const struct plan_result *results[PLANNER_SLOTS];
    planner_session(p, &ss, results);
    explain_text(&p->explain); /* every row is written out */
    bool ok;
    if (kind == PROMPT_EXPORT_SVG) {
        ok = planner_export_svg(p, path, p->prompt.from_versus, &d);
    } else if (kind == PROMPT_EXPORT_MD) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (f == NULL) {
            ok = diag_fail(&d, "%s: out of memory", path);
        } else {
            int shown[4], n = planner_versus(p, shown);
            if (p->prompt.from_versus && n > 1)
                report_markdown_versus(f, &ss, results, shown, n);
            else
                markdown_named(f, p);
            fclose(f);
            ok = fileio_write_atomic(path, text, len, &d);
            free(text);
        }
    } else {
        /* every scenario's rows: the live one's, and the others' computed again */
        struct explain *scratch = calloc(PLANNER_SLOTS, sizeof *scratch);
        const struct explain *explains[PLANNER_SLOTS];
        if (scratch)
            planner_explains(p, explains, scratch);
        ok = scratch ? snapshot_export_session(path, &ss, results, explains, KVPLAN_GENERATOR, &d)
                     : diag_fail(&d, "%s: out of memory", path);
        free(scratch);
    }
    if (ok) {
        p->error[0] = '\0'; /* an older failure is history once a write succeeds */
        if (kind == PROMPT_EXPORT) {
            planner_mark_saved(p); /* the session is safe: q quits */
            planner_set_file(p, path); /* y copies a --load of it */
            recent_remember(path, &d); /* o offers it; a list not kept leaves the export done */
        }
        snprintf(p->status, sizeof p->status, "wrote %s (%s)", path,
                 kind == PROMPT_EXPORT_MD    ? "Markdown"
                 : kind == PROMPT_EXPORT_SVG ? "SVG picture"
                 : p->count > 1           ? "every scenario of the session"
                                          : "JSON snapshot");
    } else {
        snprintf(p->error, sizeof p->error, "%s", d.message);
    }
}

static void do_open(struct planner *p, const char *prompt)
{
    /* the path lives in the prompt, which opening the session clears */
    char path[PLANNER_TEXT_MAX];
    snprintf(path, sizeof path, "%s", prompt);
    struct diag d = {0};
    static struct snapshot_session ss;
    if (snapshot_load_session(path, &ss, &d)) {
        const struct catalog *c = p->catalog;
        const char *const *dirs = p->preset_dirs; /* the catalogue's, as it was */
        int ndirs = p->preset_dir_count;
        planner_hold_session(p); /* z brings it back */
        planner_init_session(p, c, &ss);
        planner_held_opened(p, path);
        p->preset_dirs = dirs;
        p->preset_dir_count = ndirs;
        planner_set_file(p, path);
        struct diag ignored = {0}; /* a list that cannot be kept leaves the open done */
        recent_remember(path, &ignored);
        snprintf(p->status, sizeof p->status, "opened %s: %d scenario%s", path, ss.count,
                 ss.count == 1 ? "" : "s");
    } else {
        snprintf(p->error, sizeof p->error, "%s", d.message);
    }
}

/* A split as engines name it: "TP8", "2 x TP4", "2 x TP4 PP2", and
 * "2 x layers/2" where the engine splits layers (the TP control's words). */
static void split_text(const struct scenario *s, char *buf, size_t size)
{
    uint32_t reps = scenario_replicas(s);
    int n = reps > 1 ? snprintf(buf, size, "%u x ", reps) : 0;
    n += snprintf(buf + n, size - (size_t)n,
                  engine_desc(s->engine.kind)->splits_layers ? "layers/%u" : "TP%u",
                  scenario_tp(s));
    if (scenario_pp(s) > 1)
        snprintf(buf + n, size - (size_t)n, " PP%u", scenario_pp(s));
}

/* "fp8 weights instead of bf16: 23 users", "vLLM instead of llama.cpp: ...",
 * "2 x TP4 instead of TP8: ..." */
static void layout_change_text(const struct solve_change *c, const struct plan_result *r,
                               const struct scenario *now, char *buf, size_t size)
{
    char a[32], b[32], u[32];
    units_format_int(c->users, u, sizeof u);
    const char *us = c->users == 1 ? "user" : "users";
    const struct scenario *s = &c->scenario;
    if (c->kind == CHANGE_WEIGHT_DTYPE) {
        snprintf(buf, size, "%s weights instead of %s: %s %s", dtype_info(s->weight_dtype)->name,
                 dtype_info(r->weight_dtype)->name, u, us);
    } else if (c->kind == CHANGE_ENGINE) {
        snprintf(buf, size, "%s instead of %s: %s %s", engine_desc(s->engine.kind)->title,
                 engine_desc(now->engine.kind)->title, u, us);
    } else {
        split_text(s, a, sizeof a);
        split_text(now, b, sizeof b);
        snprintf(buf, size, "%s instead of %s: %s %s", a, b, u, us);
    }
}

/* The options that reach p->target_users, one keystroke each. */
static void what_would_it_take(struct planner *p)
{
    const struct gpu_spec *gpus[512];
    size_t ng = 0;
    for (size_t i = 0; i < p->catalog->gpu_count && ng < 512; i++)
        gpus[ng++] = &p->catalog->gpus[i].spec;
    struct solve_change ch[SOLVE_CHANGES_MAX];
    const struct scenario *now = planner_scenario(p);
    int n = solve_changes(now, p->target_users, gpus, ng, ch);
    p->option_count = 0;
    for (int i = 0; i < n && i < PLANNER_OPTIONS; i++) {
        struct planner_option *o = &p->options[p->option_count++];
        const struct scenario *s = &ch[i].scenario;
        char a[32], b[32], u[32];
        units_format_int(ch[i].users, u, sizeof u);
        const char *us = ch[i].users == 1 ? "user" : "users";
        switch (ch[i].kind) {
        case CHANGE_CONTEXT:
            units_format_int(s->context_tokens, a, sizeof a);
            units_format_int(now->context_tokens, b, sizeof b);
            snprintf(o->text, sizeof o->text, "context %s tokens instead of %s: %s %s", a, b, u, us);
            break;
        case CHANGE_KV_DTYPE:
            snprintf(o->text, sizeof o->text, "KV cache in %s instead of %s: %s %s",
                     dtype_info(s->kv_dtype)->name, dtype_info(planner_result(p)->kv_dtype)->name,
                     u, us);
            break;
        case CHANGE_GPUS:
            split_text(s, a, sizeof a); /* "2 x TP8", "TP8 PP2", "layers/15" */
            snprintf(o->text, sizeof o->text, "%u GPUs (%s) instead of %u: %s %s", s->gpus, a,
                     now->gpus, u, us);
            break;
        case CHANGE_PREFIX:
            units_format_int(s->prefix_tokens, a, sizeof a);
            snprintf(o->text, sizeof o->text, "a shared prefix of %s tokens: %s %s", a, u, us);
            break;
        case CHANGE_NEAR_GPUS: /* "16 GPUs would allow 2 x TP8 (13: TP1 PP13): ..." */
            split_text(s, a, sizeof a);
            split_text(now, b, sizeof b);
            snprintf(o->text, sizeof o->text, "%u GPUs would allow %s (%u: %s): %s %s", s->gpus,
                     a, now->gpus, b, u, us);
            break;
        case CHANGE_GPU_TYPE:
            snprintf(o->text, sizeof o->text, "%u x %s ($%.2f/h each) instead: %s %s", s->gpus,
                     s->gpu.name, s->gpu.price_usd_per_hour, u, us);
            break;
        default: /* the weights, the engine, the split */
            layout_change_text(&ch[i], planner_result(p), now, o->text, sizeof o->text);
            break;
        }
        if (ch[i].users < p->target_users) { /* out of reach: the closest (solve_closest_changes) */
            size_t len = strlen(o->text);
            snprintf(o->text + len, sizeof o->text - len, ", the closest");
        }
        o->scenario = *s;
        o->users = ch[i].users;
    }
    if (n > 0 || planner_result(p)->speed.users_at_service_level < p->target_users)
        p->mode = MODE_OPTIONS;
}

/* The label typed, without its outer spaces, when the loader would take it
 * and it names no other scenario (compared as the loader compares). */
static void name_scenario(struct planner *p)
{
    size_t n;
    const char *t = text_trim(p->prompt.text, &n);
    char label[PLANNER_TEXT_MAX];
    snprintf(label, sizeof label, "%.*s", (int)n, t);
    struct diag d = {0};
    if (!snapshot_label_check(label, &d)) {
        snprintf(p->error, sizeof p->error, "%s", d.message);
        return;
    }
    for (int i = 0; i < p->count; i++)
        if (i != p->current && snapshot_label_same(p->slots[i].label, label)) {
            snprintf(p->error, sizeof p->error, "label: '%s' already names scenario %d", label,
                     i + 1);
            return;
        }
    snprintf(p->slots[p->current].label, sizeof p->slots[p->current].label, "%s", label);
    char cut[64] = "";
    if (p->prompt.cut)
        snprintf(cut, sizeof cut, " (cut at the %d bytes a name holds)", SNAPSHOT_LABEL_BYTES);
    snprintf(p->status, sizeof p->status, "scenario %d is %s%s", p->current + 1, label, cut);
}

static void note_finish(struct planner *p)
{
    /* the checks the loader makes: what is kept, a session file can hold */
    struct diag d = {0};
    if (snapshot_note_check(p->prompt.text, &d))
        snprintf(p->slots[p->current].note, sizeof p->slots[p->current].note, "%s",
                 p->prompt.text);
    else
        snprintf(p->error, sizeof p->error, "%s", d.message);
}

static void target_finish(struct planner *p)
{
    uint64_t n;
    struct diag d = {0};
    if (!units_parse_count(p->prompt.text, 1, 1000000000, &n, &d)) {
        snprintf(p->error, sizeof p->error, "Target users: %s", d.message);
        return;
    }
    p->target_users = n;
    /* with a service level, the users served at it, as the suggestions count them */
    uint64_t served = planner_result(p)->speed.users_at_service_level;
    const struct scenario *now = planner_scenario(p);
    bool slo = now->min_tokens_per_s > 0 || now->max_ttft_seconds > 0;
    /* served already: only the nearest counts of GPUs where the layout is a
     * poor one (solve_near_gpus), else nothing to change */
    what_would_it_take(p);
    if (served >= n && p->option_count == 0)
        snprintf(p->status, sizeof p->status, "%llu users already %s: nothing to change",
                 (unsigned long long)served, slo ? "keep the service level" : "fit");
}

static void export_finish(struct planner *p)
{
    export_or_ask(p, p->prompt.kind);
}

static void value_finish(struct planner *p)
{
    struct scenario s = *planner_scenario(p);
    struct diag d = {0};
    if (!control_parse(p->focus, &s, p->prompt.text, &d))
        snprintf(p->error, sizeof p->error, "%s", d.message);
    else
        planner_apply(p, &s);
}

static void open_finish(struct planner *p)
{
    do_open(p, p->prompt.text);
}

/* What each kind of prompt says, holds and does on Enter. */
static const struct prompt_def {
    const char *prefix; /* before the text; NULL: the focused control's label and " = " */
    bool numbered;      /* the prefix, the scenario's number and ": " */
    const char *hint;   /* in brackets after the text */
    size_t max;         /* at most these bytes (the hint says so); 0: the buffer's */
    const char *what;   /* what it holds, when it is full */
    bool empty_ok;      /* Enter on an empty line is an answer (a note taken away) */
    const char *empty;  /* else what the status line says then, if anything */
    void (*finish)(struct planner *p);
} prompt_defs[] = {
    [PROMPT_VALUE] = {.hint = "Enter applies, Esc cancels", .finish = value_finish},
    [PROMPT_EXPORT] = {.prefix = "Export to: ", .hint = "Enter writes, Esc cancels",
                       .empty = "export cancelled: no file name", .finish = export_finish},
    [PROMPT_EXPORT_MD] = {.prefix = "Markdown to: ", .hint = "Enter writes, Esc cancels",
                          .empty = "export cancelled: no file name", .finish = export_finish},
    [PROMPT_EXPORT_SVG] = {.prefix = "SVG to: ", .hint = "Enter writes, Esc cancels",
                           .empty = "export cancelled: no file name", .finish = export_finish},
    [PROMPT_OPEN] = {.prefix = "Open snapshot: ", .hint = "Enter opens, Tab completes, Esc cancels",
                     .finish = open_finish},
    [PROMPT_LABEL] = {.prefix = "Name of scenario ", .numbered = true, .hint = "Enter names it",
                      .max = SNAPSHOT_LABEL_BYTES, .what = "the name", .finish = name_scenario},
    [PROMPT_NOTE] = {.prefix = "Note: ", .hint = "Enter keeps it", .max = SNAPSHOT_NOTE_BYTES,
                     .what = "the note", .empty_ok = true, .finish = note_finish},
    [PROMPT_TARGET] = {.prefix = "Users to serve: ", .hint = "Enter asks what it would take",
                       .finish = target_finish},
    [PROMPT_REMOVE] = {.hint = "Enter applies, Esc cancels"}, /* questions, never prompts */
    [PROMPT_QUIT] = {.hint = "Enter applies, Esc cancels"},
};

static const struct prompt_def *prompt_def(enum prompt_kind kind)
{
    return &prompt_defs[(unsigned)kind < sizeof prompt_defs / sizeof prompt_defs[0] ? kind
                                                                                  : PROMPT_VALUE];
}

void prompt_describe(const struct planner *p, char *prefix, size_t psize, char *hint,
                     size_t hsize)
{
    const struct prompt_def *d = prompt_def(p->prompt.kind);
    if (d->prefix == NULL)
        snprintf(prefix, psize, "%s = ", control_label(p->focus, planner_scenario(p)));
    else if (d->numbered)
        snprintf(prefix, psize, "%s%d: ", d->prefix, p->current + 1);
    else
        snprintf(prefix, psize, "%s", d->prefix);
    if (p->prompt.kind == PROMPT_OPEN)
        snprintf(hint, hsize, "%s%s", d->hint, p->prompt.recent.count ? "; Up: recent files" : "");
    else if (d->max && p->prompt.cut) /* said while typing: what comes past it is not kept */
        snprintf(hint, hsize, "%s; full: %zu bytes, no more is kept", d->hint, d->max);
    else if (d->max)
        snprintf(hint, hsize, "%s; at most %zu bytes", d->hint, d->max);
    else
        snprintf(hint, hsize, "%s", d->hint);
}

void prompt_finish(struct planner *p)
{
    const struct prompt_def *d = prompt_def(p->prompt.kind);
    p->mode = p->prompt.from_versus ? MODE_VERSUS : p->base;
    if (p->prompt.text[0] == '\0' && !d->empty_ok) {
        if (d->empty)
            snprintf(p->status, sizeof p->status, "%s", d->empty);
        return;
    }
    if (d->finish)
        d->finish(p);
}

/* The bytes the UTF-8 sequence led by c takes; 0 for a byte that leads none. */
static size_t sequence_bytes(int c)
{
    return c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
}

/* Bytes still missing from a character begun at the end of buf (0: none). */
static size_t unfinished(const char *buf, size_t n, size_t *start)
{
    *start = text_last_char(buf, n);
    size_t need = n > 0 ? sequence_bytes((unsigned char)buf[*start]) : 0;
    return need > n - *start ? need - (n - *start) : 0;
}

enum text_key prompt_text_key(char *buf, size_t max, int key)
{
    size_t n = strlen(buf), start;
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        buf[text_last_char(buf, n)] = '\0';
        return TEXT_KEY_EDITED;
    }
    if (key < 32 || key > 0xFF)
        return TEXT_KEY_OTHER;
    size_t missing = unfinished(buf, n, &start);
    if (key >= 0x80 && key < 0xC0) { /* a continuation byte: only of a character begun */
        if (missing == 0)
            return TEXT_KEY_OTHER;
        buf[n] = (char)key;
        buf[n + 1] = '\0';
        unsigned cp = 0;
        if (missing == 1 &&
            (text_utf8_decode((unsigned char *)buf + start, &cp) == 0 || text_unsafe_char(cp)))
            buf[start] = '\0'; /* not text, or a character that would steer the line */
        return TEXT_KEY_EDITED;
    }
    size_t len = sequence_bytes(key);
    if (len == 0)
        return TEXT_KEY_OTHER;
    if (missing > 0)
        n = start; /* a character left unfinished is dropped */
    if (n + len > max) {
        buf[n] = '\0';
        return TEXT_KEY_FULL;
    }
    buf[n] = (char)key;
    buf[n + 1] = '\0';
    return TEXT_KEY_EDITED;
}

size_t prompt_max(const struct planner *p)
{
    size_t max = prompt_def(p->prompt.kind)->max;
    return max ? max : sizeof p->prompt.text - 1;
}

bool prompt_type(struct planner *p, int key)
{
    /* the first character typed replaces a prefilled value; Backspace edits it */
    if (p->prompt.fresh && key >= 32 && key < 0xF5 && key != 127 && sequence_bytes(key) > 0)
        p->prompt.text[0] = '\0';
    enum text_key t = prompt_text_key(p->prompt.text, prompt_max(p), key);
    p->prompt.cut |= t == TEXT_KEY_FULL;
    if (t == TEXT_KEY_FULL)
        snprintf(p->status, sizeof p->status, "%s: at most %zu bytes (UTF-8); no more is kept",
                 prompt_def(p->prompt.kind)->what ? prompt_def(p->prompt.kind)->what : "the line",
                 prompt_max(p));
    return t != TEXT_KEY_OTHER;
}
