#include "solve.h"

uint64_t solve_users(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    return plan_compute(s, PLAN_NUMBERS, NULL, &r, &d) ? r.max_users : 0;
}

struct solve_split solve_gpus(const struct scenario *base, uint64_t need, uint32_t max_gpus,
                              uint32_t max_pp)
{
    struct solve_split out = {false, 0, 0, 0, -1.0, 0};
    struct scenario s = *base;
    for (uint32_t n = 1; n <= max_gpus; n++) {
        for (uint32_t pp = 1; pp <= (max_pp ? max_pp : 1) && pp <= n; pp++) {
        for (uint32_t tp = n / pp; tp >= 1; tp--) {
            if (n % (tp * pp) != 0 || tp > 64)
                continue;
            s.gpus = n;
            s.tp = tp;
            s.pp = pp > 1 ? pp : 0;
            struct plan_result r;
            struct diag ignore = {0};
            if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &ignore))
                continue;
            if (r.warnings & WARN_HEADS_UNEVEN_SPLIT)
                continue; /* engines refuse a split the heads cannot take */
            if (r.max_users >= need) {
                out.solved = true;
                out.gpus = n;
                out.tp = tp;
                out.pp = pp;
                out.users = r.max_users;
                out.cost_per_hour = r.price_usd_per_hour;
                return out;
            }
        }
        }
    }
    return out;
}

uint64_t solve_max_context(const struct scenario *base, uint64_t need)
{
    /* users fall as context grows: binary search the last context that serves need */
    struct scenario s = *base;
    uint64_t lo = s.prefix_tokens + 1, hi = TOKENS_MAX, best = 0;
    while (lo <= hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        s.context_tokens = mid;
        s.avg_context_tokens = base->avg_context_tokens < mid ? base->avg_context_tokens : 0;
        if (solve_users(&s) >= need) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

double solve_min_utilization(const struct scenario *base, uint64_t need)
{
    struct scenario s = *base;
    for (int pct = 1; pct <= 100; pct++) {
        s.engine.gpu_memory_utilization = pct / 100.0;
        if (solve_users(&s) >= need)
            return pct / 100.0;
    }
    return 0;
}
