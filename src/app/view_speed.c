/* The speed, throughput, first token and cost every screen shows beside its
 * count, and the count itself: with a service level, the users who keep it.
 * Only words: every figure is the plan's (core/speed.c, core/plan.c). */
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"

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

void view_speed_items(const struct view_speed *v, char items[VIEW_SPEED_ITEMS][48])
{
    snprintf(items[0], 48, "%s each", v->per_user);
    snprintf(items[1], 48, "%s in all", v->total);
    snprintf(items[2], 48, "first token %s", v->ttft);
    if (strcmp(v->cost, "n/a") == 0) /* no price, or no user to share it */
        snprintf(items[3], 48, "cost n/a");
    else
        snprintf(items[3], 48, "%s/user-h", v->cost);
    if (v->cost_mtok[0])
        snprintf(items[4], 48, "%s/M tokens", v->cost_mtok);
    else
        items[4][0] = '\0';
}

int view_speed_lines(const struct view_speed *v, int w, bool one_each,
                     char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE])
{
    if (!v->known) {
        snprintf(lines[0], VIEW_SPEED_LINE, "%s", v->why);
        return 1;
    }
    char items[VIEW_SPEED_ITEMS][48];
    view_speed_items(v, items);
    /* whole figures, the most wanted first, as many a line as fit */
    int n = 0;
    lines[0][0] = '\0';
    for (int i = 0; i < VIEW_SPEED_ITEMS; i++) {
        if (!items[i][0])
            continue;
        const char *sep = lines[n][0] ? view_sep() : "";
        if (lines[n][0] && (one_each || view_cols(lines[n]) + view_cols(sep) + view_cols(items[i]) > w)) {
            lines[++n][0] = '\0';
            sep = "";
        }
        size_t len = strlen(lines[n]);
        snprintf(lines[n] + len, VIEW_SPEED_LINE - len, "%s%s", sep, items[i]);
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
