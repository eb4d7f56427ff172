/* hosttier: the host memory tier of a plan (--host-kv): users whose caches
 * host memory holds, what one costs to reload over the host link and to
 * compute again, and with --prefix-hit-rate the expected wait of a returning
 * user. Internal to core: plan.c calls it once the speed model has run. */
#ifndef KVPLAN_CORE_HOSTTIER_H
#define KVPLAN_CORE_HOSTTIER_H

#include "policy.h"

/* Fills c->r->host and its "host_*" rows; nothing without --host-kv. */
void host_tier_compute(struct policy_ctx *c);

#endif
