/* price: what the GPUs cost an hour and a user-hour: of the users that
 * fit, or with a service level of those who keep it (core/speed.h). The
 * plan's stage after the speed (plan.c, its row "cost"). */
#ifndef KVPLAN_CORE_PRICE_H
#define KVPLAN_CORE_PRICE_H

/* A list of fields, so that the plan holds the result whole and each field
 * by its own name too (core/plan.h). */
#define PLAN_PRICE_FIELDS                                                                          \
    double price_usd_per_hour; /* all GPUs; < 0 unknown */                                         \
    double cost_per_user_hour; /* < 0 when unknown or no user fits */

struct plan_price {
    PLAN_PRICE_FIELDS
};

#endif
