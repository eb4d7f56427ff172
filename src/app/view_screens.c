/* The presentation's drawing (its screen is screen_present.c): the count in
 * large digits, the memory bar and the focused control, for a shared screen. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/view.h"
#include "app/view_parts.h"
#include "io/report.h"

/* The presentation's one-line legend under its bar: every part that holds
 * bytes; without "each GPU: " when that does not fit, and shortened
 * (view_legend_flow) when the parts do not either, never past the edge. */
static void draw_presentation_legend(const struct planner *p, struct rect bar, int next_y)
{
    const struct plan_result *res = planner_result(p);
    uint64_t seg[SEG_COUNT];
    plan_segments(res, seg);
    char items[SEG_COUNT][64];
    bool keep[SEG_COUNT];
    int width = 0;
    for (int i = 0; i < SEG_COUNT; i++) {
        /* an empty segment has nothing to say on a shared screen */
        keep[i] = seg[i] != 0 || i == SEG_WEIGHTS;
        if (!keep[i])
            continue;
        char size[32];
        units_format_bytes(seg[i], planner_scenario(p)->units, size, sizeof size);
        snprintf(items[i], sizeof items[i], "%s %s ", plan_segment_name(res, (enum segment)i),
                 size);
        width += 2 + (int)strlen(items[i]);
    }
    const char *head = "each GPU: ";
    if (width + (int)strlen(head) > bar.w + 1) /* + 1: the last item's trailing space */
        head = "";
    if (width > bar.w + 1) {
        /* too long for the row whole: shortened, and onto the gap's rows
         * (one kept blank above what follows) when it needs them; every
         * part still in it */
        int rows = next_y - bar.y - 2;
        view_legend_flow(p, (struct rect){bar.x, bar.y + 1, bar.w, rows > 1 ? rows : 1});
        return;
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

/* The line under the count, in w columns: with a service level, what the
 * count keeps, what fits in memory and what binds first; then where. */
static void presentation_caption(const struct planner *p, int w, char *line, size_t size)
{
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *res = planner_result(p);
    char ctx[32];
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    char where[160], extra[200] = "", group[64] = "";
    if (res->replicas > 1 || res->pp > 1) {
        plan_layout_title(res, group, sizeof group);
        snprintf(extra, sizeof extra, " (%s)", group);
        snprintf(group, sizeof group, "%s", extra);
        extra[0] = '\0';
    }
    /* the GPU's name, as the title says it; its id on a narrow screen */
    snprintf(where, sizeof where, "%u x %s%s", s->gpus, s->gpu.name, group);
    const char *sep = view_sep();
    char lead[200] = "", brief[2][160] = {"", ""};
    if (!res->fits) {
        snprintf(extra, sizeof extra, "   |   %s does not fit",
                 res->weights_fit ? "the KV cache" : "the model");
    } else if (view_has_target(s)) {
        /* the service level leads: what the count keeps, what fits, what binds */
        char words[64], fit[32], bind[64];
        view_target_words(s, words, sizeof words);
        units_format_int(res->max_users, fit, sizeof fit);
        view_binding_words(s, res, bind, sizeof bind);
        snprintf(brief[1], sizeof brief[1], "%s%s%s fit in memory", words, sep, fit);
        snprintf(brief[0], sizeof brief[0], "%s%s%s", brief[1], sep, bind);
        snprintf(lead, sizeof lead, "%s%s", brief[0], sep);
    } else if (planner_reference(p)) {
        view_baseline_text(p, extra + snprintf(extra, sizeof extra, "   |   "), sizeof extra - 7);
    }
    char engine[64];
    engine_version_title(res->profile, res->rule, engine, sizeof engine);
    snprintf(line, size, "%sat %s tokens each on %s%s%s%s", lead, ctx, where,
             engine_desc(res->profile)->server ? ", " : "",
             engine_desc(res->profile)->server ? engine : "", extra);
    if (view_cols(line) > w) { /* narrow: the essentials */
        snprintf(where, sizeof where, "%u x %s%s", s->gpus, s->gpu.id, group);
        snprintf(line, size, "%sat %s on %s%s", lead, ctx, where, extra);
    }
    for (int i = 0; i < 2 && brief[i][0] && view_cols(line) > w; i++)
        snprintf(line, size, "%s", brief[i]); /* narrower: the service level alone */
}

bool view_draw_presentation(const struct planner *p)
{
    const struct presentation_layout l = p->frame.present;
    if (l.too_small) {
        /* nor does any box go over it: each is sized for a screen this large */
        view_draw_too_small(p->frame.cols, p->frame.rows, LAYOUT_PRESENT_MIN_COLS,
                            LAYOUT_PRESENT_MIN_ROWS);
        return false;
    }
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *res = planner_result(p);
    char n[32], line[256];
    view_title(p, l.title);
    /* with a service level, the users who keep it; the memory's count follows */
    uint64_t users = view_headline_users(s, res);
    units_format_int(users, n, sizeof n);
    int w = widget_big_number_width(n, l.scale);
    int x = l.number.x + (l.number.w - w - 12) / 2;
    widget_big_number(l.number.y, x, n, l.scale, view_headline_role(s, res));
    widget_text(l.number.y + l.number.h - 1, x + w + 2, 10, ROLE_TITLE,
                users == 1 ? "user" : "users");
    presentation_caption(p, l.caption.w, line, sizeof line);
    int lw = view_cols(line);
    widget_text(l.caption.y, l.caption.x + (l.caption.w > lw ? (l.caption.w - lw) / 2 : 0),
                l.caption.w, ROLE_TEXT, line);
    /* the speed and cost of those users, centred under it, a line each */
    struct view_speed v;
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
    view_speed_of(res, s->units, &v);
    int lc = view_speed_lines(&v, l.speed.w, l.speed.h, lines);
    for (int i = 0; i < lc && i < l.speed.h; i++) {
        lw = view_cols(lines[i]);
        widget_text(l.speed.y + i, l.speed.x + (l.speed.w > lw ? (l.speed.w - lw) / 2 : 0),
                    l.speed.w, v.known ? ROLE_TEXT : ROLE_DIM, lines[i]);
    }
    struct bar_segment bs[SEG_COUNT];
    bool over = view_bar_segments(p, bs);
    widget_bar(l.bar.y, l.bar.x, l.bar.w, bs, SEG_COUNT, over);
    draw_presentation_legend(p, l.bar, l.slider.y);
    /* the focused control, full width */
    char value[128];
    control_format(p->focus, s, res, value, sizeof value);
    widget_text(l.slider.y, l.slider.x, LABEL_W, ROLE_FOCUS, control_label(p->focus, s));
    double f = planner_control_fraction(p, p->focus);
    int tx = l.track.x, tw = l.track.w;
    if (f >= 0)
        widget_slider(l.slider.y, tx, tw, f, true);
    widget_text(l.slider.y, f >= 0 ? tx + tw + 1 : tx, VALUE_W + (f >= 0 ? 0 : tw), ROLE_TITLE,
                value);
    if (l.explain.h > 0) {
        /* the formula of the count shown: with a service level, its users' */
        const struct explain_row *u =
            explain_find(&p->explain, view_has_target(s) ? "users_slo" : "users");
        if (u)
            view_explain_row(u, l.explain.y, l.explain.x, l.explain.w, l.explain.h, ROLE_DIM);
    }
    if (l.keybar.h > 0)
        view_keybar(l.keybar);
    return true;
}
