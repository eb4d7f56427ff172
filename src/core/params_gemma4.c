/* Gemma 4's parameters (vLLM model_executor/models/gemma4.py, Gemma4DecoderLayer
 * and Gemma4Attention): per layer q, k, v and o projections without biases
 * (a global layer's of its own heads and head_dim, and no v_proj when the key
 * is the value), q and k norms of the head dim (the v norm has no weight), a
 * gated MLP, four norms and the layer scalar; with the MoE block beside the
 * MLP, the router's scale and projection, a scale per expert, the experts'
 * gate_up and down, and three more norms; tied embeddings and the final norm.
 * The vision tower is counted apart (params_gemma4_vision). */
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

/* Gemma 4's vision tower (transformers' Gemma4VisionModel, as the published
 * checkpoints store it: model.vision_tower.* and model.embed_vision.*): the
 * patch embedder's input_proj (3 x patch^2 to hidden, no bias) and its
 * position table (2 axes x position_embedding_size x hidden); per layer q, k,
 * v and o without biases of its own heads, q and k norms of the head dim (the
 * v norm has no weight), a gated MLP and four norms, and with
 * use_clipped_linears the four clip bounds of each of its seven linears;
 * std_bias and std_scale with standardize; the pooler has none; then
 * embed_vision's projection to the text hidden size (its norm has no weight). */
uint64_t params_gemma4_vision(const struct vision_dims *v)
{
    uint64_t h = v->hidden, q = v->heads * v->head_dim, kv = v->kv_heads * v->head_dim;
    uint64_t layer = h * q + 2 * h * kv + q * h + 2 * v->head_dim + 3 * h * v->intermediate +
                     4 * h + (v->clipped ? 7 * 4 : 0);
    return v->channels * v->patch * v->patch * h + 2 * v->positions * h + v->layers * layer +
           (v->standardize ? 2 * h : 0) + h * v->text_hidden;
}
