/* The help: every key of the main screen, in one or two columns, scrolled
 * with PgDn and PgUp when taller than the screen; any other key closes it. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "app/view_parts.h"

enum { HELP_TAILS = 4 };

/* The help's lines of keys and its closing notes, and where they go. */
struct help_layout {
    int n, tails, columns, per, rows; /* key lines; closing notes; columns; rows of keys; shown */
    int x, y, w, h, cw;
};

static void help_layout(int cols, int rows, const char *const *lines, int n,
                        const char *const *tail, struct help_layout *g)
{
    int tails = 0;
    while (tails < HELP_TAILS && tail[tails])
        tails++;
    int longest = 0;
    for (int i = 0; i < n; i++)
        if ((int)strlen(lines[i]) > longest)
            longest = (int)strlen(lines[i]);
    g->n = n;
    g->tails = tails;
    /* two columns of keys when one does not fit the height and two fit the
     * width with two blanks between them; else one that scrolls */
    g->columns = n + tails + 2 > rows && 2 * longest + 2 <= cols - 6 ? 2 : 1;
    g->per = (n + g->columns - 1) / g->columns;
    /* wide enough for the longest line, the closing notes included */
    int want = g->columns == 2 ? 96 : 60;
    for (int t = 0; t < tails; t++)
        if (view_cols(tail[t]) + 4 > want)
            want = view_cols(tail[t]) + 4;
    struct rect box = layout_help(cols, rows, want, g->per, tails);
    g->x = box.x;
    g->y = box.y;
    g->w = box.w;
    g->h = box.h;
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

/* The closing notes: the mouse, the bar's glyphs as this terminal draws
 * them without colour (in two lines when one is wider than the box can be),
 * and how the help closes; returns how many. */
static int help_tails(const struct planner *p, int cols, const char *tail[HELP_TAILS],
                      char legend[2][160])
{
    if (roles_color()) {
        snprintf(legend[0], sizeof legend[0], "colour tells the bar's parts apart (see its legend)");
    } else {
        static const char *const names[SEG_COUNT] = {
            [SEG_WEIGHTS] = "weights", [SEG_RUNTIME] = "runtime", [SEG_STATE] = "state",
            [SEG_LORA] = "LoRA",       [SEG_ENCODER] = "encoder",
            [SEG_PREFIX] = "prefix",   [SEG_USERS] = "users",     [SEG_SPARE] = "spare",
            [SEG_RESERVED] = "reserved"};
        size_t n = (size_t)snprintf(legend[0], sizeof legend[0], "no colour:");
        for (int i = 0; i < SEG_COUNT && n < sizeof legend[0]; i++)
            /* the draft's glyph is in the bar's own legend when there is one */
            if (names[i] && (i != SEG_STATE || planner_scenario(p)->model.state_layers > 0))
                n += (size_t)snprintf(legend[0] + n, sizeof legend[0] - n, "%s %s %s",
                                      i ? "," : "", names[i], role_glyph(view_segment_roles[i]));
    }
    legend[1][0] = '\0';
    /* the widest box leaves cols - 6 columns of text: else it breaks after a comma */
    int room = cols - 6;
    char *cut = NULL;
    for (char *c = strchr(legend[0], ','); c; c = strchr(c + 1, ','))
        if (view_cols(legend[0]) > room && (int)(c - legend[0]) < room)
            cut = c;
    if (cut) {
        snprintf(legend[1], sizeof legend[1], "          %s", cut + 2);
        cut[1] = '\0';
    }
    /* taller than the screen: it scrolls, and says so where it closes */
    bool more = p->help.scroll < p->help.max, back = p->help.scroll > 0;
    const char *close = more && back ? "more: PgDn (PgUp back); any other key closes"
                        : more       ? "more: PgDn; any other key closes"
                        : back       ? "the end (PgUp back); any other key closes"
                                     : "any key closes this help";
    int n = 0;
    tail[n++] = "mouse: click, drag a knob, wheel steps, click a key or a tab";
    tail[n++] = legend[0];
    if (legend[1][0])
        tail[n++] = legend[1];
    tail[n++] = close;
    for (int i = n; i < HELP_TAILS; i++)
        tail[i] = NULL;
    return n;
}

/* The help's page and last scroll for this frame, its scroll kept in range. */
static void help_settle(struct planner *p)
{
    /* the rows depend on the closing notes' count, not on their text */
    const char *lines[64], *tail[HELP_TAILS];
    char legend[2][160];
    static char text[64][96];
    struct help_layout g;
    help_tails(p, p->frame.cols, tail, legend);
    help_layout(p->frame.cols, p->frame.rows, lines, help_lines(lines, text), tail, &g);
    p->help.page = g.rows;
    p->help.max = g.per > g.rows ? g.per - g.rows : 0;
    if (p->help.scroll > p->help.max)
        p->help.scroll = p->help.max;
}

static void help_draw(const struct planner *p, int cols, int rows)
{
    if (!view_draw_base(p))
        return;
    const char *lines[64], *tail[HELP_TAILS];
    char legend[2][160];
    static char text[64][96];
    struct help_layout g;
    help_tails(p, cols, tail, legend);
    bool more = p->help.scroll < p->help.max;
    help_layout(cols, rows, lines, help_lines(lines, text), tail, &g);
    view_box(g.y, g.x, g.h, g.w, " Keys ");
    for (int i = 0; i < g.n; i++) {
        int row = i % g.per - p->help.scroll, col = i / g.per;
        if (row >= 0 && row < g.rows)
            widget_text(g.y + 1 + row, g.x + 2 + col * g.cw, g.cw - 2, ROLE_TEXT, lines[i]);
    }
    for (int t = 0; t < g.tails; t++)
        widget_text(g.y + g.h - 1 - g.tails + t, g.x + 2, g.w - 4,
                    t == g.tails - 1 ? (more ? ROLE_TITLE : ROLE_DIM) : ROLE_TEXT, tail[t]);
}

static int help_key(struct planner *p, int key)
{
    if (p->help.max > 0 && (key == KEY_NPAGE || key == KEY_DOWN || key == ' ')) {
        int step = key == KEY_DOWN ? 1 : p->help.page > 1 ? p->help.page - 1 : 1;
        p->help.scroll = p->help.scroll + step < p->help.max ? p->help.scroll + step : p->help.max;
        return PLAN_REDRAW;
    }
    if (p->help.max > 0 && (key == KEY_PPAGE || key == KEY_UP)) {
        int step = key == KEY_UP ? 1 : p->help.page > 1 ? p->help.page - 1 : 1;
        p->help.scroll = p->help.scroll > step ? p->help.scroll - step : 0;
        return PLAN_REDRAW;
    }
    return screen_close_any(p); /* as it says: any key, q too, closes it */
}

/* like any key, a click closes the help */
static int help_mouse(struct planner *p, const MEVENT *ev)
{
    if (!(ev->bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
        return 0;
    p->mode = p->base;
    return PLAN_REDRAW;
}

const struct screen screen_help = {
    .layout = help_settle, .draw = help_draw, .key = help_key, .mouse = help_mouse};
