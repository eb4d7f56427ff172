/* totals: every replica together, the plan's answer: the users, paged
 * users, tokens and KV pool of all replicas, and what one GPU's pool has
 * left. plan.c multiplies the budget's replica by the replicas (its rows
 * "users", "users_paged", "kv_tokens"). */
#ifndef KVPLAN_CORE_TOTALS_H
#define KVPLAN_CORE_TOTALS_H

#include <stdint.h>

/* A list of fields, so that the plan holds the result whole and each field
 * by its own name too (core/plan.h). */
#define PLAN_TOTALS_FIELDS                                                                         \
    uint64_t max_users;           /* users per replica x replicas */                               \
    uint64_t max_users_paged;                                                                      \
    uint64_t kv_tokens;                                                                            \
    uint64_t kv_pool_bytes;       /* per GPU x gpus */                                             \
    uint64_t spare_bytes_per_gpu; /* pool left over */

struct plan_totals {
    PLAN_TOTALS_FIELDS
};

#endif
