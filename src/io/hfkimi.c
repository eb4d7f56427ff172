#include "hfkimi.h"

#include <string.h>

/* How many entries a 1-based layer list holds, each marked in seen (a layer
 * in both lists, or out of range, is refused). */
static bool layer_list(const struct jsonread *r, const cJSON *c, const char *key, uint64_t layers,
                       unsigned char *seen, uint64_t *count, struct diag *d)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!cJSON_IsArray(list))
        return jsonread_fail(r, d, "%s%s: missing (a list of 1-based layer numbers)", r->prefix,
                             key);
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        double v = cJSON_IsNumber(e) ? e->valuedouble : 0;
        if (v < 1 || v > (double)layers || v != (double)(uint64_t)v)
            return jsonread_fail(r, d, "%s%s: entry %g is not a layer of 1 to %llu", r->prefix,
                                 key, v, (unsigned long long)layers);
        uint64_t i = (uint64_t)v - 1;
        unsigned char bit = (unsigned char)(1u << (i % 8));
        if (seen[i / 8] & bit)
            return jsonread_fail(r, d, "%s%s: layer %llu is named twice", r->prefix, key,
                                 (unsigned long long)i + 1);
        seen[i / 8] |= bit;
        (*count)++;
    }
    return true;
}

/* What Kimi K3 (kimi_k3, its text model kimi_linear) adds, as its checkpoint
 * stores it (moonshotai/Kimi-K3 model.safetensors): routed experts in a
 * latent of routed_expert_hidden_size (block_sparse_moe.routed_expert_down_proj,
 * _up_proj, _norm); attention residuals with attn_res_block_size (a norm and a
 * 1 x hidden projection before each sublayer and the output); the gated MLA,
 * mla_use_output_gate (self_attn.g_proj), which takes a query low rank. */
static bool k3_fields(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                      struct diag *d)
{
    uint64_t block = 0;
    if (!jsonread_u64(r, o, "routed_expert_hidden_size", false, 1, 100000, &a->latent_hidden,
                      d) ||
        !jsonread_u64(r, o, "attn_res_block_size", false, 1, 100000, &block, d) ||
        !jsonread_bool(r, o, "mla_use_output_gate", false, &a->mla_gate, d))
        return false;
    a->attn_res = block > 0;
    if (a->latent_hidden && a->experts == 0)
        return jsonread_fail(r, d, "routed_expert_hidden_size: a latent for experts, and "
                                   "num_experts names none");
    if (a->q_lora_rank && !a->mla_gate)
        return jsonread_fail(r, d, "q_lora_rank: Kimi-Linear's MLA projects queries directly "
                                   "(vLLM KimiMLAAttention takes none; Kimi K3's gated MLA, "
                                   "mla_use_output_gate, does)");
    return true;
}

bool hf_kimi_linear(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                    struct diag *d)
{
    if (!k3_fields(r, o, a, d))
        return false;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "linear_attn_config");
    if (!cJSON_IsObject(c))
        return jsonread_fail(r, d, "linear_attn_config: missing (Kimi-Linear's KDA layers)");
    struct jsonread cr = jsonread_child(r, "linear_attn_config", "linear_attn_config.");
    unsigned char seen[100000 / 8 + 1]; /* a bit a layer (read_dims holds them to 100,000) */
    memset(seen, 0, sizeof seen);
    if (a->layers > 100000)
        return jsonread_fail(r, d, "num_hidden_layers: too many for Kimi-Linear's layer lists");
    if (!layer_list(&cr, c, "kda_layers", a->layers, seen, &a->state_layers, d) ||
        !layer_list(&cr, c, "full_attn_layers", a->layers, seen, &a->attention_layers, d))
        return false;
    if (a->state_layers + a->attention_layers != a->layers)
        return jsonread_fail(&cr, d, "linear_attn_config.full_attn_layers: %llu and %llu "
                                     "kda_layers for num_hidden_layers %llu",
                             (unsigned long long)a->attention_layers,
                             (unsigned long long)a->state_layers, (unsigned long long)a->layers);
    if (a->attention_layers == 0)
        return jsonread_fail(&cr, d, "linear_attn_config.full_attn_layers: no attention layer "
                                     "(kvplan counts hybrids of attention and state layers)");
    if (!jsonread_u64(&cr, c, "num_heads", true, 1, 100000, &a->state_heads, d) ||
        !jsonread_u64(&cr, c, "head_dim", true, 1, 100000, &a->state_head_dim, d) ||
        !jsonread_u64(&cr, c, "short_conv_kernel_size", true, 2, 1024, &a->conv_kernel, d) ||
        !jsonread_bool(&cr, c, "use_full_rank_gate", false, &a->kda_full_gate, d))
        return false;
    a->state_groups = a->state_heads; /* a key head for each value head */
    a->state_size = a->state_head_dim;
    a->conv_bias = false;
    a->score_bias = true; /* KimiMoE's gate carries e_score_correction_bias */
    if (a->max_positions == 0 &&
        !jsonread_u64(r, o, "model_max_length", false, 1, (uint64_t)1 << 40, &a->max_positions, d))
        return false;
    return true;
}
