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
    /* COST PER MILLION OUTPUT TOKENS: the plan does not carry it yet; once
     * core gives it, it goes here ("$0.0931") and every screen that shows
     * the cost per user-hour shows it after it. Empty: left out. */
    v->cost_mtok[0] = '\0';
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
    put3(items[4], v->cost_mtok, v->cost_mtok[0] ? "/M tokens" : "", "");
}

int view_speed_lines(const struct view_speed *v, int w, bool one_each,
                     char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE])
{
    size_t len = 0;
    lines[0][0] = '\0';
    if (!v->known) {
        text_append(lines[0], VIEW_SPEED_LINE, &len, v->why);
        return 1;
    }
    char items[VIEW_SPEED_ITEMS][48];
    view_speed_items(v, items);
    /* whole figures, the most wanted first, as many a line as fit */
    int n = 0, cols = 0, sep = view_cols(view_sep());
    for (int i = 0; i < VIEW_SPEED_ITEMS; i++) {
        if (!items[i][0])
            continue;
        int iw = view_cols(items[i]);
        if (len && (one_each || cols + sep + iw > w)) {
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

const char *view_speed_line(const struct view_speed *v, int w, char *buf, size_t size)
{
    char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE];
    view_speed_lines(v, w, false, lines);
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
