#include "view.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/explain.h"
#include "tui/roles.h"
#include "tui/widgets.h"

static const struct {
    int key;
    const char *label;
} keybar[] = {{'?', "?help"}, {'\n', "Enter edit"}, {'b', "b baseline"}, {'u', "u GiB/GB"},
              {'e', "e export"}, {'o', "o open"},   {'r', "r reset"},    {'q', "q quit"}};

enum { LABEL_W = 10, VALUE_W = 12 };

static struct planner_layout current_layout(void)
{
    return layout_compute(COLS, LINES, CTRL_COUNT);
}

static void draw_header(const struct planner *p, struct rect r)
{
    const struct scenario *s = &p->scenario;
    char line[512], mem[32];
    widget_text(r.y, r.x + 1, r.w - 2, ROLE_TITLE, "kvplan");
    units_format_bytes(p->result.gpu_memory_bytes_per_gpu, s->units, mem, sizeof mem);
    snprintf(line, sizeof line, "%u x %s (%s)  |  %s: %u layers, %s, head_dim %u", s->gpus,
             s->gpu.name, mem, s->model.name, s->model.layers,
             spec_attention_name(s->model.attention), s->model.head_dim);
    widget_text(r.y, r.x + 8, r.w - 9, ROLE_TEXT, line);
    const char *msg = p->error[0] ? p->error : p->status;
    if (msg[0])
        widget_text(r.y + 1, r.x + 1, r.w - 2, p->error[0] ? ROLE_BAD : ROLE_GOOD, msg);
    else {
        uint32_t w = p->result.warnings & ~(uint32_t)(WARN_PRICE_UNKNOWN | WARN_BANDWIDTH_UNKNOWN |
                                                      WARN_KV_HEADS_REPLICATED | WARN_MLA_REPLICATED);
        for (uint32_t bit = 1; bit <= WARN_MLA_REPLICATED; bit <<= 1)
            if (w & bit) {
                snprintf(line, sizeof line, "! %s", capacity_warning_text((enum plan_warning)bit));
                widget_text(r.y + 1, r.x + 1, r.w - 2, ROLE_WARN, line);
                break;
            }
    }
}

static void control_geometry(struct rect area, int *track_x, int *track_w)
{
    *track_x = area.x + LABEL_W + 1;
    *track_w = area.w - LABEL_W - VALUE_W - 2;
}

static void draw_controls(const struct planner *p, struct rect r)
{
    int tx, tw;
    control_geometry(r, &tx, &tw);
    for (int c = 0; c < CTRL_COUNT && c < r.h; c++) {
        bool focus = c == p->focus && p->mode == MODE_MAIN;
        int y = r.y + c;
        char value[128];
        planner_control_value(p, (enum control)c, value, sizeof value);
        widget_text(y, r.x, LABEL_W, focus ? ROLE_FOCUS : ROLE_TEXT,
                    planner_control_label((enum control)c));
        double f = planner_control_fraction(p, (enum control)c);
        if (f < 0) {
            char shown[160];
            snprintf(shown, sizeof shown, "< %s >", value);
            widget_text(y, tx, tw + VALUE_W + 1, focus ? ROLE_TITLE : ROLE_TEXT, shown);
        } else {
            widget_slider(y, tx, tw, f, focus);
            widget_text(y, tx + tw + 1, VALUE_W, focus ? ROLE_TITLE : ROLE_TEXT, value);
        }
    }
}

static void draw_summary(const struct planner *p, struct rect r)
{
    const struct plan_result *res = &p->result;
    char n[32], line[160], a[32], b[32];
    units_format_int(res->max_users, n, sizeof n);
    enum role role = !res->fits ? ROLE_BAD : res->max_users == 0 ? ROLE_WARN : ROLE_GOOD;
    int used = 0;
    if (r.h >= 5 && widget_big_number_width(n) + 8 <= r.w) {
        used = widget_big_number(r.y, r.x, r.w, res->fits ? n : "0", role);
        widget_text(r.y + 1, r.x + used + 1, r.w - used - 1, ROLE_TEXT, "users");
        used = 3;
    } else {
        snprintf(line, sizeof line, "%s users", n);
        widget_text(r.y, r.x, r.w, role, line);
        used = 1;
    }
    int y = r.y + used;
    if (p->has_baseline) {
        uint64_t b0 = p->baseline_result.max_users;
        double pct = b0 ? 100.0 * ((double)res->max_users - (double)b0) / (double)b0 : 0;
        snprintf(line, sizeof line, "baseline %llu -> %llu users (%+.0f%%)", (unsigned long long)b0,
                 (unsigned long long)res->max_users, pct);
        widget_text(y++, r.x, r.w, res->max_users >= b0 ? ROLE_GOOD : ROLE_BAD, line);
    }
    if (!res->fits) {
        units_format_bytes(res->shortfall_bytes, p->scenario.units, a, sizeof a);
        snprintf(line, sizeof line, "weights do not fit: short by %s", a);
        widget_text(y++, r.x, r.w, ROLE_BAD, line);
    } else {
        units_format_int(res->max_users_paged, a, sizeof a);
        units_format_int(res->kv_tokens, b, sizeof b);
        snprintf(line, sizeof line, "paged: %s users  tokens held: %s", a, b);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        units_format_bytes(res->kv_bytes_per_user, p->scenario.units, a, sizeof a);
        units_format_bytes_exact(res->kv_bytes_per_token_per_gpu, b, sizeof b);
        snprintf(line, sizeof line, "per user %s  per token %s", a, b);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
    if (y < r.y + r.h) {
        char cost[32] = "n/a", dec[32] = "n/a";
        if (res->cost_per_user_hour >= 0)
            snprintf(cost, sizeof cost, "$%.3f/user-h", res->cost_per_user_hour);
        if (res->decode_tokens_per_s_per_user > 0)
            snprintf(dec, sizeof dec, "<= %.0f tok/s/user", res->decode_tokens_per_s_per_user);
        snprintf(line, sizeof line, "%s  %s", cost, dec);
        widget_text(y++, r.x, r.w, ROLE_DIM, line);
    }
}

static void draw_bar(const struct planner *p, struct rect r)
{
    if (r.h < 2)
        return;
    const struct plan_result *res = &p->result;
    uint64_t seg[SEG_COUNT];
    capacity_segments(res, seg);
    static const enum role roles[SEG_COUNT] = {ROLE_WEIGHTS, ROLE_PREFIX, ROLE_KV, ROLE_REMAINDER,
                                               ROLE_HEADROOM};
    struct bar_segment bs[SEG_COUNT];
    double total = (double)res->gpu_memory_bytes;
    bool over = !res->fits;
    for (int i = 0; i < SEG_COUNT; i++) {
        bs[i].role = roles[i];
        bs[i].fraction = total > 0 ? (double)seg[i] / total : 0;
    }
    if (over) { /* weights fill the bar; the overflow marker shows the rest */
        bs[SEG_WEIGHTS].fraction = 1.0;
        for (int i = 1; i < SEG_COUNT; i++)
            bs[i].fraction = 0;
    }
    char title[64];
    snprintf(title, sizeof title, "Memory per GPU x %u (%s)", p->scenario.gpus,
             units_name(p->scenario.units));
    widget_text(r.y, r.x, r.w, ROLE_TITLE, title);
    widget_bar(r.y + 1, r.x, r.w, bs, SEG_COUNT, over);
    for (int i = 0; i < SEG_COUNT && r.y + 2 + i < r.y + r.h; i++) {
        char size[32], line[96];
        units_format_bytes(i == SEG_WEIGHTS ? res->weights_bytes : seg[i], p->scenario.units, size,
                           sizeof size);
        int y = r.y + 2 + i;
        mvaddstr(y, r.x, " ");
        widget_text(y, r.x + 1, 2, roles[i], role_glyph(roles[i]));
        widget_text(y, r.x + 2, 1, roles[i], role_glyph(roles[i]));
        snprintf(line, sizeof line, "%-14s %12s", capacity_segment_name((enum segment)i), size);
        widget_text(y, r.x + 4, r.w - 4, i == SEG_WEIGHTS && over ? ROLE_BAD : ROLE_TEXT, line);
    }
}

static void draw_explain(const struct planner *p, struct rect r)
{
    struct explain e;
    explain_build(&p->scenario, &p->result, &e);
    widget_text(r.y - 1, r.x, r.w, ROLE_TITLE, "How it is computed");
    static const char *order[] = {"users", "pool", "kv_per_user", "kv_per_token", "prefix",
                                  "windows", "users_paged", "kv_tokens", "decode", "cost"};
    int y = r.y;
    for (size_t i = 0; i < sizeof order / sizeof order[0] && y < r.y + r.h; i++) {
        const struct explain_line *l = explain_find(&e, order[i]);
        if (l == NULL)
            continue;
        char line[512];
        snprintf(line, sizeof line, "%-14s %s = %s", l->label, l->formula, l->value);
        widget_text(y++, r.x, r.w, i == 0 ? ROLE_TEXT : ROLE_DIM, line);
    }
}

static void draw_keybar(struct rect r)
{
    int x = r.x;
    for (size_t i = 0; i < sizeof keybar / sizeof keybar[0]; i++) {
        int w = (int)strlen(keybar[i].label);
        if (x + w >= r.x + r.w)
            break;
        widget_text(r.y, x, w, ROLE_KEY, keybar[i].label);
        x += w + 1;
    }
}

int view_keybar_key_at(int x, int y)
{
    struct planner_layout l = current_layout();
    if (l.too_small || y != l.keybar.y)
        return 0;
    int cx = l.keybar.x;
    for (size_t i = 0; i < sizeof keybar / sizeof keybar[0]; i++) {
        int w = (int)strlen(keybar[i].label);
        if (x >= cx && x < cx + w)
            return keybar[i].key;
        cx += w + 1;
    }
    return 0;
}

int view_control_at(const struct planner *p, int x, int y, int *track_x, int *track_w)
{
    (void)p;
    struct planner_layout l = current_layout();
    if (l.too_small)
        return -1;
    struct rect r = l.controls;
    if (y < r.y || y >= r.y + CTRL_COUNT || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
        return -1;
    control_geometry(r, track_x, track_w);
    return y - r.y;
}

static void draw_box(int y, int x, int h, int w, const char *title)
{
    for (int i = 0; i < h; i++)
        mvhline(y + i, x, ' ', w);
    attron(role_attr(ROLE_TITLE));
    mvhline(y, x, ACS_HLINE, w);
    mvhline(y + h - 1, x, ACS_HLINE, w);
    mvvline(y, x, ACS_VLINE, h);
    mvvline(y, x + w - 1, ACS_VLINE, h);
    mvaddch(y, x, ACS_ULCORNER);
    mvaddch(y, x + w - 1, ACS_URCORNER);
    mvaddch(y + h - 1, x, ACS_LLCORNER);
    mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
    attroff(role_attr(ROLE_TITLE));
    widget_text(y, x + 2, w - 4, ROLE_TITLE, title);
}

static void draw_picker(const struct planner *p)
{
    int w = COLS - 8 < 90 ? COLS - 8 : 90, h = LINES - 4;
    int x = (COLS - w) / 2, y = 2;
    bool gpu = p->picker_for == CTRL_GPU;
    char title[128];
    snprintf(title, sizeof title, " Pick a %s: type to filter [%s] ", gpu ? "GPU" : "model",
             p->filter);
    draw_box(y, x, h, w, title);
    int idx[256];
    int n = planner_picker_matches(p, idx, 256);
    int rows = h - 2;
    int top = p->picker_sel >= rows ? p->picker_sel - rows + 1 : 0;
    for (int i = 0; i < rows && top + i < n; i++) {
        char line[256], a[32];
        int k = idx[top + i];
        if (gpu) {
            const struct gpu_spec *g = &p->catalog->gpus[k].spec;
            units_format_bytes(g->memory_bytes, p->scenario.units, a, sizeof a);
            snprintf(line, sizeof line, "%-15s %-44.44s %11s %5.2f TB/s%s", g->id, g->name, a,
                     (double)g->bandwidth_bytes_per_s / 1e12, g->fp8 ? " fp8" : "");
        } else {
            const struct model_spec *m = &p->catalog->models[k].spec;
            char heads[24];
            if (m->attention == ATTENTION_MLA)
                snprintf(heads, sizeof heads, "MLA");
            else
                snprintf(heads, sizeof heads, "%s %u/%u", spec_attention_name(m->attention),
                         m->kv_heads, m->attention_heads);
            snprintf(line, sizeof line, "%-18s %-26.26s %8.1fB %4u layers %-12s", m->id, m->name,
                     (double)m->params / 1e9, m->layers, heads);
        }
        widget_text(y + 1 + i, x + 1, w - 2, top + i == p->picker_sel ? ROLE_FOCUS : ROLE_TEXT,
                    line);
    }
    if (n == 0)
        widget_text(y + 1, x + 2, w - 4, ROLE_WARN, "no match");
}

static void draw_help(void)
{
    static const char *lines[] = {
        "Up/Down, Tab/Shift-Tab  move between controls",
        "Left/Right              step the focused control",
        "Shift-Left/Right, PgUp/PgDn  big step",
        "Home/End                to the ends",
        "Enter or a digit        type an exact value (32k, 1M, fp8, 12.5)",
        "Enter on GPU/Model      pick from the catalogue (type to filter)",
        "r / R                   reset this control / every control",
        "u                       GiB or GB",
        "b                       set the baseline (the user count shows the change)",
        "e / o                   export / open a JSON snapshot",
        "mouse                   click to focus, drag a knob, wheel to step",
        "q                       quit",
        "",
        "Any key closes this help.",
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    int w = COLS - 4 < 72 ? COLS - 4 : 72, h = n + 2 < LINES ? n + 2 : LINES;
    int x = (COLS - w) / 2, y = (LINES - h) / 2;
    draw_box(y, x, h, w, " Keys ");
    for (int i = 0; i < n && i < h - 2; i++)
        widget_text(y + 1 + i, x + 2, w - 4, ROLE_TEXT, lines[i]);
}

static void draw_prompt(const struct planner *p)
{
    char line[PLANNER_TEXT_MAX + 64];
    int y = LINES - 1;
    mvhline(y, 0, ' ', COLS);
    if (p->mode == MODE_CONFIRM)
        snprintf(line, sizeof line, "%s exists. Overwrite? (y/N) ", p->pending_path);
    else if (p->prompt_kind == PROMPT_EXPORT)
        snprintf(line, sizeof line, "Export to: %s_", p->prompt);
    else if (p->prompt_kind == PROMPT_OPEN)
        snprintf(line, sizeof line, "Open snapshot: %s_", p->prompt);
    else
        snprintf(line, sizeof line, "%s = %s_  (Enter to apply, Esc to cancel)",
                 planner_control_label((enum control)p->focus), p->prompt);
    widget_text(y, 0, COLS, ROLE_TITLE, line);
}

void view_draw(const struct planner *p)
{
    erase();
    struct planner_layout l = current_layout();
    if (l.too_small) {
        char msg[96];
        snprintf(msg, sizeof msg, "Enlarge the terminal to %dx%d (now %dx%d)", LAYOUT_MIN_COLS,
                 LAYOUT_MIN_ROWS, COLS, LINES);
        widget_text(LINES / 2, 0, COLS, ROLE_WARN, msg);
        return;
    }
    draw_header(p, l.header);
    draw_controls(p, l.controls);
    draw_summary(p, l.summary);
    draw_bar(p, l.bar);
    draw_explain(p, l.explain);
    draw_keybar(l.keybar);
    if (p->mode == MODE_PICKER)
        draw_picker(p);
    else if (p->mode == MODE_HELP)
        draw_help();
    else if (p->mode == MODE_PROMPT || p->mode == MODE_CONFIRM)
        draw_prompt(p);
}
