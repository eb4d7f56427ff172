/* kvcost_global: the global layers of Gemma 4, which keep KV heads and a
 * head dim of their own beside the windowed layers, and whose keys are their
 * values (attention_k_eq_v): the model needs one row a head for both, where
 * a layer of K and V needs two. */
#include "kvcost.h"

bool spec_global_validate(const struct model_spec *m, struct diag *d)
{
    if (m->global_kv_heads == 0 && m->global_head_dim == 0 && !m->global_k_eq_v)
        return true;
    if (m->attention == ATTENTION_MLA)
        return diag_fail(d, "global_attention: an MLA model keeps one latent in every layer");
    if (m->windowed_layers == 0 || m->windowed_layers >= m->layers)
        return diag_fail(d, "global_attention: needs windowed layers beside the global ones "
                            "(sliding_window.windowed_layers below num_layers)");
    uint32_t heads = m->global_kv_heads ? m->global_kv_heads : m->kv_heads;
    if (heads > m->attention_heads || m->attention_heads % heads != 0)
        return diag_fail(d, "global_attention.kv_heads: %u does not divide num_attention_heads %u",
                         heads, m->attention_heads);
    if (m->global_head_dim > 100000)
        return diag_fail(d, "global_attention.head_dim: %u is impossible (expected 1 to 100000)",
                         m->global_head_dim);
    return true;
}

bool kvcost_has_global_dims(const struct model_spec *m)
{
    return m->attention != ATTENTION_MLA && (m->global_kv_heads || m->global_head_dim ||
                                             m->global_k_eq_v);
}

void kvcost_global_layers(const struct scenario *s, struct kv_cost *c)
{
    const struct model_spec *m = &s->model;
    c->global_bytes_per_layer = c->bytes_per_layer;
    c->global_values_per_layer = c->values_per_layer;
    c->wide_layers = 0;
    /* none of the model's global layers here (a pipeline stage of windowed ones) */
    if (!kvcost_has_global_dims(m) || m->windowed_layers >= m->layers)
        return;
    uint32_t heads = m->global_kv_heads ? m->global_kv_heads : m->kv_heads;
    uint64_t per_gpu = kv_ceil_div(heads, c->tp);
    c->global_kv_heads_per_gpu = (uint32_t)(per_gpu < 1 ? 1 : per_gpu);
    c->global_head_dim = m->global_head_dim ? m->global_head_dim : m->head_dim;
    c->k_eq_v = m->global_k_eq_v;
    c->global_rows = c->k_eq_v ? 1 : 2;
    uint64_t row = (uint64_t)c->global_kv_heads_per_gpu * c->global_head_dim;
    c->global_values_per_layer = c->global_rows * row;
    c->global_bytes_per_layer = c->global_rows * dtype_bytes_for(c->kv_dtype, row);
    c->wide_layers = m->layers - m->windowed_layers; /* the model's global layers */
}

void kvcost_global_rows(struct kv_cost *c, uint32_t rows)
{
    if (c->wide_layers == 0 || rows == c->global_rows)
        return;
    c->global_bytes_per_layer = c->global_bytes_per_layer / c->global_rows * rows;
    c->global_values_per_layer = c->global_values_per_layer / c->global_rows * rows;
    c->global_rows = rows;
    kvcost_totals(c);
}
