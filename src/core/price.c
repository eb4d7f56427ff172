#include "price.h"

#include <stdio.h>

/* One GPU's price an hour: --price, else the preset's; < 0 unknown. */
static double gpu_price(const struct scenario *s)
{
    return s->has_price ? s->price_usd_per_hour : s->gpu.price_usd_per_hour;
}

double price_per_million_tokens(double usd_per_hour, double tokens_per_s)
{
    if (usd_per_hour < 0 || !(tokens_per_s > 0))
        return -1.0;
    return usd_per_hour / (tokens_per_s * PRICE_SECONDS_PER_HOUR) * PRICE_TOKENS_PER_MILLION;
}

void price_basis_text(const struct scenario *s, uint32_t gpus, char *buf, size_t size)
{
    double price = gpu_price(s);
    if (price < 0)
        snprintf(buf, size, "no price for this GPU (use --price)");
    else if (gpus == 0)
        snprintf(buf, size, "$%.2f/h per GPU, %s", price,
                 s->has_price ? "--price" : "the preset's price");
    else
        snprintf(buf, size, "$%.2f/h per GPU x %u GPU%s, %s", price, gpus, gpus == 1 ? "" : "s",
                 s->has_price ? "--price" : "the preset's price");
}

/* Why a cost cannot be given, or NULL when it can. */
static const char *why_unknown(double price, bool slo, uint64_t users)
{
    if (price < 0)
        return "no price for this GPU (use --price)";
    if (users == 0)
        return slo ? "no user keeps the service level" : "no user fits";
    return NULL;
}

/* The GPUs' price per hour, the first terms of a row. */
static void price_terms(struct explain_row *row, const struct placement *l, double price)
{
    explain_term(row, price, XU_USD_PER_H, "per GPU");
    explain_term(row, l->gpus, XU_COUNT, l->gpus == 1 ? "GPU" : "GPUs");
    explain_op(row, XOP_MUL);
}

/* ... / (rate x 3,600 s an hour) x 1,000,000 tokens, the rate pushed before. */
static void per_million_steps(struct explain_row *row)
{
    explain_term(row, PRICE_SECONDS_PER_HOUR, XU_COUNT, "s an hour");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_DIV);
    explain_term(row, PRICE_TOKENS_PER_MILLION, XU_COUNT, "tokens");
    explain_op(row, XOP_MUL);
}

/* The users both costs are shared by, and the words that say so: the
 * users --concurrency gives (the throughput is theirs too), else with a
 * service level those who keep it, else every user that fits. */
struct cost_basis {
    uint64_t users;
    bool slo, given;
    char note[64]; /* "at 30 concurrent users (--concurrency)"; "" otherwise */
};

static struct cost_basis cost_basis_of(const struct scenario *s, const struct plan_totals *t,
                                       const struct speed_result *sp)
{
    struct cost_basis c = {0};
    c.slo = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    c.given = s->concurrency > 0 && t->max_users > 0;
    c.users = c.given ? s->concurrency : c.slo ? sp->users_at_service_level : t->max_users;
    if (c.given)
        snprintf(c.note, sizeof c.note, "at %llu concurrent user%s (--concurrency)",
                 (unsigned long long)c.users, c.users == 1 ? "" : "s");
    else if (c.slo)
        snprintf(c.note, sizeof c.note, "at the users who keep the service level");
    return c;
}

/* A user-hour: of one of the users the costs are shared by. */
static void user_hour_row(const struct placement *l, struct plan_price *out, struct explain *x,
                          double price, const struct cost_basis *c)
{
    const char *why = why_unknown(price, c->slo && !c->given, c->users);
    out->cost_per_user_hour = why ? -1.0 : out->price_usd_per_hour / (double)c->users;
    struct explain_row *row = explain_row_begin(x, "cost", "Cost per user-hour", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    price_terms(row, l, price);
    if (c->given) {
        explain_term(row, (long double)c->users, XU_COUNT,
                     c->users == 1 ? "concurrent user" : "concurrent users");
    } else if (c->slo) {
        explain_ref(x, row, "users_slo",
                    c->users == 1 ? "user at the service level" : "users at the service level");
    } else {
        explain_ref(x, row, "users", c->users == 1 ? "user" : "users");
    }
    explain_op(row, XOP_DIV);
    explain_row_end(x, row, XU_USD, 0, NULL);
}

/* A million output tokens at the throughput shown. */
static void output_row(const struct scenario *s, const struct placement *l,
                       const struct speed_result *sp, struct plan_price *out, struct explain *x,
                       const struct cost_basis *c, const char *why)
{
    if (why == NULL && sp->tokens_per_s_total <= 0)
        why = !sp->known ? "no bandwidth figure for this GPU" : "no user fits";
    out->cost_per_million_output_tokens =
        why ? -1.0 : price_per_million_tokens(out->price_usd_per_hour, sp->tokens_per_s_total);
    struct explain_row *row = explain_row_begin(x, "cost_output", "Cost per 1M output", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    price_terms(row, l, gpu_price(s));
    explain_ref(x, row, "speed_total", "throughput");
    per_million_steps(row);
    explain_row_end(x, row, XU_USD, 0, c->note[0] ? c->note : NULL);
}

/* A million prompt tokens at every replica's prefill rate: one prompt
 * alone, over the time to its first token. */
static void input_row(const struct placement *l, const struct speed_result *sp,
                      struct plan_price *out, struct explain *x, double price, const char *why)
{
    if (why == NULL && sp->prefill_tokens_per_s <= 0)
        why = !sp->known ? "no bandwidth figure for this GPU" : "no compute figure for this GPU";
    double rate = sp->prefill_tokens_per_s * (double)l->replicas;
    out->cost_per_million_input_tokens =
        why ? -1.0 : price_per_million_tokens(out->price_usd_per_hour, rate);
    struct explain_row *row = explain_row_begin(x, "cost_input", "Cost per 1M input", "");
    if (why) {
        explain_row_end(x, row, XU_USD, -1, why);
        return;
    }
    price_terms(row, l, price);
    explain_term(row, (long double)sp->prompt_tokens, XU_TOKENS, "prompt tokens");
    explain_term(row, sp->ttft_prefill_seconds, XU_SECONDS, "its prefill alone");
    explain_op(row, XOP_DIV);
    if (l->replicas > 1) {
        explain_term(row, l->replicas, XU_COUNT, "replicas");
        explain_op(row, XOP_MUL);
    }
    per_million_steps(row);
    explain_row_end(x, row, XU_USD, 0, "at the prefill rate of one prompt alone");
}

void price_compute(const struct scenario *s, const struct placement *l, const struct plan_totals *t,
                   const struct speed_result *sp, struct plan_price *out, struct explain *x)
{
    struct cost_basis c = cost_basis_of(s, t, sp);
    double price = gpu_price(s);
    out->price_usd_per_hour = price >= 0 ? price * (double)l->gpus : -1.0;
    user_hour_row(l, out, x, price, &c);
    const char *why = why_unknown(price, c.slo && !c.given, c.users);
    output_row(s, l, sp, out, x, &c, why);
    /* a prompt is one prompt's prefill whatever the decode target: any user
     * that fits can be sent one */
    input_row(l, sp, out, x, price, why_unknown(price, false, t->max_users));
}
