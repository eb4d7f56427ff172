/* report_offload: llama.cpp's split between the GPUs and host memory in the
 * reports (core/offload.h): the host as an input, the split in the headline. */
#include "io/report_parts.h"

#include <stdio.h>

#include "core/engine_desc.h"
#include "core/offload_fit.h"
#include "core/units.h"

/* Apple silicon: what the GPU's part and macOS leave of the unified
 * memory (core/offload_fit.h offload_host_room), read over the same bus. */
static bool unified_input(const struct scenario *s, const struct offload_split *o, char *buf,
                          size_t size)
{
    const struct offload_opts *p = &s->offload;
    char mem[32], all[32], gpu[32], keep[32], how[96];
    units_format_bytes(o->host_memory_bytes, s->units, mem, sizeof mem);
    units_format_bytes(s->gpu.unified_bytes, s->units, all, sizeof all);
    units_format_bytes(offload_gpu_part(o, o->gpu_kv_bytes), s->units, gpu, sizeof gpu);
    units_format_bytes(o->os_reserve_bytes, s->units, keep, sizeof keep);
    const struct cpu_preset *c = p->cpu[0] ? offload_cpu_find(p->cpu) : NULL;
    if (c)
        snprintf(how, sizeof how, "%s, --cpu %s", c->name, c->id);
    else if (p->host_bytes_per_s > 0)
        snprintf(how, sizeof how, "--host-bandwidth");
    else
        snprintf(how, sizeof how, "the unified memory's");
    snprintf(buf, size, "%s of unified memory: %s less the GPU's %s (its weights, cache and "
             "buffers) and %s for macOS, read at %.1f GB/s (%s)",
             mem, all, gpu, keep, o->host_bytes_per_s / 1e9, how);
    return true;
}

bool report_offload_input(const struct scenario *s, const struct plan_result *r, char *buf,
                          size_t size)
{
    const struct offload_split *o = &r->engine.offload;
    if (!o->active)
        return false;
    const struct offload_opts *p = &s->offload;
    if (s->gpu.unified_bytes)
        return unified_input(s, o, buf, size);
    char mem[32], bw[32];
    if (o->host_memory_bytes)
        units_format_bytes(o->host_memory_bytes, s->units, mem, sizeof mem);
    snprintf(bw, sizeof bw, "%.1f GB/s", o->host_bytes_per_s / 1e9);
    const struct cpu_preset *c = p->cpu[0] ? offload_cpu_find(p->cpu) : NULL;
    const struct cpu_preset *def = offload_cpu_default();
    char how[160];
    if (c)
        snprintf(how, sizeof how, "%s, --cpu %s", c->name, c->id);
    else if (p->host_bytes_per_s > 0)
        snprintf(how, sizeof how, "--host-bandwidth");
    else
        snprintf(how, sizeof how, "%s: the default, --cpu %s", def->name, def->id);
    snprintf(buf, size, "%s%s, read at %s (%s)",
             o->host_memory_known ? mem : "unknown, not checked",
             !o->host_memory_known  ? " (--host-memory)"
             : p->host_memory_read ? " (this machine's)"
                                   : " (--host-memory)",
             bw, how);
    return true;
}

int report_offload_headline(const struct plan_result *r, char *buf, size_t size, int len)
{
    const struct offload_split *o = &r->engine.offload;
    if (!o->active || len < 0 || (size_t)len >= size)
        return len;
    char split[192];
    offload_sentence(o, split, sizeof split);
    return len + snprintf(buf + len, size - (size_t)len, "; %s%s", split,
                          o->searched ? " (the fit search's)" : "");
}

/* No split fits: the closest the fit search tried, and what it lacks. */
static bool no_split(const struct scenario *s, const struct plan_result *r, char *buf, size_t size)
{
    const struct offload_split *o = &r->engine.offload_tried;
    char need[32], have[32], lack[32], split[192];
    units_format_bytes(o->node_host_bytes, s->units, need, sizeof need);
    units_format_bytes(o->host_memory_bytes, s->units, have, sizeof have);
    units_format_bytes(o->gpu_lack_bytes, s->units, lack, sizeof lack);
    offload_sentence(o, split, sizeof split);
    int n = snprintf(buf, size, "DOES NOT FIT under %s: no split fits; the closest tried, %s, ",
                     engine_desc(r->profile)->name, split);
    if (n < 0 || (size_t)n >= size)
        return true;
    if (o->gpu_lack_bytes && !o->host_fits)
        snprintf(buf + n, size - (size_t)n, "lacks %s per GPU and needs %s in host memory, "
                 "more than its %s", lack, need, have);
    else if (o->gpu_lack_bytes)
        snprintf(buf + n, size - (size_t)n, "lacks %s per GPU", lack);
    else
        snprintf(buf + n, size - (size_t)n, "needs %s in host memory, more than its %s", need,
                 have);
    return true;
}

bool report_offload_unfit(const struct scenario *s, const struct plan_result *r, char *buf,
                          size_t size)
{
    const struct offload_split *o = &r->engine.offload;
    if (!r->fits && r->engine.offload_tried.placed)
        return no_split(s, r, buf, size);
    if (!o->active || o->host_fits || !r->weights_fit)
        return false;
    char need[32], have[32], split[192];
    units_format_bytes(o->node_host_bytes, s->units, need, sizeof need);
    units_format_bytes(o->host_memory_bytes, s->units, have, sizeof have);
    offload_sentence(o, split, sizeof split);
    char servers[48] = "";
    if (o->node_servers > 1) /* one host a node, its servers' bytes together */
        snprintf(servers, sizeof servers, " (%u servers on the node)", o->node_servers);
    snprintf(buf, size, "DOES NOT FIT under %s: %s of weights and cache in host memory%s, more "
             "than its %s (%s)", engine_desc(r->profile)->name, need, servers, have, split);
    return true;
}
