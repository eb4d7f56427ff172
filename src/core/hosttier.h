/* hosttier: the host memory tier of a plan (--host-kv): users whose caches
 * host memory holds, what one costs to reload over the host link and to
 * compute again, and with --prefix-hit-rate the expected wait of a returning
 * user. Internal to core: plan.c calls it once the speed model has run. */
#ifndef KVPLAN_CORE_HOSTTIER_H
#define KVPLAN_CORE_HOSTTIER_H

#include "policy.h"

/* Fills c->r->host and its "host_*" rows; nothing without --host-kv. */
void host_tier_compute(struct policy_ctx *c);

/* The host pool of each GPU as the engine sizes it (its descriptor's
 * host.pool_bytes: SGLang's whole GB), else --host-kv. Each engine's launch
 * line asks for the tier with its own flags. */
uint64_t host_tier_pool_bytes(const struct scenario *s);

#endif
