/* The speed, throughput, first token and cost every screen shows beside its
 * count, and the count itself: with a service level, the users who keep it.
 * Only words: every figure is the plan's (core/speed.c, core/plan.c). */
#include <math.h>
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

/* A band as the figure's change at its two ends: "-15%/+20%", "\u00b118%"
 * when they are the same; "" without one (a calibration's with no fit
 * spread). The stated band and a default fraction's show as the text's do:
 * the explain rows say which they are. */
static void band_words(const struct speed_band *b, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!b->banded)
        return;
    int lo = (int)lround((b->low - 1) * 100), hi = (int)lround((b->high - 1) * 100);
    if (lo == -hi && hi > 0)
        snprintf(buf, size, "%s%d%%", roles_utf8() ? "\u00b1" : "+-", hi);
    else
        snprintf(buf, size, "%+d%%/%+d%%", lo, hi);
}

/* The same band compact, as the two ratios measured/predicted: "x0.55-6.3"
 * for -45%/+528%, "x1-9.4" for +0%/+839% (two significant digits). */
static void band_compact(const struct speed_band *b, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!b->banded)
        return;
    snprintf(buf, size, "x%.2g-%.2g", b->low, b->high);
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
    /* no count keeps the target: the speed shown is one user's alone (the
     * plan's), and nobody's throughput is served at the service level */
    v->alone = sp->level_missed;
    if (v->alone)
        snprintf(v->total, sizeof v->total, "n/a");
    if (sp->ttft_seconds > 0)
        explain_format(sp->ttft_seconds, XU_SECONDS, u, v->ttft, sizeof v->ttft);
    else
        snprintf(v->ttft, sizeof v->ttft, "n/a");
    if (v->known) {
        band_words(&r->bands.decode, v->per_user_band, sizeof v->per_user_band);
        band_compact(&r->bands.decode, v->per_user_compact, sizeof v->per_user_compact);
    }
    if (v->known && sp->ttft_seconds > 0) {
        band_words(&r->bands.ttft, v->ttft_band, sizeof v->ttft_band);
        band_compact(&r->bands.ttft, v->ttft_compact, sizeof v->ttft_compact);
        double t = sp->ttft_seconds;
        if (t < 1)
            snprintf(v->ttft_short, sizeof v->ttft_short, "%.3g ms", t * 1e3);
        else
            snprintf(v->ttft_short, sizeof v->ttft_short, "%.3g s", t);
    }
    explain_format(r->cost_per_user_hour, XU_USD, u, v->cost, sizeof v->cost); /* n/a below 0 */
    /* a million output tokens at the throughput shown (core/price.c) */
    if (r->cost_per_million_output_tokens >= 0)
        explain_format(r->cost_per_million_output_tokens, XU_USD, u, v->cost_mtok,
                       sizeof v->cost_mtok);
    if (r->cost_per_million_input_tokens >= 0)
        explain_format(r->cost_per_million_input_tokens, XU_USD, u, v->cost_mtok_in,
                       sizeof v->cost_mtok_in);
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
    put3(items[0], v->alone ? "alone " : "", v->per_user, v->alone ? "" : " each");
    put3(items[1], v->alone ? "" : v->total, v->alone ? "" : " in all", "");
    put3(items[2], "first token ", v->ttft, "");
    if (strcmp(v->cost, "n/a") == 0) /* no price, or no user to share it */
        put3(items[3], "cost n/a", "", "");
    else
        put3(items[3], v->cost, "/user-h", "");
    put3(items[4], v->cost_mtok, v->cost_mtok[0] ? "/M output" : "", "");
    put3(items[5], v->cost_mtok_in, v->cost_mtok_in[0] ? "/M input" : "", "");
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

/* The first of the forms that fits w columns (else the last) into item. */
static void first_fit(char item[48], int w, char forms[][48], int n)
{
    int i = 0;
    while (i < n - 1 && (!forms[i][0] || view_cols(forms[i]) > w))
        i++;
    memcpy(item, forms[i], 48);
}

/* The speed per user and the first token with their bands where a line of
 * w holds them, shorter where it does not: "23.7 tok/s each -58%/+8%",
 * "23.7 tok/s -58%/+8%", the band compact ("23.7 tok/s x0.42-1.1"), then
 * without the band; "first token 302.42 ms +1%/+17%", "TTFT 302.42 ms
 * +1%/+17%", "TTFT 302.42 ms x1-9.4" (a wide band still shown at 80x24),
 * "TTFT 302 ms x1-9.4",
 * "first token 302.42 ms", "TTFT 302.42 ms". */
static void speed_forms(const struct view_speed *v, int w, char items[VIEW_SPEED_ITEMS][48])
{
    char f[7][48], pu[48];
    const char *b = v->per_user_band, *t = v->ttft_band;
    put3(pu, v->alone ? "alone " : "", v->per_user, ""); /* "alone" in every form */
    put3(f[0], items[0], b[0] ? " " : "", b);
    put3(f[1], pu, b[0] ? " " : "", b);
    put3(f[2], pu, b[0] ? " " : "", v->per_user_compact);
    put3(f[3], items[0], "", "");
    put3(f[4], pu, "", "");
    first_fit(items[0], w, b[0] ? f : f + 3, b[0] ? 5 : 2); /* no band: the two plain forms */
    char ttft[48];
    put3(ttft, "TTFT ", v->ttft, "");
    put3(f[0], items[2], t[0] ? " " : "", t);
    put3(f[1], ttft, t[0] ? " " : "", t);
    put3(f[2], ttft, t[0] ? " " : "", v->ttft_compact);
    /* the figure to three digits beside the compact band: "TTFT 239 ms x1-1.6" */
    char ttft3[48];
    put3(ttft3, "TTFT ", v->ttft_short, "");
    put3(f[3], ttft3, t[0] ? " " : "", v->ttft_compact);
    put3(f[4], items[2], "", "");
    put3(f[5], ttft, "", "");
    if (!t[0])
        f[0][0] = f[1][0] = f[2][0] = f[3][0] = '\0'; /* no band: the long form, then the short */
    first_fit(items[2], w, f, 6);
}

/* One a line when they fit the rows; else the speeds, the first token and
 * the costs a line each; else as many a line as fit. */
static int speed_pack(char items[VIEW_SPEED_ITEMS][48], int w, int rows,
                      char lines[VIEW_SPEED_ITEMS][VIEW_SPEED_LINE])
{
    int n = pack(items, w, ~0u, lines);
    if (rows > 0 && n <= rows)
        return n;
    n = pack(items, w, 1u << 2 | 1u << 3, lines);
    if (rows > 0 && n <= rows)
        return n;
    return pack(items, w, 0, lines);
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
    speed_forms(v, w, items);
    int n = speed_pack(items, w, rows, lines);
    /* the input price is the one to go when the rows are short (the explain
     * rows and the presentation keep it) */
    if (rows > 0 && n > rows && items[5][0]) {
        items[5][0] = '\0';
        n = speed_pack(items, w, rows, lines);
    }
    return n;
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

void view_limit_words(const struct scenario *s, const struct plan_result *r, char *buf,
                      size_t size)
{
    const struct engine_knob *cap = engine_knob_role(engine_desc(r->profile), KNOB_SEQS);
    if (!r->fits)
        snprintf(buf, size, "no fit");
    else if (view_has_target(s) && r->speed.level_unknown)
        snprintf(buf, size, "not checked");
    else if (view_has_target(s) && r->speed.binding != BIND_MEMORY)
        snprintf(buf, size, "%s", r->speed.binding == BIND_PREFILL ? "first token"
                                  : plan_binding_name(r->speed.binding));
    else if (r->users_per_replica < r->users_fit_per_replica)
        snprintf(buf, size, "%s", cap && cap->engine_flag ? cap->engine_flag + 2 : "scheduler");
    else
        snprintf(buf, size, "memory");
}
