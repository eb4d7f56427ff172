/* kvcost_compressed: DeepSeek V4's compressed attention (core/spec.h). Every
 * layer keeps its last window_tokens tokens uncompressed, one row a token for
 * the key and the value; the CSA layers (compress ratio 4) keep one compressed
 * row per 4 tokens and a lightning-indexer key beside each, the HCA layers
 * (ratio 128) one compressed row per 128 tokens. One KV head: every GPU of a
 * tensor-parallel group holds all of it.
 *
 * A row is head_dim values; in FP8 it is stored as the engines store it: the
 * head_dim - rope non-positional values in FP8, the rope positional ones in
 * bf16, a UE8M0 scale per 64 of the first padded to 8 bytes: 448 + 128 + 8 =
 * 584 B for head_dim 512 (vLLM v1/kv_cache_interface.py MLAAttentionSpec and
 * SlidingWindowMLASpec real_page_size_bytes, model_version "deepseek_v4";
 * models/deepseek_v4 DeepseekV4MultiHeadLatentAttentionWrapper head_bytes).
 * In another precision it is head_dim values of it. The indexer key is
 * index_dim FP8 values and an fp32 scale per 128 of them (132 B), whatever
 * the cache precision, as DeepSeek-V3.2's (DeepseekV4Indexer k_cache_head_dim).
 *
 * The compressor keeps, per sequence, the kv and the score of the tokens not
 * yet compressed in fp32: a CSA layer overlaps two groups (2 x ratio tokens
 * of 2 x head_dim each), its indexer likewise at index_dim, an HCA layer
 * ratio tokens of head_dim (vLLM layers/deepseek_compressor.py
 * DeepseekCompressor: coff = 1 + overlap, CompressorStateCache of state_dim
 * 2 x coff x head_dim, sliding_window coff x ratio). */
#include "kvcost.h"

/* The bytes of one row of head_dim values (the window's and the compressed). */
static uint64_t row_bytes(const struct model_spec *m, enum dtype d)
{
    if (d != DTYPE_FP8 || m->qk_rope_head_dim >= m->head_dim)
        return dtype_bytes_for(d, m->head_dim);
    uint64_t nope = m->head_dim - m->qk_rope_head_dim;
    uint64_t scales = kv_ceil_div(kv_ceil_div(nope, 64), 8) * 8;
    return nope + 2ull * m->qk_rope_head_dim + scales;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

bool kvcost_has_compressed(const struct model_spec *m)
{
    return m->csa_layers > 0 || m->hca_layers > 0;
}

bool spec_compressed_validate(const struct model_spec *m, struct diag *d)
{
    if (!kvcost_has_compressed(m))
        return true;
    if (m->attention == ATTENTION_MLA || m->kv_heads != 1)
        return diag_fail(d, "compressed_attention: needs one KV head (num_kv_heads 1), not MLA");
    if ((uint64_t)m->csa_layers + m->hca_layers > m->layers)
        return diag_fail(d, "compressed_attention: %u CSA and %u HCA layers are more than "
                            "num_layers %u",
                         m->csa_layers, m->hca_layers, m->layers);
    if (m->csa_layers > 0 && (m->csa_ratio < 2 || m->csa_ratio > 65536))
        return diag_fail(d, "compressed_attention.csa_ratio: %u is impossible (expected 2 to "
                            "65536)", m->csa_ratio);
    if (m->hca_layers > 0 && (m->hca_ratio < 2 || m->hca_ratio > 65536))
        return diag_fail(d, "compressed_attention.hca_ratio: %u is impossible (expected 2 to "
                            "65536)", m->hca_ratio);
    if (m->csa_layers > 0 && (m->csa_index_dim == 0 || m->csa_index_dim > 100000))
        return diag_fail(d, "compressed_attention.index_head_dim: the CSA layers' indexer needs "
                            "1 to 100000 dims, not %u", m->csa_index_dim);
    if (m->windowed_layers != m->layers || m->window_tokens == 0)
        return diag_fail(d, "sliding_window: compressed attention keeps a window in every layer "
                            "(windowed_layers %u, num_layers %u)",
                         m->windowed_layers, m->layers);
    if (m->qk_rope_head_dim >= m->head_dim)
        return diag_fail(d, "compressed_attention.qk_rope_head_dim: %u is not below head_dim %u",
                         m->qk_rope_head_dim, m->head_dim);
    if (m->state_layers > 0 || m->plain_layers > 0 || kvcost_has_global_dims(m))
        return diag_fail(d, "compressed_attention: kvcost counts it without state layers or "
                            "global layers of their own");
    return true;
}

uint64_t kvcost_compressed_span(const struct model_spec *m)
{
    if (!kvcost_has_compressed(m))
        return 0;
    uint64_t csa = m->csa_layers ? m->csa_ratio : 0, hca = m->hca_layers ? m->hca_ratio : 0;
    return csa && hca ? csa / gcd(csa, hca) * hca : csa + hca;
}

void kvcost_compressed_layers(const struct scenario *s, struct kv_cost *c)
{
    const struct model_spec *m = &s->model;
    if (!kvcost_has_compressed(m))
        return;
    c->bytes_per_layer = row_bytes(m, c->kv_dtype); /* one row, the key its value */
    c->values_per_layer = m->head_dim;
    c->csa_layers = m->csa_layers;
    c->hca_layers = m->hca_layers;
    c->csa_ratio = m->csa_layers ? m->csa_ratio : 0;
    c->hca_ratio = m->hca_layers ? m->hca_ratio : 0;
    c->csa_index_bytes = m->csa_layers ? (uint64_t)m->csa_index_dim + m->csa_index_dim / 128 * 4
                                       : 0;
    c->csa_row_bytes = m->csa_layers ? c->bytes_per_layer + c->csa_index_bytes : 0;
    c->hca_row_bytes = m->hca_layers ? c->bytes_per_layer : 0;
    uint64_t span = kvcost_compressed_span(m);
    c->compressed_span = span;
    c->compressed_span_bytes = 0;
    if (c->csa_layers)
        c->compressed_span_bytes = kv_sat_mul(kv_sat_mul(c->csa_layers, span / c->csa_ratio),
                                              c->csa_row_bytes);
    if (c->hca_layers)
        c->compressed_span_bytes = kv_sat_add(
            c->compressed_span_bytes,
            kv_sat_mul(kv_sat_mul(c->hca_layers, span / c->hca_ratio), c->hca_row_bytes));
    /* the compressor's state: fp32 kv and score of the tokens not yet compressed */
    c->csa_state_bytes = c->csa_layers ? 2ull * c->csa_ratio * 2 * 2 *
                                             ((uint64_t)m->head_dim + m->csa_index_dim) * 4
                                       : 0;
    c->hca_state_bytes = c->hca_layers ? (uint64_t)c->hca_ratio * 2 * m->head_dim * 4 : 0;
    c->state_bytes = kv_sat_add(kv_sat_mul(c->csa_state_bytes, c->csa_layers),
                                kv_sat_mul(c->hca_state_bytes, c->hca_layers));
}
