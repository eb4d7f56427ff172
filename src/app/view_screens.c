/* The screens drawn over or instead of the main one: picker, help, prompt,
 * warnings and presentation (compare: view_compare.c). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/view.h"
#include "app/view_parts.h"
#include "core/shell.h"
#include "io/report.h"

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
    snprintf(out, size, "%.*s%s", cut, text, roles_utf8() ? "\u2026" : "~");
}

void view_draw_picker(const struct planner *p)
{
    int w = COLS - 2, h = LINES - 2, x = 1, y = 1;
    bool gpu = p->picker_for == CTRL_GPU;
    int idx[512];
    int n = planner_picker_matches(p, idx, 512);
    int total = gpu ? (int)p->catalog->gpu_count : (int)p->catalog->model_count;
    char title[200], slo[48] = "";
    /* with a service level the USERS column counts the users that keep it */
    if (p->scenario.min_tokens_per_s > 0)
        snprintf(slo, sizeof slo, "; users keep %g tok/s", p->scenario.min_tokens_per_s);
    else if (p->scenario.max_ttft_seconds > 0)
        snprintf(slo, sizeof slo, "; users within %g s", p->scenario.max_ttft_seconds);
    snprintf(title, sizeof title, " %s: type to filter [%s%s] %d of %d; Tab sorts by users%s%s ",
             gpu ? "GPU" : "Model", p->filter, roles_utf8() ? "\u2581" : "_", n, total,
             p->picker_by_users ? " (on)" : "", slo);
    view_box(y, x, h, w, title);
    int rows = h - 3;
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
    int top = p->picker_sel >= rows ? p->picker_sel - rows + 1 : 0;
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
            units_format_bytes(g->memory_bytes, p->scenario.units, a, sizeof a);
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
            units_format_bytes_exact(kvcost_model_bytes_per_token(m), a, sizeof a);
            units_format_tokens_short(m->max_context_tokens, b, sizeof b);
            ellipsize(m->name, name_w, name, sizeof name);
            snprintf(line, sizeof line, "%-18s %7s  %-*s %6.1fB %6u %-10s %9s %5s", m->id, users,
                     name_w, name, (double)m->params / 1e9, m->layers, heads, a, b);
        }
        bool sel = top + i == p->picker_sel;
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

int view_picker_row_at(const struct planner *p, int x, int y)
{
    int rows = LINES - 2 - 3, top = p->picker_sel >= rows ? p->picker_sel - rows + 1 : 0;
    int idx[512], n = planner_picker_matches(p, idx, 512);
    int i = y - 3;
    if (x < 2 || x >= COLS - 2 || i < 0 || i >= rows || top + i >= n)
        return -1;
    return top + i;
}

/* The help's lines of keys and its closing notes, and where they go. */
struct help_layout {
    int n, tails, columns, per, rows; /* key lines; closing notes; columns; rows of keys; shown */
    int x, y, w, h, cw;
};

static void help_layout(int n, const char *const *lines, const char *const *tail, int tails,
                        struct help_layout *g)
{
    int longest = 0;
    for (int i = 0; i < n; i++)
        if ((int)strlen(lines[i]) > longest)
            longest = (int)strlen(lines[i]);
    g->n = n;
    g->tails = tails;
    /* two columns of keys when one does not fit the height and two fit the
     * width with two blanks between them; else one that scrolls */
    g->columns = n + tails + 2 > LINES && 2 * longest + 2 <= COLS - 6 ? 2 : 1;
    g->per = (n + g->columns - 1) / g->columns;
    /* wide enough for the longest line, the closing notes included */
    int want = g->columns == 2 ? 96 : 60;
    for (int t = 0; t < tails; t++)
        if ((int)strlen(tail[t]) + 4 > want)
            want = (int)strlen(tail[t]) + 4;
    g->w = COLS - 2 < want ? COLS - 2 : want;
    g->h = g->per + tails + 3 < LINES ? g->per + tails + 3 : LINES;
    g->x = (COLS - g->w) / 2;
    g->y = (LINES - g->h) / 2;
    g->cw = (g->w - 4) / g->columns;
    if (g->columns == 2 && g->cw < longest + 2)
        g->cw = longest + 2; /* the first column's longest line and two blanks */
    g->rows = g->h - 3 - tails > 0 ? g->h - 3 - tails : 0;
}

static int help_lines(const char *lines[64], char text[64][96])
{
    int nkeys, n = 0;
    const struct planner_key_def *k = planner_keys(&nkeys);
    for (int i = 0; i < nkeys && n < 64; i++) {
        if (k[i].help == NULL)
            continue;
        snprintf(text[n], sizeof text[n], "%-7s %s", k[i].name, k[i].help);
        lines[n] = text[n];
        n++;
    }
    return n;
}

enum { HELP_TAILS = 3 };

void view_help_settle(struct planner *p)
{
    /* the rows depend on the closing notes' count, not on their text */
    const char *lines[64], *tail[HELP_TAILS] = {"", "", ""};
    static char text[64][96];
    struct help_layout g;
    help_layout(help_lines(lines, text), lines, tail, HELP_TAILS, &g);
    p->help_page = g.rows;
    p->help_max = g.per > g.rows ? g.per - g.rows : 0;
    if (p->help_scroll > p->help_max)
        p->help_scroll = p->help_max;
}

void view_draw_help(const struct planner *p)
{
    /* the bar's glyphs as this terminal draws them without colour */
    char legend[160];
    if (roles_color()) {
        snprintf(legend, sizeof legend, "colour tells the bar's parts apart (see its legend)");
    } else {
        static const char *const names[SEG_COUNT] = {
            [SEG_WEIGHTS] = "weights", [SEG_RUNTIME] = "runtime", [SEG_STATE] = "state",
            [SEG_LORA] = "LoRA",       [SEG_ENCODER] = "encoder",
            [SEG_PREFIX] = "prefix",   [SEG_USERS] = "users",     [SEG_SPARE] = "spare",
            [SEG_RESERVED] = "reserved"};
        size_t n = (size_t)snprintf(legend, sizeof legend, "no colour:");
        for (int i = 0; i < SEG_COUNT && n < sizeof legend; i++)
            /* the draft's glyph is in the bar's own legend when there is one */
            if (names[i] && (i != SEG_STATE || p->scenario.model.state_layers > 0))
                n += (size_t)snprintf(legend + n, sizeof legend - n, "%s %s %s", i ? "," : "",
                                  names[i], role_glyph(view_segment_roles[i]));
    }
    /* taller than the screen: it scrolls, and says so where it closes */
    bool more = p->help_scroll < p->help_max, back = p->help_scroll > 0;
    const char *close = more && back ? "more: PgDn (PgUp back); any other key closes"
                        : more       ? "more: PgDn; any other key closes"
                        : back       ? "the end (PgUp back); any other key closes"
                                     : "any key closes this help";
    const char *tail[HELP_TAILS] = {
        "mouse: click, drag a knob, wheel steps, click a key or a tab",
        legend,
        close,
    };
    const char *lines[64];
    static char text[64][96];
    struct help_layout g;
    help_layout(help_lines(lines, text), lines, tail, HELP_TAILS, &g);
    view_box(g.y, g.x, g.h, g.w, " Keys ");
    for (int i = 0; i < g.n; i++) {
        int row = i % g.per - p->help_scroll, col = i / g.per;
        if (row >= 0 && row < g.rows)
            widget_text(g.y + 1 + row, g.x + 2 + col * g.cw, g.cw - 2, ROLE_TEXT, lines[i]);
    }
    for (int t = 0; t < g.tails; t++)
        widget_text(g.y + g.h - 1 - g.tails + t, g.x + 2, g.w - 4,
                    t == g.tails - 1 ? (more ? ROLE_TITLE : ROLE_DIM) : ROLE_TEXT, tail[t]);
}

void view_draw_warnings(const struct planner *p)
{
    uint32_t shown = plan_shown_warnings(&p->result);
    int n = 0;
    for (uint32_t bit = 1; bit <= WARN_LAST; bit <<= 1)
        n += (shown & bit) != 0;
    int w = COLS - 4, room = w - 4 - 2;
    /* each warning wraps at a space onto as many rows as it needs (in a box
     * too narrow to wrap in, none: the caller draws boxes on screens that fit) */
    char lines[64][320];
    int nl = 0;
    for (uint32_t bit = 1; bit <= WARN_LAST && nl < 64; bit <<= 1) {
        if (!(shown & bit))
            continue;
        char text[300];
        plan_warning_format(&p->result, (enum plan_warning)bit, text, sizeof text);
        const char *t = text;
        bool first = true;
        while (*t && nl < 64 && room > 8) {
            int len = (int)strlen(t), cut = len;
            if (len > room) {
                cut = room;
                while (cut > room / 2 && t[cut] != ' ')
                    cut--;
            }
            snprintf(lines[nl++], sizeof lines[0], "%s%.*s", first ? "! " : "  ", cut, t);
            t += cut;
            while (*t == ' ')
                t++;
            first = false;
        }
    }
    (void)n;
    int h = nl + 4 < LINES ? nl + 4 : LINES;
    int x = 2, y = (LINES - h) / 2;
    view_box(y, x, h, w, " Warnings (any key closes) ");
    for (int i = 0; i < nl && i < h - 3; i++)
        widget_text(y + 2 + i, x + 2, w - 4, ROLE_WARN, lines[i]);
}

void view_draw_prompt(const struct planner *p)
{
    char line[PLANNER_TEXT_MAX + 96];
    int y = LINES - 1;
    view_fill_row(y, 0, COLS, ROLE_TEXT);
    if (p->mode == MODE_CONFIRM) {
        if (p->pending_kind == PROMPT_QUIT)
            snprintf(line, sizeof line, "Quit? %d scenario%s not exported (e exports). (y/N) ",
                     p->count, p->count == 1 ? "" : "s");
        else if (p->pending_kind == PROMPT_REMOVE)
            snprintf(line, sizeof line, "Remove scenario %d %s%s? It cannot be undone. (y/N) ",
                     p->current + 1, p->slots[p->current].label,
                     p->slots[p->current].note[0] ? " and its note" : "");
        else
            snprintf(line, sizeof line, "%s exists. Overwrite it? (y/N) ", p->pending_path);
        widget_text(y, 0, COLS, ROLE_TITLE, line);
        return;
    }
    char prefix[96], limit[64];
    const char *hint = "Enter applies, Esc cancels";
    switch (p->prompt_kind) {
    case PROMPT_EXPORT:
        snprintf(prefix, sizeof prefix, "Export to: ");
        hint = "Enter writes, Esc cancels";
        break;
    case PROMPT_OPEN:
        snprintf(prefix, sizeof prefix, "Open snapshot: ");
        hint = "Enter opens, Esc cancels";
        break;
    case PROMPT_EXPORT_MD:
        snprintf(prefix, sizeof prefix, "Markdown to: ");
        hint = "Enter writes, Esc cancels";
        break;
    case PROMPT_LABEL:
        snprintf(prefix, sizeof prefix, "Name of scenario %d: ", p->current + 1);
        snprintf(limit, sizeof limit, "Enter names it; at most %d bytes", SNAPSHOT_LABEL_BYTES);
        hint = limit;
        break;
    case PROMPT_NOTE:
        snprintf(prefix, sizeof prefix, "Note: ");
        snprintf(limit, sizeof limit, "Enter keeps it; at most %d bytes", SNAPSHOT_NOTE_BYTES);
        hint = limit;
        break;
    case PROMPT_TARGET:
        snprintf(prefix, sizeof prefix, "Users to serve: ");
        hint = "Enter asks what it would take";
        break;
    default:
        snprintf(prefix, sizeof prefix, "%s = ", control_label(p->focus, &p->scenario));
        break;
    }
    /* a prefilled value is shown selected: the first key typed replaces it */
    snprintf(line, sizeof line, "%s%s_   (%s%s)", prefix, p->prompt, hint,
             p->prompt_fresh ? "; typing replaces, Ctrl-U clears" : "");
    widget_text(y, 0, COLS, ROLE_TITLE, line);
    int at = (int)strlen(prefix);
    if (p->prompt_fresh && at < COLS)
        widget_text(y, at, COLS - at, ROLE_FOCUS, p->prompt);
}

/* The presentation's one-line legend under its bar: every part that holds
 * bytes when it fits; else without "each GPU: ", then without the smallest
 * parts (the bar still shows them) until it does, never past the edge. */
static void draw_presentation_legend(const struct planner *p, struct rect bar)
{
    uint64_t seg[SEG_COUNT];
    plan_segments(&p->result, seg);
    char items[SEG_COUNT][64];
    bool keep[SEG_COUNT];
    int width = 0;
    for (int i = 0; i < SEG_COUNT; i++) {
        /* an empty segment has nothing to say on a shared screen */
        keep[i] = seg[i] != 0 || i == SEG_WEIGHTS;
        if (!keep[i])
            continue;
        char size[32];
        units_format_bytes(seg[i], p->scenario.units, size, sizeof size);
        snprintf(items[i], sizeof items[i], "%s %s ", plan_segment_name(&p->result, (enum segment)i),
                 size);
        width += 2 + (int)strlen(items[i]);
    }
    const char *head = "each GPU: ";
    if (width + (int)strlen(head) > bar.w + 1) /* + 1: the last item's trailing space */
        head = "";
    while (width > bar.w + 1) {
        int drop = -1;
        for (int i = 0; i < SEG_COUNT; i++)
            if (keep[i] && (drop < 0 || seg[i] < seg[drop]))
                drop = i;
        if (drop < 0)
            break;
        keep[drop] = false;
        width -= 2 + (int)strlen(items[drop]);
    }
    int lx = bar.x, end = bar.x + bar.w;
    lx += widget_text(bar.y + 1, lx, bar.w, ROLE_DIM, head);
    for (int i = 0; i < SEG_COUNT && lx + 2 < end; i++) {
        if (!keep[i])
            continue;
        widget_text(bar.y + 1, lx, 2, view_segment_roles[i], role_glyph(view_segment_roles[i]));
        lx += 2;
        lx += widget_text(bar.y + 1, lx, end - lx, ROLE_TEXT, items[i]);
    }
}

void view_draw_presentation(const struct planner *p)
{
    struct presentation_layout l = layout_presentation(COLS, LINES);
    if (l.too_small)
        return; /* view_draw says so */
    const struct scenario *s = &p->scenario;
    char n[32], line[256], ctx[32];
    view_title(p, l.title);
    units_format_int(p->result.max_users, n, sizeof n);
    int w = widget_big_number_width(n, l.scale);
    int x = l.number.x + (l.number.w - w - 12) / 2;
    widget_big_number(l.number.y, x, n, l.scale, view_users_role(&p->result));
    widget_text(l.number.y + l.number.h - 1, x + w + 2, 10, ROLE_TITLE, "users");
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    const struct plan_result *res = &p->result;
    char where[160], extra[160] = "", group[48];
    plan_layout_group(res, group, sizeof group);
    if (res->replicas > 1)
        snprintf(where, sizeof where, "%u x %s (%s)", s->gpus, s->gpu.id, group);
    else
        snprintf(where, sizeof where, "%u x %s", s->gpus, s->gpu.id);
    if (!res->fits)
        snprintf(extra, sizeof extra, "   |   %s does not fit",
                 res->weights_fit ? "the KV cache" : "the model");
    else if (s->min_tokens_per_s > 0)
        snprintf(extra, sizeof extra, "   |   %llu keep %g tok/s",
                 (unsigned long long)res->speed.users_at_service_level, s->min_tokens_per_s);
    else if (planner_reference(p))
        view_baseline_text(p, extra + snprintf(extra, sizeof extra, "   |   "), sizeof extra - 7);
    snprintf(line, sizeof line, "at %s tokens each on %s%s%s%s", ctx, where,
             engine_desc(res->profile)->server ? ", " : "",
             engine_desc(res->profile)->server ? engine_label(res->profile, res->rule) : "", extra);
    if ((int)strlen(line) > l.caption.w) /* narrow: the essentials */
        snprintf(line, sizeof line, "at %s on %s%s", ctx, where, extra);
    int lw = (int)strlen(line);
    widget_text(l.caption.y, l.caption.x + (l.caption.w > lw ? (l.caption.w - lw) / 2 : 0),
                l.caption.w, ROLE_TEXT, line);
    struct bar_segment bs[SEG_COUNT];
    bool over = view_bar_segments(p, bs);
    widget_bar(l.bar.y, l.bar.x, l.bar.w, bs, SEG_COUNT, over);
    draw_presentation_legend(p, l.bar);
    /* the focused control, full width */
    char value[128];
    control_format(p->focus, &p->scenario, &p->result, value, sizeof value);
    widget_text(l.slider.y, l.slider.x, LABEL_W, ROLE_FOCUS, control_label(p->focus, &p->scenario));
    double f = planner_control_fraction(p, p->focus);
    int tx = l.slider.x + LABEL_W + 1, tw = l.slider.w - LABEL_W - VALUE_W - 2;
    if (f >= 0)
        widget_slider(l.slider.y, tx, tw, f, true);
    widget_text(l.slider.y, f >= 0 ? tx + tw + 1 : tx, VALUE_W + (f >= 0 ? 0 : tw), ROLE_TITLE,
                value);
    if (l.explain.h > 0) {
        const struct explain_row *u = explain_find(&p->explain, "users");
        if (u)
            view_explain_row(u, l.explain.y, l.explain.x, l.explain.w, l.explain.h, ROLE_DIM);
    }
    if (l.keybar.h > 0)
        view_keybar(l.keybar);
}

/* The note's lines at width w (broken at spaces), drawn from row y when
 * draw; returns how many. */
static int copied_note(const char *note, int y, int x, int w, bool draw)
{
    int rows = 0;
    for (const char *t = note; *t && w > 0; rows++) {
        int n = (int)strlen(t);
        if (n > w) { /* the last space that leaves the line within w */
            n = w;
            while (n > 0 && t[n] != ' ')
                n--;
            n = n > 0 ? n : w;
        }
        if (draw) {
            char line[PLANNER_TEXT_MAX];
            snprintf(line, sizeof line, "%.*s", n, t);
            widget_text(y + rows, x, w, ROLE_WARN, line);
        }
        t += n;
        while (*t == ' ')
            t++;
    }
    return rows;
}

void view_draw_copied(const struct planner *p)
{
    int w = COLS - 4, x = 2, room = w - 4 < 480 ? w - 4 : 480; /* widget_text draws 512 cells */
    /* wrapped so that a selection of every line pastes as the one command
     * (core/shell.h: " \\" between words, a word too long for a line
     * continued on the next) */
    size_t need = shell_wrap(p->copied, room > 0 ? (size_t)room : 0, NULL, 0);
    char *text = malloc(need + 1);
    if (text)
        shell_wrap(p->copied, room > 0 ? (size_t)room : 0, text, need + 1);
    int n = 0;
    for (const char *c = text ? text : ""; *c; c++)
        n += *c == '\n';
    /* what the command does not plan, below it: a blank row, then the note */
    int note = copied_note(p->copied_note, 0, 0, w - 4, false);
    if (note && n + 6 + note > LINES)
        note = 0; /* the command first; the status line says the note too */
    int h = n + 5 + (note ? note + 1 : 0) < LINES ? n + 5 + (note ? note + 1 : 0) : LINES;
    int y = (LINES - h) / 2, rows = h - 4 - (note ? note + 1 : 0);
    view_box(y, x, h, w, " Copied to the clipboard (OSC 52) ");
    widget_text(y + 1, x + 2, w - 4, ROLE_DIM,
                "If your terminal does not pass OSC 52, select the text below:");
    char *line = text;
    for (int row = 0; line && *line && row < rows; row++) {
        char *eol = strchr(line, '\n');
        *eol = '\0';
        if (row == rows - 1 && row < n - 1) { /* never a part that looks whole */
            char more[96];
            snprintf(more, sizeof more, "(%d more lines: a taller terminal shows them all)",
                     n - row);
            widget_text(y + 2 + row, x + 2, w - 4, ROLE_WARN, more);
        } else {
            widget_text(y + 2 + row, x + 2, w - 4, ROLE_GOOD, line);
        }
        line = eol + 1;
    }
    if (text == NULL)
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN, "(out of memory: not shown)");
    free(text);
    if (note)
        copied_note(p->copied_note, y + 2 + rows, x + 2, w - 4, true);
    widget_text(y + h - 2, x + 2, w - 4, ROLE_DIM, "any key closes");
}

void view_draw_options(const struct planner *p)
{
    int w = COLS - 4 < 100 ? COLS - 4 : 100, x = (COLS - w) / 2;
    int h = p->option_count + 5 < LINES ? p->option_count + 5 : LINES;
    int y = (LINES - h) / 2;
    char title[96], n[32];
    units_format_int(p->target_users, n, sizeof n);
    snprintf(title, sizeof title, " What would it take to serve %s users? ", n);
    view_box(y, x, h, w, title);
    if (p->option_count == 0) {
        widget_text(y + 2, x + 2, w - 4, ROLE_WARN,
                    "no single change reaches it: combine them, or ask kvplan solve");
        return;
    }
    for (int i = 0; i < p->option_count && i < h - 4; i++) {
        char line[PLANNER_TEXT_MAX + 8];
        snprintf(line, sizeof line, "%d  %s", i + 1, p->options[i].text);
        widget_text(y + 2 + i, x + 2, w - 4, ROLE_TEXT, line);
        widget_text(y + 2 + i, x + 2, 1, ROLE_KEY, line);
    }
    widget_text(y + h - 2, x + 2, w - 4, ROLE_DIM, "a digit applies that change (z undoes it); any other key closes");
}
