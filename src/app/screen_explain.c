/* The full-screen explain view (x): the answer, then every explain row of
 * the plan with its whole formula and its value, in the sections of the
 * text report, scrolled by line (Up/Down, PgUp/PgDn, Home/End, the wheel,
 * a click on its scroll bar), with the lines shown of how many in its
 * title. x, Esc or Enter go back to the base; q quits as everywhere. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"
#include "core/launch.h"
#include "io/report.h"

/* Where the lines go: those from `first` are drawn, `count` of them, from
 * row y0; every line is counted, drawn or not. */
struct sink {
    bool draw;
    int first, count, y0, x, w;
    int line;
};

/* Whether the next line is one to draw, and on which row. */
static bool sink_row(const struct sink *k, int *y)
{
    *y = k->y0 + k->line - k->first;
    return k->draw && k->line >= k->first && k->line < k->first + k->count;
}

/* The bytes of text that fill at most w columns, cut at a blank when one
 * is there (a word longer than w is cut where the columns end). */
static size_t wrap_cut(const char *text, int w)
{
    size_t end = 0, blank = 0;
    int cols = 0;
    while (text[end] && cols < w) {
        if (text[end] == ' ')
            blank = end;
        end++;
        while ((text[end] & 0xC0) == 0x80)
            end++;
        cols++;
    }
    if (text[end] == '\0' || text[end] == ' ')
        return end;
    return blank > 0 ? blank : end;
}

/* text wrapped into lines from column `indent`, the first beside `label`. */
static void put_wrapped(struct sink *k, const char *label, int indent, enum role role,
                        const char *text)
{
    int w = k->w - indent, y;
    char piece[EXPLAIN_TEXT_MAX + EXPLAIN_VALUE_MAX + 64];
    bool first = true;
    do {
        size_t n = wrap_cut(text, w > 1 ? w : 1);
        if (n >= sizeof piece)
            n = sizeof piece - 1;
        if (sink_row(k, &y)) {
            memcpy(piece, text, n);
            piece[n] = '\0';
            if (first && label)
                widget_text(y, k->x, indent, ROLE_TITLE, label);
            widget_text(y, k->x + indent, w, role, piece);
        }
        k->line++;
        first = false;
        text += n;
        while (*text == ' ')
            text++;
    } while (*text);
}

/* A section's heading, "-- Speed (...) -----", after a blank line. */
static void put_heading(struct sink *k, const char *text)
{
    int y;
    if (k->line > 0)
        k->line++;
    if (sink_row(k, &y)) {
        const char *rule = roles_utf8() ? "\u2500" : "-";
        widget_text(y, k->x, 3, ROLE_DIM, roles_utf8() ? "\u2500\u2500 " : "-- ");
        int used = 3 + widget_text(y, k->x + 3, k->w - 3, ROLE_TITLE, text);
        for (int x = used + 1; x < k->w; x++)
            widget_text(y, k->x + x, 1, ROLE_DIM, rule);
    }
    k->line++;
}

/* A row: its formula, then "= value scope", and beside a speed figure the
 * spread the measurements saw (as the text report writes it). */
static void put_row(struct sink *k, const struct plan_result *r, const struct explain_row *row)
{
    char formula[EXPLAIN_TEXT_MAX], value[EXPLAIN_VALUE_MAX], band[1024];
    char result[EXPLAIN_VALUE_MAX + EXPLAIN_KEY_MAX + sizeof band];
    explain_row_strings(row, formula, sizeof formula, value, sizeof value);
    put_wrapped(k, row->label, EXPLAIN_LABEL_W, ROLE_TEXT, formula[0] ? formula : "-");
    snprintf(result, sizeof result, "= %s%s%s%s", value, row->scope[0] ? " " : "", row->scope,
             report_band_suffix(r, row, false, band, sizeof band));
    put_wrapped(k, NULL, EXPLAIN_LABEL_W, ROLE_GOOD, result);
}

/* The rows of one section: kind 0 how the count is computed, 1 the speed,
 * 2 the host memory tier (as the text report sorts them). */
static void put_rows(struct sink *k, const struct plan_result *r, const struct explain *e,
                     int kind)
{
    for (int i = 0; i < e->count; i++) {
        const struct explain_row *row = &e->rows[i];
        int of = report_is_speed_row(row) ? 1 : report_is_host_row(row) ? 2 : 0;
        if (of == kind)
            put_row(k, r, row);
    }
}

/* The speed figures, as many a line as fit whole. */
static void put_speed(struct sink *k, const struct plan_result *r, enum unit_system u)
{
    struct view_speed v;
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
    view_speed_of(r, u, &v);
    int n = view_speed_lines(&v, k->w, 0, lines);
    for (int i = 0; i < n; i++)
        put_wrapped(k, NULL, 0, v.known ? ROLE_TEXT : ROLE_DIM, lines[i]);
}

/* Every line of the view, through k; returns how many there are. */
static int walk(const struct planner *p, struct sink *k)
{
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *r = planner_result(p);
    const struct engine_desc *e = engine_desc(r->profile);
    char line[1024];
    k->line = 0;
    report_headline(s, r, line, sizeof line);
    put_wrapped(k, NULL, 0, view_headline_role(s, r), line);
    put_speed(k, r, s->units);
    put_heading(k, "How the number is computed");
    put_rows(k, r, &p->explain, 0);
    char conc[32];
    units_format_int(r->speed.concurrency, conc, sizeof conc);
    snprintf(line, sizeof line, "Speed (%s user%s decoding at once; MBU %.2f, MFU %.2f)", conc,
             r->speed.concurrency == 1 ? "" : "s", r->speed.mbu, r->speed.mfu);
    put_heading(k, line);
    if (s->mbu <= 0 && s->gpu.achievable_mbu > 0) {
        snprintf(line, sizeof line, "MBU %.2f: %s", s->gpu.achievable_mbu,
                 s->gpu.achievable_mbu_basis);
        put_wrapped(k, NULL, 0, ROLE_DIM, line);
    }
    put_rows(k, r, &p->explain, 1);
    if (r->host.present) {
        put_heading(k, "Host memory tier");
        put_rows(k, r, &p->explain, 2);
    }
    if (e->server) {
        char title[64];
        engine_version_title(r->profile, r->rule, title, sizeof title);
        snprintf(line, sizeof line, "Engine: %s", title);
        put_heading(k, line);
        put_wrapped(k, "Launch", EXPLAIN_LABEL_W, ROLE_GOOD, r->engine.launch);
        /* over several nodes or servers, each one's command (core/launch.h) */
        static char one[ENGINE_LAUNCH_MAX + 1024];
        for (int i = 0; i < launch_servers(r) && i < LAUNCH_SERVERS_SHOWN; i++)
            if (launch_server(r, i, one, sizeof one))
                put_wrapped(k, i == 0 ? "Per server" : "", EXPLAIN_LABEL_W, ROLE_GOOD, one);
    }
    return k->line;
}

/* The key row: each key and what it does, clickable. */
static const struct {
    const char *name, *what;
    int key;
} xkeys[] = {{"Up/Down", "scroll", KEY_DOWN}, {"PgUp/PgDn", "page", KEY_NPAGE},
             {"Home/End", "ends", KEY_HOME},  {"x/Esc", "back", 'x'},
             {"q", "quit", 'q'}};

static void draw_keys(struct rect r)
{
    view_fill_row(r.y, r.x, r.w, ROLE_TEXT);
    int x = r.x;
    for (size_t i = 0; i < sizeof xkeys / sizeof xkeys[0] && x >= 0; i++)
        x = view_key_item(r.y, x, r.x + r.w, xkeys[i].name, xkeys[i].what);
}

static int key_at(struct rect r, int x)
{
    int cx = r.x;
    for (size_t i = 0; i < sizeof xkeys / sizeof xkeys[0]; i++) {
        int w = (int)(strlen(xkeys[i].name) + 1 + strlen(xkeys[i].what));
        if (x >= cx && x < cx + w)
            return xkeys[i].key;
        cx += w + 2;
    }
    return 0;
}

static void xview_layout(struct planner *p)
{
    struct explain_view_layout *l = &p->frame.xview;
    *l = layout_explain_view(p->frame.cols, p->frame.rows);
    struct sink k = {.draw = false, .w = l->body.w};
    int total = l->too_small ? 0 : walk(p, &k);
    p->xview.page = l->body.h;
    p->xview.max = layout_scroll_max(total, l->body.h);
    p->xview.scroll = layout_scroll_clamp(p->xview.scroll, total, l->body.h);
}

static void draw_title(const struct planner *p, struct rect r, int top, int total, int shown)
{
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *res = planner_result(p);
    char line[256], ctx[32], where[72], group[64] = "";
    view_fill_row(r.y, r.x, r.w, ROLE_KEY);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    if (res->replicas > 1 || res->pp > 1) {
        plan_layout_title(res, group, sizeof group);
        snprintf(where, sizeof where, " (%s)", group);
        snprintf(group, sizeof group, "%s", where);
    }
    bool server = engine_desc(res->profile)->server;
    char engine[64];
    engine_version_title(res->profile, res->rule, engine, sizeof engine);
    int last = top + shown < total ? top + shown : total;
    snprintf(where, sizeof where, " lines %d-%d of %d ", total ? top + 1 : 0, last, total);
    int ww = (int)strlen(where);
    /* the names, as the main screen's title; the ids where they do not fit */
    for (int ids = 0; ids < 2; ids++) {
        snprintf(line, sizeof line, " kvplan  every explain row: %s on %u x %s%s at %s%s%s",
                 ids ? s->model.id : s->model.name, s->gpus, ids ? s->gpu.id : s->gpu.name, group,
                 ctx, server ? ", " : "", server ? engine : "");
        if (view_cols(line) <= r.w - ww - 1)
            break;
    }
    char cut[256];
    widget_text(r.y, r.x, r.w - ww, ROLE_KEY, widget_fit(line, r.w - ww - 1, cut, sizeof cut));
    widget_text(r.y, r.x + r.w - ww, ww, ROLE_KEY, where);
}

static void xview_draw(const struct planner *p, int cols, int rows)
{
    const struct explain_view_layout *l = &p->frame.xview;
    if (l->too_small) {
        view_draw_too_small(cols, rows, LAYOUT_EXPLAIN_VIEW_MIN_COLS, LAYOUT_EXPLAIN_VIEW_MIN_ROWS);
        return;
    }
    int top = p->xview.scroll, shown = l->body.h;
    struct sink k = {.draw = true, .first = top, .count = shown, .y0 = l->body.y,
                     .x = l->body.x, .w = l->body.w};
    int total = walk(p, &k);
    draw_title(p, l->title, top, total, shown);
    /* the scroll bar: its track, and a thumb where the lines shown are */
    struct rect b = l->scrollbar;
    struct layout_thumb t = layout_scroll_thumb(b.h, total, shown, top);
    if (total > shown)
        for (int y = 0; y < b.h; y++) {
            bool thumb = y >= t.y && y < t.y + t.h;
            widget_text(b.y + y, b.x, 1, thumb ? ROLE_TITLE : ROLE_TRACK,
                        thumb ? (roles_utf8() ? "\u2588" : "#") : roles_utf8() ? "\u2502" : "|");
        }
    draw_keys(l->keybar);
}

static int xview_scroll(struct planner *p, int delta)
{
    int top = p->xview.scroll + delta;
    p->xview.scroll = top < 0 ? 0 : top > p->xview.max ? p->xview.max : top;
    return PLAN_REDRAW;
}

static int xview_key(struct planner *p, int key)
{
    int page = p->xview.page > 1 ? p->xview.page - 1 : 1; /* a line of the last page stays */
    switch (key) {
    case KEY_UP: case 'k': case '[': return xview_scroll(p, -1);
    case KEY_DOWN: case 'j': case ']': return xview_scroll(p, +1);
    case KEY_PPAGE: return xview_scroll(p, -page);
    case KEY_NPAGE: case ' ': return xview_scroll(p, +page);
    case KEY_HOME: case 'g': return xview_scroll(p, -p->xview.scroll);
    case KEY_END: case 'G': return xview_scroll(p, p->xview.max);
    case 'x': case 27: case '\n': case '\r': case KEY_ENTER: case 'q': case 'Q':
        return screen_close(p, key);
    default:
        return 0;
    }
}

static int xview_mouse(struct planner *p, const MEVENT *ev)
{
    const struct explain_view_layout *l = &p->frame.xview;
    if (l->too_small)
        return 0;
    if (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
        return xview_scroll(p, ev->bstate & BUTTON4_PRESSED ? -3 : +3);
    if (!(ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
        return 0;
    struct rect b = l->scrollbar;
    if (ev->x == b.x && ev->y >= b.y && ev->y < b.y + b.h && p->xview.max > 0) {
        /* a click on the bar scrolls to that point of the lines */
        p->xview.scroll = layout_scroll_at(b.h, p->xview.max + p->xview.page, p->xview.page,
                                           ev->y - b.y);
        return PLAN_REDRAW;
    }
    int key = ev->y == l->keybar.y ? key_at(l->keybar, ev->x) : 0;
    return key ? xview_key(p, key) : 0;
}

const struct screen screen_explain = {
    .layout = xview_layout, .draw = xview_draw, .key = xview_key, .mouse = xview_mouse};
