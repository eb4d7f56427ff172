/* offload: the CPU memory presets and the cache's share on the GPUs. */
#include "offload.h"

#include <stddef.h>
#include <strings.h>

/* Peak bandwidth is channels x 64 bits x the data rate; the rates are
 * JEDEC's (JESD79-4 for DDR4, JESD79-5 for DDR5), the channel counts the
 * platforms' datasheets. A DDR5 DIMM's two 32-bit subchannels count as one
 * 64-bit channel here, as the vendors count them. */
static const struct cpu_preset presets[] = {
    {"ddr4-3200-2ch", "DDR4-3200, dual channel (desktop)", 2, 3200,
     "JEDEC JESD79-4: DDR4-3200; two 64-bit channels, as on AM4 and LGA1200 desktops"},
    {"ddr5-4800-2ch", "DDR5-4800, dual channel (desktop)", 2, 4800,
     "JEDEC JESD79-5: DDR5-4800; two channels, as on AM5 and LGA1700 desktops"},
    {"ddr5-5600-2ch", "DDR5-5600, dual channel (desktop)", 2, 5600,
     "JEDEC JESD79-5: DDR5-5600; two channels (AM5, LGA1700 and LGA1851 desktops)"},
    {"ddr5-6400-2ch", "DDR5-6400, dual channel (desktop)", 2, 6400,
     "JEDEC JESD79-5: DDR5-6400; two channels (LGA1851 desktops' rated speed)"},
    {"ddr4-3200-8ch", "DDR4-3200, 8 channels (server)", 8, 3200,
     "AMD EPYC 7003 (Milan) datasheet: 8 channels of DDR4-3200 a socket"},
    {"ddr5-4800-8ch", "DDR5-4800, 8 channels (server)", 8, 4800,
     "Intel Xeon 4th gen (Sapphire Rapids) product brief: 8 channels of DDR5-4800 a socket"},
    {"ddr5-4800-12ch", "DDR5-4800, 12 channels (server)", 12, 4800,
     "AMD EPYC 9004 (Genoa) datasheet: 12 channels of DDR5-4800 a socket"},
    {"ddr5-6400-12ch", "DDR5-6400, 12 channels (server)", 12, 6400,
     "AMD EPYC 9005 (Turin) datasheet: 12 channels of DDR5-6400 a socket"},
    /* Apple silicon's unified memory: its bus in 64-bit channels at its
     * LPDDR rate, the peak Apple's tech specs give (apple.com; Ars
     * Technica's M4-generation tables give the exact figures) */
    {"apple-m2", "Apple M2, LPDDR5-6400, 128-bit (unified)", 2, 6400,
     "Apple M2 tech specs: 100GB/s (102.4 exactly)"},
    {"apple-m3", "Apple M3, LPDDR5-6400, 128-bit (unified)", 2, 6400,
     "Apple M3 tech specs: 100GB/s (102.4 exactly)"},
    {"apple-m3-pro", "Apple M3 Pro, LPDDR5-6400, 192-bit (unified)", 3, 6400,
     "Apple M3 Pro tech specs: 150GB/s (153.6 exactly)"},
    {"apple-m3-max", "Apple M3 Max, LPDDR5-6400, 512-bit (unified)", 8, 6400,
     "Apple M3 Max (16-core CPU) tech specs: 400GB/s (409.6 exactly)"},
    {"apple-m4", "Apple M4, LPDDR5X-7500, 128-bit (unified)", 2, 7500,
     "Apple M4 tech specs: 120GB/s"},
    {"apple-m4-pro", "Apple M4 Pro, LPDDR5X-8533, 256-bit (unified)", 4, 8533,
     "Apple M4 Pro tech specs: 273GB/s"},
    {"apple-m4-max", "Apple M4 Max, LPDDR5X-8533, 512-bit (unified)", 8, 8533,
     "Apple M4 Max (16-core CPU) tech specs: 546GB/s"},
    {"apple-m2-ultra", "Apple M2 Ultra, LPDDR5-6400, 1024-bit (unified)", 16, 6400,
     "Apple M2 Ultra tech specs: 800GB/s (819.2 exactly)"},
    {"apple-m3-ultra", "Apple M3 Ultra, LPDDR5-6400, 1024-bit (unified)", 16, 6400,
     "Apple M3 Ultra tech specs: 819GB/s"},
};
enum { PRESET_COUNT = sizeof presets / sizeof presets[0], PRESET_DEFAULT = 1 };

const struct cpu_preset *offload_cpu_presets(int *count)
{
    *count = PRESET_COUNT;
    return presets;
}

const struct cpu_preset *offload_cpu_find(const char *id)
{
    for (int i = 0; id && i < PRESET_COUNT; i++)
        if (strcasecmp(id, presets[i].id) == 0)
            return &presets[i];
    return NULL;
}

const struct cpu_preset *offload_cpu_default(void)
{
    return &presets[PRESET_DEFAULT];
}

double offload_cpu_bandwidth(const struct cpu_preset *p)
{
    return (double)p->channels * 8.0 * (double)p->mt_per_s * 1e6;
}

double offload_kv_gpu_share(const struct offload_split *o)
{
    if (!o->active)
        return 1.0;
    if (o->kv_on_host || o->n_layer == 0)
        return 0.0;
    return (double)o->gpu_layers / (double)o->n_layer;
}

double offload_host_mbu(const struct offload_split *o, double gpu_mbu)
{
    return o->unified && gpu_mbu > 0 && gpu_mbu < OFFLOAD_HOST_MBU ? gpu_mbu : OFFLOAD_HOST_MBU;
}
