/* The picker: a GPU or a model from the catalogue, filtered as one types,
 * sorted by the users each gives with Tab. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/prompts.h"
#include "app/screens.h"
#include "app/view.h"
#include "app/view_parts.h"

/* text cut to w columns with an ellipsis, never mid-word when a space is near */
static void ellipsize(const char *text, int w, char *out, size_t size)
{
    int n = (int)strlen(text);
    if (n <= w) {
        snprintf(out, size, "%s", text);
        return;
    }
    int cut = w - 1;
    for (int i = cut; i > cut - 6 && i > 0; i--)
        if (text[i] == ' ') {
            cut = i;
            break;
        }
    /* padded to w columns here: the ellipsis is one column of three bytes,
     * and printf's %-*s pads by bytes */
    snprintf(out, size, "%.*s%s%*s", cut, text, roles_utf8() ? "\u2026" : "~", w - cut - 1, "");
}

static void picker_layout(struct planner *p)
{
    p->frame.box = layout_picker(p->frame.cols, p->frame.rows);
}

static void picker_draw(const struct planner *p, int cols, int lines)
{
    (void)cols;
    (void)lines;
    if (!view_draw_base(p))
        return;
    struct rect box = p->frame.box;
    if (box.w == 0)
        return;
    int w = box.w, h = box.h, x = box.x, y = box.y;
    bool gpu = p->picker.of == CTRL_GPU;
    int idx[512];
    int n = planner_picker_matches(p, idx, 512);
    int total = gpu ? (int)p->catalog->gpu_count : (int)p->catalog->model_count;
    char title[200], slo[48] = "";
    /* with a service level the USERS column counts the users that keep it */
    if (planner_scenario(p)->min_tokens_per_s > 0)
        snprintf(slo, sizeof slo, "; users keep %g tok/s", planner_scenario(p)->min_tokens_per_s);
    else if (planner_scenario(p)->max_ttft_seconds > 0)
        snprintf(slo, sizeof slo, "; users within %g s", planner_scenario(p)->max_ttft_seconds);
    snprintf(title, sizeof title, " %s: type to filter [%s%s] %d of %d; Tab sorts by users%s%s ",
             gpu ? "GPU" : "Model", p->picker.filter, roles_utf8() ? "\u2581" : "_", n, total,
             p->picker.by_users ? " (on)" : "", slo);
    view_box(y, x, h, w, title);
    int rows = layout_picker_rows(box);
    int name_w = w - 4 - (gpu ? 61 : 71);
    if (name_w < 12)
        name_w = 12;
    char head[256];
    if (gpu)
        snprintf(head, sizeof head, "%-15s %7s  %-*s %10s %10s %4s %7s", "ID", "USERS", name_w,
                 "NAME", "MEMORY", "BANDWIDTH", "FP8", "$/HOUR");
    else
        snprintf(head, sizeof head, "%-18s %7s  %-*s %7s %6s %-10s %9s %5s", "ID", "USERS", name_w,
                 "NAME", "PARAMS", "LAYERS", "ATTENTION", "KV/TOKEN", "MAX");
    widget_text(y + 1, x + 2, w - 4, ROLE_DIM, head);
    int top = layout_picker_top(box, p->picker.sel);
    for (int i = 0; i < rows && top + i < n; i++) {
        char line[320], a[32], b[32], name[128], users[32];
        int k = idx[top + i];
        bool fits;
        uint64_t u = planner_picker_users(p, k, &fits);
        if (fits)
            units_format_int(u, users, sizeof users);
        else
            snprintf(users, sizeof users, "no fit");
        if (gpu) {
            const struct gpu_spec *g = &p->catalog->gpus[k].spec;
            char price[16] = "-";
            if (g->price_usd_per_hour >= 0)
                snprintf(price, sizeof price, "%.2f", g->price_usd_per_hour);
            units_format_bytes(g->memory_bytes, planner_scenario(p)->units, a, sizeof a);
            ellipsize(g->name, name_w, name, sizeof name);
            snprintf(line, sizeof line, "%-15s %7s  %-*s %10s %5.2f TB/s %4s %7s", g->id, users,
                     name_w, name, a, (double)g->bandwidth_bytes_per_s / 1e12,
                     g->fp8 ? "yes" : "no", price);
        } else {
            const struct model_spec *m = &p->catalog->models[k].spec;
            char heads[24];
            if (m->attention == ATTENTION_MLA)
                snprintf(heads, sizeof heads, "MLA");
            else
                snprintf(heads, sizeof heads, "%s %u/%u", spec_attention_name(m->attention),
                         m->kv_heads, m->attention_heads);
            /* one format in the whole column, whole KiB: 30 KiB above 128 KiB, never
             * 30.38 KiB above 128 KiB */
            uint64_t kib = (kvcost_model_bytes_per_token(m) + KIB / 2) / KIB;
            units_format_int(kib, a, sizeof a);
            strcat(a, " KiB");
            units_format_tokens_short(m->max_context_tokens, b, sizeof b);
            ellipsize(m->name, name_w, name, sizeof name);
            snprintf(line, sizeof line, "%-18s %7s  %-*s %6.1fB %6u %-10s %9s %5s", m->id, users,
                     name_w, name, (double)m->params / 1e9, m->layers, heads, a, b);
        }
        bool sel = top + i == p->picker.sel;
        if (sel)
            view_fill_row(y + 2 + i, x + 1, w - 2, ROLE_FOCUS);
        widget_text(y + 2 + i, x + 2, w - 4, sel ? ROLE_FOCUS : ROLE_TEXT, line);
    }
    /* scroll marks: more above, more below */
    if (top > 0)
        widget_text(y + 2, x + w - 2, 1, ROLE_TITLE, roles_utf8() ? "\u25b2" : "^");
    if (top + rows < n)
        widget_text(y + 1 + rows, x + w - 2, 1, ROLE_TITLE, roles_utf8() ? "\u25bc" : "v");
    if (n == 0)
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN, "no preset matches: terms in any order, "
                                                      "punctuation and case ignored");
}

/* The entry under (x, y) (an index into the matches), or -1. */
static int picker_row_at(const struct planner *p, int x, int y)
{
    struct rect box = p->frame.box; /* as the last frame drew it */
    int i = layout_picker_row_at(box, x, y), top = layout_picker_top(box, p->picker.sel);
    int idx[512], n = planner_picker_matches(p, idx, 512);
    if (i < 0 || top + i >= n)
        return -1;
    return top + i;
}

static int picker_key(struct planner *p, int key)
{
    int idx[512];
    int n = planner_picker_matches(p, idx, (int)(sizeof idx / sizeof idx[0]));
    switch (key) {
    case 27:
        p->mode = p->base;
        return PLAN_REDRAW;
    case KEY_UP:
        p->picker.sel = p->picker.sel > 0 ? p->picker.sel - 1 : 0;
        return PLAN_REDRAW;
    case KEY_DOWN:
        p->picker.sel = p->picker.sel + 1 < n ? p->picker.sel + 1 : p->picker.sel;
        return PLAN_REDRAW;
    case KEY_PPAGE:
        p->picker.sel = p->picker.sel > 10 ? p->picker.sel - 10 : 0;
        return PLAN_REDRAW;
    case KEY_NPAGE:
        p->picker.sel = p->picker.sel + 10 < n ? p->picker.sel + 10 : (n > 0 ? n - 1 : 0);
        return PLAN_REDRAW;
    case KEY_HOME:
        p->picker.sel = 0;
        return PLAN_REDRAW;
    case KEY_END:
        p->picker.sel = n > 0 ? n - 1 : 0;
        return PLAN_REDRAW;
    case '\t': { /* sort by the users each entry gives, or back to the catalogue's order:
                  * the highlight keeps its entry, wherever the order puts it */
        int held = n > 0 ? idx[p->picker.sel < n ? p->picker.sel : 0] : -1;
        p->picker.by_users = !p->picker.by_users;
        n = planner_picker_matches(p, idx, (int)(sizeof idx / sizeof idx[0]));
        p->picker.sel = 0;
        for (int i = 0; i < n; i++)
            if (idx[i] == held)
                p->picker.sel = i;
        return PLAN_REDRAW;
    }
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (n > 0) {
            struct scenario s = *planner_scenario(p);
            control_set(p->picker.of, &s, p->catalog,
                        (uint64_t)idx[p->picker.sel < n ? p->picker.sel : 0]);
            planner_apply_control(p, p->picker.of, &s);
        }
        p->mode = p->base;
        return PLAN_REDRAW;
    default:
        if (prompt_text_key(p->picker.filter, sizeof p->picker.filter - 1, key) != TEXT_KEY_OTHER) {
            p->picker.sel = 0;
            return PLAN_REDRAW;
        }
        return 0;
    }
}

/* The wheel moves the selection; a click on an entry picks it. */
static int picker_mouse(struct planner *p, const MEVENT *ev)
{
    if (ev->bstate & BUTTON4_PRESSED)
        return picker_key(p, KEY_UP);
    if (ev->bstate & BUTTON5_PRESSED)
        return picker_key(p, KEY_DOWN);
    if (ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) {
        int row = picker_row_at(p, ev->x, ev->y);
        if (row >= 0) {
            p->picker.sel = row;
            return picker_key(p, '\n');
        }
    }
    return 0;
}

const struct screen screen_picker = {
    .layout = picker_layout, .draw = picker_draw, .key = picker_key, .mouse = picker_mouse};
