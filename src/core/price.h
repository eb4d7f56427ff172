/* price: what the GPUs cost an hour, a user-hour and a million tokens. A
 * user-hour is the price per hour shared by the users that fit, or with a
 * service level by those who keep it (core/speed.h), or by the users
 * --concurrency gives; a million output tokens is the price per hour over
 * the output tokens an hour at the throughput of those same users (the
 * throughput the plan shows); a million input tokens, over the prompt
 * tokens an hour at the prefill rate of every replica. The plan's stage after the speed and its bands
 * (plan.c calls price_compute; rows "cost", "cost_output", "cost_input"). */
#ifndef KVPLAN_CORE_PRICE_H
#define KVPLAN_CORE_PRICE_H

#include "explain.h"
#include "placement.h"
#include "scenario.h"
#include "speed.h"
#include "totals.h"

/* Seconds in an hour, and the tokens a cost per million counts. */
#define PRICE_SECONDS_PER_HOUR 3600.0
#define PRICE_TOKENS_PER_MILLION 1e6

/* A list of fields, so that the plan holds the result whole and each field
 * by its own name too (core/plan.h). */
#define PLAN_PRICE_FIELDS                                                                          \
    double price_usd_per_hour; /* all GPUs; < 0 unknown */                                         \
    double cost_per_user_hour; /* < 0 when unknown or no user fits */                              \
    /* the price per hour over the output tokens an hour at the throughput                         \
     * shown, and over the prompt tokens an hour at the prefill rate (every                        \
     * replica), x 1,000,000; < 0 when unknown */                                                  \
    double cost_per_million_output_tokens;                                                         \
    double cost_per_million_input_tokens;

struct plan_price {
    PLAN_PRICE_FIELDS
};

/* usd_per_hour over the tokens an hour at tokens_per_s, x 1,000,000: what
 * a million tokens cost at that rate; -1 when the price is unknown (< 0) or
 * the rate is none (<= 0). Every command's cost per million tokens. */
double price_per_million_tokens(double usd_per_hour, double tokens_per_s);

/* The price a cost rests on, in words: "$2.69/h per GPU x 8 GPUs, the
 * preset's price" (or "--price"; gpus 0: per GPU alone), "no price for this
 * GPU (use --price)". */
void price_basis_text(const struct scenario *s, uint32_t gpus, char *buf, size_t size);

/* The price of the plan's GPUs from the layout, the totals and the speed:
 * fills *out and writes its rows to x when not NULL. */
void price_compute(const struct scenario *s, const struct placement *l, const struct plan_totals *t,
                   const struct speed_result *sp, struct plan_price *out, struct explain *x);

#endif
