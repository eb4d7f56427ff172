/* The summary pane of the main screen: the user count, its change against
 * the reference, and the figures behind it, as many as fit. */
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"
#include "core/text.h"

/* line, or its short form when line does not fit in w columns */
static const char *fit(int w, const char *line, const char *brief)
{
    return (int)strlen(line) <= w ? line : brief;
}

/* Beside the big number: the users host memory keeps beyond the GPUs. */
static void summary_host(const struct plan_result *res, int y, int x, int w)
{
    const struct engine_desc *e = engine_desc(res->profile);
    char line[256], brief[128], a[32];
    if (e->host.none) {
        snprintf(line, sizeof line, "%s has no host tier", e->title);
        snprintf(brief, sizeof brief, "no host tier");
    } else if (res->host.beyond_gpu) {
        units_format_int(res->host.beyond_gpu, a, sizeof a);
        snprintf(line, sizeof line, "+%s parked in host memory", a);
        snprintf(brief, sizeof brief, "+%s in host", a);
    } else {
        /* the host pool holds no more caches than the GPUs do */
        units_format_int(res->host.users, a, sizeof a);
        snprintf(line, sizeof line, "host memory: %s cache%s, none beyond", a,
                 res->host.users == 1 ? "" : "s");
        snprintf(brief, sizeof brief, "host: %s", a);
    }
    widget_text(y, x, w, e->host.none ? ROLE_DIM : ROLE_GOOD, fit(w, line, brief));
}

/* The lines beside (and under) the count, each a head and a dimmer tail. */
enum { SUMMARY_LINES = 10 };
struct summary_lines {
    int n;
    char head[SUMMARY_LINES][160], tail[SUMMARY_LINES][96];
    enum role role[SUMMARY_LINES];
};

static void summary_add(struct summary_lines *sl, enum role role, const char *head,
                        const char *tail)
{
    if (sl->n == SUMMARY_LINES)
        return;
    size_t a = 0, b = 0; /* no printf: each frame writes them */
    sl->head[sl->n][0] = sl->tail[sl->n][0] = '\0';
    text_append(sl->head[sl->n], sizeof sl->head[0], &a, head);
    text_append(sl->tail[sl->n], sizeof sl->tail[0], &b, tail ? tail : "");
    sl->role[sl->n++] = role;
}

/* What the count counts, in w columns: "users at 8k, vllm", or with a
 * service level "users at 50 tok/s" and then "56 fit in memory . decode binds". */
static void summary_caption(const struct planner *p, int w, struct summary_lines *sl)
{
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    const struct engine_desc *e = engine_desc(res->profile);
    char tail[96], ctx[32], fit[32], bind[64], line[160];
    const char *what = view_headline_users(s, res) == 1 ? "user" : "users";
    if (!view_has_target(s)) {
        units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
        char engine[64];
        engine_version_title(res->profile, res->rule, engine, sizeof engine);
        snprintf(tail, sizeof tail, " at %s%s%s", ctx, e->server ? ", " : "",
                 e->server ? engine : "");
        if (view_cols(what) + view_cols(tail) > w)
            snprintf(tail, sizeof tail, " at %s", ctx);
        summary_add(sl, ROLE_TEXT, what, tail);
        return;
    }
    char words[64];
    view_target_words(s, words, sizeof words);
    snprintf(tail, sizeof tail, " %s", words);
    /* shorter: the targets' figures in brief, then the service level named */
    if (view_cols(what) + view_cols(tail) > w && s->min_tokens_per_s > 0 && s->max_ttft_seconds > 0)
        snprintf(tail, sizeof tail, " at %g tok/s, TTFT %g s", s->min_tokens_per_s,
                 s->max_ttft_seconds);
    if (view_cols(what) + view_cols(tail) > w)
        snprintf(tail, sizeof tail, " at the service level");
    if (view_cols(what) + view_cols(tail) > w)
        snprintf(tail, sizeof tail, " at service level");
    if (view_cols(what) + view_cols(tail) > w)
        snprintf(tail, sizeof tail, " at target");
    summary_add(sl, ROLE_TEXT, what, tail);
    units_format_int(res->max_users, fit, sizeof fit);
    view_binding_words(s, res, bind, sizeof bind);
    snprintf(line, sizeof line, "%s fit in memory%s%s", fit, view_sep(), bind);
    if (view_cols(line) > w)
        snprintf(line, sizeof line, "%s fit%s%s", fit, view_sep(), bind);
    if (view_cols(line) > w)
        snprintf(line, sizeof line, "%s fit in memory", fit);
    summary_add(sl, res->speed.binding == BIND_MEMORY ? ROLE_GOOD : ROLE_WARN, line, NULL);
}

/* The speed figures, one a line when `rows` lines hold them, else as many
 * a line as fit in w columns. */
static void summary_speed(const struct planner *p, int w, int rows, struct summary_lines *sl)
{
    struct view_speed v;
    char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE];
    view_speed_of(planner_result(p), planner_scenario(p)->units, &v);
    int n = view_speed_lines(&v, w, rows, lines);
    /* the speed first, the time and the price dimmer when they are a line each */
    for (int i = 0; i < n; i++)
        summary_add(sl, !v.known || (n > 2 && i >= 2) ? ROLE_DIM : ROLE_TEXT, lines[i], NULL);
}

static void summary_line(const struct summary_lines *sl, int i, int y, int x, int w)
{
    int used = widget_text(y, x, w, sl->role[i], sl->head[i]);
    if (sl->tail[i][0] && used < w)
        widget_text(y, x + used, w - used, ROLE_DIM, sl->tail[i]);
}

/* The count: in big digits with what it counts, its speed and its cost
 * beside when there is room, else in one line and its speed in another;
 * returns the row under them. */
static int summary_count(const struct planner *p, const struct planner_layout *l)
{
    struct rect r = l->summary;
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    char n[32], a[32];
    uint64_t users = view_headline_users(s, res);
    units_format_int(users, n, sizeof n);
    struct summary_lines sl = {0};
    int y = r.y, end = r.y + r.h;
    if (l->big_digits && widget_big_number_width(n, 1) + 7 <= r.w) {
        int w = widget_big_number(y, r.x, n, 1, view_headline_role(s, res));
        int bx = r.x + w + 2, bw = r.w - w - 2;
        summary_caption(p, bw, &sl);
        int host_row = -1;
        if (res->host.present && res->host.serving) {
            host_row = sl.n; /* summary_host writes it */
            summary_add(&sl, ROLE_TEXT, "", NULL);
        }
        summary_speed(p, bw, 5 - sl.n, &sl);
        /* what the five rows beside the digits cannot hold goes under them */
        for (int i = 0; i < sl.n && y + i < end; i++) {
            if (i == host_row)
                summary_host(res, y + i, bx, bw);
            else
                summary_line(&sl, i, y + i, i < 5 ? bx : r.x, i < 5 ? bw : r.w);
        }
        return y + (sl.n > 5 ? sl.n : 5);
    }
    char line[256], host[48] = "";
    if (res->host.present && res->host.beyond_gpu) {
        units_format_int(res->host.beyond_gpu, a, sizeof a);
        snprintf(host, sizeof host, " (+%s in host)", a);
    }
    summary_caption(p, r.w - view_cols(n) - 1, &sl);
    snprintf(line, sizeof line, "%s %s%s%s", n, sl.head[0], sl.tail[0], host);
    widget_text(y++, r.x, r.w, view_headline_role(s, res), line);
    for (int i = 1; i < sl.n && y < end; i++) /* the memory count and what binds */
        summary_line(&sl, i, y++, r.x, r.w);
    struct view_speed v;
    view_speed_of(res, s->units, &v);
    if (y < end)
        widget_text(y++, r.x, r.w, v.known ? ROLE_TEXT : ROLE_DIM,
                    view_speed_line(&v, r.w, line, sizeof line));
    return y;
}

/* The reference's count and what does not fit, from row y;
 * returns the row under them. */
static int summary_checks(const struct planner *p, struct rect r, int y)
{
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    char line[256], a[32];
    int end = r.y + r.h;
    if (planner_reference(p) && y < end) {
        view_baseline_text(p, line, sizeof line);
        widget_text(y++, r.x, r.w, strstr(line, "(-") ? ROLE_BAD : ROLE_GOOD, line);
    }
    const struct planner_slot *sl = &p->slots[p->current];
    if (sl->note[0] && y < end) { /* the scenario's note, under its name (N edits it) */
        char cut[sizeof line + 4];
        snprintf(line, sizeof line, "%s: %s", sl->label, sl->note);
        widget_text(y++, r.x, r.w, ROLE_TITLE, widget_fit(line, r.w, cut, sizeof cut));
    }
    if (!res->fits && y < end) {
        units_format_bytes(res->shortfall_bytes_per_gpu, s->units, a, sizeof a);
        snprintf(line, sizeof line, "%s: %s short per GPU",
                 res->weights_fit ? "the KV cache does not fit" : "weights do not fit", a);
        char brief[96];
        snprintf(brief, sizeof brief, "%s %s short", res->weights_fit ? "KV cache" : "weights", a);
        widget_text(y++, r.x, r.w, ROLE_BAD, fit(r.w, line, brief));
    }
    return y;
}

/* The replicas, the generic rule, paging, the per-GPU figures and the
 * tokens held, from row y while they fit. */
static void summary_figures(const struct planner *p, struct rect r, int y)
{
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    const struct engine_desc *e = engine_desc(res->profile);
    char line[256], brief[128], a[32], b[32];
    int end = r.y + r.h;
    if (y < end) {
        units_format_int(res->users_per_replica, a, sizeof a);
        char pp[24] = "";
        if (res->pp > 1)
            snprintf(pp, sizeof pp, " x PP %u", res->pp);
        /* an engine that splits whole layers over its GPUs, not tensors */
        bool layers = e->splits_layers && res->pp == 1;
        char tp[40], group[48];
        plan_layout_words(res, tp, sizeof tp);
        plan_layout_group(res, group, sizeof group);
        if (res->replicas > 1)
            snprintf(line, sizeof line, "%u replicas%s%s%s: %s user%s each", res->replicas,
                     layers ? ", " : " x ", tp, pp, a, res->users_per_replica == 1 ? "" : "s");
        else
            snprintf(line, sizeof line, "one replica, %s%s%s", tp, pp,
                     res->dp_attention ? ", DP attention" : "");
        snprintf(brief, sizeof brief, "%s%s: %s each", group, pp, a);
        widget_text(y++, r.x, r.w, ROLE_TEXT, fit(r.w, line, brief));
    }
    if (res->generic.present && y < end) {
        units_format_int(res->generic.max_users, a, sizeof a);
        snprintf(line, sizeof line, "generic rule (%g%% headroom): %s", res->generic.headroom_percent, a);
        snprintf(brief, sizeof brief, "generic rule: %s", a);
        widget_text(y++, r.x, r.w, ROLE_DIM, fit(r.w, line, brief));
    }
    if (y < end) {
        units_format_int(res->max_users_paged, a, sizeof a);
        units_format_tokens_short(res->avg_context_tokens, b, sizeof b);
        const struct engine_knob *slots = engine_knob_role(e, KNOB_SEQS);
        if (view_host_summary(res, line, sizeof line))
            ; /* llama.cpp's layers in host memory: -ngl and -np */
        else if (e->fixed_slots && slots)
            snprintf(line, sizeof line, "%s %u slots, no paging", slots->engine_flag,
                     res->engine.slots);
        else
            snprintf(line, sizeof line, "paged: %s user%s at %s in use", a,
                     res->max_users_paged == 1 ? "" : "s", b);
        snprintf(brief, sizeof brief, "paged: %s at %s", a, b);
        widget_text(y++, r.x, r.w, ROLE_TEXT, fit(r.w, line, brief));
    }
    if (y < end) {
        /* an engine's allocation when it holds more than the tokens need (vLLM's
         * windowed groups keep the window and a batch in whole blocks) */
        bool alloc = e->server &&
                     res->user_bytes_paged_per_gpu > res->user_bytes_per_gpu;
        units_format_bytes(alloc ? res->user_bytes_paged_per_gpu : res->user_bytes_per_gpu,
                           s->units, a, sizeof a);
        /* per GPU, as the user's figure: a GPU of a layer split holds its layers' part */
        if (s->units == UNITS_GB)
            units_format_bytes(plan_kv_token_bytes_per_gpu(res), s->units, b, sizeof b);
        else
            units_format_bytes_exact(plan_kv_token_bytes_per_gpu(res), b, sizeof b);
        snprintf(line, sizeof line, "per GPU: %s/user%s, %s/token", a, alloc ? " allocated" : "",
                 b);
        snprintf(brief, sizeof brief, "%s/user/GPU", a);
        widget_text(y++, r.x, r.w, ROLE_TEXT, fit(r.w, line, brief));
    }
    if (y < end) {
        units_format_int(res->kv_tokens, a, sizeof a);
        snprintf(line, sizeof line, "%s tokens held", a);
        widget_text(y++, r.x, r.w, ROLE_TEXT, line);
    }
}

void view_draw_summary(const struct planner *p, const struct planner_layout *l)
{
    int y = summary_count(p, l);
    y = summary_checks(p, l->summary, y);
    summary_figures(p, l->summary, y);
}
