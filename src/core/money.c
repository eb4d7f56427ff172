#include "money.h"

#include "plan.h"

/* Why a cost per unit of work cannot be given, or NULL when it can. */
static const char *why_unknown(double price, bool slo, uint64_t users)
{
    if (price < 0)
        return "no price for this GPU (use --price)";
    if (users == 0)
        return slo ? "no user keeps the service level" : "no user fits";
    return NULL;
}

static void user_hour_row(struct plan_result *r, struct explain *x, double price, bool slo,
                          uint64_t users)
{
    const char *why = why_unknown(price, slo, users);
    r->cost_per_user_hour = why ? -1.0 : r->price_usd_per_hour / (double)users;
    struct explain_row *row = explain_row_begin(x, "cost", "Cost per user-hour", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    explain_term(row, price, XU_USD_PER_H, "per GPU");
    explain_term(row, r->gpus, XU_COUNT, r->gpus == 1 ? "GPU" : "GPUs");
    explain_op(row, XOP_MUL);
    if (slo)
        explain_ref(x, row, "users_slo",
                    users == 1 ? "user at the service level" : "users at the service level");
    else
        explain_ref(x, row, "users", users == 1 ? "user" : "users");
    explain_op(row, XOP_DIV);
    explain_row_end(x, row, XU_USD, 0, NULL);
}

/* The GPUs' price per hour (the terms of a row), divided next by an hourly rate. */
static void price_terms(struct explain_row *row, const struct plan_result *r, double price)
{
    explain_term(row, price, XU_USD_PER_H, "per GPU");
    explain_term(row, r->gpus, XU_COUNT, r->gpus == 1 ? "GPU" : "GPUs");
    explain_op(row, XOP_MUL);
}

/* ... / (rate x 3,600 s an hour) x 1,000,000 tokens, the rate pushed before. */
static void per_million_steps(struct explain_row *row)
{
    explain_term(row, MONEY_SECONDS_PER_HOUR, XU_COUNT, "s an hour");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_DIV);
    explain_term(row, MONEY_TOKENS_PER_MILLION, XU_COUNT, "tokens");
    explain_op(row, XOP_MUL);
}

/* The price of a million output tokens at the throughput shown. */
static void output_row(const struct scenario *s, struct plan_result *r, struct explain *x,
                       double price, bool slo, uint64_t users)
{
    const struct speed_result *sp = &r->speed;
    const char *why = why_unknown(price, slo, users);
    if (why == NULL && sp->tokens_per_s_total <= 0)
        why = !sp->known ? "no bandwidth figure for this GPU" : "no user fits";
    r->cost_per_million_output_tokens =
        why ? -1.0
            : r->price_usd_per_hour / (sp->tokens_per_s_total * MONEY_SECONDS_PER_HOUR) *
                  MONEY_TOKENS_PER_MILLION;
    struct explain_row *row = explain_row_begin(x, "cost_output", "Cost per 1M output", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    price_terms(row, r, price);
    explain_ref(x, row, "speed_total", "throughput");
    per_million_steps(row);
    explain_row_end(x, row, XU_USD, 0,
                    slo && !s->concurrency ? "at the users who keep the service level" : NULL);
}

/* The price of a million prompt tokens at every replica's prefill rate: one
 * prompt alone, over the time to its first token. */
static void input_row(struct plan_result *r, struct explain *x, double price, bool slo,
                      uint64_t users)
{
    const struct speed_result *sp = &r->speed;
    const char *why = why_unknown(price, slo, users);
    if (why == NULL && sp->prefill_tokens_per_s <= 0)
        why = !sp->known ? "no bandwidth figure for this GPU" : "no compute figure for this GPU";
    double rate = sp->prefill_tokens_per_s * (double)r->replicas;
    r->cost_per_million_input_tokens =
        why ? -1.0
            : r->price_usd_per_hour / (rate * MONEY_SECONDS_PER_HOUR) * MONEY_TOKENS_PER_MILLION;
    struct explain_row *row = explain_row_begin(x, "cost_input", "Cost per 1M input", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    price_terms(row, r, price);
    explain_term(row, (long double)sp->prompt_tokens, XU_TOKENS, "prompt tokens");
    explain_ref(x, row, "ttft", "to the first token");
    explain_op(row, XOP_DIV);
    if (r->replicas > 1) {
        explain_term(row, r->replicas, XU_COUNT, "replicas");
        explain_op(row, XOP_MUL);
    }
    per_million_steps(row);
    explain_row_end(x, row, XU_USD, 0, "at the prefill rate of one prompt alone");
}

void money_compute(const struct scenario *s, struct plan_result *r, struct explain *x)
{
    /* with a service level, a user-hour is one of the users who keep it */
    bool slo = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    uint64_t users = slo ? r->speed.users_at_service_level : r->max_users;
    double price = s->has_price ? s->price_usd_per_hour : s->gpu.price_usd_per_hour;
    r->price_usd_per_hour = price >= 0 ? price * (double)r->gpus : -1.0;
    user_hour_row(r, x, price, slo, users);
    output_row(s, r, x, price, slo, users);
    input_row(r, x, price, slo, users);
}
