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

/* What Kimi K3 adds over the released Kimi-Linear: refused by name. */
static bool k3_fields(const struct jsonread *r, const cJSON *o, struct diag *d)
{
    static const char *extras[] = {"routed_expert_hidden_size", "attn_res_block_size", 0};
    for (int i = 0; extras[i]; i++)
        if (jsonread_has(o, extras[i]))
            return jsonread_fail(r, d, "%s: Kimi K3's layers are not ones kvplan counts",
                                 extras[i]);
    bool gate = false;
    if (!jsonread_bool(r, o, "mla_use_output_gate", false, &gate, d))
        return false;
    if (gate)
        return jsonread_fail(r, d, "mla_use_output_gate: Kimi K3's gated MLA is not one kvplan "
                                   "counts");
    return true;
}

bool hf_kimi_linear(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                    struct diag *d)
{
    if (!k3_fields(r, o, d))
        return false;
    if (a->q_lora_rank)
        return jsonread_fail(r, d, "q_lora_rank: Kimi-Linear's MLA projects queries directly "
                                   "(vLLM KimiMLAAttention takes none)");
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
        !jsonread_u64(&cr, c, "short_conv_kernel_size", true, 2, 1024, &a->conv_kernel, d))
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
