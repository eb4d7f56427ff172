/* scenario_host: the host memory of llama.cpp's CPU layers (see
 * scenario.h). On Apple silicon CPU and GPU share one RAM: Metal's working
 * set is the GPU's part, macOS keeps its own, and the CPU layers have the
 * rest, read over the same memory bus. */
#include "scenario.h"

uint64_t scenario_host_memory(const struct scenario *s)
{
    uint64_t unified = s->gpu.unified_bytes;
    if (unified == 0)
        return s->offload.host_memory_bytes;
    uint64_t gpu = scenario_gpu_memory(s), most = spec_wired_limit_max(unified);
    return gpu < most ? most - gpu : 0;
}

double scenario_host_bandwidth(const struct scenario *s)
{
    if (s->offload.host_bytes_per_s > 0)
        return s->offload.host_bytes_per_s;
    if (s->gpu.unified_bytes && s->gpu.bandwidth_bytes_per_s > 0)
        return (double)s->gpu.bandwidth_bytes_per_s;
    return offload_cpu_bandwidth(offload_cpu_default());
}
