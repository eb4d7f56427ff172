#include "hf_late2026.h"

#include <string.h>

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
bool hf_late_vision(const struct jsonread *vr, const cJSON *vc, const char *type,
                    struct vision_dims *v, bool *known, struct diag *d)
{
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
