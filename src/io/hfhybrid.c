#include "hfhybrid.h"

#include <stdio.h>
#include <string.h>

#include "io/hfkimi.h"

bool hfhybrid_family(enum arch_family f)
{
    return f == ARCH_QWEN3_NEXT || f == ARCH_NEMOTRON_H || f == ARCH_GRANITE_HYBRID ||
           f == ARCH_JAMBA || f == ARCH_FALCON_H1 || f == ARCH_KIMI_LINEAR;
}

static bool need(const struct jsonread *r, const cJSON *o, const char *key, uint64_t max,
                 uint64_t *out, struct diag *d)
{
    return jsonread_u64(r, o, key, true, 1, max, out, d);
}

/* layer_types: how many are `state` and how many `attention`; every entry
 * must be one of the two */
static bool count_types(const struct jsonread *r, const cJSON *types, const char *state,
                        const char *attention, struct arch_dims *a, struct diag *d)
{
    uint64_t n = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, types)
    {
        n++;
        if (cJSON_IsString(t) && strcmp(t->valuestring, state) == 0)
            a->state_layers++;
        else if (cJSON_IsString(t) && strcmp(t->valuestring, attention) == 0)
            a->attention_layers++;
        else
            return jsonread_fail(r, d, "layer_types: entry %llu is not \"%s\" or \"%s\"",
                                 (unsigned long long)n, state, attention);
    }
    if (n != a->layers)
        return jsonread_fail(r, d, "layer_types: %llu entries for num_hidden_layers %llu",
                             (unsigned long long)n, (unsigned long long)a->layers);
    return true;
}

/* Qwen3-Next (transformers' Qwen3NextConfig): layer_types, or a full
 * attention layer every full_attention_interval; the linear_* dimensions of
 * the gated DeltaNet; every layer MoE with a shared expert. */
static bool qwen3_next(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                       struct diag *d)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(o, "layer_types");
    if (cJSON_IsArray(types)) {
        if (!count_types(r, types, "linear_attention", "full_attention", a, d))
            return false;
    } else {
        uint64_t every = 0;
        if (!jsonread_has(o, "full_attention_interval"))
            return jsonread_fail(r, d, "full_attention_interval: missing (and no layer_types)");
        if (!need(r, o, "full_attention_interval", 100000, &every, d))
            return false;
        a->attention_layers = a->layers / every; /* layer i is full iff (i + 1) % N == 0 */
        a->state_layers = a->layers - a->attention_layers;
    }
    a->conv_bias = false; /* every layer MoE: io/hfmoe.c checks decoder_sparse_step */
    return need(r, o, "linear_conv_kernel_dim", 1024, &a->conv_kernel, d) &&
           need(r, o, "linear_num_value_heads", 1000000, &a->state_heads, d) &&
           need(r, o, "linear_value_head_dim", 100000, &a->state_head_dim, d) &&
           need(r, o, "linear_num_key_heads", 100000, &a->state_groups, d) &&
           need(r, o, "linear_key_head_dim", 100000, &a->state_size, d) &&
           jsonread_u64(r, o, "shared_expert_intermediate_size", false, 0, 100000000,
                        &a->shared_intermediate, d);
}

/* Nemotron-H (NemotronHConfig): hybrid_override_pattern, one character a
 * block: 'M' Mamba-2, '*' attention, '-' MLP. */
static bool nemotron_h(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                       struct diag *d)
{
    char pattern[1024] = "";
    if (!jsonread_string(r, o, "hybrid_override_pattern", true, pattern, sizeof pattern, d))
        return false;
    size_t n = strlen(pattern);
    for (size_t i = 0; i < n; i++) {
        if (pattern[i] == 'M')
            a->state_layers++;
        else if (pattern[i] == '*')
            a->attention_layers++;
        else if (pattern[i] != '-')
            return jsonread_fail(r, d,
                                 "hybrid_override_pattern: block %zu is '%c'; kvplan counts "
                                 "'M' (Mamba-2), '*' (attention) and '-' (MLP) blocks",
                                 i + 1, pattern[i]);
    }
    if (n != a->layers)
        return jsonread_fail(r, d, "hybrid_override_pattern: %zu blocks for num_hidden_layers %llu",
                             n, (unsigned long long)a->layers);
    bool bias = true;
    static const char *groups[] = {"n_groups", "mamba_n_groups", "mamba_num_groups", 0};
    const char *g = groups[0];
    for (int i = 0; groups[i]; i++)
        if (jsonread_has(o, groups[i])) {
            g = groups[i];
            break;
        }
    if (!jsonread_bool(r, o, "use_conv_bias", false, &bias, d))
        return false;
    a->conv_bias = bias;
    if (!need(r, o, "mamba_num_heads", 1000000, &a->state_heads, d) ||
        !need(r, o, "mamba_head_dim", 100000, &a->state_head_dim, d) ||
        !need(r, o, g, 100000, &a->state_groups, d))
        return false;
    /* the heads share the groups evenly (a group's B and C serve heads / groups heads) */
    if (a->state_heads % a->state_groups != 0)
        return jsonread_fail(r, d, "%s: %llu groups do not divide mamba_num_heads %llu", g,
                             (unsigned long long)a->state_groups,
                             (unsigned long long)a->state_heads);
    return need(r, o, "ssm_state_size", 100000, &a->state_size, d) &&
           need(r, o, "conv_kernel", 1024, &a->conv_kernel, d);
}

/* Granite 4.0-H (GraniteMoeHybridConfig): layer_types "mamba" or
 * "attention"; the mamba_* dimensions; intermediate_size is the experts'. */
static bool granite(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                    struct diag *d)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(o, "layer_types");
    if (!cJSON_IsArray(types))
        return jsonread_fail(r, d, "layer_types: missing (a list of \"mamba\" and \"attention\")");
    if (!count_types(r, types, "mamba", "attention", a, d))
        return false;
    bool bias = true;
    uint64_t expand = 2;
    if (!jsonread_bool(r, o, "mamba_conv_bias", false, &bias, d) ||
        !jsonread_u64(r, o, "mamba_expand", false, 1, 64, &expand, d) ||
        !need(r, o, "mamba_n_heads", 1000000, &a->state_heads, d))
        return false;
    a->conv_bias = bias;
    /* mamba_d_head "auto" (transformers' default): expand x hidden / heads */
    const cJSON *hd = cJSON_GetObjectItemCaseSensitive(o, "mamba_d_head");
    if (hd == NULL || cJSON_IsString(hd))
        a->state_head_dim = expand * a->hidden / a->state_heads;
    else if (!need(r, o, "mamba_d_head", 100000, &a->state_head_dim, d))
        return false;
    if (a->state_head_dim == 0)
        return jsonread_fail(r, d, "mamba_d_head: expected a positive integer");
    /* transformers' GraniteMoeHybridConfig refuses heads x head dim other
     * than mamba_expand x hidden_size, the mixer's channels */
    if (a->state_head_dim * a->state_heads != expand * a->hidden)
        return jsonread_fail(r, d, "mamba_d_head: %llu heads of %llu are not mamba_expand %llu x "
                                   "hidden_size %llu",
                             (unsigned long long)a->state_heads,
                             (unsigned long long)a->state_head_dim, (unsigned long long)expand,
                             (unsigned long long)a->hidden);
    if (a->experts > 0)
        a->moe_intermediate = a->intermediate;
    return need(r, o, "mamba_n_groups", 100000, &a->state_groups, d) &&
           need(r, o, "mamba_d_state", 100000, &a->state_size, d) &&
           need(r, o, "mamba_d_conv", 1024, &a->conv_kernel, d) &&
           jsonread_u64(r, o, "shared_intermediate_size", false, 0, 100000000,
                        &a->shared_intermediate, d);
}

/* layers i with i % period == offset (offset < period) */
static bool every(const struct jsonread *r, const cJSON *o, const char *period_key,
                  const char *offset_key, uint64_t layers, uint64_t *count, uint64_t *period_out,
                  uint64_t *offset_out, struct diag *d)
{
    uint64_t period = 0, offset = 0;
    if (!need(r, o, period_key, 100000, &period, d) ||
        !jsonread_u64(r, o, offset_key, true, 0, 100000, &offset, d))
        return false;
    *period_out = period;
    *offset_out = offset;
    if (offset >= period)
        return jsonread_fail(r, d, "%s: %llu is not less than %s %llu", offset_key,
                             (unsigned long long)offset, period_key, (unsigned long long)period);
    *count = layers > offset ? (layers - offset - 1) / period + 1 : 0;
    return true;
}

/* Jamba (JambaConfig): attention in the layers i % attn_layer_period ==
 * attn_layer_offset, Mamba-1 in the rest; MoE in the layers i %
 * expert_layer_period == expert_layer_offset, a gated MLP in the rest. */
static bool jamba(const struct jsonread *r, const cJSON *o, struct arch_dims *a, struct diag *d)
{
    uint64_t period = 0, offset = 0;
    if (!every(r, o, "attn_layer_period", "attn_layer_offset", a->layers, &a->attention_layers,
               &period, &offset, d))
        return false;
    a->state_layers = a->layers - a->attention_layers;
    if (a->experts > 0) {
        if (!every(r, o, "expert_layer_period", "expert_layer_offset", a->layers, &a->moe_layers,
                   &a->moe_every, &a->moe_offset, d))
            return false;
        a->moe_intermediate = a->intermediate;
    }
    uint64_t expand = 2;
    bool bias = true;
    if (!jsonread_u64(r, o, "mamba_expand", false, 1, 64, &expand, d) ||
        !jsonread_bool(r, o, "mamba_conv_bias", false, &bias, d) ||
        !need(r, o, "mamba_d_state", 100000, &a->state_size, d) ||
        !need(r, o, "mamba_d_conv", 1024, &a->conv_kernel, d))
        return false;
    a->conv_bias = bias;
    /* Mamba-1 as one head a channel: d_inner = expand x hidden channels */
    a->state_heads = expand * a->hidden;
    a->state_head_dim = 1;
    a->state_groups = 0;
    /* mamba_dt_rank "auto" (transformers' default): ceil(hidden / 16) */
    const cJSON *rank = cJSON_GetObjectItemCaseSensitive(o, "mamba_dt_rank");
    if (rank == NULL || cJSON_IsString(rank))
        a->dt_rank = (a->hidden + 15) / 16;
    else if (!need(r, o, "mamba_dt_rank", 100000, &a->dt_rank, d))
        return false;
    return true;
}

/* Falcon-H1 (FalconH1Config): attention and a Mamba-2 mixer side by side
 * in every layer (attn_layer_indices null), their outputs summed; the
 * mixer's channels are mamba_d_ssm (else mamba_expand x hidden), in heads
 * of mamba_d_head; a gated norm when mamba_rms_norm. */
static bool falcon_h1(const struct jsonread *r, const cJSON *o, struct arch_dims *a,
                      struct diag *d)
{
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(o, "attn_layer_indices");
    if (only != NULL && !cJSON_IsNull(only))
        return jsonread_fail(r, d, "attn_layer_indices: kvplan counts Falcon-H1 with attention "
                                   "in every layer (null)");
    a->attention_layers = a->state_layers = a->layers;
    uint64_t expand = 2, ssm = 0;
    bool bias = true, norm = false;
    if (!jsonread_u64(r, o, "mamba_expand", false, 1, 64, &expand, d) ||
        !jsonread_bool(r, o, "mamba_conv_bias", false, &bias, d) ||
        !jsonread_bool(r, o, "mamba_rms_norm", false, &norm, d) ||
        !need(r, o, "mamba_n_heads", 1000000, &a->state_heads, d))
        return false;
    a->conv_bias = bias;
    a->no_state_norm = !norm;
    const cJSON *dssm = cJSON_GetObjectItemCaseSensitive(o, "mamba_d_ssm");
    if (dssm == NULL || cJSON_IsNull(dssm))
        ssm = expand * a->hidden;
    else if (!need(r, o, "mamba_d_ssm", 100000000, &ssm, d))
        return false;
    const cJSON *hd = cJSON_GetObjectItemCaseSensitive(o, "mamba_d_head");
    if (hd == NULL || cJSON_IsString(hd))
        a->state_head_dim = ssm / a->state_heads;
    else if (!need(r, o, "mamba_d_head", 100000, &a->state_head_dim, d))
        return false;
    if (a->state_head_dim * a->state_heads != ssm)
        return jsonread_fail(r, d, "mamba_d_head: %llu heads of %llu are not mamba_d_ssm %llu",
                             (unsigned long long)a->state_heads,
                             (unsigned long long)a->state_head_dim, (unsigned long long)ssm);
    return need(r, o, "mamba_n_groups", 100000, &a->state_groups, d) &&
           need(r, o, "mamba_d_state", 100000, &a->state_size, d) &&
           need(r, o, "mamba_d_conv", 1024, &a->conv_kernel, d);
}

bool hfhybrid_dims(const struct jsonread *r, const cJSON *o, struct arch_dims *a, struct diag *d)
{
    bool ok = a->family == ARCH_QWEN3_NEXT     ? qwen3_next(r, o, a, d)
              : a->family == ARCH_KIMI_LINEAR ? hf_kimi_linear(r, o, a, d)
              : a->family == ARCH_NEMOTRON_H ? nemotron_h(r, o, a, d)
              : a->family == ARCH_JAMBA      ? jamba(r, o, a, d)
              : a->family == ARCH_FALCON_H1  ? falcon_h1(r, o, a, d)
                                             : granite(r, o, a, d);
    if (ok && a->attention_layers == 0)
        ok = jsonread_fail(r, d, "%s: no attention layer (kvplan counts hybrids of attention and "
                                 "state layers)",
                           a->family == ARCH_NEMOTRON_H ? "hybrid_override_pattern"
                           : a->family == ARCH_JAMBA    ? "attn_layer_offset"
                                                        : "layer_types");
    if (ok && a->conv_kernel < 2)
        ok = jsonread_fail(r, d, "%s: %llu is too small (a causal conv keeps kernel - 1 inputs)",
                           a->family == ARCH_QWEN3_NEXT   ? "linear_conv_kernel_dim"
                           : a->family == ARCH_NEMOTRON_H ? "conv_kernel"
                                                          : "mamba_d_conv",
                           (unsigned long long)a->conv_kernel);
    return ok;
}

bool hfhybrid_spec(const struct jsonread *r, const cJSON *o, const struct arch_dims *a,
                   struct model_spec *m, struct diag *d)
{
    m->state_layers = (uint32_t)a->state_layers;
    m->state_parallel = a->family == ARCH_FALCON_H1;
    m->plain_layers = m->state_parallel ? 0
                                        : (uint32_t)(a->layers - a->attention_layers - a->state_layers);
    m->state_conv_kernel = (uint32_t)a->conv_kernel;
    m->state_heads = (uint32_t)a->state_heads;
    m->state_head_dim = (uint32_t)a->state_head_dim;
    m->state_groups = (uint32_t)a->state_groups;
    m->state_size = (uint32_t)a->state_size;
    snprintf(m->state_kind, sizeof m->state_kind, "%s",
             a->family == ARCH_QWEN3_NEXT    ? "gated-deltanet"
             : a->family == ARCH_KIMI_LINEAR ? "kda"
             : a->family == ARCH_JAMBA       ? "mamba"
                                             : "mamba2");
    /* vLLM keeps KDA's recurrent state in fp32 whatever the cache's precision
     * (layers/mamba/mamba_utils.py, MambaStateDtypeCalculator.kda_state_dtype) */
    if (a->family == ARCH_KIMI_LINEAR)
        m->state_dtype = DTYPE_FP32;
    /* the recurrent state's precision when the config asks (vLLM reads it) */
    char ssm[32] = "";
    if (!jsonread_string(r, o, "mamba_ssm_cache_dtype", false, ssm, sizeof ssm, d))
        return false;
    if (ssm[0] && (!dtype_parse(ssm, &m->state_dtype) || m->state_dtype == DTYPE_AUTO))
        return jsonread_fail(r, d, "mamba_ssm_cache_dtype: '%s' is not a precision kvplan knows",
                             ssm);
    return true;
}
