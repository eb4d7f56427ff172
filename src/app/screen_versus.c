/* The versus view: two to four scenarios side by side, each with its count,
 * its change against the first and the memory of one GPU, and their curves
 * of users against context on one chart, each with its own mark. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"
#include "tui/plot.h"

enum { VERSUS_SPEED_ROWS = 3 };

static const enum role mark_roles[4] = {ROLE_KV, ROLE_WARN, ROLE_PREFIX, ROLE_RUNTIME};

static const char *mark(int i)
{
    static const char *utf8[4] = {"\u25cf", "\u25a0", "\u25b2", "\u25c6"};
    static const char *ascii[4] = {"*", "#", "+", "o"};
    return roles_utf8() ? utf8[i & 3] : ascii[i & 3];
}

/* The inputs some versus cards need: speculative decoding and the host tier
 * get a row on every card when any shown scenario has them, so the cards
 * line up and a card without one says so. */
struct versus_rows {
    bool spec, host;
    bool note;  /* a row for the notes: a card has one, or the rows are not short */
    bool note_beside; /* short rows: the notes beside the cards' titles, not under */
    int speed;  /* the rows of the speed and costs (card_speed) */
};

static const struct scenario *scenario_of(const struct planner *p, int slot)
{
    return &p->slots[slot].scenario;
}

static struct versus_rows versus_rows(const struct planner *p, const int *shown, int n)
{
    struct versus_rows v = {false, false, false, false, VERSUS_SPEED_ROWS};
    for (int k = 0; k < n; k++) {
        const struct scenario *s = scenario_of(p, shown[k]);
        v.spec = v.spec || s->spec_method != SPEC_NONE;
        v.host = v.host || s->host_kv_bytes > 0 || s->has_prefix_hit_rate;
        v.note = v.note || p->slots[shown[k]].note[0];
    }
    return v;
}

static int card_speed(const struct plan_result *res, enum unit_system u, int w, int rows,
                      char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE]);

/* The speed rows of the cards w wide when a panel has `h` rows (the count
 * in one): the most any card needs, at least three; without the notes'
 * row when the rows are short (a card's note then beside its title). */
static void versus_speed_rows(const struct planner *p, const int *shown, int n, int w, int h,
                              struct versus_rows *v)
{
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
    bool had_note = v->note;
    for (int pass = 0; pass < 2; pass++) {
        v->note = pass == 0;
        v->note_beside = had_note && pass == 1;
        /* title, notes, count, what it counts, what binds; GPUs, model, extras, bar, size */
        int fixed = 1 + v->note + 1 + 2 + 2 + v->spec + v->host + 2;
        int budget = h - fixed, most = VERSUS_SPEED_ROWS;
        for (int k = 0; k < n; k++) {
            const struct plan_result *res = planner_result_of(p, shown[k]);
            int m = card_speed(res, scenario_of(p, shown[k])->units, w, budget, lines);
            if (m > most)
                most = m;
        }
        v->speed = most < budget || budget < VERSUS_SPEED_ROWS ? most : budget;
        if (most <= budget)
            return;
    }
}

/* "draft Llama 3.2 1B, 4 tokens", "host KV 256 GiB/GPU, hit rate 80%" */
static void versus_extra(const struct scenario *s, const struct plan_result *res, bool spec,
                         char *buf, size_t size)
{
    char v[64], t[64];
    if (spec) {
        control_format(CTRL_DRAFT, s, res, v, sizeof v);
        if (s->spec_method == SPEC_NONE)
            snprintf(buf, size, "draft none");
        else
            snprintf(buf, size, "draft %s, %u token%s%s", v, res->spec.tokens,
                     res->spec.tokens == 1 ? "" : "s", s->spec_tokens ? "" : " (auto)");
        return;
    }
    control_format(CTRL_HOST_KV, s, res, v, sizeof v);
    if (s->has_prefix_hit_rate)
        snprintf(t, sizeof t, "%g%%", s->prefix_hit_rate * 100);
    else
        snprintf(t, sizeof t, "not given");
    if (s->host_kv_bytes > 0)
        snprintf(buf, size, "host KV %s, hit rate %s", v, t);
    else
        snprintf(buf, size, "host KV none");
}

/* The speed, the throughput, the first token and the costs of a card w
 * wide: the speeds, the first token and the costs a row each when they
 * fit, else as many a row as fit within `rows`, a band that fits beside its
 * figure in no form on a row of its own under it; never a figure or a
 * band left out (the input price goes first when the rows are short).
 * Returns the rows. */
static int card_speed(const struct plan_result *res, enum unit_system u, int w, int rows,
                      char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE])
{
    struct view_speed v;
    view_speed_of(res, u, &v);
    v.bands_under = true;
    return view_speed_lines(&v, w, rows > VERSUS_SPEED_ROWS ? rows : VERSUS_SPEED_ROWS, lines);
}

/* The speed rows of every card (`rows` of them, so the cards line up);
 * returns the row under them. */
static int panel_speed(const struct plan_result *res, enum unit_system u, struct rect r, int y,
                       int rows)
{
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
    struct view_speed v;
    view_speed_of(res, u, &v);
    int n = card_speed(res, u, r.w, rows, lines);
    for (int i = 0; i < n && i < rows; i++)
        widget_text(y + i, r.x, r.w, v.known ? ROLE_TEXT : ROLE_DIM, lines[i]);
    return y + rows;
}

/* The first row of a card that fits w: the one that fits of the rows
 * given, else the last cut with an ellipsis (never silently). */
static void card_row(int y, int x, int w, char rows[][160], int n)
{
    char cut[160];
    for (int i = 0; i < n; i++)
        if (view_cols(rows[i]) <= w || i == n - 1) {
            widget_text(y, x, w, ROLE_TEXT, widget_fit(rows[i], w, cut, sizeof cut));
            return;
        }
}

/* The card's count, what it counts and its change against the first card;
 * in big digits when the card has rows for them and everything under them
 * (`under`), else in one row. Returns the row under them. */
static int panel_count(const struct planner *p, int slot, int first, struct rect r, int y,
                       int scale, int under)
{
    const struct plan_result *res = planner_result_of(p, slot);
    const struct plan_result *ref = planner_result_of(p, first);
    const struct scenario *s = scenario_of(p, slot);
    char line[160], n[32], ctx[32];
    /* with a service level, the users who keep it lead; the fit count follows */
    uint64_t users = view_headline_users(s, res);
    uint64_t ref_users = view_headline_users(scenario_of(p, first), ref);
    units_format_int(users, n, sizeof n);
    if (widget_big_number_width(n, scale) + 1 <= r.w && y + 5 * scale + under <= r.y + r.h) {
        widget_big_number(y, r.x, n, scale, view_headline_role(s, res));
        y += 5 * scale;
    } else {
        snprintf(line, sizeof line, "%s users", n);
        widget_text(y++, r.x, r.w, view_headline_role(s, res), line);
    }
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    char level[96] = "", fit[32] = "", words[64];
    if (view_has_target(s)) {
        units_format_int(res->max_users, fit, sizeof fit);
        view_target_words(s, words, sizeof words);
        snprintf(level, sizeof level, " %s%s%s fit", words, view_sep(), fit);
    }
    /* the engine with its version, else its name alone, else none */
    char engine[64], rows[6][160];
    const struct engine_desc *e = engine_desc(res->profile);
    engine_version_title(res->profile, res->rule, engine, sizeof engine);
    const char *sep = e->server ? ", " : "";
    snprintf(rows[0], sizeof rows[0], "users%s at %s%s%s", level, ctx, sep, e->server ? engine : "");
    snprintf(rows[1], sizeof rows[1], "users%s at %s%s%s", level, ctx, sep, e->server ? e->title : "");
    snprintf(rows[2], sizeof rows[2], "users%s at %s", level, ctx);
    snprintf(rows[3], sizeof rows[3], "users%s", level[0] ? level : "");
    /* narrow, the level in a word, so that the memory count stays in sight */
    snprintf(rows[4], sizeof rows[4], "users at level%s%s fit", view_sep(), fit);
    snprintf(rows[5], sizeof rows[5], "at level%s%s fit", view_sep(), fit);
    card_row(y++, r.x, r.w, rows, level[0] ? 6 : 4);
    /* what limits them, after the change against the first card */
    char limit[48], binds[64], change[96] = "";
    view_limit_words(s, res, limit, sizeof limit);
    snprintf(binds, sizeof binds, "%s%s", limit, res->fits ? " binds" : "");
    int at = 0;
    if (slot != first) {
        double pct = ref_users > 0
                         ? 100.0 * ((double)users - (double)ref_users) / (double)ref_users : 0;
        if (ref_users > 0)
            snprintf(rows[0], sizeof rows[0], "%+.0f%% against %s", pct, p->slots[first].label);
        else
            snprintf(rows[0], sizeof rows[0], "against %s: 0 before", p->slots[first].label);
        snprintf(rows[1], sizeof rows[1], "%s%s", rows[0], view_sep());
        if (view_cols(rows[1]) + view_cols(binds) > r.w && ref_users > 0)
            snprintf(rows[1], sizeof rows[1], "%+.0f%%%s", pct, view_sep());
        snprintf(change, sizeof change, "%s", view_cols(rows[1]) + view_cols(binds) <= r.w
                                                   ? rows[1] : rows[0]);
        at = widget_text(y, r.x, r.w, users >= ref_users ? ROLE_GOOD : ROLE_BAD, change);
    }
    if (view_cols(change) + view_cols(binds) <= r.w)
        widget_text(y, r.x + at, r.w - at, res->fits ? ROLE_DIM : ROLE_BAD, binds);
    return y + 1;
}

/* The layout in full: "TP 4" (or the engine's words) for one replica of one
 * stage, "TP 2 x PP 2" for one of stages, "3 x TP 4" for replicas. */
static void card_layout(const struct plan_result *res, char *buf, size_t size)
{
    if (res->replicas <= 1 && res->pp <= 1)
        plan_layout_words(res, buf, size);
    else if (res->replicas <= 1)
        snprintf(buf, size, "TP %u x PP %u", res->tp, res->pp);
    else
        plan_layout_title(res, buf, size);
}

/* The GPUs and their layout, as the title names them; the GPU's id where
 * its name does not fit; narrower, the layout first, so that it shows. */
static void card_gpus(const struct scenario *s, const struct plan_result *res, struct rect r,
                      int y)
{
    char layout[64], rows[3][160];
    card_layout(res, layout, sizeof layout);
    snprintf(rows[0], sizeof rows[0], "%u x %s, %s", s->gpus, s->gpu.name, layout);
    snprintf(rows[1], sizeof rows[1], "%u x %s, %s", s->gpus, s->gpu.id, layout);
    snprintf(rows[2], sizeof rows[2], "%s, %u x %s", layout, s->gpus, s->gpu.id);
    card_row(y, r.x, r.w, rows, 3);
}

/* The model and the precisions of its weights and its cache; the model's
 * id where its name does not fit; narrower, the precisions first. */
static void card_model(const struct scenario *s, const struct plan_result *res, struct rect r,
                       int y)
{
    const char *w = plan_weights_label(res), *kv = dtype_info(res->kv_dtype)->name;
    char rows[4][160];
    snprintf(rows[0], sizeof rows[0], "%s, weights %s, %s cache", s->model.name, w, kv);
    snprintf(rows[1], sizeof rows[1], "%s, weights %s, %s cache", s->model.id, w, kv);
    snprintf(rows[2], sizeof rows[2], "%s, %s / %s cache", s->model.id, w, kv);
    snprintf(rows[3], sizeof rows[3], "%s/%s KV, %s", w, kv, s->model.id);
    card_row(y, r.x, r.w, rows, 4);
}

static void panel(const struct planner *p, int slot, int first, struct rect r, int scale,
                  struct versus_rows extra)
{
    int speed_rows = extra.speed;
    const struct plan_result *res = planner_result_of(p, slot);
    const struct scenario *s = scenario_of(p, slot);
    int k = slot, end = r.y + r.h;
    char line[160];
    snprintf(line, sizeof line, "%d %s%s", slot + 1, p->slots[slot].label,
             slot == p->reference ? " (reference)" : "");
    int y = r.y;
    widget_text(y, r.x, 2, mark_roles[k & 3], mark(k));
    int at = 2 + widget_text(y, r.x + 2, r.w - 2, slot == p->current ? ROLE_FOCUS : ROLE_TITLE,
                             line);
    /* a calibration measured on another GPU, model or engine: said on the
     * card, as the main screen's warnings say it */
    if (res && (res->warnings & WARN_CALIBRATION) && at + 3 < r.w) {
        char cut[64];
        at += widget_text(y, r.x + at, r.w - at, ROLE_BAD,
                          widget_fit(" ! calibration warned", r.w - at, cut, sizeof cut));
    }
    if (extra.note_beside && p->slots[slot].note[0] && at + 2 < r.w) { /* "1 A: its note" */
        char note[160], cut[160];
        snprintf(note, sizeof note, ": %s", p->slots[slot].note);
        widget_text(y, r.x + at, r.w - at, ROLE_DIM, widget_fit(note, r.w - at, cut, sizeof cut));
    }
    y++;
    if (extra.note) { /* a row for the notes when a card has one, else none */
        if (p->slots[slot].note[0])
            widget_text(y, r.x, r.w, ROLE_DIM, p->slots[slot].note);
        y++;
    }
    /* under the count: speed, GPUs, model, the extras, the bar and its size */
    int under = 2 + speed_rows + 2 + extra.spec + extra.host + 2;
    y = panel_count(p, slot, first, r, y, scale, under);
    if (y + speed_rows <= end)
        y = panel_speed(res, s->units, r, y, speed_rows);
    if (y < end)
        card_gpus(s, res, r, y++);
    if (y < end)
        card_model(s, res, r, y++);
    for (int e = 0; e < 2; e++) {
        if (!(e == 0 ? extra.spec : extra.host) || y >= end)
            continue;
        versus_extra(s, res, e == 0, line, sizeof line);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        struct bar_segment bs[SEG_COUNT];
        uint64_t seg[SEG_COUNT];
        plan_segments(res, seg);
        double total = (double)res->memory_bytes_per_gpu, sum = 0;
        for (int i = 0; i < SEG_COUNT; i++) {
            bs[i].role = view_segment_roles[i];
            bs[i].fraction = total > 0 ? (double)seg[i] / total : 0;
            sum += bs[i].fraction;
        }
        bool over = !res->weights_fit || sum > 1.0 + 1e-9;
        if (over)
            for (int i = 0; i < SEG_COUNT; i++)
                bs[i].fraction /= sum > 0 ? sum : 1;
        widget_bar(y++, r.x, r.w - 1, bs, SEG_COUNT, over);
        char mem[32];
        units_format_bytes(res->memory_bytes_per_gpu, s->units, mem, sizeof mem);
        snprintf(line, sizeof line, "each GPU: %s", mem);
        if (y < r.y + r.h)
            widget_text(y++, r.x, r.w, ROLE_DIM, line);
    }
}

static void chart(const struct planner *p, const int *shown, int n, struct rect r)
{
    if (r.h < 5 || r.w < 20)
        return;
    uint64_t top = 0;
    for (int k = 0; k < n; k++) {
        const struct users_curve *c = planner_curve_of(p, shown[k]);
        if (c->max_users > top)
            top = c->max_users;
    }
    char title[128], t[32];
    units_format_int(top, t, sizeof t);
    snprintf(title, sizeof title, "Users (log scale) against context tokens (log scale), peak %s",
             t);
    if ((int)strlen(title) > r.w)
        snprintf(title, sizeof title, "Users (log) against context (log), peak %s", t);
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    double span;
    struct rect plot = view_chart_axes((struct rect){r.x, r.y + 1, r.w, r.h - 2}, top, &span);
    /* each scenario its colour and its pattern of dots; the first on top;
     * none past its model's longest context (a rule there) */
    double y[4][CHART_POINTS];
    struct plot_series series[4];
    int m = n < 4 ? n : 4;
    for (int k = 0; k < m; k++) {
        uint64_t max = scenario_of(p, shown[k])->model.max_context_tokens;
        view_chart_heights(planner_curve_of(p, shown[k])->users, span, y[k]);
        view_chart_within(planner_curve_of(p, shown[k]), max, y[k]);
        view_chart_max_context(plot, max);
        series[k] = (struct plot_series){y[k], CHART_POINTS, mark_roles[shown[k] & 3],
                                         (enum plot_pattern)(k % PLOT_PATTERNS)};
    }
    widget_plot(plot, series, m);
    for (int k = n < 4 ? n - 1 : 3; k >= 0; k--)
        view_chart_mark(plot, scenario_of(p, shown[k])->context_tokens,
                        p->slots[shown[k]].result.max_users, span, mark(shown[k]),
                        mark_roles[shown[k] & 3]);
    int ay = r.y + r.h - 1, lx = r.x;
    for (int k = 0; k < n && k < 4 && lx < r.x + r.w; k++) {
        char item[64];
        snprintf(item, sizeof item, " %s   ", p->slots[shown[k]].label);
        widget_text(ay, lx, 1, mark_roles[shown[k] & 3], mark(shown[k]));
        widget_plot_sample(ay, lx + 1, 3, series[k].pattern, mark_roles[shown[k] & 3]);
        lx += 4 + widget_text(ay, lx + 4, r.x + r.w - lx - 4, ROLE_TEXT, item);
    }
    widget_text(ay, lx, r.x + r.w - lx, ROLE_DIM, "(mark: its context now)");
}

void view_draw_versus(const struct planner *p, int cols, int rows)
{
    int shown[4], n = planner_versus(p, shown);
    int first = shown[0];
    bool presented = p->base == MODE_PRESENT; /* for a shared screen: no hints, no key bar */
    view_fill_row(0, 0, cols, ROLE_KEY);
    char title[160], cut[160];
    /* the longest hint that fits whole; never one cut mid-word */
    static const char *const hints[] = {"   (1-6 edit one, m Markdown, v or Esc back)",
                                         "  (1-6 edit, m Markdown, Esc back)", "  (Esc back)", ""};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        snprintf(title, sizeof title, " kvplan  versus: %d scenarios against %s%s%s", n,
                 p->slots[first].label,
                 p->reference == first || i > 0 ? "" : " (the first; b sets a reference)",
                 presented ? "" : hints[i]);
        if ((int)strlen(title) <= cols)
            break;
    }
    widget_text(0, 0, cols, ROLE_KEY, widget_fit(title, cols, cut, sizeof cut));
    bool keybar = !presented;
    int bottom = rows - (keybar ? 1 : 0);
    /* the panels take what they need; the chart the rest (at least 6 rows) */
    int scale = presented && bottom >= 40 ? 2 : 1;
    struct versus_rows extra = versus_rows(p, shown, n);
    int pw = (cols - 2) / (n > 0 ? n : 1);
    versus_speed_rows(p, shown, n, pw - 2, bottom - 1 - 7 - 1, &extra);
    int need = 10 + extra.note + extra.speed + 5 * scale + (extra.spec ? 1 : 0) +
               (extra.host ? 1 : 0);
    int panel_h = bottom - 1 - 7 < need ? bottom - 1 - 7 : need;
    int chart_h = bottom - 1 - panel_h - 1;
    for (int k = 0; k < n; k++)
        panel(p, shown[k], first, (struct rect){1 + k * pw, 2, pw - 2, panel_h - 1}, scale,
              extra);
    chart(p, shown, n, (struct rect){1, 1 + panel_h, cols - 2, chart_h});
    if (keybar) {
        view_fill_row(rows - 1, 0, cols, ROLE_TEXT);
        if (p->error[0])
            widget_text(rows - 1, 0, cols, ROLE_BAD, p->error);
        else if (p->status[0])
            widget_text(rows - 1, 0, cols, ROLE_GOOD, p->status);
        else
            widget_text(rows - 1, 0, cols, ROLE_TEXT,
                        "1-6 edit one   m Markdown   p present   v/Esc back   q quit");
    }
}

static void versus_draw(const struct planner *p, int cols, int rows)
{
    if (layout_versus_fits(cols, rows))
        view_draw_versus(p, cols, rows);
    else
        view_draw_base(p); /* too small for it: the main screen */
}

static int versus_key(struct planner *p, int key)
{
    if (key == 'q' || key == 'Q')
        return keys_quit(p);
    if (key == 'p')
        return keys_present(p);
    if (key == 'm')
        return keys_markdown(p);
    if (key == 'g')
        return keys_svg(p);
    if (key == 27 && p->base == MODE_PRESENT) { /* Esc leaves the presentation, for versus */
        p->base = MODE_MAIN;
    } else if (key >= '1' && key <= '0' + p->count) {
        planner_switch(p, key - '1');
        p->mode = p->base;
    } else if (key == 'v' || key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER) {
        p->base = p->mode = MODE_MAIN;
    }
    return PLAN_REDRAW;
}

const struct screen screen_versus = {.draw = versus_draw, .key = versus_key};
