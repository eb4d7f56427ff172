/* plan_wired: unified memory's wired limit. On Apple silicon the GPU may
 * use the part of unified memory Metal reports as its working set
 * (recommendedMaxWorkingSetSize; llama.cpp's ggml_metal_device_get_memory
 * takes it as the device's total), by default two thirds or three quarters
 * of it (spec_metal_working_set); `sudo sysctl iogpu.wired_limit_mb=N`
 * sets it to N MiB. When the plan falls short of what was asked, or the fit
 * search keeps part of the model on the CPU, this finds the limit that would
 * hold it on the GPU (at most spec_wired_limit_max), for the warning that
 * names the sysctl. */
#include "plan.h"

#include "units.h"

/* With the fit search's split (core/offload_fit.h): the bytes the GPU lacks
 * to hold every layer, the CPU layers' weights and cache and the output
 * layer (the token embedding stays on the CPU), less its pool's spare. */
static uint64_t split_lack(const struct plan_result *r)
{
    const struct offload_split *o = &r->engine.offload;
    uint64_t moved = o->host_bytes > o->embed_bytes ? o->host_bytes - o->embed_bytes : 0;
    uint64_t pool = r->kv_pool_bytes_per_gpu;
    uint64_t spare = pool > o->gpu_kv_bytes ? pool - o->gpu_kv_bytes : 0;
    return moved > spare ? moved - spare : 0;
}

/* The bytes one GPU lacks for what was asked: the weights and one user, the
 * cache an engine allocates whole, one user beside the prefix, or the users
 * --concurrency asks for; 0: none. */
static uint64_t wanted_bytes(const struct scenario *s, const struct plan_result *r)
{
    uint64_t user = r->user_bytes_per_gpu, prefix = r->prefix_bytes_per_gpu;
    if (!r->weights_fit || (!r->fits && r->shortfall_bytes_per_gpu == 0))
        return kv_sat_add(r->shortfall_bytes_per_gpu, kv_sat_add(user, prefix));
    if (!r->fits) /* the weights fit, the cache the engine allocates does not */
        return r->shortfall_bytes_per_gpu;
    uint64_t users = 0; /* per replica */
    if (r->max_users == 0)
        users = 1;
    else if (s->concurrency > r->max_users) {
        uint64_t replicas = r->replicas ? r->replicas : 1;
        users = (s->concurrency + replicas - 1) / replicas;
    }
    uint64_t held = kv_sat_add(prefix, kv_sat_mul(users, user));
    return users && held > r->kv_pool_bytes_per_gpu ? held - r->kv_pool_bytes_per_gpu : 0;
}

void wired_compute(const struct scenario *s, struct plan_result *r)
{
    struct wired_figures *w = &r->wired;
    *w = (struct wired_figures){0};
    if (!s->gpu.unified_bytes || s->has_vram)
        return;
    w->unified_bytes = s->gpu.unified_bytes;
    w->limit_bytes = scenario_gpu_memory(s);
    const struct offload_split *o = &r->engine.offload;
    bool split = r->fits && o->active && o->searched;
    uint64_t lack = split ? split_lack(r) : wanted_bytes(s, r);
    uint64_t total = r->memory_bytes_per_gpu;
    if (lack == 0 || total == 0)
        return;
    /* the rule keeps its share of any more memory (the headroom rule its
     * percent, an engine its margin): more by the part it hands out */
    uint64_t handed = total > r->reserved_bytes_per_gpu ? total - r->reserved_bytes_per_gpu : 0;
    if (handed == 0)
        return;
    long double more = (long double)lack * (long double)total / (long double)handed;
    long double need = (long double)w->limit_bytes + more;
    uint64_t gib = (uint64_t)((need + (long double)GIB - 1) / (long double)GIB);
    if (gib * GIB > spec_wired_limit_max(w->unified_bytes)) /* the Mac is too small */
        return;
    w->split = split;
    w->suggest_mb = (uint32_t)(gib * 1024);
}
