/* The summary pane of the main screen: the user count, its change against
 * the reference, and the figures behind it, as many as fit. */
#include <stdio.h>
#include <string.h>

#include "app/view_parts.h"

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

/* The count: in big digits with its context and engine beside when there
 * is room, else in one line; returns the row under it. */
static int summary_count(const struct planner *p, const struct planner_layout *l)
{
    struct rect r = l->summary;
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    char n[32], line[256], a[32], ctx[32];
    const struct engine_desc *e = engine_desc(res->profile);
    bool engine = e->server;
    units_format_int(res->max_users, n, sizeof n);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    int y = r.y;
    if (l->big_digits && widget_big_number_width(n, 1) + 7 <= r.w) {
        int w = widget_big_number(y, r.x, n, 1, view_users_role(res));
        widget_text(y + 3, r.x + w + 2, r.w - w - 2, ROLE_TEXT,
                    res->max_users == 1 ? "user" : "users");
        snprintf(line, sizeof line, "at %s%s%s", ctx, engine ? ", " : "",
                 engine ? engine_label(res->profile, res->rule) : "");
        widget_text(y + 4, r.x + w + 2, r.w - w - 2, ROLE_DIM, line);
        if (res->host.present && res->host.serving)
            summary_host(res, y + 1, r.x + w + 2, r.w - w - 2);
        y += 5;
    } else {
        char host[48] = "";
        if (res->host.present && res->host.beyond_gpu) {
            units_format_int(res->host.beyond_gpu, a, sizeof a);
            snprintf(host, sizeof host, " (+%s in host)", a);
        }
        snprintf(line, sizeof line, "%s user%s at %s%s%s%s", n, res->max_users == 1 ? "" : "s", ctx,
                 engine ? ", " : "",
                 engine ? engine_name(res->profile) : "", host);
        widget_text(y++, r.x, r.w, view_users_role(res), line);
    }
    return y;
}

/* The service level, the reference's count and what does not fit, from row y;
 * returns the row under them. */
static int summary_checks(const struct planner *p, struct rect r, int y)
{
    const struct plan_result *res = planner_result(p);
    const struct scenario *s = planner_scenario(p);
    char line[256], a[32];
    int end = r.y + r.h;
    if ((s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0) && y < end) {
        char slo[32];
        units_format_int(res->speed.users_at_service_level, slo, sizeof slo);
        /* name the limit that binds, in the words of the target it breaks */
        if (res->speed.binding == BIND_PREFILL)
            snprintf(line, sizeof line, "%s served: first token over %g s", slo,
                     s->max_ttft_seconds);
        else if (s->min_tokens_per_s > 0)
            snprintf(line, sizeof line, "%s keep %g tok/s: %s binds", slo, s->min_tokens_per_s,
                     plan_binding_name(res->speed.binding));
        else
            snprintf(line, sizeof line, "%s get a first token within %g s", slo,
                     s->max_ttft_seconds);
        widget_text(y++, r.x, r.w, res->speed.binding == BIND_MEMORY ? ROLE_GOOD : ROLE_WARN, line);
    }
    if (planner_reference(p) && y < end) {
        view_baseline_text(p, line, sizeof line);
        widget_text(y++, r.x, r.w, strstr(line, "(-") ? ROLE_BAD : ROLE_GOOD, line);
    }
    if (!res->fits && y < end) {
        units_format_bytes(res->shortfall_bytes_per_gpu, s->units, a, sizeof a);
        snprintf(line, sizeof line, "%s: %s short per GPU",
                 res->weights_fit ? "the KV cache does not fit" : "weights do not fit", a);
        widget_text(y++, r.x, r.w, ROLE_BAD, line);
    }
    return y;
}

/* The replicas, the generic rule, paging, the per-GPU figures, the tokens
 * held and the cost, from row y while they fit. */
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
        if (e->fixed_slots && slots)
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
        units_format_bytes_exact(res->cost.bytes_per_token, b, sizeof b);
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
    if (y < end) {
        char cost[32] = "price n/a", dec[40] = "";
        if (res->cost_per_user_hour >= 0)
            snprintf(cost, sizeof cost, "$%.3f/user-h", res->cost_per_user_hour);
        if (res->decode_tokens_per_s_per_user > 0)
            snprintf(dec, sizeof dec, ", %.0f tok/s/user", res->decode_tokens_per_s_per_user);
        snprintf(line, sizeof line, "%s%s", cost, dec);
        widget_text(y++, r.x, r.w, ROLE_DIM, line);
    }
}

void view_draw_summary(const struct planner *p, const struct planner_layout *l)
{
    int y = summary_count(p, l);
    y = summary_checks(p, l->summary, y);
    summary_figures(p, l->summary, y);
}
