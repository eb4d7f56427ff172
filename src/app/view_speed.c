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
static void band_percent(const struct speed_band *b, bool tight, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!b->banded)
        return;
    int lo = (int)lround((b->low - 1) * 100), hi = (int)lround((b->high - 1) * 100);
    if (lo == -hi && hi > 0)
        snprintf(buf, size, "%s%d%%", roles_utf8() ? "\u00b1" : "+-", hi);
    else
        snprintf(buf, size, tight ? "%+d/%+d%%" : "%+d%%/%+d%%", lo, hi);
}

static void band_words(const struct speed_band *b, char *buf, size_t size)
{
    band_percent(b, false, buf, size);
}

/* The band's words with the percent sign once, for a narrow column:
 * "-2/+264%" for -2%/+264%; "\u00b118%" as it is. */
static void band_tight(const struct speed_band *b, char *buf, size_t size)
{
    band_percent(b, true, buf, size);
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
    char n[32];
    units_format_int((uint64_t)llround(sp->tokens_per_s_per_user), n, sizeof n);
    if (sp->tokens_per_s_per_user >= 9.95) /* two digits at least: "27 tok/s" */
        snprintf(v->per_user_whole, sizeof v->per_user_whole, "%s tok/s", n);
    else /* below ten, the tenths stay: "3.4 tok/s" */
        snprintf(v->per_user_whole, sizeof v->per_user_whole, "%s", v->per_user);
    units_format_int((uint64_t)llround(sp->tokens_per_s_total), n, sizeof n);
    snprintf(v->total_whole, sizeof v->total_whole, "%s tok/s", n);
    if (sp->tokens_per_s_total >= 1e4)
        snprintf(v->total_k, sizeof v->total_k, "%.3gk tok/s", sp->tokens_per_s_total / 1e3);
    /* no count keeps the target: the speed shown is one user's alone (the
     * plan's), and nobody's throughput is served at the service level */
    v->alone = sp->level_missed;
    v->loop = sp->output_tokens > 0;
    if (v->alone)
        snprintf(v->total, sizeof v->total, "n/a");
    if (sp->ttft_seconds > 0)
        explain_format(sp->ttft_seconds, XU_SECONDS, u, v->ttft, sizeof v->ttft);
    else
        snprintf(v->ttft, sizeof v->ttft, "n/a");
    if (v->known) {
        band_words(&r->bands.decode, v->per_user_band, sizeof v->per_user_band);
        band_compact(&r->bands.decode, v->per_user_compact, sizeof v->per_user_compact);
        band_tight(&r->bands.decode, v->per_user_tight, sizeof v->per_user_tight);
    }
    if (v->known && sp->ttft_seconds > 0) {
        band_words(&r->bands.ttft, v->ttft_band, sizeof v->ttft_band);
        band_compact(&r->bands.ttft, v->ttft_compact, sizeof v->ttft_compact);
        band_tight(&r->bands.ttft, v->ttft_tight, sizeof v->ttft_tight);
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
    put3(items[0], v->alone ? "alone " : "", v->per_user,
         v->alone ? "" : v->loop ? " each (loop)" : " each");
    put3(items[1], v->alone ? "" : v->total, v->alone ? "" : " in all", "");
    put3(items[2], "first token ", v->ttft, "");
    if (strcmp(v->cost, "n/a") == 0) /* no price, or no user to share it */
        put3(items[3], "cost n/a", "", "");
    else
        put3(items[3], v->cost, "/user-h", "");
    put3(items[4], v->cost_mtok, v->cost_mtok[0] ? "/M output" : "", "");
    put3(items[5], v->cost_mtok_in, v->cost_mtok_in[0] ? "/M input" : "", "");
}

/* A phrase's widest line: a figure with its band under it is two lines
 * ("TTFT 321.21 ms\n -2%/+264%"). */
static int item_cols(const char *item)
{
    const char *nl = strchr(item, '\n');
    if (!nl)
        return view_cols(item);
    char head[48];
    size_t k = (size_t)(nl - item) < sizeof head ? (size_t)(nl - item) : sizeof head - 1;
    memcpy(head, item, k);
    head[k] = '\0';
    int a = view_cols(head), b = view_cols(nl + 1);
    return a > b ? a : b;
}

/* Lines of the phrases, a new one wherever `breaks` says (bit i: before
 * phrase i) or the next phrase would pass w; a phrase of two lines keeps
 * them to itself. Returns how many. */
static int pack(char items[VIEW_SPEED_ITEMS][48], int w, unsigned breaks,
                char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE])
{
    size_t len = 0;
    int n = 0, cols = 0, sep = view_cols(view_sep());
    bool alone = false; /* the line holds a band under its figure: nothing joins it */
    lines[0][0] = '\0';
    for (int i = 0; i < VIEW_SPEED_ITEMS; i++) {
        if (!items[i][0])
            continue;
        const char *nl = strchr(items[i], '\n');
        char head[48];
        snprintf(head, sizeof head, "%.*s", nl ? (int)(nl - items[i]) : 47, items[i]);
        int iw = view_cols(head);
        if (len && (alone || nl || (breaks >> i & 1) || cols + sep + iw > w) &&
            n + 1 < VIEW_SPEED_LINES) {
            lines[++n][0] = '\0';
            len = 0;
            cols = 0;
        }
        if (len) {
            text_append(lines[n], VIEW_SPEED_LINE, &len, view_sep());
            cols += sep;
        }
        text_append(lines[n], VIEW_SPEED_LINE, &len, head);
        cols += iw;
        alone = false;
        if (nl && n + 1 < VIEW_SPEED_LINES) {
            lines[++n][0] = '\0';
            len = 0;
            text_append(lines[n], VIEW_SPEED_LINE, &len, nl + 1);
            cols = view_cols(nl + 1);
            alone = true;
        }
    }
    return n + 1;
}

/* The first of the forms that fits w columns (else the last) into item. */
static void first_fit(char item[48], int w, char forms[][48], int n)
{
    int i = 0;
    while (i < n - 1 && (!forms[i][0] || item_cols(forms[i]) > w))
        i++;
    memcpy(item, forms[i], 48);
}

/* The speed per user and the first token with their bands where a line of
 * w holds them, shorter where it does not, and never without a band they
 * have: "23.7 tok/s each -58%/+8%", "23.7 tok/s -58%/+8%", the band compact
 * ("23.7 tok/s x0.42-1.1") or tight ("23.7 tok/s -58/+8%"), the speed a
 * whole number ("24 tok/s -58%/+8%"), then the band under the figure
 * (bands_under) or the figure alone;
 * "first token 302.42 ms +1%/+17%", "TTFT 302.42 ms +1%/+17%", "TTFT
 * 302.42 ms x1-9.4" (a wide band still shown at 80x24), "TTFT 302 ms
 * x1-9.4", "TTFT 302 ms +1/+839%", then as the speed; without
 * a band "first token 302.42 ms", "TTFT 302.42 ms". The throughput a whole
 * number ("1,490 tok/s in all", "1,490 tok/s total", "94.6k tok/s total",
 * "1,490 tok/s all"),
 * a million tokens' price "/M out", "/M in". */
static void speed_forms(const struct view_speed *v, int w, char items[VIEW_SPEED_ITEMS][48])
{
    char f[10][48], pu[48], whole[48];
    const char *b = v->per_user_band, *t = v->ttft_band;
    const char *alone = v->alone ? "alone " : ""; /* "alone" in every form */
    put3(pu, alone, v->per_user, "");
    put3(whole, alone, v->per_user_whole, "");
    if (b[0]) {
        put3(f[0], items[0], " ", b);
        put3(f[1], pu, " ", b);
        put3(f[2], pu, " ", v->per_user_compact);
        put3(f[3], pu, " ", v->per_user_tight);
        put3(f[4], whole, " ", b);
        put3(f[5], whole, " ", v->per_user_tight);
        if (v->bands_under) {
            put3(f[6], items[0], "\n ", b);
            put3(f[7], pu, "\n ", b);
            put3(f[8], pu, "\n ", v->per_user_tight);
        } else { /* the plain forms last */
            put3(f[6], items[0], "", "");
            put3(f[7], pu, "", "");
            f[8][0] = '\0';
        }
        first_fit(items[0], w, f, v->bands_under ? 9 : 8);
    } else {
        put3(f[0], items[0], "", "");
        put3(f[1], pu, "", "");
        first_fit(items[0], w, f, 2);
    }
    if (!v->alone) {
        put3(f[0], items[1], "", "");
        put3(f[1], v->total_whole, " in all", "");
        put3(f[2], v->total_whole, " total", "");
        const char *k = v->total_k[0] ? v->total_k : v->total_whole;
        put3(f[3], k, " in all", "");
        put3(f[4], k, " total", "");
        put3(f[5], v->total_whole, " all", "");
        put3(f[6], k, " all", "");
        first_fit(items[1], w, f, 7);
    }
    char ttft[48], ttft3[48];
    put3(ttft, "TTFT ", v->ttft, "");
    /* the figure to three digits beside the compact band: "TTFT 239 ms x1-1.6" */
    put3(ttft3, "TTFT ", v->ttft_short, "");
    if (t[0]) {
        put3(f[0], items[2], " ", t);
        put3(f[1], ttft, " ", t);
        put3(f[2], ttft, " ", v->ttft_compact);
        put3(f[3], ttft3, " ", v->ttft_compact);
        /* narrower (80x24 beside a five-digit count): "TTFT 221 ms -2/+264%" */
        put3(f[4], ttft3, " ", v->ttft_tight);
        if (v->bands_under) {
            put3(f[5], items[2], "\n ", t);
            put3(f[6], ttft, "\n ", t);
            put3(f[7], ttft, "\n ", v->ttft_tight);
            put3(f[8], ttft3, "\n ", v->ttft_tight);
        } else { /* the plain forms last */
            put3(f[5], items[2], "", "");
            put3(f[6], ttft, "", "");
        }
        first_fit(items[2], w, f, v->bands_under ? 9 : 7);
    } else { /* no band: the long form, then the short */
        put3(f[0], items[2], "", "");
        put3(f[1], ttft, "", "");
        first_fit(items[2], w, f, 2);
    }
    for (int i = 4; i <= 5; i++)
        if (items[i][0]) {
            put3(f[0], items[i], "", "");
            put3(f[1], i == 4 ? v->cost_mtok : v->cost_mtok_in, i == 4 ? "/M out" : "/M in", "");
            first_fit(items[i], w, f, 2);
        }
}

/* One a line when they fit the rows; else the speeds, the first token and
 * the costs a line each; else as many a line as fit. */
static int speed_pack(char items[VIEW_SPEED_ITEMS][48], int w, int rows, bool grouped,
                      char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE])
{
    int n;
    if (!grouped) { /* else never one a line: the speeds, the first token, the costs first */
        n = pack(items, w, ~0u, lines);
        if (rows > 0 && n <= rows)
            return n;
    }
    n = pack(items, w, 1u << 2 | 1u << 3, lines);
    if (rows > 0 && n <= rows)
        return n;
    return pack(items, w, 0, lines);
}

int view_speed_lines(const struct view_speed *v, int w, int rows,
                     char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE])
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
    int n = speed_pack(items, w, rows, v->bands_under, lines);
    /* the input price is the one to go when the rows are short (the explain
     * rows and the presentation keep it) */
    if (rows > 0 && n > rows && items[5][0]) {
        items[5][0] = '\0';
        n = speed_pack(items, w, rows, v->bands_under, lines);
    }
    return n;
}

const char *view_speed_line(const struct view_speed *v, int w, char *buf, size_t size)
{
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
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
