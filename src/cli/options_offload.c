/* options_offload: llama.cpp's placement options (--n-gpu-layers,
 * --n-cpu-moe, --no-kv-offload, as common/arg.cpp spells and means them)
 * and the host's memory (--host-memory, --host-bandwidth, --cpu). */
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/offload.h"
#include "core/optname.h"
#include "io/hostmem.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* -ngl N: 0 to 65,536 layers, or all (999, as llama.cpp's docs write it) */
bool opt_ngl(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    uint64_t n = OFFLOAD_NGL_ALL;
    if (strcasecmp(arg, "all") != 0 && !options_parse_count(row->flag, arg, 0, 65536, &n, d))
        return false;
    o->offload.ngl_given = true;
    o->offload.ngl = (uint32_t)n;
    return true;
}

bool opt_n_cpu_moe(const struct option_row *row, const char *arg, struct options *o,
                   struct diag *d)
{
    uint64_t n = 0;
    if (!options_parse_count(row->flag, arg, 0, 65536, &n, d))
        return false;
    o->offload.n_cpu_moe_given = true;
    o->offload.n_cpu_moe = (uint32_t)n;
    return true;
}

/* -ub N: 1 to 65,536 tokens a micro-batch (common/arg.cpp --ubatch-size) */
bool opt_ubatch(const struct option_row *row, const char *arg, struct options *o,
                struct diag *d)
{
    uint64_t n = 0;
    if (!options_parse_count(row->flag, arg, 1, 65536, &n, d))
        return false;
    o->offload.ubatch = (uint32_t)n;
    return true;
}

/* SIZE, auto (this machine's) or 0 (unknown) */
bool opt_host_memory(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    struct diag in = {0};
    o->offload.host_memory_bytes = 0;
    o->offload.host_memory_read = false;
    if (strcasecmp(arg, "auto") == 0) {
        o->offload.host_memory_read = hostmem_read(&o->offload.host_memory_bytes);
        return true;
    }
    if (strcmp(arg, "0") == 0)
        return true;
    if (!units_parse_size(arg, &o->offload.host_memory_bytes, &in))
        return diag_fail(d, "%s: %s", row->flag, in.message);
    if (o->offload.host_memory_bytes > ((uint64_t)1 << 50))
        return diag_fail(d, "%s: '%s' is more than 1 PiB", row->flag, arg);
    return true;
}

bool opt_host_bandwidth(const struct option_row *row, const char *arg, struct options *o,
                        struct diag *d)
{
    struct diag in = {0};
    double gbs = 0;
    if (!units_parse_number(arg, 0.1, 100000, &gbs, &in))
        return diag_fail(d, "%s: %s (GB/s)", row->flag, in.message);
    o->offload.host_bytes_per_s = gbs * 1e9;
    return true;
}

bool opt_cpu(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    const struct cpu_preset *p = offload_cpu_find(arg);
    if (p == NULL) {
        int n = 0;
        const struct cpu_preset *all = offload_cpu_presets(&n);
        char list[512] = "";
        size_t len = 0;
        for (int i = 0; i < n && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", all[i].id);
        return diag_fail(d, "%s: '%s' is not a CPU memory preset (%s)", row->flag, arg, list);
    }
    snprintf(o->offload.cpu, sizeof o->offload.cpu, "%s", p->id);
    return true;
}

/* On unified memory the CPU layers have what the wired limit leaves of the
 * Mac's RAM (core/scenario.h scenario_host_memory): no RAM of this machine
 * read, and a size given is refused (the wired limit is the lever). */
static bool unified_host(const struct options *o, struct scenario *s, struct diag *d)
{
    const struct offload_opts *g = &o->offload;
    if (o->given[OPT_HOST_MEMORY] && g->host_memory_bytes && !g->host_memory_read)
        return diag_fail(d, "%s: %s has unified memory: its CPU layers take what the wired limit "
                         "leaves of it (set %s instead)",
                         OPTION_FLAG(OPT_HOST_MEMORY), s->gpu.id, OPTION_FLAG(OPT_WIRED_LIMIT));
    s->offload.host_memory_bytes = 0;
    s->offload.host_memory_read = false;
    return true;
}

bool options_offload_apply(const struct options *o, struct scenario *s, struct diag *d)
{
    struct offload_opts *p = &s->offload;
    const struct offload_opts *g = &o->offload;
    if (o->given[OPT_HOST_BANDWIDTH] && o->given[OPT_CPU])
        return diag_fail(d, "%s: give it or %s, not both", OPTION_FLAG(OPT_HOST_BANDWIDTH),
                         OPTION_FLAG(OPT_CPU));
    if (o->given[OPT_N_GPU_LAYERS]) {
        p->ngl_given = true;
        p->ngl = g->ngl;
    }
    if (o->given[OPT_N_CPU_MOE]) {
        p->n_cpu_moe_given = true;
        p->n_cpu_moe = g->n_cpu_moe;
    }
    if (o->given[OPT_NO_KV_OFFLOAD])
        p->no_kv_offload = true;
    if (o->given[OPT_UBATCH])
        p->ubatch = g->ubatch;
    if (o->given[OPT_CPU]) {
        snprintf(p->cpu, sizeof p->cpu, "%s", g->cpu);
        p->host_bytes_per_s = offload_cpu_bandwidth(offload_cpu_find(g->cpu));
    } else if (o->given[OPT_HOST_BANDWIDTH]) {
        p->cpu[0] = '\0';
        p->host_bytes_per_s = g->host_bytes_per_s;
    }
    if (s->gpu.unified_bytes) /* Apple silicon: the Mac's RAM, not this machine's */
        return unified_host(o, s, d);
    if (o->given[OPT_HOST_MEMORY]) {
        p->host_memory_bytes = g->host_memory_bytes;
        p->host_memory_read = g->host_memory_read;
    } else if (p->host_memory_bytes == 0 || p->host_memory_read) {
        p->host_memory_bytes = 0;
        p->host_memory_read = hostmem_read(&p->host_memory_bytes);
    }
    return true;
}

void options_offload_spellings(int argc, char **argv)
{
    static const char *const spell[][2] = {{"-ngl", OPTNAME_N_GPU_LAYERS},
                                           {"-ncmoe", OPTNAME_N_CPU_MOE},
                                           {"-nkvo", OPTNAME_NO_KV_OFFLOAD},
                                           {"-ub", OPTNAME_UBATCH},
                                           {"--ubatch-size", OPTNAME_UBATCH}};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return;
        for (size_t k = 0; k < sizeof spell / sizeof spell[0]; k++)
            if (strcmp(argv[i], spell[k][0]) == 0)
                argv[i] = (char *)spell[k][1];
    }
}
