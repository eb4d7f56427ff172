/* money: what the GPUs cost, per user-hour and per million tokens. A
 * user-hour is the GPUs' price per hour shared by the users served (with a
 * service level, the users who keep it); a million output tokens is the
 * price per hour over the output tokens an hour at the throughput the plan
 * shows (with a speed target, the throughput of the users who keep it); a
 * million input tokens, over the prompt tokens an hour at the prefill rate of
 * every replica. Internal to core: plan.c calls money_compute once per plan,
 * after the speed. */
#ifndef KVPLAN_CORE_MONEY_H
#define KVPLAN_CORE_MONEY_H

struct explain;
struct plan_result;
struct scenario;

/* Seconds in an hour, and the tokens a cost per million counts. */
#define MONEY_SECONDS_PER_HOUR 3600.0
#define MONEY_TOKENS_PER_MILLION 1e6

/* Fills r->price_usd_per_hour, r->cost_per_user_hour and the costs per
 * million output and input tokens (each < 0 when unknown) from the users and
 * the speed in r; writes their rows to x when not NULL. */
void money_compute(const struct scenario *s, struct plan_result *r, struct explain *x);

#endif
