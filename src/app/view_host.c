/* view_host: llama.cpp's host side (core/offload.h) beside the GPU's memory
 * bar: what its CPU layers, experts and cache take of the host's RAM. */
#include "app/view_parts.h"

#include <stdio.h>
#include <string.h>

#include "core/engine_desc.h"
#include "core/text.h"
#include "core/units.h"

/* The host's side of the title, "; host 20.93 GiB of 64.00 GiB", when
 * llama.cpp placed layers there; "" else. */
static void host_part(const struct plan_result *r, enum unit_system units, char *out, size_t size)
{
    const struct offload_split *o = &r->engine.offload;
    out[0] = '\0';
    if (!o->placed)
        return;
    char used[32], of[32];
    units_format_bytes(o->node_host_bytes, units, used, sizeof used); /* the node's */
    if (o->host_memory_known) {
        units_format_bytes(o->host_memory_bytes, units, of, sizeof of);
        snprintf(out, size, "; host %s of %s%s", used, of, o->host_fits ? "" : " (too little)");
    } else {
        snprintf(out, size, "; host %s", used);
    }
}

void view_memory_title(const struct plan_result *r, const struct scenario *s, int w, char *title,
                       size_t size)
{
    /* one wording at every size: its parts in reading order, the total
     * always; those that do not fit left out from the end, an ellipsis
     * saying so */
    const char *head = "Memory of each GPU", *more = roles_utf8() ? "\u2026" : "~";
    char part[4][96];
    units_format_bytes(r->memory_bytes_per_gpu, s->units, part[0] + 2, sizeof part[0] - 2);
    memcpy(part[0], ": ", 2);
    bool server = engine_desc(r->profile)->server;
    snprintf(part[1], sizeof part[1], "%s%s", server ? " " : "", server ? spec_gpu_api(&s->gpu) : "");
    part[2][0] = '\0';
    if (s->gpus > 1)
        snprintf(part[2], sizeof part[2], ", %u GPUs alike", s->gpus);
    host_part(r, s->units, part[3], sizeof part[3]);
    int n = 4;
    while (n > 1 && !part[n - 1][0])
        n--;
    for (int k = n; k >= 1; k--) {
        size_t len = 0;
        text_append(title, size, &len, head);
        for (int i = 0; i < k; i++)
            text_append(title, size, &len, part[i]);
        if (k < n)
            text_append(title, size, &len, more);
        if (view_cols(title) <= w)
            return;
    }
    /* no room for the ellipsis after the total: the head and the total alone
     * when they fit (one more column would have taken the ellipsis), else
     * the head shortened with it */
    int room = w - (int)strlen(part[0]);
    char cut[64];
    snprintf(title, size, "%s%s", widget_fit(head, room > 2 ? room : 2, cut, sizeof cut),
             part[0]);
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
