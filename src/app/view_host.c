/* view_host: llama.cpp's host side (core/offload.h) beside the GPU's memory
 * bar: what its CPU layers, experts and cache take of the host's RAM. */
#include "app/view_parts.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"

void view_host_title(const struct plan_result *r, enum unit_system units, char *title,
                     size_t size, int w)
{
    const struct offload_split *o = &r->engine.offload;
    if (!o->placed)
        return;
    char used[32], of[32], tail[96];
    units_format_bytes(o->node_host_bytes, units, used, sizeof used); /* the node's */
    if (o->host_memory_known) {
        units_format_bytes(o->host_memory_bytes, units, of, sizeof of);
        snprintf(tail, sizeof tail, "; host %s of %s%s", used, of,
                 o->host_fits ? "" : " (too little)");
    } else {
        snprintf(tail, sizeof tail, "; host %s", used);
    }
    size_t len = strlen(title);
    if ((int)(len + strlen(tail)) <= w && len + strlen(tail) < size) {
        snprintf(title + len, size - len, "%s", tail);
        return;
    }
    /* shorter: the GPU's total and the host's, side by side */
    char gpu[32];
    units_format_bytes(r->memory_bytes_per_gpu, units, gpu, sizeof gpu);
    char short_title[128];
    snprintf(short_title, sizeof short_title, "Each GPU: %s%s", gpu, tail);
    if ((int)strlen(short_title) > w && o->host_memory_known)
        snprintf(short_title, sizeof short_title, "GPU %s, host %s/%s", gpu, used, of);
    if ((int)strlen(short_title) <= w)
        snprintf(title, size, "%s", short_title);
}

bool view_host_summary(const struct plan_result *r, char *line, size_t size)
{
    const struct offload_split *o = &r->engine.offload;
    if (!o->active)
        return false;
    int n = snprintf(line, size, "-ngl %u of %u", o->ngl, o->n_layer + 1);
    if (o->moe_host_layers && n > 0 && (size_t)n < size)
        n += snprintf(line + n, size - (size_t)n, ", -ncmoe %u", o->n_cpu_moe);
    if (o->kv_on_host && n > 0 && (size_t)n < size)
        n += snprintf(line + n, size - (size_t)n, ", -nkvo");
    if (n > 0 && (size_t)n < size)
        snprintf(line + n, size - (size_t)n, ", -np %u", r->engine.slots);
    return true;
}

void view_host_row(const struct plan_result *r, enum unit_system units, int y, int x, int w)
{
    const struct offload_split *o = &r->engine.offload;
    if (!o->placed || w < 24)
        return;
    uint64_t total = !o->host_memory_known             ? 0
                     : o->host_memory_bytes > o->node_host_bytes ? o->host_memory_bytes
                                                                : o->node_host_bytes;
    double n = o->node_servers > 1 ? o->node_servers : 1; /* the node's servers together */
    struct bar_segment bs[2] = {
        {total ? n * (double)o->host_weights_bytes / (double)total : 0, ROLE_WEIGHTS},
        {total ? n * (double)o->host_kv_bytes / (double)total : 0, ROLE_KV},
    };
    /* a bar of the host's RAM when it is known; the figures alone else */
    int bw = !o->host_memory_known ? -1 : w >= 50 ? w / 3 : 5;
    widget_text(y, x, 5, ROLE_TITLE, "host");
    if (bw > 0)
        widget_bar(y, x + 5, bw, bs, 2, !o->host_fits);
    char wt[32], kv[32], line[96];
    units_format_bytes(o->host_weights_bytes, units, wt, sizeof wt);
    if (o->host_kv_bytes) {
        units_format_bytes(o->host_kv_bytes, units, kv, sizeof kv);
        snprintf(line, sizeof line, "weights %s, KV %s", wt, kv);
        if ((int)strlen(line) > w - 6 - bw) /* narrow: the sizes alone */
            snprintf(line, sizeof line, "%s + %s KV", wt, kv);
    } else {
        snprintf(line, sizeof line, "%s %s", o->active ? "weights" : "embedding", wt);
    }
    widget_text(y, x + 6 + bw, w - 6 - bw, o->host_fits ? ROLE_TEXT : ROLE_BAD, line);
}
