#include "view.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"
#include "core/text.h"
#include "tui/canvas.h"

static void info_line(const struct scenario *s, struct rect r, char *line, size_t size)
{
    const struct model_spec *m = &s->model;
    char mem[32], maxc[32], heads[64];
    units_format_bytes(scenario_gpu_memory(s), s->units, mem, sizeof mem);
    units_format_tokens_short(m->max_context_tokens, maxc, sizeof maxc);
    /* the KV heads in use (the KV heads control moves them), and their kind */
    uint32_t kvh = s->kv_heads ? s->kv_heads : m->kv_heads;
    enum attention_kind kind = spec_attention_with(m, s->kv_heads);
    if (m->attention == ATTENTION_MLA)
        snprintf(heads, sizeof heads, "MLA latent %u+%u", m->kv_lora_rank, m->qk_rope_head_dim);
    else
        snprintf(heads, sizeof heads, "%s %u KV / %u heads, head_dim %u",
                 spec_attention_name(kind), kvh, m->attention_heads, m->head_dim);
    char kinds[SPEC_ID_MAX + 16] = "";
    if (m->windowed_layers)
        snprintf(kinds, sizeof kinds, ", windows %s", m->window_pattern);
    else if (m->state_layers)
        snprintf(kinds, sizeof kinds, ", %u %s", m->state_layers, m->state_kind);
    snprintf(line, size, "%.2fB params, %u layers, %s%s, max %s  |  %s: %s, %.2f TB/s%s",
             (double)m->params / 1e9, m->layers, heads, kinds, maxc, s->gpu.id, mem,
             (double)s->gpu.bandwidth_bytes_per_s / 1e12, s->gpu.fp8 ? ", fp8" : "");
    if ((int)strlen(line) > r.w) {
        /* narrow screens: the same facts, tersely, then whole facts dropped
         * (the least needed first) rather than a number cut short */
        if (m->attention == ATTENTION_MLA)
            snprintf(heads, sizeof heads, "MLA %u+%u", m->kv_lora_rank, m->qk_rope_head_dim);
        else
            snprintf(heads, sizeof heads, "%s %u/%u, hd %u", spec_attention_name(kind), kvh,
                     m->attention_heads, m->head_dim);
        char item[7][64];
        snprintf(item[0], sizeof item[0], "%.2fB", (double)m->params / 1e9);
        snprintf(item[1], sizeof item[1], "%u layers", m->layers);
        snprintf(item[2], sizeof item[2], "%s%s", heads,
                 m->windowed_layers ? ", SWA" : m->state_layers ? ", SSM" : "");
        snprintf(item[3], sizeof item[3], "max %s", maxc);
        snprintf(item[4], sizeof item[4], "%s", mem);
        snprintf(item[5], sizeof item[5], "%.2f TB/s", (double)s->gpu.bandwidth_bytes_per_s / 1e12);
        snprintf(item[6], sizeof item[6], "%s", s->gpu.fp8 ? "fp8" : "");
        static const int drop[] = {6, 5, 3, 1, 2}; /* the order facts go in */
        bool gone[7] = {false};
        for (size_t k = 0;; k++) {
            size_t n = 0;
            line[0] = '\0';
            for (int i = 0; i < 7; i++)
                if (!gone[i] && item[i][0])
                    n += (size_t)snprintf(line + n, size - n, "%s%s",
                                          n == 0 ? "" : i == 4 ? " | " : ", ", item[i]);
            if ((int)n <= r.w || k == sizeof drop / sizeof drop[0])
                break;
            gone[drop[k]] = true;
        }
    }
}

/* The model's and the GPU's line, formatted again only when what it says
 * changed (a step of any other control leaves it as it was). */
static void draw_info(const struct planner *p, struct rect r)
{
    static struct {
        bool valid;
        int w;
        struct gpu_spec gpu;
        struct model_spec model;
        bool has_vram;
        uint64_t vram_bytes;
        uint32_t wired_limit_mb;
        uint32_t kv_heads;
        enum unit_system units;
        char line[600];
    } last;
    const struct scenario *s = planner_scenario(p);
    if (!last.valid || last.w != r.w || last.has_vram != s->has_vram ||
        last.vram_bytes != s->vram_bytes || last.units != s->units ||
        last.wired_limit_mb != s->wired_limit_mb || last.kv_heads != s->kv_heads ||
        memcmp(&last.gpu, &s->gpu, sizeof last.gpu) != 0 ||
        memcmp(&last.model, &s->model, sizeof last.model) != 0) {
        info_line(s, r, last.line, sizeof last.line);
        last.valid = true;
        last.w = r.w;
        memcpy(&last.gpu, &s->gpu, sizeof last.gpu);
        memcpy(&last.model, &s->model, sizeof last.model);
        last.has_vram = s->has_vram;
        last.vram_bytes = s->vram_bytes;
        last.wired_limit_mb = s->wired_limit_mb;
        last.kv_heads = s->kv_heads;
        last.units = s->units;
    }
    widget_text(r.y, r.x, r.w, ROLE_DIM, last.line);
}

static int focus_index(const struct planner *p, const enum control *v, int n)
{
    int focus = 0;
    for (int i = 0; i < n; i++)
        if (v[i] == p->focus)
            focus = i;
    return focus;
}

/* The first control shown: the list stays where it was last settled and
 * scrolls only as far as the focus needs. */
static int controls_top(const struct planner *p, const struct planner_layout *l,
                        const enum control *v, int n)
{
    return layout_control_top(n, l->control_rows, focus_index(p, v, n), p->control_top, false);
}

void view_settle(struct planner *p, int cols, int rows)
{
    /* what the base does not lay out has nothing to draw or to click */
    p->frame = (struct frame_layout){
        .cols = cols, .rows = rows, .main.too_small = true, .present.too_small = true};
    const struct screen *base = screen_of(p->base), *mode = screen_of(p->mode);
    base->layout(p);
    if (mode != base && mode->layout)
        mode->layout(p);
}

/* Whether the status row has anything to show (draw_status's order). */
static bool status_says(const struct planner *p)
{
    return p->error[0] || p->status[0] || plan_shown_warnings(planner_result(p)) != 0;
}

void view_settle_main(struct planner *p)
{
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    p->frame.main = layout_compute(p->frame.cols, p->frame.rows, n);
    if (!status_says(p))
        layout_take_status(&p->frame.main, p->frame.rows);
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small)
        return;
    /* a focus the keys moved gets a row of context; one the pointer put
     * (view_pointer_focus) stays under the pointer */
    p->control_top = layout_control_top(n, l->control_rows, focus_index(p, v, n), p->control_top,
                                        p->focus != p->control_focus);
    p->control_focus = p->focus;
    view_settle_explain_pane(p);
}

void view_pointer_focus(struct planner *p, int c)
{
    p->focus = (enum control)c;
    p->control_focus = p->focus;
}

int view_scroll_mark_at(const struct planner *p, int x, int y)
{
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small || x != l->controls.x - 1)
        return 0;
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    int top = controls_top(p, l, v, n);
    if (top > 0 && y == l->controls.y)
        return -1;
    if (top + l->control_rows < n && y == l->controls.y + (l->control_rows - 1) * l->control_pitch)
        return +1;
    return 0;
}

bool view_scroll_controls(struct planner *p, int delta)
{
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small)
        return false;
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    int old = controls_top(p, l, v, n);
    int top = old + delta;
    if (top > n - l->control_rows)
        top = n - l->control_rows;
    if (top < 0)
        top = 0;
    if (top == old)
        return false;
    p->control_top = top;
    view_pointer_focus(p, v[layout_control_focus(n, l->control_rows, top, focus_index(p, v, n))]);
    return true;
}

static void draw_controls(const struct planner *p, const struct planner_layout *l)
{
    struct rect r = l->controls;
    int tx = l->track_x, tw = l->track_w;
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    int top = controls_top(p, l, v, n), end = top + l->control_rows;
    /* more controls above or below: a mark in the margin beside the first or last row */
    if (top > 0)
        widget_text(r.y, r.x - 1, 1, ROLE_DIM, roles_utf8() ? "\u25b2" : "^");
    if (end < n)
        widget_text(r.y + (l->control_rows - 1) * l->control_pitch, r.x - 1, 1, ROLE_DIM,
                    roles_utf8() ? "\u25bc" : "v");
    for (int i = top; i < n && i < end; i++) {
        enum control c = v[i];
        int y = r.y + (i - top) * l->control_pitch;
        if (y >= r.y + r.h)
            break;
        bool focus = c == p->focus;
        const char *dim = control_dim_reason(c, planner_scenario(p));
        const char *label = control_label(c, planner_scenario(p));
        char value[128];
        control_format(c, planner_scenario(p), planner_result(p), value, sizeof value);
        widget_text(y, r.x, LABEL_W, focus ? ROLE_FOCUS : dim ? ROLE_TRACK : ROLE_TEXT, label);
        if (focus)
            widget_text(y, r.x + (int)strlen(label), 1, ROLE_FOCUS, " ");
        double f = planner_control_fraction(p, c);
        enum role vrole = focus ? ROLE_TITLE : dim ? ROLE_TRACK : ROLE_TEXT;
        if (dim || f < 0) {
            /* "value (why it is dim)", or "< value >" (a long name gives way
             * so both arrows stay on the row) */
            char shown[160], cut[128];
            size_t len = 0;
            if (dim) {
                text_append(shown, sizeof shown, &len, value);
                text_append(shown, sizeof shown, &len, " (");
                text_append(shown, sizeof shown, &len, dim);
                text_append(shown, sizeof shown, &len, ")");
            } else {
                text_append(shown, sizeof shown, &len, roles_utf8() ? "\u25c2 " : "< ");
                text_append(shown, sizeof shown, &len,
                            widget_fit(value, tw + VALUE_W + 1 - 4, cut, sizeof cut));
                text_append(shown, sizeof shown, &len, roles_utf8() ? " \u25b8" : " >");
            }
            widget_text(y, tx, tw + VALUE_W + 1, vrole, shown);
        } else {
            widget_slider(y, tx, tw, f, focus);
            widget_text(y, tx + tw + 1, VALUE_W, vrole, value);
        }
    }
}

/* The bar, its title and its legend in r; returns the row under them. */
static int draw_bar(const struct planner *p, struct rect r)
{
    if (r.h < 2)
        return r.y;
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *res = planner_result(p);
    struct bar_segment bs[SEG_COUNT];
    bool over = view_bar_segments(p, bs);
    uint64_t seg[SEG_COUNT];
    plan_segments(res, seg);
    char title[192];
    view_memory_title(res, s, r.w, title, sizeof title);
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    widget_bar(r.y + 1, r.x, r.w, bs, SEG_COUNT, over);
    int shown[SEG_COUNT], n = 0;
    for (int i = 0; i < SEG_COUNT; i++)
        if (view_legend_shown(seg, i))
            shown[n++] = i; /* an empty part has no place in the legend */
    int rows = r.h - 2;
    if (n > rows && (n > 2 * rows || r.w < 60)) {
        /* more parts than the table has room for: they flow, every one */
        int used = view_legend_flow(p, (struct rect){r.x, r.y + 2, r.w, rows});
        return r.y + 2 + (used < rows ? used : rows);
    }
    /* two columns when the parts outnumber the rows and the width allows */
    int columns = n > rows && r.w >= 60 ? 2 : 1;
    int per_column = (n + columns - 1) / columns, cw = r.w / columns;
    for (int k = 0; k < n; k++) {
        int i = shown[k], col = k / per_column, y = r.y + 2 + k % per_column;
        if (y >= r.y + r.h)
            continue;
        int x = r.x + col * cw;
        char size[32], line[96];
        units_format_bytes(seg[i], s->units, size, sizeof size);
        widget_text(y, x, 1, view_segment_roles[i], role_glyph(view_segment_roles[i]));
        widget_text(y, x + 1, 1, view_segment_roles[i], role_glyph(view_segment_roles[i]));
        if (cw - 4 >= 27)
            snprintf(line, sizeof line, "%-15s%12s", plan_segment_name(res, (enum segment)i), size);
        else /* narrow: the name gives way to the size */
            snprintf(line, sizeof line, "%-*.*s%11s", cw - 15 > 4 ? cw - 15 : 4,
                     cw - 16 > 3 ? cw - 16 : 3, plan_segment_name(res, (enum segment)i), size);
        widget_text(y, x + 3, cw - 4, i == SEG_WEIGHTS && over ? ROLE_BAD : ROLE_TEXT, line);
    }
    return r.y + 2 + (per_column < rows ? per_column : rows);
}

static void draw_status(const struct planner *p, struct rect r)
{
    if (r.h == 0) /* nothing to say: the explain pane has the row */
        return;
    if (p->error[0]) {
        widget_text(r.y, r.x, r.w, ROLE_BAD, p->error);
        return;
    }
    if (p->status[0]) {
        widget_text(r.y, r.x, r.w, ROLE_GOOD, p->status);
        return;
    }
    uint32_t w = plan_shown_warnings(planner_result(p));
    int count = 0;
    uint32_t first = 0;
    for (uint32_t bit = 1; bit <= WARN_LAST; bit <<= 1)
        if (w & bit) {
            first = first ? first : bit;
            count++;
        }
    if (count == 0)
        return;
    char more[48] = "", line[512];
    if (count > 1)
        snprintf(more, sizeof more, " (+%d more: w lists them)", count - 1);
    int mw = (int)strlen(more);
    char text[300], bang[304], cut[304];
    plan_warning_format(planner_result(p), (enum plan_warning)first, text, sizeof text);
    snprintf(bang, sizeof bang, "! %s", text);
    /* the count of the others always shows; the first warning gives way */
    snprintf(line, sizeof line, "%s%s",
             r.w > mw + 4 ? widget_fit(bang, r.w - mw, cut, sizeof cut) : bang, more);
    widget_text(r.y, r.x, r.w, ROLE_WARN, line);
}

bool view_draw_base(const struct planner *p)
{
    if (p->base == MODE_PRESENT)
        return view_draw_presentation(p);
    const struct planner_layout l = p->frame.main;
    if (l.too_small) {
        /* nor does any box go over it: each is sized for a screen this large */
        view_draw_too_small(p->frame.cols, p->frame.rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
        return false;
    }
    view_title(p, l.title);
    draw_info(p, l.info);
    draw_controls(p, &l);
    view_draw_summary(p, &l);
    int under_bar = draw_bar(p, l.bar);
    /* llama.cpp's host side on the row under the GPU's parts: when free, or
     * in place of the chart's one-row form when layers, experts or the cache
     * are there (what the title has no room to say) */
    int host_y = l.bar.y + l.bar.h;
    int end = l.chart.h > 0 ? l.chart.y : l.explain.h > 0 ? l.explain.y : l.status.y;
    bool over_chart = l.chart.h == 1 && l.chart.y == host_y && planner_result(p)->engine.offload.active;
    if (!over_chart)
        view_draw_chart(p, l.chart);
    struct rect explain = l.explain;
    if (l.chart.h == 0 && under_bar < l.bar.y + l.bar.h) /* no pane: a row the legend left */
        view_chart_line(p, (struct rect){l.bar.x, l.bar.y + l.bar.h - 1, l.bar.w, 1});
    else if (l.chart.h == 0 && !over_chart && explain.h > LAYOUT_EXPLAIN_MIN) {
        /* the legend took every row (an engine's parts at 70x22): the users
         * by context on the explain pane's first row, the pane one shorter */
        view_chart_line(p, (struct rect){l.bar.x, explain.y, l.bar.w, 1});
        explain.y++;
        explain.h--;
    }
    if (l.bar.h >= 7 && (host_y < end || over_chart))
        view_host_row(planner_result(p), planner_scenario(p)->units, host_y, l.bar.x, l.bar.w);
    if (explain.h > 0)
        view_draw_explain_pane(p, explain);
    draw_status(p, l.status);
    view_keybar(l.keybar);
    return true;
}

void view_draw(const struct planner *p)
{
    canvas_erase();
    screen_of(p->mode)->draw(p, p->frame.cols, p->frame.rows);
}

bool view_track(const struct planner *p, int *track_x, int *track_w)
{
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small)
        return false;
    *track_x = l->track_x;
    *track_w = l->track_w;
    return true;
}

int view_control_at(const struct planner *p, int x, int y, int *track_x, int *track_w)
{
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small)
        return -1;
    struct rect r = l->controls;
    if (y < r.y || x < r.x || x >= r.x + r.w || (y - r.y) % l->control_pitch != 0)
        return -1;
    enum control v[CTRL_COUNT];
    int n = planner_controls(p, v);
    int shown = (y - r.y) / l->control_pitch;
    int i = controls_top(p, l, v, n) + shown;
    if (shown >= l->control_rows || i >= n)
        return -1;
    view_track(p, track_x, track_w);
    return v[i];
}

int view_arrow_at(const struct planner *p, int c, int x)
{
    const struct planner_layout *l = &p->frame.main;
    if (l->too_small || control_kind((enum control)c) == CK_SLIDER)
        return 0;
    int tx = l->track_x;
    char value[128];
    control_format((enum control)c, planner_scenario(p), planner_result(p), value, sizeof value);
    int right = tx + 2 + (int)strlen(value) + 1; /* "< value >" */
    if (x == tx)
        return -1;
    if (x == right)
        return +1;
    return 0;
}
