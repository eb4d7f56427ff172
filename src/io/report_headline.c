/* report_headline: the one-line answer the text and Markdown reports and
 * the planner's explain screen lead with (report.h): how many users fit, or
 * why none does. */
#include "report.h"
#include "report_parts.h"

#include <stdio.h>

#include "core/engine_desc.h"
#include "core/units.h"

/* A first-token target on a GPU without a compute figure: no users counted. */
static bool level_unchecked(const struct scenario *s, const struct plan_result *r)
{
    return s->max_ttft_seconds > 0 && r->speed.known && r->speed.peak_flops <= 0;
}

/* "19 users keep 50 tok/s each (decode binds)": the users at a service level
 * that could be checked, as the headline leads with them; 0 without one. */
static int headline_level(const struct scenario *s, const struct plan_result *r, char *buf,
                          size_t size)
{
    if ((s->min_tokens_per_s <= 0 && s->max_ttft_seconds <= 0) || level_unchecked(s, r))
        return 0;
    char slo[32];
    uint64_t k = r->speed.users_at_service_level;
    units_format_int(k, slo, sizeof slo);
    const char *users = k == 1 ? "user" : "users", *bind = plan_binding_name(r->speed.binding);
    if (s->min_tokens_per_s > 0 && s->max_ttft_seconds > 0)
        return snprintf(buf, size, "%s %s keep%s %g tok/s each and the first token within %g s "
                        "(%s binds)", slo, users, k == 1 ? "s" : "", s->min_tokens_per_s,
                        s->max_ttft_seconds, bind);
    if (s->min_tokens_per_s > 0)
        return snprintf(buf, size, "%s %s keep%s %g tok/s each (%s binds)", slo, users,
                        k == 1 ? "s" : "", s->min_tokens_per_s, bind);
    return snprintf(buf, size, "%s %s get%s the first token within %g s (no speed target; %s "
                    "binds)", slo, users, k == 1 ? "s" : "", s->max_ttft_seconds, bind);
}

/* The engine's rule as a report names it, with the release asked for
 * ("vLLM 0.13 rule, for 0.11") where the scenario was given one. */
const char *report_engine_title(const struct scenario *s, const struct plan_result *r, char *buf,
                                size_t size)
{
    if (s->engine.kind == r->profile && s->engine.rule == r->rule)
        return engine_flags_title(&s->engine, buf, size);
    return engine_version_title(r->profile, r->rule, buf, size);
}

void report_headline(const struct scenario *s, const struct plan_result *r, char *buf, size_t size)
{
    char ctx[32], n[32], paged[32], avg[32], left[32], per[32];
    units_format_int(r->context_tokens, ctx, sizeof ctx); /* with any image tokens */
    units_format_int(r->max_users, n, sizeof n);
    units_format_int(r->max_users_paged, paged, sizeof paged);
    units_format_int(r->avg_context_tokens, avg, sizeof avg);
    char title[96];
    const char *profile = report_engine_title(s, r, title, sizeof title);
    const struct engine_desc *e = engine_desc(r->profile);
    bool engine = e->server;
    if (report_offload_unfit(s, r, buf, size)) /* llama.cpp's host memory too small */
        return;
    if (!r->weights_fit) {
        units_format_bytes(r->shortfall_bytes_per_gpu, s->units, left, sizeof left);
        snprintf(buf, size, "DOES NOT FIT%s%s: the weights exceed each GPU's budget by %s",
                 engine ? " under " : "", engine ? profile : "", left);
    } else if (!r->fits && e->fixed_slots) {
        units_format_bytes(r->shortfall_bytes_per_gpu, s->units, left, sizeof left);
        snprintf(buf, size, "DOES NOT FIT under %s: the cache of %s tokens x %u slot%s "
                            "needs %s more per GPU than is left",
                 e->name, ctx, r->engine.slots, r->engine.slots == 1 ? "" : "s", left);
    } else if (!r->fits && s->engine.kv_memory_bytes && r->shortfall_bytes_per_gpu) {
        /* a logged cache (--kv-memory, a calibration) this GPU cannot hold */
        char kv[64];
        units_format_bytes(s->engine.kv_memory_bytes, s->units, kv, sizeof kv);
        units_format_bytes(r->shortfall_bytes_per_gpu, s->units, left, sizeof left);
        snprintf(buf, size, "DOES NOT FIT under %s: the KV cache given (%s per GPU) and the "
                 "weights pass the engine's budget on each GPU by %s (measured on a larger GPU or layout?)",
                 profile, kv, left);
    } else if (!r->fits) {
        snprintf(buf, size, "DOES NOT FIT under %s: its budget leaves nothing for the KV cache", profile);
    } else if (r->max_users == 0 && r->state_pool_bytes_per_gpu >= r->kv_pool_bytes_per_gpu &&
               r->state_slots_per_replica > 0) {
        /* a separate state pool (vLLM V0: max-num-seqs states) takes it all */
        char slots[32];
        units_format_int(r->state_slots_per_replica, slots, sizeof slots);
        units_format_bytes(r->state_pool_bytes_per_gpu, s->units, per, sizeof per);
        units_format_bytes(r->kv_pool_bytes_per_gpu, s->units, left, sizeof left);
        snprintf(buf, size, "NO USER FITS at %s tokens%s%s: its %s state slots take %s per GPU, "
                 "the pool holds %s", ctx, engine ? " under " : "", engine ? profile : "", slots,
                 per, left);
    } else if (r->max_users == 0) {
        /* the engine's own figure for one request where it has one (vLLM's
         * start-up error quotes it), else the generic one */
        uint64_t one = r->engine.request_bytes ? r->engine.request_bytes : r->user_bytes_per_gpu;
        uint64_t room = r->engine.request_room_bytes ? r->engine.request_room_bytes
                                                     : r->kv_pool_bytes_per_gpu;
        units_format_bytes(one, s->units, per, sizeof per);
        units_format_bytes(room, s->units, left, sizeof left);
        int w = snprintf(buf, size, "NO USER FITS at %s tokens%s%s: one needs %s per GPU, the pool holds %s",
                         ctx, engine ? " under " : "", engine ? profile : "", per, left);
        if (room < r->kv_pool_bytes_per_gpu && w > 0 && (size_t)w < size) {
            char pool[64], aside[64];
            units_format_bytes(r->kv_pool_bytes_per_gpu, s->units, pool, sizeof pool);
            units_format_bytes(r->kv_pool_bytes_per_gpu - room, s->units, aside, sizeof aside);
            snprintf(buf + w, size - (size_t)w, " for requests (%s less %s set aside)", pool, aside);
        }
    } else {
        char rep[64] = "";
        if (r->replicas > 1) {
            units_format_int(r->users_per_replica, per, sizeof per);
            snprintf(rep, sizeof rep, " (%u replicas x %s)", r->replicas, per);
        }
        /* with a service level checked, its users lead and the memory's count follows */
        int len = headline_level(s, r, buf, size);
        if (len > 0 && (size_t)len < size)
            len += snprintf(buf + len, size - (size_t)len, "; %s fit in memory at %s tokens each%s%s%s",
                            n, ctx, engine ? " under " : "", engine ? profile : "", rep);
        else if (len == 0)
            len = snprintf(buf, size, "%s user%s fit%s at %s tokens each%s%s%s", n,
                           r->max_users == 1 ? "" : "s", r->max_users == 1 ? "s" : "", ctx,
                           engine ? " under " : "", engine ? profile : "", rep);
        if (r->avg_context_tokens < r->context_tokens && !e->fixed_slots && len > 0 &&
            (size_t)len < size)
            len += snprintf(buf + len, size - (size_t)len, "; %s with paging at %s tokens in use",
                            paged, avg);
        /* vLLM's window groups: its Maximum concurrency counts a whole batch in
         * each for every request; the pool frees the blocks behind a window */
        if (r->counted_users_per_replica && r->counted_users_per_replica < r->users_per_replica &&
            len > 0 && (size_t)len < size)
            len += snprintf(buf + len, size - (size_t)len, "; vLLM logs a Maximum concurrency of "
                            "%.2fx%s, as if every request were prefilling a whole batch at once",
                            r->engine.max_concurrency, r->replicas > 1 ? " a replica" : "");
        if (r->host.present && e->host.none && len > 0 && (size_t)len < size) {
            len += snprintf(buf + len, size - (size_t)len, "; %s has no host tier", e->title);
        } else if (r->host.present && len > 0 && (size_t)len < size) {
            char h[32];
            if (r->host.beyond_gpu) {
                units_format_int(r->host.beyond_gpu, h, sizeof h);
                len += snprintf(buf + len, size - (size_t)len, "; %s more parked in host memory", h);
            } else {
                units_format_int(r->host.users, h, sizeof h);
                len += snprintf(buf + len, size - (size_t)len,
                                "; host memory holds %s cache%s, none beyond these", h,
                                r->host.users == 1 ? "" : "s");
            }
        }
        len = report_offload_headline(r, buf, size, len);
        if (level_unchecked(s, r) && len > 0 && (size_t)len < size)
            snprintf(buf + len, size - (size_t)len,
                     "; the %g s first-token target cannot be checked (no compute figure "
                     "for this GPU): 0 users counted", s->max_ttft_seconds);
    }
}
