#include "kvcost.h"

#include <string.h>

void kvcost_state_dtypes(struct kv_cost *c, enum dtype conv, enum dtype ssm)
{
    c->state_conv_dtype = conv;
    c->state_ssm_dtype = ssm;
    c->state_bytes_per_layer = kv_sat_add(dtype_bytes_for(conv, c->state_conv_values),
                                          dtype_bytes_for(ssm, c->state_ssm_values));
    c->state_bytes = kv_sat_mul(c->state_bytes_per_layer, c->state_layers);
}

void kvcost_add_draft(struct kv_cost *c, uint64_t draft_bytes_per_token)
{
    c->draft_bytes_per_token = draft_bytes_per_token;
    c->bytes_per_token = kv_sat_add(c->bytes_per_token, draft_bytes_per_token);
    c->bytes_per_token_global = kv_sat_add(c->bytes_per_token_global, draft_bytes_per_token);
}

/* The state of one state layer on one GPU, in the model's compute precision
 * (the conv state) and the recurrent state's (vLLM's "auto" rule). */
static void state_compute(const struct model_spec *m, struct kv_cost *c)
{
    if (m->state_layers == 0)
        return;
    uint32_t tp = c->tp;
    c->state_layers = m->state_layers;
    uint64_t heads = kv_ceil_div(m->state_heads, tp);
    c->state_heads_per_gpu = (uint32_t)(heads < 1 ? 1 : heads);
    c->state_groups_per_gpu = m->state_groups == 0          ? 0
                              : m->state_groups % tp == 0 ? m->state_groups / tp
                                                          : 1;
    uint64_t x = (uint64_t)c->state_heads_per_gpu * m->state_head_dim;
    uint64_t channels = x + 2ull * c->state_groups_per_gpu * m->state_size;
    c->state_conv_values = (uint64_t)(m->state_conv_kernel - 1) * channels;
    c->state_ssm_values = x * m->state_size;
    enum dtype model = m->weight_dtype == DTYPE_FP16 || m->weight_dtype == DTYPE_FP32
                           ? m->weight_dtype
                           : DTYPE_BF16;
    kvcost_state_dtypes(c, model, m->state_dtype != DTYPE_AUTO ? m->state_dtype : model);
}

bool kvcost_compute(const struct scenario *s, uint32_t tp, struct kv_cost *c)
{
    const struct model_spec *m = &s->model;
    memset(c, 0, sizeof *c);
    c->kv_dtype = scenario_kv_dtype(s);
    c->tp = tp ? tp : 1;
    if (m->attention == ATTENTION_MLA) {
        c->mla = true;
        c->values_per_layer = (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim;
        c->index_bytes = kvcost_index_bytes(m);
        c->latent_fp8_blocks = c->index_bytes && c->kv_dtype == DTYPE_FP8;
        c->latent_bytes = c->latent_fp8_blocks
                              ? (uint64_t)m->kv_lora_rank + m->kv_lora_rank / 128 * 4 +
                                    2ull * m->qk_rope_head_dim
                              : dtype_bytes_for(c->kv_dtype, c->values_per_layer);
        c->bytes_per_layer = c->latent_bytes + c->index_bytes;
    } else {
        c->kv_heads = s->kv_heads ? s->kv_heads : m->kv_heads;
        /* ceil: the most loaded GPU decides; max(1, ...): heads replicate. */
        uint64_t per_gpu = kv_ceil_div(c->kv_heads, c->tp);
        c->kv_heads_per_gpu = (uint32_t)(per_gpu < 1 ? 1 : per_gpu);
        uint64_t row = (uint64_t)c->kv_heads_per_gpu * m->head_dim;
        c->values_per_layer = 2 * row;
        c->bytes_per_layer = 2 * dtype_bytes_for(c->kv_dtype, row);
    }
    bool windows = m->windowed_layers > 0 && !s->full_attention;
    c->layers = spec_kv_layers(m);
    c->windowed_layers = windows ? m->windowed_layers : 0;
    c->global_layers = c->layers - c->windowed_layers;
    c->window_tokens = windows ? m->window_tokens : 0;
    kvcost_compressed_layers(s, c); /* DeepSeek V4: the row, before any layer copies it */
    kvcost_global_layers(s, c);
    kvcost_totals(c);
    state_compute(m, c);
    return c->bytes_per_token != UINT64_MAX && c->state_bytes != UINT64_MAX;
}

void kvcost_totals(struct kv_cost *c)
{
    /* the wide layers are global ones; under --full-attention the windowed
     * layers join them at their own size */
    uint32_t narrow_global = c->global_layers - c->wide_layers;
    c->global_layer_bytes = kv_sat_add(kv_sat_mul(c->global_bytes_per_layer, c->wide_layers),
                                       kv_sat_mul(c->bytes_per_layer, narrow_global));
    uint64_t all = kv_sat_add(kv_sat_mul(c->global_bytes_per_layer, c->wide_layers),
                              kv_sat_mul(c->bytes_per_layer, c->layers - c->wide_layers));
    c->bytes_per_token = kv_sat_add(all, c->draft_bytes_per_token);
    c->bytes_per_token_global = kv_sat_add(c->global_layer_bytes, c->draft_bytes_per_token);
    if (c->compressed_span) { /* DeepSeek V4: a token past the window adds its compressed rows */
        c->bytes_per_token_global = kv_sat_add(c->bytes_per_token_global,
                                               kvcost_compressed_bytes(c, 1));
        c->bytes_per_token = c->bytes_per_token_global;
    }
}

uint64_t kvcost_index_bytes(const struct model_spec *m)
{
    if (m->attention != ATTENTION_MLA || m->index_head_dim == 0)
        return 0;
    return (uint64_t)m->index_head_dim + m->index_head_dim / 128 * 4;
}

uint64_t kvcost_model_bytes_per_token(const struct model_spec *m)
{
    struct scenario s;
    scenario_default(&s, NULL, m);
    struct kv_cost c;
    kvcost_compute(&s, 1, &c);
    return c.bytes_per_token;
}
