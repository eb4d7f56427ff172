/* solve: the inverse questions, answered with the same plan as everything
 * else: the fewest GPUs (and their tensor-parallel x replica split) that
 * serve N users, the longest context that does, and the smallest vLLM
 * memory fraction that does. Pure: scenarios in, numbers out. */
#ifndef KVPLAN_CORE_SOLVE_H
#define KVPLAN_CORE_SOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

struct solve_split {
    bool solved;
    uint32_t gpus, tp;  /* 0 when not solved */
    uint64_t users;
    double cost_per_hour; /* all GPUs; < 0 unknown or not solved */
    uint32_t pp;          /* pipeline stages; 1 without, 0 when not solved */
};

/* The fewest GPUs of base's GPU type, up to max_gpus, that serve `need`
 * users; among splits of that count, the fewest pipeline stages (up to
 * max_pp; 1 = none), then the largest tensor-parallel size that divides the
 * heads evenly (fewer weight copies). */
struct solve_split solve_gpus(const struct scenario *base, uint64_t need, uint32_t max_gpus,
                              uint32_t max_pp);

/* The longest context (tokens) that still serves `need` users; 0 = none. */
uint64_t solve_max_context(const struct scenario *base, uint64_t need);

/* The smallest gpu-memory-utilization (in hundredths) that serves `need`
 * users under vLLM; 0 = none up to 1.00. */
double solve_min_utilization(const struct scenario *base, uint64_t need);

/* The users a scenario serves (0 when it is invalid). */
uint64_t solve_users(const struct scenario *s);

#endif
