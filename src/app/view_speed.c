/* The speed, throughput, first token and cost every screen shows beside its
 * count, and the count itself: with a service level, the users who keep it.
 * Only words: every figure is the plan's (core/speed.c, core/plan.c). */
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"
#include "core/text.h"

int view_cols(const char *text)
{
    int n = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        n += (*c & 0xC0) != 0x80; /* a UTF-8 sequence's first byte; every glyph here is one column */
    return n;
}

const char *view_sep(void)
{
    return roles_utf8() ? " \u00b7 " : " | ";
}

bool view_has_target(const struct scenario *s)
{
    return s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
}

uint64_t view_headline_users(const struct scenario *s, const struct plan_result *r)
{
    return view_has_target(s) ? r->speed.users_at_service_level : r->max_users;
}

enum role view_headline_role(const struct scenario *s, const struct plan_result *r)
{
    if (!view_has_target(s) || !r->fits)
        return view_users_role(r);
    return r->speed.users_at_service_level == 0 ? ROLE_WARN : ROLE_GOOD;
}

void view_speed_of(const struct plan_result *r, enum unit_system u, struct view_speed *v)
{
    const struct speed_result *sp = &r->speed;
    memset(v, 0, sizeof *v);
    v->known = sp->known && sp->concurrency > 0 && sp->tokens_per_s_per_user > 0;
    v->why = !sp->known         ? "no bandwidth figure: no speed"
             : r->max_users == 0 ? "no user fits: no speed"
                                 : "no speed";
    explain_format(sp->tokens_per_s_per_user, XU_TOK_PER_S, u, v->per_user, sizeof v->per_user);
    explain_format(sp->tokens_per_s_total, XU_TOK_PER_S, u, v->total, sizeof v->total);
    if (sp->ttft_seconds > 0)
        explain_format(sp->ttft_seconds, XU_SECONDS, u, v->ttft, sizeof v->ttft);
    else
        snprintf(v->ttft, sizeof v->ttft, "n/a");
    explain_format(r->cost_per_user_hour, XU_USD, u, v->cost, sizeof v->cost); /* n/a below 0 */
    /* a million output tokens at the throughput shown (core/price.c) */
    if (r->cost_per_million_output_tokens >= 0)
        explain_format(r->cost_per_million_output_tokens, XU_USD, u, v->cost_mtok,
                       sizeof v->cost_mtok);
}

/* item = a + b + c, without printf (each frame writes them) */
static void put3(char item[48], const char *a, const char *b, const char *c)
{
    size_t len = 0;
    item[0] = '\0';
    text_append(item, 48, &len, a);
    text_append(item, 48, &len, b);
    text_append(item, 48, &len, c);
}

void view_speed_items(const struct view_speed *v, char items[VIEW_SPEED_ITEMS][48])
{
    put3(items[0], v->per_user, " each", "");
    put3(items[1], v->total, " in all", "");
    put3(items[2], "first token ", v->ttft, "");
    if (strcmp(v->cost, "n/a") == 0) /* no price, or no user to share it */
        put3(items[3], "cost n/a", "", "");
    else
        put3(items[3], v->cost, "/user-h", "");
    put3(items[4], v->cost_mtok, v->cost_mtok[0] ? "/M output" : "", "");
}

/* Lines of the phrases, a new one wherever `breaks` says (bit i: before
 * phrase i) or the next phrase would pass w; returns how many. */
static int pack(char items[VIEW_SPEED_ITEMS][48], int w, unsigned breaks,
                char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE])
{
    size_t len = 0;
    int n = 0, cols = 0, sep = view_cols(view_sep());
    lines[0][0] = '\0';
    for (int i = 0; i < VIEW_SPEED_ITEMS; i++) {
        if (!items[i][0])
            continue;
        int iw = view_cols(items[i]);
        if (len && ((breaks >> i & 1) || cols + sep + iw > w)) {
            lines[++n][0] = '\0';
            len = 0;
            cols = 0;
        }
        if (len) {
            text_append(lines[n], VIEW_SPEED_LINE, &len, view_sep());
            cols += sep;
        }
        text_append(lines[n], VIEW_SPEED_LINE, &len, items[i]);
        cols += iw;
    }
    return n + 1;
}

int view_speed_lines(const struct view_speed *v, int w, int rows,
                     char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE])
{
    if (!v->known) {
        size_t len = 0;
        lines[0][0] = '\0';
        text_append(lines[0], VIEW_SPEED_LINE, &len, v->why);
        return 1;
    }
    char items[VIEW_SPEED_ITEMS][48];
    view_speed_items(v, items);
    /* one a line when they fit the rows; else the speeds, the first token
     * and the costs a line each; else as many a line as fit */
    int n = pack(items, w, ~0u, lines);
    if (rows > 0 && n <= rows)
        return n;
    n = pack(items, w, 1u << 2 | 1u << 3, lines);
    if (rows > 0 && n <= rows)
        return n;
    return pack(items, w, 0, lines);
}

const char *view_speed_line(const struct view_speed *v, int w, char *buf, size_t size)
{
    char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE];
    view_speed_lines(v, w, 0, lines);
    /* the first line, or nothing when even its one figure is wider */
    snprintf(buf, size, "%s", view_cols(lines[0]) <= w ? lines[0] : "");
    return buf;
}

void view_target_words(const struct scenario *s, char *buf, size_t size)
{
    if (s->min_tokens_per_s > 0 && s->max_ttft_seconds > 0)
        snprintf(buf, size, "at %g tok/s, first token in %g s", s->min_tokens_per_s,
                 s->max_ttft_seconds);
    else if (s->min_tokens_per_s > 0)
        snprintf(buf, size, "at %g tok/s", s->min_tokens_per_s);
    else if (s->max_ttft_seconds > 0)
        snprintf(buf, size, "with a first token in %g s", s->max_ttft_seconds);
    else
        buf[0] = '\0';
}

void view_binding_words(const struct scenario *s, const struct plan_result *r, char *buf,
                        size_t size)
{
    if (r->speed.level_unknown)
        snprintf(buf, size, "not checked: no compute figure");
    else if (r->speed.binding == BIND_PREFILL)
        snprintf(buf, size, "first token over %g s", s->max_ttft_seconds);
    else
        snprintf(buf, size, "%s binds", plan_binding_name(r->speed.binding));
}
