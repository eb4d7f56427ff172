#include "view_parts.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/view.h"

const enum role view_segment_roles[SEG_COUNT] = {
    [SEG_WEIGHTS] = ROLE_WEIGHTS, [SEG_RUNTIME] = ROLE_RUNTIME,     [SEG_DRAFT] = ROLE_DRAFT,
    [SEG_STATE] = ROLE_STATE,     [SEG_LORA] = ROLE_LORA,           [SEG_ENCODER] = ROLE_ENCODER,
    [SEG_PREFIX] = ROLE_PREFIX,   [SEG_USERS] = ROLE_KV,            [SEG_SPARE] = ROLE_REMAINDER,
    [SEG_RESERVED] = ROLE_HEADROOM};

void view_fill_row(int y, int x, int w, enum role role)
{
    widget_fill(y, x, w, role);
}

void view_box(int y, int x, int h, int w, const char *title)
{
    /* Explicit glyphs rather than ACS, so screen dumps read as drawn. */
    bool u = roles_utf8();
    const char *hz = u ? "\u2500" : "-", *vt = u ? "\u2502" : "|";
    const char *corner[4] = {u ? "\u250c" : "+", u ? "\u2510" : "+", u ? "\u2514" : "+",
                             u ? "\u2518" : "+"};
    for (int i = 0; i < h; i++)
        widget_fill(y + i, x, w, ROLE_TEXT);
    for (int i = 1; i < w - 1; i++) {
        widget_text(y, x + i, 1, ROLE_TITLE, hz);
        widget_text(y + h - 1, x + i, 1, ROLE_TITLE, hz);
    }
    for (int i = 1; i < h - 1; i++) {
        widget_text(y + i, x, 1, ROLE_TITLE, vt);
        widget_text(y + i, x + w - 1, 1, ROLE_TITLE, vt);
    }
    widget_text(y, x, 1, ROLE_TITLE, corner[0]);
    widget_text(y, x + w - 1, 1, ROLE_TITLE, corner[1]);
    widget_text(y + h - 1, x, 1, ROLE_TITLE, corner[2]);
    widget_text(y + h - 1, x + w - 1, 1, ROLE_TITLE, corner[3]);
    char cut[256];
    widget_text(y, x + 2, w - 4, ROLE_TITLE, widget_fit(title, w - 4, cut, sizeof cut));
}

void view_draw_too_small(int cols, int rows, int min_cols, int min_rows)
{
    char msg[96];
    snprintf(msg, sizeof msg, "Enlarge the terminal to %dx%d (it is %dx%d)", min_cols, min_rows,
             cols, rows);
    if ((int)strlen(msg) > cols)
        snprintf(msg, sizeof msg, "Enlarge: %dx%d", min_cols, min_rows);
    if ((int)strlen(msg) > cols)
        snprintf(msg, sizeof msg, "Enlarge");
    int len = (int)strlen(msg);
    widget_text(rows / 2, cols > len ? (cols - len) / 2 : 0, cols, ROLE_WARN, msg);
}

void view_keybar(struct rect r)
{
    int n;
    const struct planner_key_def *k = planner_keys(&n);
    view_fill_row(r.y, r.x, r.w, ROLE_TEXT);
    int x = r.x;
    for (int i = 0; i < n && x >= 0; i++)
        if (k[i].bar != NULL)
            x = view_key_item(r.y, x, r.x + r.w, k[i].name, k[i].bar);
}

int view_key_item(int y, int x, int end, const char *name, const char *what)
{
    int kw = (int)strlen(name), lw = (int)strlen(what);
    if (x + kw + 1 + lw > end)
        return -1;
    widget_text(y, x, kw, ROLE_KEY, name);
    widget_text(y, x + kw + 1, lw, ROLE_TEXT, what);
    return x + kw + 1 + lw + 2;
}

int view_keybar_key_at(struct rect bar, int x, int y)
{
    if (bar.h == 0 || y != bar.y)
        return 0;
    int n, cx = bar.x;
    const struct planner_key_def *k = planner_keys(&n);
    for (int i = 0; i < n; i++) {
        if (k[i].bar == NULL)
            continue;
        int w = (int)(strlen(k[i].name) + 1 + strlen(k[i].bar));
        if (x >= cx && x < cx + w)
            return k[i].key;
        cx += w + 2;
    }
    return 0;
}

/* The title narrower than its short form (beside six tabs at 70x22): the
 * scenario's context stays whole at its end (the engine, which its control
 * names, gives way), and the model, GPUs and layout before it are cut with
 * an ellipsis. */
static void title_keep_context(const struct scenario *s, const char *layout, const char *ctx,
                               int room, char *line, size_t size)
{
    char front[160], end[40], cut[168];
    snprintf(front, sizeof front, " %s, %u x %s%s", s->model.id, s->gpus, s->gpu.id, layout);
    snprintf(end, sizeof end, ", %s", ctx);
    int w = room - (int)strlen(end);
    snprintf(line, size, "%s%s", widget_fit(front, w > 2 ? w : 2, cut, sizeof cut), end);
}

void view_title(const struct planner *p, struct rect r)
{
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *res = planner_result(p);
    char line[256], ctx[32], layout[72] = "", group[64];
    view_fill_row(r.y, r.x, r.w, ROLE_KEY);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    if (res->pp > 1 || res->replicas > 1) { /* as the command line's title says it */
        plan_layout_title(res, group, sizeof group);
        snprintf(layout, sizeof layout, " (%s)", group);
    }
    char eng[64] = "";
    if (engine_desc(res->profile)->server)
        engine_version_title(res->profile, res->rule, eng, sizeof eng);
    const char *sep = eng[0] ? ", " : "";
    snprintf(line, sizeof line, " kvplan  %s on %u x %s%s at %s tokens%s%s", s->model.name,
             s->gpus, s->gpu.name, layout, ctx, sep, eng);
    /* narrower: ids instead of names, then no product name at all */
    int room = r.w - view_title_tail(p, r.w) - 1;
    if ((int)strlen(line) > room)
        snprintf(line, sizeof line, " kvplan  %s on %u x %s%s at %s%s%s", s->model.id, s->gpus,
                 s->gpu.id, layout, ctx, sep, eng);
    if ((int)strlen(line) > room)
        snprintf(line, sizeof line, " %s, %u x %s%s, %s%s%s", s->model.id, s->gpus, s->gpu.id,
                 layout, ctx, sep, eng);
    if ((int)strlen(line) > room)
        title_keep_context(s, layout, ctx, room, line, sizeof line);
    int tail = view_title_tail(p, r.w);
    char cut[sizeof line + 4]; /* narrower still: cut where seen */
    widget_text(r.y, r.x, r.w - tail - 1, ROLE_KEY, widget_fit(line, room, cut, sizeof cut));
    if (p->count > 1)
        view_tabs(p, r.y, r.x + r.w - tail, tail - 8, NULL);
    widget_text(r.y, r.x + r.w - 7, 7, ROLE_KEY, "? help ");
}

int view_title_tail(const struct planner *p, int w)
{
    if (p->count < 2)
        return 7;
    int want = 0;
    for (int i = 0; i < p->count; i++)
        want += (int)strlen(p->slots[i].label) + 4 + (i == p->reference);
    int most = w / 2;
    return (want < most ? want : most) + 8;
}

bool view_bar_segments(const struct planner *p, struct bar_segment bs[SEG_COUNT])
{
    const struct plan_result *r = planner_result(p);
    uint64_t seg[SEG_COUNT];
    plan_segments(r, seg);
    uint64_t total = r->memory_bytes_per_gpu;
    bool over = !r->weights_fit;
    for (int i = 0; i < SEG_COUNT; i++) {
        bs[i].role = view_segment_roles[i];
        bs[i].fraction = total > 0 ? (double)seg[i] / (double)total : 0;
    }
    if (over) {
        /* the weights fill the bar; the overflow mark says there is more */
        bs[SEG_WEIGHTS].fraction = 1.0;
        for (int i = 1; i < SEG_COUNT; i++)
            bs[i].fraction = 0;
        return over;
    }
    double sum = 0;
    for (int i = 0; i < SEG_COUNT; i++)
        sum += bs[i].fraction;
    if (sum > 1.0 + 1e-9) {
        /* what the engine needs outside the cache passes its memory: drawn to
         * scale within the bar, and the overflow mark says so */
        for (int i = 0; i < SEG_COUNT; i++)
            bs[i].fraction /= sum;
        over = true;
    }
    return over;
}

/* n bytes of src at the end of the text in buf (which has the room). */
static size_t put(char *buf, size_t at, const char *src, size_t n)
{
    memcpy(buf + at, src, n);
    buf[at + n] = '\0';
    return at + n;
}

/* The texts of the explain rows drawn lately, by the rows' whole content: a
 * step changes a few of the rows the pane shows, and writing a row's text
 * (its numbers formatted, its formula put together) costs more than
 * drawing it. Equal bytes, equal text; anything else is written again. */
enum { ROW_TEXTS = 16 };
static struct row_text {
    struct explain_row row;
    char formula[EXPLAIN_TEXT_MAX], result[EXPLAIN_VALUE_MAX];
    unsigned long used; /* when last asked for; 0: empty */
} row_texts[ROW_TEXTS];
static unsigned long row_clock;

static const struct row_text *row_text(const struct explain_row *row)
{
    struct row_text *oldest = &row_texts[0];
    for (int i = 0; i < ROW_TEXTS; i++) {
        struct row_text *t = &row_texts[i];
        if (t->used && memcmp(&t->row, row, sizeof *row) == 0) {
            t->used = ++row_clock;
            return t;
        }
        if (t->used < oldest->used)
            oldest = t;
    }
    explain_row_strings(row, oldest->formula, sizeof oldest->formula, oldest->result,
                        sizeof oldest->result);
    oldest->row = *row;
    oldest->used = ++row_clock;
    return oldest;
}

int view_explain_row(const struct explain_row *row, int y, int x, int w, int max_rows,
                     enum role role)
{
    const struct row_text *t = row_text(row);
    const char *formula = t->formula, *result = t->result;
    /* the formula, then " = value scope"; every part fits (no printf: each
     * frame writes the rows shown) */
    char text[EXPLAIN_TEXT_MAX + EXPLAIN_VALUE_MAX + EXPLAIN_KEY_MAX + 8];
    size_t flen = strlen(formula), len = put(text, 0, formula, flen);
    len = put(text, len, " = ", 3);
    len = put(text, len, result, strlen(result));
    if (row->scope[0]) {
        len = put(text, len, " ", 1);
        len = put(text, len, row->scope, strlen(row->scope));
    }
    const char *value = text + flen;
    widget_text(y, x, EXPLAIN_LABEL_W, ROLE_TITLE, row->label);
    int tw = w - EXPLAIN_LABEL_W;
    if (tw <= 0)
        return 1;
    char piece[sizeof text + 4];
    if (max_rows == 1 && (int)len > tw) {
        /* One row only: shorten the formula, never the value. */
        int keep = tw - (int)(len - flen) - 1;
        size_t k = keep > 0 ? (size_t)keep < flen ? (size_t)keep : flen : 0;
        const char *mark = roles_utf8() ? "\u2026" : "~";
        size_t n = put(piece, 0, formula, k);
        n = put(piece, n, mark, strlen(mark));
        put(piece, n, value, len - flen);
        widget_text(y, x + EXPLAIN_LABEL_W, tw, role, piece);
        return 1;
    }
    int rows = 0;
    const char *s = text;
    while (*s && rows < max_rows) {
        int left = (int)strlen(s), cut = left;
        if (left > tw) {
            cut = tw;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = tw;
        }
        put(piece, 0, s, (size_t)cut);
        widget_text(y + rows, x + EXPLAIN_LABEL_W, tw, role, piece);
        s += cut;
        while (*s == ' ')
            s++;
        rows++;
    }
    return rows;
}

enum role view_users_role(const struct plan_result *r)
{
    return !r->fits ? ROLE_BAD : r->max_users == 0 ? ROLE_WARN : ROLE_GOOD;
}

void view_baseline_text(const struct planner *p, char *buf, size_t size)
{
    const struct plan_result *ref = planner_reference(p);
    /* with a service level, the users served at it, as the headline counts them */
    uint64_t b0 = ref ? ref->speed.users_at_service_level : 0;
    uint64_t now = planner_result(p)->speed.users_at_service_level;
    char a[32], b[32];
    units_format_int(b0, a, sizeof a);
    units_format_int(now, b, sizeof b);
    const char *name = p->reference >= 0 ? p->slots[p->reference].label : "";
    const struct scenario *s = planner_scenario(p);
    const char *what = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0
                           ? "at the service level"
                       : now == 1 ? "user"
                                  : "users";
    if (b0 == 0)
        snprintf(buf, size, "%s %s -> %s %s", name, a, b, what);
    else
        snprintf(buf, size, "%s %s -> %s %s (%+.0f%%)", name, a, b, what,
                 100.0 * ((double)now - (double)b0) / (double)b0);
}

/* Tab i as the strip shows it, its name held to `cap` columns (cut with a
 * mark; 0 keeps it whole); returns its width. */
static int tab_text(const struct planner *p, int i, int cap, char *buf, size_t size)
{
    char cut[SNAPSHOT_LABEL_MAX + 4];
    const char *name =
        cap ? widget_fit(p->slots[i].label, cap, cut, sizeof cut) : p->slots[i].label;
    bool cur = i == p->current;
    snprintf(buf, size, "%c%d %s%s%c", cur ? '[' : ' ', i + 1, name, i == p->reference ? "*" : "",
             cur ? ']' : ' ');
    return view_cols(buf);
}

/* The mark counting n tabs left out before ("<2") or after ("+3>"). */
static int tabs_mark(bool before, int n, char *buf, size_t size)
{
    bool u = roles_utf8();
    if (before)
        snprintf(buf, size, " %s%d", u ? "\u2039" : "<", n);
    else
        snprintf(buf, size, " +%d%s", n, u ? "\u203a" : ">");
    return view_cols(buf);
}

/* The width of tabs first..last with names held to cap, and their marks. */
static int tabs_width(const struct planner *p, int first, int last, int cap)
{
    char tab[SNAPSHOT_LABEL_MAX + 16];
    int used = 0;
    for (int i = first; i <= last; i++)
        used += tab_text(p, i, cap, tab, sizeof tab);
    if (first > 0)
        used += tabs_mark(true, first, tab, sizeof tab);
    if (last < p->count - 1)
        used += tabs_mark(false, p->count - 1 - last, tab, sizeof tab);
    return used;
}

/* Which tabs the strip holds in w columns: every one with whole names, else
 * with names shortened (to a letter and a mark at least), else the current
 * and as many around it as fit, the others counted by the marks. */
static void tabs_choose(const struct planner *p, int w, int *first, int *last, int *cap)
{
    *first = 0, *last = p->count - 1, *cap = 0;
    if (tabs_width(p, 0, p->count - 1, 0) <= w)
        return;
    for (*cap = SNAPSHOT_LABEL_MAX - 2; *cap > 2; (*cap)--)
        if (tabs_width(p, 0, p->count - 1, *cap) <= w)
            return;
    *first = *last = p->current;
    for (bool grew = true; grew;) {
        grew = false;
        if (*last + 1 < p->count && tabs_width(p, *first, *last + 1, *cap) <= w)
            ++*last, grew = true;
        if (*first > 0 && tabs_width(p, *first - 1, *last, *cap) <= w)
            --*first, grew = true;
    }
}

/* One piece of the strip at cx: drawn, or hit by hit_x; returns its width. */
static int tabs_piece(int y, int cx, const char *text, enum role role, const int *hit_x, bool *hit)
{
    int tw = view_cols(text);
    if (hit_x)
        *hit = *hit_x >= cx && *hit_x < cx + tw;
    else
        widget_text(y, cx, tw, role, text);
    return tw;
}

int view_tabs(const struct planner *p, int y, int x, int w, int *hit_x)
{
    /* " 1 A [2 fp8*]": the current in brackets (seen in monochrome too) and
     * out of the bar's reverse video, the reference marked; the current is
     * always there, and the tabs left out are counted, never dropped unseen */
    int first, last, cap, cx = x;
    bool hit = false;
    tabs_choose(p, w, &first, &last, &cap);
    char tab[SNAPSHOT_LABEL_MAX + 16];
    if (first > 0) { /* a click on a mark goes to the next tab it counts */
        tabs_mark(true, first, tab, sizeof tab);
        cx += tabs_piece(y, cx, tab, ROLE_KEY, hit_x, &hit);
        if (hit)
            return first - 1;
    }
    for (int i = first; i <= last; i++) {
        tab_text(p, i, cap, tab, sizeof tab);
        cx += tabs_piece(y, cx, tab, i == p->current ? ROLE_TITLE : ROLE_KEY, hit_x, &hit);
        if (hit)
            return i;
    }
    if (last < p->count - 1) {
        tabs_mark(false, p->count - 1 - last, tab, sizeof tab);
        cx += tabs_piece(y, cx, tab, ROLE_KEY, hit_x, &hit);
        if (hit)
            return last + 1;
    }
    return hit_x ? -1 : cx - x;
}
