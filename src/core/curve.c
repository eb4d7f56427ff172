#include "curve.h"

#include <math.h>
#include <stdio.h>

void curve_compute(const struct scenario *base, struct users_curve *c)
{
    struct scenario s = *base;
    scenario_pin_layout(&s); /* the curve of the layout planned, not each context's own */
    c->max_users = 0;
    c->slo = base->min_tokens_per_s > 0 || base->max_ttft_seconds > 0;
    for (int i = 0; i < CHART_POINTS; i++) {
        /* 2^10 .. 2^20 tokens in equal steps of log2 */
        double exp2 = 10.0 + 10.0 * i / (CHART_POINTS - 1);
        uint64_t ctx = (uint64_t)(pow(2.0, exp2) + 0.5);
        s.context_tokens = ctx;
        s.avg_context_tokens = base->avg_context_tokens < ctx ? base->avg_context_tokens : 0;
        s.output_tokens = scenario_output_within(base, ctx);
        /* a prefix that reaches the context is held to it less one token,
         * the rule plan and sweep apply */
        s.prefix_tokens = scenario_prefix_within(base->prefix_tokens, ctx);
        struct plan_result r;
        struct diag d = {0};
        c->context_tokens[i] = ctx;
        bool ok = plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d);
        c->users[i] = ok ? r.max_users : 0;
        c->users_slo[i] = ok ? r.speed.users_at_service_level : 0;
        if (c->users[i] > c->max_users)
            c->max_users = c->users[i];
    }
}

double curve_span(uint64_t peak)
{
    return log10(peak > 10 ? (double)peak : 10.0);
}

int curve_y_ticks(double span)
{
    int n = (int)floor(span + 1e-9) + 1;
    return n > CURVE_Y_TICKS_MAX ? CURVE_Y_TICKS_MAX : n;
}

double curve_y(uint64_t users, double span)
{
    if (users == 0 || span <= 0)
        return -1;
    double f = log10((double)users) / span;
    return f > 1 ? 1 : f;
}

double curve_x(uint64_t context_tokens)
{
    if (context_tokens < 1024 || context_tokens > 1024 * 1024)
        return -1;
    return log2((double)context_tokens / 1024.0) / 10.0;
}

uint64_t curve_context(double fx)
{
    fx = fx < 0 ? 0 : fx > 1 ? 1 : fx;
    return (uint64_t)llround(1024.0 * exp2(10.0 * fx));
}

void curve_y_label(int d, char *buf, size_t size)
{
    static const char *const small[] = {"1", "10", "100", "1,000", "10,000", "100,000"};
    static const char *const unit[] = {"M", "G", "T", "P", "E"};
    static const char *const lead[] = {"1", "10", "100"};
    if (d < 6)
        snprintf(buf, size, "%s", small[d < 0 ? 0 : d]);
    else
        snprintf(buf, size, "%s%s", lead[d % 3], unit[(d / 3 - 2) % 5]);
}

const char *curve_x_label(int t)
{
    static const char *const ticks[CURVE_X_TICKS] = {"1k", "4k", "16k", "64k", "256k", "1M"};
    return t >= 0 && t < CURVE_X_TICKS ? ticks[t] : "";
}
