/* scenario_host: the host memory of llama.cpp's CPU layers (see
 * scenario.h). On Apple silicon CPU and GPU share one RAM: macOS keeps its
 * reserve, and what the GPU's part actually allocates (its weights, cache
 * and buffers, within Metal's working set) and the CPU layers share the
 * rest, read over the same memory bus (core/offload_fit.c offload_host_room). */
#include "scenario.h"

uint64_t scenario_host_memory(const struct scenario *s)
{
    uint64_t unified = s->gpu.unified_bytes;
    if (unified == 0)
        return s->offload.host_memory_bytes;
    return unified - scenario_os_reserve(s);
}

uint64_t scenario_os_reserve(const struct scenario *s)
{
    uint64_t unified = s->gpu.unified_bytes;
    return unified ? unified - spec_wired_limit_max(unified) : 0;
}

uint32_t scenario_ubatch(const struct scenario *s)
{
    return s->offload.ubatch ? s->offload.ubatch : OFFLOAD_UBATCH;
}

double scenario_host_bandwidth(const struct scenario *s)
{
    if (s->offload.host_bytes_per_s > 0)
        return s->offload.host_bytes_per_s;
    if (s->gpu.unified_bytes && s->gpu.bandwidth_bytes_per_s > 0)
        return (double)s->gpu.bandwidth_bytes_per_s;
    return offload_cpu_bandwidth(offload_cpu_default());
}
