/* Gemma 4's parameters (vLLM model_executor/models/gemma4.py, Gemma4DecoderLayer
 * and Gemma4Attention): per layer q, k, v and o projections without biases
 * (a global layer's of its own heads and head_dim, and no v_proj when the key
 * is the value), q and k norms of the head dim (the v norm has no weight), a
 * gated MLP, four norms and the layer scalar; with the MoE block beside the
 * MLP, the router's scale and projection, a scale per expert, the experts'
 * gate_up and down, and three more norms; tied embeddings and the final norm.
 * The vision tower is counted apart (not here). */
#include "params.h"

__extension__ typedef unsigned __int128 wide;

static wide attention(wide h, wide heads, wide kv, wide dim, bool k_eq_v)
{
    wide q = heads * dim, k = kv * dim;
    return h * q + h * k + (k_eq_v ? 0 : h * k) + q * h + 2 * dim;
}

bool params_gemma4(const struct arch_dims *a, bool active_only, uint64_t *out)
{
    wide h = a->hidden, L = a->layers, G = a->global_layers;
    if (G > L)
        return false;
    uint64_t gkv = a->global_kv_heads ? a->global_kv_heads : a->kv_heads;
    uint64_t gdim = a->global_head_dim ? a->global_head_dim : a->head_dim;
    wide total = (wide)a->vocab * h * (a->tied ? 1u : 2u) + h;
    total += (L - G) * attention(h, a->heads, a->kv_heads, a->head_dim, false);
    total += G * attention(h, a->heads, gkv, gdim, a->k_eq_v);
    total += L * (3 * h * a->intermediate + 4 * h + 1);
    if (a->experts) {
        wide k = active_only ? a->experts_per_token : a->experts;
        total += L * (h + h * a->experts + a->experts + k * 3 * h * a->moe_intermediate + 3 * h);
    }
    if (total > UINT64_MAX)
        return false;
    *out = (uint64_t)total;
    return true;
}
