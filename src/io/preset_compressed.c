#include "preset_compressed.h"

#include "core/units.h"

bool preset_read_compressed(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                            struct diag *d)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "compressed_attention");
    if (g == NULL || cJSON_IsNull(g))
        return true;
    if (!cJSON_IsObject(g))
        return jsonread_fail(r, d, "compressed_attention: expected an object or null");
    struct jsonread c = jsonread_child(r, "compressed_attention", "compressed_attention.");
    return jsonread_u32(&c, g, "csa_layers", true, 0, 100000, &m->csa_layers, d) &&
           jsonread_u32(&c, g, "csa_ratio", m->csa_layers > 0, 0, 65536, &m->csa_ratio, d) &&
           jsonread_u32(&c, g, "hca_layers", true, 0, 100000, &m->hca_layers, d) &&
           jsonread_u32(&c, g, "hca_ratio", m->hca_layers > 0, 0, 65536, &m->hca_ratio, d) &&
           jsonread_u32(&c, g, "qk_rope_head_dim", true, 0, 100000, &m->qk_rope_head_dim, d) &&
           jsonread_u32(&c, g, "index_head_dim", m->csa_layers > 0, 0, 100000,
                        &m->csa_index_dim, d) &&
           jsonread_u32(&c, g, "index_n_heads", false, 0, 100000, &m->csa_index_heads, d) &&
           jsonread_u64(&c, g, "index_topk", false, 0, TOKENS_MAX, &m->csa_index_topk, d);
}

void preset_write_compressed(struct jsonout *o, const struct model_spec *m)
{
    if (m->csa_layers == 0 && m->hca_layers == 0)
        return;
    struct jsonout g = jsonout_begin();
    jsonout_uint(&g, "csa_layers", m->csa_layers);
    jsonout_uint(&g, "csa_ratio", m->csa_ratio);
    jsonout_uint(&g, "hca_layers", m->hca_layers);
    jsonout_uint(&g, "hca_ratio", m->hca_ratio);
    jsonout_uint(&g, "qk_rope_head_dim", m->qk_rope_head_dim);
    jsonout_uint(&g, "index_head_dim", m->csa_index_dim);
    jsonout_uint(&g, "index_n_heads", m->csa_index_heads);
    jsonout_uint(&g, "index_topk", m->csa_index_topk);
    jsonout_object(o, "compressed_attention", jsonout_end(&g));
}
