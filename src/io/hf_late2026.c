#include "hf_late2026.h"

#include <string.h>

#include "core/units.h"
#include "io/hfconfig_read.h"

static bool qwen3_5_type(const char *type)
{
    return strncmp(type, "qwen3_5", 7) == 0;
}

bool hf_late_state_dtype(const struct jsonread *r, const cJSON *o, const char *type,
                         struct model_spec *m, struct diag *d)
{
    if (!qwen3_5_type(type) || jsonread_has(o, "mamba_ssm_cache_dtype"))
        return true;
    char ssm[32] = "";
    if (!jsonread_string(r, o, "mamba_ssm_dtype", false, ssm, sizeof ssm, d))
        return false;
    if (ssm[0] && (!dtype_parse(ssm, &m->state_dtype) || m->state_dtype == DTYPE_AUTO))
        return jsonread_fail(r, d, "mamba_ssm_dtype: '%s' is not a precision kvplan knows", ssm);
    return true;
}

/* Qwen3.5's vision_config (transformers' Qwen3_5VisionConfig): depth blocks of
 * hidden_size, intermediate_size MLPs, patch_size x patch_size patches over
 * temporal_patch_size frames, num_position_embeddings learned positions, a
 * spatial_merge_size^2 merger to out_hidden_size. */
/* Gemma 4's vision_config (transformers' Gemma4VisionConfig): its layers,
 * heads, MLP, patch and position table, standardize and use_clipped_linears. */
static bool gemma4_vision(const struct jsonread *vr, const cJSON *vc, struct vision_dims *v,
                          struct diag *d)
{
    const uint64_t max = (uint64_t)1 << 24;
    v->kind = VISION_GEMMA4;
    return jsonread_u64(vr, vc, "hidden_size", true, 1, max, &v->hidden, d) &&
           jsonread_u64(vr, vc, "intermediate_size", true, 1, max, &v->intermediate, d) &&
           jsonread_u64(vr, vc, "num_hidden_layers", true, 1, max, &v->layers, d) &&
           jsonread_u64(vr, vc, "num_attention_heads", true, 1, max, &v->heads, d) &&
           jsonread_u64(vr, vc, "num_key_value_heads", true, 1, max, &v->kv_heads, d) &&
           jsonread_u64(vr, vc, "head_dim", true, 1, max, &v->head_dim, d) &&
           jsonread_u64(vr, vc, "patch_size", true, 1, max, &v->patch, d) &&
           jsonread_u64(vr, vc, "position_embedding_size", true, 1, max, &v->positions, d) &&
           jsonread_bool(vr, vc, "standardize", false, &v->standardize, d) &&
           jsonread_bool(vr, vc, "use_clipped_linears", false, &v->clipped, d);
}

bool hf_late_vision(const struct jsonread *vr, const cJSON *vc, const char *type,
                    struct vision_dims *v, bool *known, struct diag *d)
{
    if (strcmp(type, "gemma4_vision") == 0) {
        *known = true;
        return gemma4_vision(vr, vc, v, d);
    }
    *known = qwen3_5_type(type);
    if (!*known)
        return true;
    const uint64_t max = (uint64_t)1 << 24;
    v->kind = VISION_QWEN3;
    v->temporal_patch = 2;
    v->merge = 2;
    return jsonread_u64(vr, vc, "depth", true, 1, max, &v->layers, d) &&
           jsonread_u64(vr, vc, "hidden_size", true, 1, max, &v->hidden, d) &&
           jsonread_u64(vr, vc, "intermediate_size", true, 1, max, &v->intermediate, d) &&
           jsonread_u64(vr, vc, "patch_size", true, 1, max, &v->patch, d) &&
           jsonread_u64(vr, vc, "temporal_patch_size", false, 1, 64, &v->temporal_patch, d) &&
           jsonread_u64(vr, vc, "in_channels", false, 1, 64, &v->channels, d) &&
           jsonread_u64(vr, vc, "num_position_embeddings", true, 1, max, &v->positions, d) &&
           jsonread_u64(vr, vc, "spatial_merge_size", false, 1, 64, &v->merge, d) &&
           jsonread_u64(vr, vc, "out_hidden_size", false, 1, max, &v->text_hidden, d);
}

/* True when the ignore list names a module matching `what` (a plain name or
 * an "re:" pattern holding it). */
static bool ignores(const cJSON *ignore, const char *what)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, ignore)
    {
        if (cJSON_IsString(e) && strstr(e->valuestring, what))
            return true;
    }
    return false;
}

/* The group size of a config group quantizing weights to 4-bit ints in
 * groups, packed; 0 when none does. As compressed-tensors reads them
 * (quantization/quant_args.py, QuantizationArgs.validate_model_after): a
 * group_size without a strategy is the "group" strategy; a group without a
 * format of its own takes the config's (`format`, compressors' apply order).
 * *mxfp4 when the group is instead MXFP4 (Kimi K3): 4-bit floats in groups of
 * 32 with a uint8 scale, format mxfp4-pack-quantized. */
static bool int4_group(const struct jsonread *qr, const cJSON *groups, const char *format,
                       uint64_t *size, bool *mxfp4, struct diag *d)
{
    *size = 0;
    *mxfp4 = false;
    const cJSON *g;
    cJSON_ArrayForEach(g, groups)
    {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "weights");
        if (!cJSON_IsObject(w))
            continue;
        char type[16] = "", strategy[16] = "", own[32] = "";
        uint64_t bits = 0, gs = 0;
        struct jsonread gr = jsonread_child(qr, g->string ? g->string : "group",
                                            "quantization_config.config_groups.");
        struct jsonread wr = jsonread_child(qr, "weights", "quantization_config.weights.");
        if (!jsonread_string(&gr, g, "format", false, own, sizeof own, d) ||
            !jsonread_string(&wr, w, "type", false, type, sizeof type, d) ||
            !jsonread_string(&wr, w, "strategy", false, strategy, sizeof strategy, d) ||
            !jsonread_u64(&wr, w, "num_bits", false, 1, 64, &bits, d) ||
            !jsonread_u64(&wr, w, "group_size", false, 1, 1 << 20, &gs, d))
            return false;
        const char *fmt = own[0] ? own : format;
        bool grouped = strcmp(strategy, "group") == 0 || (strategy[0] == '\0' && gs);
        bool packed = fmt[0] == '\0' || strcmp(fmt, "pack-quantized") == 0;
        if (bits == 4 && strcmp(type, "int") == 0 && grouped && packed && gs) {
            *size = gs;
            return true;
        }
        if (bits == 4 && strcmp(type, "float") == 0 && grouped && gs == 32 &&
            strcmp(fmt, "mxfp4-pack-quantized") == 0) {
            *size = gs;
            *mxfp4 = true;
            return true;
        }
    }
    return true;
}

/* A quantization_config this reading leaves aside: said, with the precision
 * the weights are planned in instead. */
static bool not_read(struct hf_read *x, const char *field, const char *why)
{
    hf_note(x->h, "quantization_config.%s: %s: not understood, the weights planned as %s", field,
            why, dtype_info(x->h->model.weight_dtype)->name);
    return true;
}

/* Whether the precision reading (hfconfig_spec.c) took the config's method
 * or bits. */
static bool read_elsewhere(const struct hf_read *x)
{
    enum dtype w = x->h->model.weight_dtype;
    return w == DTYPE_FP8 || w == DTYPE_INT4 || w == DTYPE_INT8 || x->h->dims.mxfp4_experts;
}

bool hf_late_int4_experts(struct hf_read *x, uint64_t total)
{
    const struct jsonread *qr0 = &x->tr;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(x->o, "quantization_config");
    if (!cJSON_IsObject(q)) {
        qr0 = &x->r;
        q = cJSON_GetObjectItemCaseSensitive(x->root, "quantization_config");
    }
    if (!cJSON_IsObject(q))
        return true;
    struct jsonread qr = jsonread_child(qr0, "quantization_config", "quantization_config.");
    char method[32] = "", format[32] = "";
    if (!jsonread_string(&qr, q, "quant_method", false, method, sizeof method, x->d) ||
        !jsonread_string(&qr, q, "format", false, format, sizeof format, x->d))
        return false;
    if (strcmp(method, "compressed-tensors") != 0)
        return read_elsewhere(x) ? true : not_read(x, "quant_method", method[0] ? method : "none");
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
    const cJSON *ignore = cJSON_GetObjectItemCaseSensitive(q, "ignore");
    uint64_t gs = 0;
    bool mxfp4 = false;
    if (!cJSON_IsObject(groups))
        return not_read(x, "config_groups", "none");
    if (!int4_group(&qr, groups, format, &gs, &mxfp4, x->d))
        return false;
    if (gs == 0)
        return not_read(x, "config_groups", "no packed 4-bit int or MXFP4 weights in groups");
    if (!cJSON_IsArray(ignore) || !ignores(ignore, "self_attn") ||
        !ignores(ignore, "shared_experts"))
        return not_read(x, "ignore", mxfp4 ? "MXFP4 beyond the routed experts (kvplan reads "
                                             "MXFP4 experts with attention and shared experts "
                                             "left out)"
                                           : "INT4 beyond the routed experts (kvplan reads INT4 "
                                             "experts with attention and shared experts left out)");
    const struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    uint64_t experts = 0;
    if (!params_in_experts(a, &experts))
        return jsonread_fail(&qr, x->d, "config_groups: INT4 experts, and a %s model counts none",
                             params_family_name(a->family));
    const struct dtype_info *di = dtype_info(m->weight_dtype);
    if (mxfp4) { /* a half byte a value and a byte of scale per 32: 17/32 B */
        m->weights_bytes = (experts * 17 + 31) / 32 + (total - experts) * di->bytes_num / di->bytes_den;
        hf_note(x->h, "MXFP4 experts (compressed-tensors, groups of 32 with a uint8 scale): "
                      "%.2f GiB of weights, the rest %s",
                (double)m->weights_bytes / (double)GIB, di->name);
        return true;
    }
    m->weights_bytes = (experts * (gs + 4) + 2 * gs - 1) / (2 * gs) +
                       (total - experts) * di->bytes_num / di->bytes_den;
    hf_note(x->h, "INT4 experts (groups of %llu with a bf16 scale): %.2f GiB of weights, the rest %s",
            (unsigned long long)gs, (double)m->weights_bytes / (double)GIB, di->name);
    return true;
}

/* The layers layer_types names "full_attention"; false unless every entry is
 * that or "sliding_attention". */
static bool full_layers(const struct jsonread *r, const cJSON *types, uint64_t layers,
                        uint64_t *full, struct diag *d)
{
    uint64_t n = 0;
    *full = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, types)
    {
        n++;
        bool global = cJSON_IsString(t) && strcmp(t->valuestring, "full_attention") == 0;
        if (!global && !(cJSON_IsString(t) && strcmp(t->valuestring, "sliding_attention") == 0))
            return jsonread_fail(r, d, "layer_types: entry %llu is not \"full_attention\" or "
                                       "\"sliding_attention\"",
                                 (unsigned long long)n);
        *full += global;
    }
    if (n != layers)
        return jsonread_fail(r, d, "layer_types: %llu entries for num_hidden_layers %llu",
                             (unsigned long long)n, (unsigned long long)layers);
    return true;
}

bool hf_late_gemma4(struct hf_read *x)
{
    const struct jsonread *r = &x->tr;
    const cJSON *o = x->o;
    struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    struct diag *d = x->d;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(o, "layer_types");
    if (!cJSON_IsArray(types))
        return jsonread_fail(r, d, "layer_types: missing (Gemma 4 names each layer's attention)");
    bool moe = false;
    if (!full_layers(r, types, a->layers, &a->global_layers, d) ||
        !jsonread_u64(r, o, "num_global_key_value_heads", false, 1, 100000, &a->global_kv_heads,
                      d) ||
        !jsonread_u64(r, o, "global_head_dim", false, 1, 100000, &a->global_head_dim, d) ||
        !jsonread_bool(r, o, "attention_k_eq_v", false, &a->k_eq_v, d) ||
        !jsonread_bool(r, o, "enable_moe_block", false, &moe, d) ||
        !jsonread_u64(r, o, "top_k_experts", false, 1, 1000000, &a->experts_per_token, d))
        return false;
    if (!moe)
        a->experts = a->experts_per_token = 0;
    else if (a->experts == 0 || a->moe_intermediate == 0)
        return jsonread_fail(r, d, "enable_moe_block: needs num_experts and moe_intermediate_size");
    if (a->global_layers > 0 && a->global_layers < a->layers) { /* windows beside them */
        m->global_kv_heads = (uint32_t)a->global_kv_heads;
        m->global_head_dim = (uint32_t)a->global_head_dim;
        m->global_k_eq_v = a->k_eq_v;
    }
    return true;
}
