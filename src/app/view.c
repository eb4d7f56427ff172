#include "view.h"

#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/explain.h"
#include "tui/roles.h"
#include "tui/widgets.h"

/* The bottom bar: the same keys the keymap handles, clickable. */
static const struct {
    int key;
    const char *name, *label;
} keybar[] = {{'?', "?", "help"},       {'q', "q", "quit"},     {'\n', "Enter", "edit"},
              {'b', "b", "baseline"},   {'c', "c", "compare"},  {'p', "p", "present"},
              {'e', "e", "export"},     {'o', "o", "open"},     {'u', "u", "GiB/GB"},
              {'r', "r", "reset"}};

enum { LABEL_W = 10, VALUE_W = 13 };

static const enum role segment_roles[SEG_COUNT] = {ROLE_WEIGHTS, ROLE_PREFIX, ROLE_KV,
                                                   ROLE_REMAINDER, ROLE_HEADROOM};

static struct planner_layout current_layout(void)
{
    return layout_compute(COLS, LINES, CTRL_COUNT);
}

static void fill_row(int y, int x, int w, enum role role)
{
    attr_t a = role_attr(role);
    attron(a);
    mvhline(y, x, ' ', w);
    attroff(a);
}

static void draw_title(const struct planner *p, struct rect r)
{
    const struct scenario *s = &p->scenario;
    char line[256], ctx[32];
    fill_row(r.y, r.x, r.w, ROLE_KEY);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    snprintf(line, sizeof line, " kvplan  %s on %u x %s at %s tokens%s%s", s->model.name, s->gpus,
             s->gpu.name, ctx, s->engine.kind != ENGINE_GENERIC ? ", " : "",
             s->engine.kind != ENGINE_GENERIC ? engine_label(s->engine.kind, s->engine.rule) : "");
    widget_text(r.y, r.x, r.w - 8, ROLE_KEY, line);
    widget_text(r.y, r.x + r.w - 7, 7, ROLE_KEY, "? help ");
}

static void draw_info(const struct planner *p, struct rect r)
{
    const struct scenario *s = &p->scenario;
    const struct model_spec *m = &s->model;
    char line[600], mem[32], maxc[32], heads[64];
    units_format_bytes(p->result.gpu_memory_bytes_per_gpu, s->units, mem, sizeof mem);
    units_format_tokens_short(m->max_context_tokens, maxc, sizeof maxc);
    if (m->attention == ATTENTION_MLA)
        snprintf(heads, sizeof heads, "MLA latent %u+%u", m->kv_lora_rank, m->qk_rope_head_dim);
    else
        snprintf(heads, sizeof heads, "%s %u KV / %u heads, head_dim %u",
                 spec_attention_name(m->attention), m->kv_heads, m->attention_heads, m->head_dim);
    snprintf(line, sizeof line, "%.2fB params, %u layers, %s%s%s, max %s  |  %s: %s, %.2f TB/s%s",
             (double)m->params / 1e9, m->layers, heads, m->windowed_layers ? ", windows " : "",
             m->windowed_layers ? m->window_pattern : "", maxc, s->gpu.id, mem,
             (double)s->gpu.bandwidth_bytes_per_s / 1e12, s->gpu.fp8 ? ", fp8" : "");
    if ((int)strlen(line) > r.w) {
        /* narrow screens: the same facts, tersely */
        if (m->attention == ATTENTION_MLA)
            snprintf(heads, sizeof heads, "MLA %u+%u", m->kv_lora_rank, m->qk_rope_head_dim);
        else
            snprintf(heads, sizeof heads, "%s %u/%u, hd %u", spec_attention_name(m->attention),
                     m->kv_heads, m->attention_heads, m->head_dim);
        snprintf(line, sizeof line, "%.2fB, %u layers, %s%s, max %s | %s, %.2f TB/s%s",
                 (double)m->params / 1e9, m->layers, heads, m->windowed_layers ? ", SWA" : "",
                 maxc, mem, (double)s->gpu.bandwidth_bytes_per_s / 1e12,
                 s->gpu.fp8 ? ", fp8" : "");
    }
    widget_text(r.y, r.x, r.w, ROLE_DIM, line);
}

static void control_geometry(struct rect area, int *track_x, int *track_w)
{
    *track_x = area.x + LABEL_W + 1;
    *track_w = area.w - LABEL_W - VALUE_W - 2;
}

static void draw_controls(const struct planner *p, const struct planner_layout *l)
{
    struct rect r = l->controls;
    int tx, tw;
    control_geometry(r, &tx, &tw);
    for (int c = 0; c < CTRL_COUNT; c++) {
        int y = r.y + c * l->control_pitch;
        if (y >= r.y + r.h)
            break;
        bool focus = c == p->focus;
        char value[128];
        planner_control_value(p, (enum control)c, value, sizeof value);
        widget_text(y, r.x, LABEL_W, focus ? ROLE_FOCUS : ROLE_TEXT,
                    planner_control_label((enum control)c));
        if (focus)
            widget_text(y, r.x + (int)strlen(planner_control_label((enum control)c)), 1,
                        ROLE_FOCUS, " ");
        double f = planner_control_fraction(p, (enum control)c);
        if (f < 0) {
            char shown[160];
            snprintf(shown, sizeof shown, "%s %s %s", roles_utf8() ? "\u25c2" : "<", value,
                     roles_utf8() ? "\u25b8" : ">");
            widget_text(y, tx, tw + VALUE_W + 1, focus ? ROLE_TITLE : ROLE_TEXT, shown);
        } else {
            widget_slider(y, tx, tw, f, focus);
            widget_text(y, tx + tw + 1, VALUE_W, focus ? ROLE_TITLE : ROLE_TEXT, value);
        }
    }
}

static enum role users_role(const struct planner *p)
{
    const struct plan_result *r = &p->result;
    if (p->scenario.engine.kind != ENGINE_GENERIC)
        return !r->engine.fits ? ROLE_BAD : r->engine.users == 0 ? ROLE_WARN : ROLE_GOOD;
    return !r->fits ? ROLE_BAD : r->max_users == 0 ? ROLE_WARN : ROLE_GOOD;
}

static void baseline_text(const struct planner *p, char *buf, size_t size)
{
    uint64_t b0 = p->baseline.engine.kind == ENGINE_GENERIC ? p->baseline_result.max_users
                                                            : p->baseline_result.engine.users;
    uint64_t now = planner_users(p);
    if (b0 == 0)
        snprintf(buf, size, "baseline %llu -> %llu users", (unsigned long long)b0,
                 (unsigned long long)now);
    else
        snprintf(buf, size, "baseline %llu -> %llu users (%+.0f%%)", (unsigned long long)b0,
                 (unsigned long long)now, 100.0 * ((double)now - (double)b0) / (double)b0);
}

static void draw_summary(const struct planner *p, const struct planner_layout *l)
{
    struct rect r = l->summary;
    const struct plan_result *res = &p->result;
    const struct scenario *s = &p->scenario;
    char n[32], line[256], a[32], b[32], ctx[32];
    bool engine = s->engine.kind != ENGINE_GENERIC;
    units_format_int(planner_users(p), n, sizeof n);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    int y = r.y;
    if (l->big_digits && widget_big_number_width(n, 1) + 7 <= r.w) {
        int w = widget_big_number(y, r.x, n, 1, users_role(p));
        widget_text(y + 3, r.x + w + 2, r.w - w - 2, ROLE_TEXT, "users");
        snprintf(line, sizeof line, "at %s%s%s", ctx, engine ? ", " : "",
                 engine ? engine_name(s->engine.kind) : "");
        widget_text(y + 4, r.x + w + 2, r.w - w - 2, ROLE_DIM, line);
        y += 5;
    } else {
        snprintf(line, sizeof line, "%s users at %s", n, ctx);
        widget_text(y++, r.x, r.w, users_role(p), line);
    }
    if (p->has_baseline) {
        baseline_text(p, line, sizeof line);
        bool better = strstr(line, "(-") == NULL;
        widget_text(y++, r.x, r.w, better ? ROLE_GOOD : ROLE_BAD, line);
    }
    if (!res->fits) {
        units_format_bytes(res->shortfall_bytes, s->units, a, sizeof a);
        snprintf(line, sizeof line, "weights do not fit: %s short", a);
        widget_text(y++, r.x, r.w, ROLE_BAD, line);
    }
    if (engine && y < r.y + r.h) {
        units_format_int(res->max_users, a, sizeof a);
        snprintf(line, sizeof line, "%.2fx concurrency; generic %s", res->engine.max_concurrency, a);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    } else if (y < r.y + r.h) {
        units_format_int(res->max_users_paged, a, sizeof a);
        units_format_tokens_short(res->avg_context_tokens, b, sizeof b);
        snprintf(line, sizeof line, "paged: %s users at %s in use", a, b);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        units_format_bytes(res->kv_bytes_per_user, s->units, a, sizeof a);
        units_format_bytes_exact(res->kv_bytes_per_token_per_gpu, b, sizeof b);
        snprintf(line, sizeof line, "%s/user, %s/token", a, b);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        units_format_int(res->kv_tokens, a, sizeof a);
        snprintf(line, sizeof line, "%s tokens held", a);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        char cost[32] = "price n/a", dec[40] = "";
        if (res->cost_per_user_hour >= 0)
            snprintf(cost, sizeof cost, "$%.3f/user-h", res->cost_per_user_hour);
        if (res->decode_tokens_per_s_per_user > 0)
            snprintf(dec, sizeof dec, ", <=%.0f tok/s/user", res->decode_tokens_per_s_per_user);
        snprintf(line, sizeof line, "%s%s", cost, dec);
        widget_text(y++, r.x, r.w, ROLE_DIM, line);
    }
}

/* The memory of one GPU in five parts: the generic budget's, or, with an
 * engine, weights / activation and runtime / KV cache / unused budget /
 * outside the engine's fraction. */
static const char *engine_segment_names[SEG_COUNT] = {"weights", "activations+rt", "KV cache",
                                                      "unused budget", "outside budget"};

static void segment_bytes(const struct planner *p, uint64_t seg[SEG_COUNT], uint64_t *total)
{
    const struct plan_result *res = &p->result;
    if (p->scenario.engine.kind == ENGINE_GENERIC) {
        capacity_segments(res, seg);
        for (int i = 0; i < SEG_COUNT; i++)
            seg[i] /= res->tp; /* one GPU's share of the replica */
        *total = res->gpu_memory_bytes_per_gpu;
        return;
    }
    const struct engine_result *e = &res->engine;
    uint64_t t = e->gpu_total_bytes, used = 0;
    seg[SEG_WEIGHTS] = e->weights_bytes < t ? e->weights_bytes : t;
    used += seg[SEG_WEIGHTS];
    uint64_t other = e->non_kv_bytes > e->weights_bytes ? e->non_kv_bytes - e->weights_bytes : 0;
    seg[SEG_PREFIX] = other < t - used ? other : t - used;
    used += seg[SEG_PREFIX];
    seg[SEG_USERS] = e->kv_cache_bytes_per_gpu < t - used ? e->kv_cache_bytes_per_gpu : t - used;
    used += seg[SEG_USERS];
    uint64_t budget = e->budget_bytes < t ? e->budget_bytes : t;
    seg[SEG_REMAINDER] = budget > used ? budget - used : 0;
    used += seg[SEG_REMAINDER];
    seg[SEG_HEADROOM] = t - used;
    *total = t;
}

static const char *segment_name(const struct planner *p, int i)
{
    return p->scenario.engine.kind == ENGINE_GENERIC ? capacity_segment_name((enum segment)i)
                                                      : engine_segment_names[i];
}

static bool bar_segments(const struct planner *p, struct bar_segment *bs)
{
    uint64_t seg[SEG_COUNT], total;
    segment_bytes(p, seg, &total);
    bool over = p->scenario.engine.kind == ENGINE_GENERIC ? !p->result.fits
                                                          : !p->result.engine.fits;
    for (int i = 0; i < SEG_COUNT; i++) {
        bs[i].role = segment_roles[i];
        bs[i].fraction = total > 0 ? (double)seg[i] / (double)total : 0;
    }
    if (over && p->scenario.engine.kind == ENGINE_GENERIC) {
        /* the weights fill the bar; the overflow mark says there is more */
        bs[SEG_WEIGHTS].fraction = 1.0;
        for (int i = 1; i < SEG_COUNT; i++)
            bs[i].fraction = 0;
    }
    return over;
}

static void draw_bar(const struct planner *p, struct rect r)
{
    if (r.h < 2)
        return;
    const struct scenario *s = &p->scenario;
    struct bar_segment bs[SEG_COUNT];
    bool over = bar_segments(p, bs);
    uint64_t seg[SEG_COUNT], total_bytes;
    segment_bytes(p, seg, &total_bytes);
    char title[96], total[32], count[32] = "";
    units_format_bytes(total_bytes, s->units, total, sizeof total);
    if (s->gpus > 1)
        snprintf(count, sizeof count, ", %u GPUs alike", s->gpus);
    snprintf(title, sizeof title, "Memory of each GPU: %s%s%s", total, count,
             s->engine.kind != ENGINE_GENERIC ? " (CUDA)" : "");
    if ((int)strlen(title) > r.w)
        snprintf(title, sizeof title, "Each GPU%s: %s", s->gpus > 1 ? " (all alike)" : "", total);
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    widget_bar(r.y + 1, r.x, r.w, bs, SEG_COUNT, over);
    for (int i = 0; i < SEG_COUNT && r.y + 2 + i < r.y + r.h; i++) {
        char size[32], line[96];
        uint64_t shown = i == SEG_WEIGHTS && s->engine.kind == ENGINE_GENERIC
                             ? p->result.weights_bytes_per_gpu
                             : seg[i];
        units_format_bytes(shown, s->units, size, sizeof size);
        int y = r.y + 2 + i;
        widget_text(y, r.x, 1, segment_roles[i], role_glyph(segment_roles[i]));
        widget_text(y, r.x + 1, 1, segment_roles[i], role_glyph(segment_roles[i]));
        snprintf(line, sizeof line, "%-14s%12s", segment_name(p, i), size);
        widget_text(y, r.x + 3, r.w - 3, i == SEG_WEIGHTS && over ? ROLE_BAD : ROLE_TEXT, line);
    }
}

static void draw_chart(const struct planner *p, struct rect r)
{
    if (r.h < 6 || r.w < 20)
        return;
    const struct users_curve *c = &p->curve;
    char title[96], top[32];
    units_format_int(c->max_users, top, sizeof top);
    snprintf(title, sizeof title, "Users against context (log scale), peak %s", top);
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    struct rect plot = {r.x, r.y + 1, r.w, r.h - 3};
    double values[512];
    int n = plot.w < 512 ? plot.w : 512;
    int marker = -1;
    for (int col = 0; col < n; col++) {
        int i = n > 1 ? col * (CHART_POINTS - 1) / (n - 1) : 0;
        values[col] = c->max_users ? (double)c->users[i] / (double)c->max_users : 0;
    }
    /* The current context's column, from its log position between 1k and 1M. */
    uint64_t ctx = p->scenario.context_tokens;
    if (ctx >= 1024 && ctx <= 1024 * 1024) {
        for (int col = 0; col < n; col++) {
            int i = n > 1 ? col * (CHART_POINTS - 1) / (n - 1) : 0;
            if (c->context_tokens[i] <= ctx)
                marker = col;
        }
    }
    widget_columns(plot, values, n, marker, ROLE_KV, ROLE_TITLE);
    /* The axis: 1k, 4k, ... 1M under their columns. */
    int ay = plot.y + plot.h;
    attron(role_attr(ROLE_DIM));
    mvhline(ay, plot.x, roles_utf8() ? 0 : '-', plot.w);
    attroff(role_attr(ROLE_DIM));
    fill_row(ay, plot.x, plot.w, ROLE_TEXT);
    static const char *ticks[] = {"1k", "4k", "16k", "64k", "256k", "1M"};
    for (int t = 0; t < 6; t++) {
        int col = t * 2 * (n - 1) / 10; /* every two octaves of the ten */
        int len = (int)strlen(ticks[t]);
        int x = plot.x + col - (t == 5 ? len - 1 : 0);
        widget_text(ay, x, len, ROLE_DIM, ticks[t]);
    }
    if (marker >= 0) {
        char here[48], ctxs[32];
        units_format_tokens_short(ctx, ctxs, sizeof ctxs);
        snprintf(here, sizeof here, "%s now: %llu users", ctxs,
                 (unsigned long long)p->result.max_users);
        int x = plot.x + marker - (int)strlen(here) / 2;
        if (x < plot.x)
            x = plot.x;
        if (x + (int)strlen(here) > plot.x + plot.w)
            x = plot.x + plot.w - (int)strlen(here);
        widget_text(ay + 1, x, (int)strlen(here), ROLE_TITLE, here);
    }
}

/* Writes label, then the formula wrapped to the pane, then "= value". */
static int draw_explain_line(const struct explain_line *l, int y, int x, int w, int max_rows,
                             enum role role)
{
    char text[EXPLAIN_TEXT_MAX + 96];
    snprintf(text, sizeof text, "%s = %s", l->formula, l->value);
    int label_w = 19;
    widget_text(y, x, label_w, ROLE_TITLE, l->label);
    int tw = w - label_w;
    if (max_rows == 1 && (int)strlen(text) > tw) {
        /* One row only: shorten the formula, never the value. */
        char value[EXPLAIN_LABEL_MAX * 2 + 8];
        snprintf(value, sizeof value, " = %s", l->value);
        int keep = tw - (int)strlen(value) - 1;
        if (keep < 0)
            keep = 0;
        char piece[512];
        snprintf(piece, sizeof piece, "%.*s%s%s", keep, l->formula, roles_utf8() ? "\u2026" : "~",
                 value);
        widget_text(y, x + label_w, tw, role, piece);
        return 1;
    }
    int rows = 0;
    const char *s = text;
    while (*s && rows < max_rows) {
        int len = (int)strlen(s);
        int cut = len;
        if (len > tw) {
            cut = tw;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = tw;
        }
        char piece[512];
        snprintf(piece, sizeof piece, "%.*s", cut, s);
        widget_text(y + rows, x + label_w, tw, role, piece);
        s += cut;
        while (*s == ' ')
            s++;
        rows++;
    }
    return rows;
}

static void draw_explain(const struct planner *p, struct rect r)
{
    const struct explain *e = &p->explain;
    widget_text(r.y, r.x, r.w, ROLE_TITLE, "How the number is computed");
    static const char *order[] = {"users",    "pool",      "kv_per_user", "kv_per_token",
                                  "windows",  "prefix",    "users_paged", "waste",
                                  "kv_tokens", "cost",     "decode"};
    const struct explain_line *lines[16];
    int n = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if ((lines[n] = explain_find(e, order[i])) != NULL)
            n++;
    int y = r.y + 1, end = r.y + r.h;
    if (p->scenario.engine.kind != ENGINE_GENERIC) {
        /* the engine's own rule, then its launch command, then the generic derivation */
        struct explain_line el;
        memset(&el, 0, sizeof el);
        snprintf(el.label, sizeof el.label, "%s", engine_name(p->scenario.engine.kind));
        snprintf(el.formula, sizeof el.formula, "%s", p->result.engine.note);
        snprintf(el.value, sizeof el.value, "%.2fx", p->result.engine.max_concurrency);
        y += draw_explain_line(&el, y, r.x, r.w, end - y >= n + 2 ? 2 : 1, ROLE_TEXT);
        if (y < end) {
            widget_text(y, r.x, 19, ROLE_TITLE, "Launch");
            widget_text(y++, r.x + 19, r.w - 19, ROLE_GOOD, p->result.engine.launch);
        }
    }
    for (int i = 0; i < n && y < end; i++) {
        /* The users line may take every row it needs; the others wrap to a
         * second row while that leaves one row for each line still to come. */
        int spare = end - y - (n - i - 1);
        int max_rows = i == 0 ? end - y : spare >= 2 ? 2 : 1;
        y += draw_explain_line(lines[i], y, r.x, r.w, max_rows, i == 0 ? ROLE_TEXT : ROLE_DIM);
    }
}

static void draw_status(const struct planner *p, struct rect r)
{
    if (p->error[0]) {
        widget_text(r.y, r.x, r.w, ROLE_BAD, p->error);
        return;
    }
    if (p->status[0]) {
        widget_text(r.y, r.x, r.w, ROLE_GOOD, p->status);
        return;
    }
    uint32_t w = p->result.warnings &
                 ~(uint32_t)(WARN_PRICE_UNKNOWN | WARN_BANDWIDTH_UNKNOWN | WARN_MLA_REPLICATED);
    char line[1024] = "";
    size_t used = 0;
    for (uint32_t bit = 1; bit <= WARN_ENGINE_DTYPE; bit <<= 1) {
        if (!(w & bit))
            continue;
        int n = snprintf(line + used, sizeof line - used, "%s%s", used ? "; " : "! ",
                         capacity_warning_text((enum plan_warning)bit));
        if (n < 0 || (size_t)n >= sizeof line - used)
            break;
        used += (size_t)n;
    }
    widget_text(r.y, r.x, r.w, ROLE_WARN, line);
}

static void draw_keybar(struct rect r)
{
    fill_row(r.y, r.x, r.w, ROLE_TEXT);
    int x = r.x;
    for (size_t i = 0; i < sizeof keybar / sizeof keybar[0]; i++) {
        int kw = (int)strlen(keybar[i].name), lw = (int)strlen(keybar[i].label);
        if (x + kw + 1 + lw > r.x + r.w)
            break;
        widget_text(r.y, x, kw, ROLE_KEY, keybar[i].name);
        widget_text(r.y, x + kw + 1, lw, ROLE_TEXT, keybar[i].label);
        x += kw + 1 + lw + 2;
    }
}

int view_keybar_key_at(int x, int y)
{
    if (y != LINES - 1)
        return 0;
    int cx = 0;
    for (size_t i = 0; i < sizeof keybar / sizeof keybar[0]; i++) {
        int w = (int)(strlen(keybar[i].name) + 1 + strlen(keybar[i].label));
        if (x >= cx && x < cx + w)
            return keybar[i].key;
        cx += w + 2;
    }
    return 0;
}

bool view_track(const struct planner *p, int *track_x, int *track_w)
{
    if (p->presentation) {
        struct presentation_layout pl = layout_presentation(COLS, LINES);
        if (pl.too_small)
            return false;
        *track_x = pl.slider.x + LABEL_W + 1;
        *track_w = pl.slider.w - LABEL_W - VALUE_W - 2;
        return true;
    }
    struct planner_layout l = current_layout();
    if (l.too_small)
        return false;
    control_geometry(l.controls, track_x, track_w);
    return true;
}

int view_control_at(const struct planner *p, int x, int y, int *track_x, int *track_w)
{
    if (p->presentation) {
        struct presentation_layout pl = layout_presentation(COLS, LINES);
        if (pl.too_small || y != pl.slider.y)
            return -1;
        view_track(p, track_x, track_w);
        return p->focus;
    }
    struct planner_layout l = current_layout();
    if (l.too_small)
        return -1;
    struct rect r = l.controls;
    if (y < r.y || x < r.x || x >= r.x + r.w || (y - r.y) % l.control_pitch != 0)
        return -1;
    int c = (y - r.y) / l.control_pitch;
    if (c >= CTRL_COUNT)
        return -1;
    control_geometry(r, track_x, track_w);
    return c;
}

static void draw_box(int y, int x, int h, int w, const char *title)
{
    /* Explicit glyphs rather than ACS, so screen dumps read as drawn. */
    bool u = roles_utf8();
    const char *hz = u ? "\u2500" : "-", *vt = u ? "\u2502" : "|";
    const char *corner[4] = {u ? "\u250c" : "+", u ? "\u2510" : "+", u ? "\u2514" : "+",
                             u ? "\u2518" : "+"};
    for (int i = 0; i < h; i++)
        mvhline(y + i, x, ' ', w);
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
    widget_text(y, x + 2, w - 4, ROLE_TITLE, title);
}

static void draw_picker(const struct planner *p)
{
    int w = COLS - 2, h = LINES - 2;
    int x = 1, y = 1;
    bool gpu = p->picker_for == CTRL_GPU;
    char title[128];
    snprintf(title, sizeof title, " %s: type to filter [%s%s] Enter picks, Esc cancels ",
             gpu ? "GPU" : "Model", p->filter, roles_utf8() ? "\u2581" : "_");
    draw_box(y, x, h, w, title);
    int idx[512];
    int n = planner_picker_matches(p, idx, 512);
    int rows = h - 3;
    char head[256];
    if (gpu)
        snprintf(head, sizeof head, "%-15s %-40s %11s %10s %4s %7s", "ID", "NAME", "MEMORY",
                 "BANDWIDTH", "FP8", "$/HOUR");
    else
        snprintf(head, sizeof head, "%-18s %-26s %8s %6s %-13s %9s %6s", "ID", "NAME", "PARAMS",
                 "LAYERS", "ATTENTION", "KV/TOKEN", "MAX");
    widget_text(y + 1, x + 2, w - 4, ROLE_DIM, head);
    int top = p->picker_sel >= rows ? p->picker_sel - rows + 1 : 0;
    for (int i = 0; i < rows && top + i < n; i++) {
        char line[256], a[32], b[32];
        int k = idx[top + i];
        if (gpu) {
            const struct gpu_spec *g = &p->catalog->gpus[k].spec;
            char price[16] = "-";
            if (g->price_usd_per_hour >= 0)
                snprintf(price, sizeof price, "%.2f", g->price_usd_per_hour);
            units_format_bytes(g->memory_bytes, p->scenario.units, a, sizeof a);
            snprintf(line, sizeof line, "%-15s %-40.40s %11s %5.2f TB/s %4s %7s", g->id, g->name,
                     a, (double)g->bandwidth_bytes_per_s / 1e12, g->fp8 ? "yes" : "no", price);
        } else {
            const struct model_spec *m = &p->catalog->models[k].spec;
            char heads[24];
            if (m->attention == ATTENTION_MLA)
                snprintf(heads, sizeof heads, "MLA latent");
            else
                snprintf(heads, sizeof heads, "%s %u/%u", spec_attention_name(m->attention),
                         m->kv_heads, m->attention_heads);
            units_format_bytes_exact(capacity_model_kv_bytes_per_token(m), a, sizeof a);
            units_format_tokens_short(m->max_context_tokens, b, sizeof b);
            snprintf(line, sizeof line, "%-18s %-26.26s %7.1fB %6u %-13s %9s %6s", m->id, m->name,
                     (double)m->params / 1e9, m->layers, heads, a, b);
        }
        bool sel = top + i == p->picker_sel;
        if (sel)
            fill_row(y + 2 + i, x + 1, w - 2, ROLE_FOCUS);
        widget_text(y + 2 + i, x + 2, w - 4, sel ? ROLE_FOCUS : ROLE_TEXT, line);
    }
    if (n == 0)
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN, "no preset matches");
}

static void draw_help(void)
{
    static const char *lines[] = {
        "Up/Down, Tab/Shift-Tab   move between controls",
        "Left/Right               step the focused control",
        "Shift-Left/Right, PgUp/PgDn   big step",
        "Home/End                 to either end",
        "Enter or a digit         type an exact value: 32k, 1M, fp8, 12.5",
        "Enter on GPU or Model    pick from the catalogue, typing filters",
        "r / R                    reset this control / every control",
        "u                        show GiB or GB",
        "b                        keep this scenario as the baseline",
        "c                        compare the baseline with now",
        "p                        presentation mode (Esc leaves)",
        "e / o                    export / open a JSON snapshot",
        "mouse                    click to focus, drag a knob, wheel steps",
        "q                        quit",
        "",
        "Bar glyphs without colour: weights #, prefix %, users' KV =,",
        "remainder :, headroom . (Unicode shades where the locale allows).",
        "",
        "Any key closes this help.",
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    int w = COLS - 4 < 74 ? COLS - 4 : 74, h = n + 2 < LINES ? n + 2 : LINES;
    int x = (COLS - w) / 2, y = (LINES - h) / 2;
    draw_box(y, x, h, w, " Keys ");
    for (int i = 0; i < n && i < h - 2; i++)
        widget_text(y + 1 + i, x + 2, w - 4, ROLE_TEXT, lines[i]);
}

static void draw_prompt(const struct planner *p)
{
    char line[PLANNER_TEXT_MAX + 96];
    int y = LINES - 1;
    fill_row(y, 0, COLS, ROLE_TEXT);
    if (p->mode == MODE_CONFIRM)
        snprintf(line, sizeof line, "%s exists. Overwrite it? (y/N) ", p->pending_path);
    else if (p->prompt_kind == PROMPT_EXPORT)
        snprintf(line, sizeof line, "Export to: %s_   (Enter writes, Esc cancels)", p->prompt);
    else if (p->prompt_kind == PROMPT_OPEN)
        snprintf(line, sizeof line, "Open snapshot: %s_   (Enter opens, Esc cancels)", p->prompt);
    else
        snprintf(line, sizeof line, "%s = %s_   (Enter applies, Esc cancels)",
                 planner_control_label((enum control)p->focus), p->prompt);
    widget_text(y, 0, COLS, ROLE_TITLE, line);
}

/* One row of the compare table: label, baseline, now; highlighted when they differ. */
static void compare_row(int y, int x, int w, const char *label, const char *before,
                        const char *now, const char *delta)
{
    bool differ = strcmp(before, now) != 0;
    int cw = (w - 22) / 3;
    widget_text(y, x, 20, ROLE_TEXT, label);
    widget_text(y, x + 22, cw - 1, differ ? ROLE_DIM : ROLE_TEXT, before);
    widget_text(y, x + 22 + cw, cw - 1, differ ? ROLE_TITLE : ROLE_TEXT, now);
    if (delta && delta[0])
        widget_text(y, x + 22 + 2 * cw, cw, differ ? ROLE_WARN : ROLE_DIM, delta);
}

static void pct_delta(uint64_t before, uint64_t now, char *buf, size_t size)
{
    if (before == now)
        snprintf(buf, size, "=");
    else if (before == 0)
        snprintf(buf, size, "new");
    else
        snprintf(buf, size, "%+.1f%%", 100.0 * ((double)now - (double)before) / (double)before);
}

static void draw_compare(const struct planner *p)
{
    int w = COLS - 2, h = LINES - 2;
    draw_box(0, 1, h, w, " Compare: baseline against now (c or Esc returns) ");
    int x = 3, y = 2;
    int cw = (w - 4 - 22) / 3;
    widget_text(y, x + 22, cw, ROLE_TITLE, "BASELINE");
    widget_text(y, x + 22 + cw, cw, ROLE_TITLE, "NOW");
    widget_text(y, x + 22 + 2 * cw, cw, ROLE_TITLE, "CHANGE");
    y += 1;
    const struct planner *pp = p;
    struct {
        const struct scenario *s;
        const struct plan_result *r;
    } side[2] = {{&pp->baseline, &pp->baseline_result}, {&pp->scenario, &pp->result}};
    char a[2][96], d[32];
    enum unit_system u = p->scenario.units;
    /* inputs */
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%u x %s", side[i].s->gpus, side[i].s->gpu.id);
    compare_row(y++, x, w - 4, "GPU", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%s", side[i].s->model.id);
    compare_row(y++, x, w - 4, "Model", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        units_format_int(side[i].s->context_tokens, a[i], sizeof a[i]);
    pct_delta(side[0].s->context_tokens, side[1].s->context_tokens, d, sizeof d);
    compare_row(y++, x, w - 4, "Context (tokens)", a[0], a[1], d);
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%u", side[i].r->kv_heads);
    compare_row(y++, x, w - 4, "KV heads", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%s", dtype_info(side[i].r->kv_dtype)->name);
    compare_row(y++, x, w - 4, "KV cache", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%s", dtype_info(side[i].r->weight_dtype)->name);
    compare_row(y++, x, w - 4, "Weights", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        units_format_int(side[i].s->prefix_tokens, a[i], sizeof a[i]);
    compare_row(y++, x, w - 4, "Shared prefix", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        units_format_int(side[i].r->avg_context_tokens, a[i], sizeof a[i]);
    compare_row(y++, x, w - 4, "In use (tokens)", a[0], a[1], "");
    for (int i = 0; i < 2; i++)
        snprintf(a[i], sizeof a[i], "%g%%", side[i].s->headroom_percent);
    compare_row(y++, x, w - 4, "Headroom", a[0], a[1], "");
    y++;
    /* results */
    struct {
        const char *label;
        size_t offset;
        bool bytes;
    } rows[] = {
        {"Users", offsetof(struct plan_result, max_users), false},
        {"Users, paged", offsetof(struct plan_result, max_users_paged), false},
        {"KV per token", offsetof(struct plan_result, kv_bytes_per_token), true},
        {"KV per user", offsetof(struct plan_result, kv_bytes_per_user), true},
        {"Weights", offsetof(struct plan_result, weights_bytes), true},
        {"KV pool", offsetof(struct plan_result, kv_pool_bytes), true},
        {"Tokens held", offsetof(struct plan_result, kv_tokens), false},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0] && y < h - 2; k++) {
        uint64_t v[2];
        for (int i = 0; i < 2; i++) {
            memcpy(&v[i], (const char *)side[i].r + rows[k].offset, sizeof v[i]);
            if (rows[k].bytes)
                units_format_bytes(v[i], u, a[i], sizeof a[i]);
            else
                units_format_int(v[i], a[i], sizeof a[i]);
        }
        pct_delta(v[0], v[1], d, sizeof d);
        compare_row(y++, x, w - 4, rows[k].label, a[0], a[1], d);
    }
    if (y < h - 2) {
        for (int i = 0; i < 2; i++) {
            if (side[i].r->decode_tokens_per_s_per_user > 0)
                snprintf(a[i], sizeof a[i], "%.1f tok/s", side[i].r->decode_tokens_per_s_per_user);
            else
                snprintf(a[i], sizeof a[i], "n/a");
        }
        compare_row(y++, x, w - 4, "Decode bound/user", a[0], a[1], "");
    }
    if (y < h - 2) {
        for (int i = 0; i < 2; i++) {
            if (side[i].r->cost_per_user_hour >= 0)
                snprintf(a[i], sizeof a[i], "$%.4f", side[i].r->cost_per_user_hour);
            else
                snprintf(a[i], sizeof a[i], "n/a");
        }
        compare_row(y++, x, w - 4, "Cost per user-hour", a[0], a[1], "");
    }
}

static void draw_presentation(const struct planner *p)
{
    struct presentation_layout l = layout_presentation(COLS, LINES);
    if (l.too_small) {
        widget_text(LINES / 2, 0, COLS, ROLE_WARN, "Enlarge the terminal to 40x12");
        return;
    }
    const struct scenario *s = &p->scenario;
    char n[32], line[256], ctx[32];
    draw_title(p, l.title);
    units_format_int(planner_users(p), n, sizeof n);
    int w = widget_big_number_width(n, l.scale);
    int x = l.number.x + (l.number.w - w - 12) / 2;
    widget_big_number(l.number.y, x, n, l.scale, users_role(p));
    widget_text(l.number.y + l.number.h - 1, x + w + 2, 10, ROLE_TITLE, "users");
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    if (p->has_baseline) {
        char b[128];
        baseline_text(p, b, sizeof b);
        snprintf(line, sizeof line, "at %s tokens each on %u x %s   |   %s", ctx, s->gpus,
                 s->gpu.name, b);
    } else {
        snprintf(line, sizeof line, "at %s tokens each on %u x %s", ctx, s->gpus, s->gpu.name);
    }
    int lw = (int)strlen(line);
    widget_text(l.caption.y, l.caption.x + (l.caption.w > lw ? (l.caption.w - lw) / 2 : 0),
                l.caption.w, ROLE_TEXT, line);
    struct bar_segment bs[SEG_COUNT];
    bool over = bar_segments(p, bs);
    widget_bar(l.bar.y, l.bar.x, l.bar.w, bs, SEG_COUNT, over);
    uint64_t seg[SEG_COUNT], seg_total;
    segment_bytes(p, seg, &seg_total);
    int lx = l.bar.x;
    static const char *short_names[SEG_COUNT] = {"weights", "prefix", "users", "spare",
                                                  "headroom"};
    for (int i = 0; i < SEG_COUNT; i++) {
        char size[32], item[64];
        if (seg[i] == 0 && i != SEG_WEIGHTS)
            continue; /* an empty segment has nothing to say on a shared screen */
        units_format_bytes(seg[i], s->units, size, sizeof size);
        snprintf(item, sizeof item, "%s %s ",
                 s->engine.kind == ENGINE_GENERIC ? short_names[i] : engine_segment_names[i], size);
        widget_text(l.bar.y + 1, lx, 2, segment_roles[i], role_glyph(segment_roles[i]));
        lx += 2;
        lx += widget_text(l.bar.y + 1, lx, l.bar.x + l.bar.w - lx, ROLE_TEXT, item);
    }
    /* the focused control, full width */
    char value[128];
    planner_control_value(p, (enum control)p->focus, value, sizeof value);
    widget_text(l.slider.y, l.slider.x, LABEL_W, ROLE_FOCUS,
                planner_control_label((enum control)p->focus));
    double f = planner_control_fraction(p, (enum control)p->focus);
    int tx = l.slider.x + LABEL_W + 1, tw = l.slider.w - LABEL_W - VALUE_W - 2;
    if (f >= 0)
        widget_slider(l.slider.y, tx, tw, f, true);
    widget_text(l.slider.y, f >= 0 ? tx + tw + 1 : tx, VALUE_W + (f >= 0 ? 0 : tw), ROLE_TITLE,
                value);
    if (l.explain.h > 0) {
        const struct explain_line *u = explain_find(&p->explain, "users");
        if (u)
            draw_explain_line(u, l.explain.y, l.explain.x, l.explain.w, l.explain.h, ROLE_DIM);
    }
    draw_keybar(l.keybar);
}

void view_draw(const struct planner *p)
{
    erase();
    if (p->mode == MODE_COMPARE && LINES >= 12 && COLS >= 50) {
        draw_compare(p);
        draw_keybar((struct rect){0, LINES - 1, COLS, 1});
        return;
    }
    if (p->presentation) {
        draw_presentation(p);
    } else {
        struct planner_layout l = current_layout();
        if (l.too_small) {
            char msg[96];
            snprintf(msg, sizeof msg, "Enlarge the terminal to %dx%d (it is %dx%d)",
                     LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, COLS, LINES);
            int len = (int)strlen(msg);
            widget_text(LINES / 2, COLS > len ? (COLS - len) / 2 : 0, COLS, ROLE_WARN, msg);
            return;
        }
        draw_title(p, l.title);
        draw_info(p, l.info);
        draw_controls(p, &l);
        draw_summary(p, &l);
        draw_bar(p, l.bar);
        draw_chart(p, l.chart);
        draw_explain(p, l.explain);
        draw_status(p, l.status);
        draw_keybar(l.keybar);
    }
    if (p->mode == MODE_PICKER && LINES >= 8 && COLS >= 40)
        draw_picker(p);
    else if (p->mode == MODE_HELP)
        draw_help();
    else if (p->mode == MODE_PROMPT || p->mode == MODE_CONFIRM)
        draw_prompt(p);
}
