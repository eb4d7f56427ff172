/* The memory bar's legend where its table does not fit: every segment the
 * bar draws, as items that flow along the rows, in the first of these
 * forms that fits whole: the names and sizes as the table has them, then
 * the names shortened, then the sizes too, then a one-cell mark and one
 * space between items. No segment is ever left out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"

enum { LEGEND_FORMS = 4 };

/* The short form of a segment's name (the engine's words among them). */
static const char *short_name(const char *name)
{
    static const char *const shorts[][2] = {
        {"activations+rt", "act+rt"}, {"compute buffers", "buffers"}, {"outside budget", "outside"},
        {"kept free", "free"},        {"draft model", "draft"},       {"MTP head", "MTP"},
        {"users' state", "state"},    {"LoRA slots", "LoRA"},         {"encoder cache", "encoder"},
        {"shared prefix", "prefix"},  {"users' KV", "users"},         {"spare KV", "spare"},
        {"spare KV+state", "spare"}};
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++)
        if (strcmp(name, shorts[i][0]) == 0)
            return shorts[i][1];
    return name;
}

/* A size in at most three figures and a letter: 32.9G, 589M, 7.92G. */
static void short_size(uint64_t bytes, enum unit_system units, char *buf, size_t size)
{
    static const char letter[] = "BKMGTP";
    double base = units == UNITS_GB ? 1000.0 : 1024.0, v = (double)bytes;
    int i = 0;
    while (i < 5 && v >= 999.5) {
        v /= base;
        i++;
    }
    if (i == 0)
        snprintf(buf, size, "%.0fB", v);
    else
        snprintf(buf, size, v < 9.995 ? "%.2f%c" : v < 99.95 ? "%.1f%c" : "%.0f%c", v, letter[i]);
}

bool view_legend_shown(const uint64_t seg[SEG_COUNT], int i)
{
    return seg[i] != 0 || i == SEG_WEIGHTS || i == SEG_USERS;
}

/* Segment i's item in form f: its name and its size. */
static void item_text(const struct plan_result *r, enum unit_system units, const uint64_t *seg,
                      int i, int f, char *buf, size_t size)
{
    char sz[32];
    const char *name = plan_segment_name(r, (enum segment)i);
    if (f >= 2)
        short_size(seg[i], units, sz, sizeof sz);
    else
        units_format_bytes(seg[i], units, sz, sizeof sz);
    snprintf(buf, size, "%s %s", f >= 1 ? short_name(name) : name, sz);
}

/* Rows the items take in w columns in form f (and draws them when asked). */
static int flow(const struct plan_result *r, enum unit_system units, const uint64_t *seg,
                const int *shown, int n, int f, struct rect at, bool draw)
{
    int mark = f >= 3 ? 1 : 2, gap = f >= 3 ? 1 : 2, row = 0, x = 0;
    for (int k = 0; k < n; k++) {
        char text[96];
        item_text(r, units, seg, shown[k], f, text, sizeof text);
        int w = mark + 1 + (int)strlen(text);
        if (x > 0 && x + gap + w > at.w) {
            row++;
            x = 0;
        } else if (x > 0) {
            x += gap;
        }
        if (draw && row < at.h) {
            enum role role = view_segment_roles[shown[k]];
            for (int m = 0; m < mark; m++)
                widget_text(at.y + row, at.x + x + m, 1, role, role_glyph(role));
            widget_text(at.y + row, at.x + x + mark + 1, at.w - x - mark - 1, ROLE_TEXT, text);
        }
        x += w;
    }
    return row + 1;
}

int view_legend_flow(const struct planner *p, struct rect at)
{
    const struct plan_result *r = planner_result(p);
    enum unit_system units = planner_scenario(p)->units;
    uint64_t seg[SEG_COUNT];
    plan_segments(r, seg);
    int shown[SEG_COUNT], n = 0;
    for (int i = 0; i < SEG_COUNT; i++)
        if (view_legend_shown(seg, i))
            shown[n++] = i;
    int f = 0;
    while (f < LEGEND_FORMS - 1 && flow(r, units, seg, shown, n, f, at, false) > at.h)
        f++;
    return flow(r, units, seg, shown, n, f, at, true);
}
