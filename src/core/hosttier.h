/* hosttier: the host memory tier of a plan (--host-kv): users whose caches
 * host memory holds, what one costs to reload over the host link and to
 * compute again, and with --prefix-hit-rate the expected wait of a returning
 * user. Internal to core: plan.c calls it once the speed model has run,
 * with what the speed model reads: it computes a parked cache again. */
#ifndef KVPLAN_CORE_HOSTTIER_H
#define KVPLAN_CORE_HOSTTIER_H

#include <stdbool.h>
#include <stdint.h>

#include "explain.h"
#include "scenario.h"
#include "speed.h"

/* The host memory tier (--host-kv): caches parked in host memory, and what
 * it costs to bring one back over the GPU's host link or to compute it
 * again. Per-GPU figures hold for every GPU; users per replica and total. */
struct host_tier {
    bool present;                 /* --host-kv given */
    bool serving;                 /* a user fits on the GPUs: there is a server to park caches for */
    uint64_t pool_bytes_per_gpu;  /* host memory for KV, each GPU's rank */
    uint64_t user_bytes_per_gpu;  /* one parked user, as the engine allocates it */
    uint64_t users_per_replica;   /* caches the host pools hold */
    uint64_t users;               /* every replica */
    uint64_t beyond_gpu;          /* of those, more than the GPUs hold: users - resident, >= 0 */
    uint64_t link_bytes_per_s;    /* one direction, per GPU; 0 unknown */
    double reload_seconds;        /* one user's cache over the link; 0 unknown */
    double recompute_seconds;     /* its tokens prefilled again; 0 unknown */
    bool has_hit_rate;
    double hit_rate;              /* --prefix-hit-rate */
    double restore_seconds;       /* hit x reload + (1 - hit) x recompute; 0 unknown */
    bool below_device;            /* the engine refuses a pool no larger than the GPU's */
};

/* The tier of the plan in b: fills *out and writes its "host_*" rows to x
 * when not NULL; nothing but zeros without --host-kv. */
void host_tier_compute(const struct scenario *s, const struct speed_basis *b,
                       struct host_tier *out, struct explain *x);

/* The host pool of each GPU as the engine sizes it (its descriptor's
 * host.pool_bytes: SGLang's whole GB), else --host-kv. Each engine's launch
 * line asks for the tier with its own flags. */
uint64_t host_tier_pool_bytes(const struct scenario *s);

#endif
