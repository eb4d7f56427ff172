/* hosttier: the host memory tier of a plan (--host-kv): users whose caches
 * host memory holds, what one costs to reload over the host link and to
 * compute again, and with --prefix-hit-rate the expected wait of a returning
 * user. Internal to core: plan.c calls it once the speed model has run. */
#ifndef KVPLAN_CORE_HOSTTIER_H
#define KVPLAN_CORE_HOSTTIER_H

#include "policy.h"

/* Fills c->r->host and its "host_*" rows; nothing without --host-kv. */
void host_tier_compute(struct policy_ctx *c);

/* The host pool of each GPU as the engine sizes it: --host-kv, or under
 * SGLang the whole GB its --hicache-size takes (at least 1: 0 means its ratio). */
uint64_t host_tier_pool_bytes(const struct scenario *s);

/* Appends the vLLM or SGLang flags that ask for the tier (--kv-offloading-backend
 * ...) to a launch line, for `ranks` = TP x PP ranks; none without a tier or
 * for other engines. */
struct shell_line;
void host_tier_flags(const struct scenario *s, uint32_t ranks, struct shell_line *l);

#endif
