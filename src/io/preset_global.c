#include "preset_global.h"

bool preset_read_global(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                        struct diag *d)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "global_attention");
    if (g == NULL || cJSON_IsNull(g))
        return true;
    if (!cJSON_IsObject(g))
        return jsonread_fail(r, d, "global_attention: expected an object or null");
    struct jsonread c = jsonread_child(r, "global_attention", "global_attention.");
    return jsonread_u32(&c, g, "kv_heads", true, 1, 100000, &m->global_kv_heads, d) &&
           jsonread_u32(&c, g, "head_dim", true, 1, 100000, &m->global_head_dim, d) &&
           jsonread_bool(&c, g, "k_eq_v", false, &m->global_k_eq_v, d);
}

void preset_write_global(struct jsonout *o, const struct model_spec *m)
{
    if (m->global_kv_heads == 0 && m->global_head_dim == 0 && !m->global_k_eq_v)
        return;
    struct jsonout g = jsonout_begin();
    jsonout_uint(&g, "kv_heads", m->global_kv_heads ? m->global_kv_heads : m->kv_heads);
    jsonout_uint(&g, "head_dim", m->global_head_dim ? m->global_head_dim : m->head_dim);
    jsonout_bool(&g, "k_eq_v", m->global_k_eq_v);
    jsonout_object(o, "global_attention", jsonout_end(&g));
}
