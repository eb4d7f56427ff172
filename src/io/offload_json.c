/* offload_json: llama.cpp's placement in JSON (see offload_json.h). */
#include "io/offload_json.h"
#include "io/jsonout.h"

#include <stdio.h>
#include <string.h>

cJSON *offload_opts_json(const struct offload_opts *o)
{
    bool memory = o->host_memory_bytes && !o->host_memory_read;
    if (!o->ngl_given && !o->n_cpu_moe_given && !o->no_kv_offload && !memory &&
        o->host_bytes_per_s <= 0 && !o->ubatch)
        return NULL;
    struct jsonout j = jsonout_begin();
    if (o->ngl_given)
        jsonout_uint(&j, "n_gpu_layers", o->ngl);
    if (o->n_cpu_moe_given)
        jsonout_uint(&j, "n_cpu_moe", o->n_cpu_moe);
    if (o->no_kv_offload)
        jsonout_bool(&j, "no_kv_offload", true);
    if (o->ubatch)
        jsonout_uint(&j, "ubatch", o->ubatch);
    if (memory)
        jsonout_uint(&j, "host_memory_bytes", o->host_memory_bytes);
    if (o->cpu[0])
        jsonout_string(&j, "cpu", o->cpu);
    else if (o->host_bytes_per_s > 0)
        jsonout_double(&j, "host_bandwidth_bytes_per_s", o->host_bytes_per_s);
    return jsonout_end(&j);
}

bool offload_opts_from_json(const struct jsonread *r, const cJSON *scenario,
                            struct offload_opts *o, struct diag *d)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(scenario, "offload");
    if (j == NULL || cJSON_IsNull(j))
        return true;
    if (!cJSON_IsObject(j))
        return jsonread_fail(r, d, "offload: expected an object or null");
    struct jsonread c = jsonread_child(r, "offload", "offload.");
    char cpu[sizeof o->cpu] = "";
    o->ngl_given = jsonread_has(j, "n_gpu_layers");
    o->n_cpu_moe_given = jsonread_has(j, "n_cpu_moe");
    if (!jsonread_u32(&c, j, "n_gpu_layers", false, 0, 65536, &o->ngl, d) ||
        !jsonread_u32(&c, j, "n_cpu_moe", false, 0, 65536, &o->n_cpu_moe, d) ||
        !jsonread_bool(&c, j, "no_kv_offload", false, &o->no_kv_offload, d) ||
        !jsonread_u32(&c, j, "ubatch", false, 1, 65536, &o->ubatch, d) ||
        !jsonread_u64(&c, j, "host_memory_bytes", false, 1, (uint64_t)1 << 50,
                      &o->host_memory_bytes, d) ||
        !jsonread_string(&c, j, "cpu", false, cpu, sizeof cpu, d) ||
        !jsonread_double(&c, j, "host_bandwidth_bytes_per_s", false, 1e8, 1e14,
                         &o->host_bytes_per_s, d))
        return false;
    if (cpu[0]) {
        const struct cpu_preset *p = offload_cpu_find(cpu);
        if (p == NULL)
            return jsonread_fail(&c, d, "cpu: '%s' is not a CPU memory preset", cpu);
        snprintf(o->cpu, sizeof o->cpu, "%s", p->id);
        o->host_bytes_per_s = offload_cpu_bandwidth(p);
    }
    return true;
}

cJSON *offload_split_json(const struct offload_split *o)
{
    if (!o->placed)
        return NULL;
    struct jsonout j = jsonout_begin();
    jsonout_uint(&j, "n_gpu_layers", o->ngl);
    jsonout_uint(&j, "layers", o->n_layer);
    jsonout_uint(&j, "gpu_layers", o->gpu_layers);
    jsonout_uint(&j, "cpu_layers", o->n_layer - o->gpu_layers);
    jsonout_bool(&j, "output_on_gpu", o->output_on_gpu);
    jsonout_uint(&j, "n_cpu_moe", o->n_cpu_moe);
    jsonout_uint(&j, "moe_host_layers", o->moe_host_layers);
    jsonout_bool(&j, "no_kv_offload", o->kv_on_host);
    jsonout_bool(&j, "searched", o->searched);
    jsonout_uint(&j, "gpu_weights_bytes_per_gpu", o->gpu_weights_bytes);
    jsonout_uint(&j, "gpu_kv_bytes_per_gpu", o->gpu_kv_bytes);
    jsonout_uint(&j, "host_weights_bytes", o->host_weights_bytes);
    jsonout_uint(&j, "host_expert_bytes", o->host_expert_bytes);
    jsonout_uint(&j, "host_kv_bytes", o->host_kv_bytes);
    jsonout_uint(&j, "host_bytes", o->host_bytes);
    if (o->node_servers > 1) { /* one host a node: its servers' host bytes together */
        jsonout_uint(&j, "servers_on_node", o->node_servers);
        jsonout_uint(&j, "node_host_bytes", o->node_host_bytes);
    }
    if (o->host_memory_known)
        jsonout_uint(&j, "host_memory_bytes", o->host_memory_bytes);
    else
        jsonout_null(&j, "host_memory_bytes");
    if (o->unified_pool_bytes) /* what macOS keeps of the one RAM (core/scenario.h) */
        jsonout_uint(&j, "os_reserve_bytes", o->os_reserve_bytes);
    jsonout_bool(&j, "host_fits", o->host_fits);
    jsonout_double(&j, "host_bandwidth_bytes_per_s", o->host_bytes_per_s);
    return jsonout_end(&j);
}
