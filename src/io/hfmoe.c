#include "hfmoe.h"

#include <string.h>

#include "io/hfconfig_read.h"

/* Qwen2-MoE, Qwen3-MoE and Qwen3-Next (transformers' Qwen3MoeDecoderLayer):
 * experts in the layers not in mlp_only_layers with (i + 1) %
 * decoder_sparse_step == 0; kvplan's count has them in every layer. */
static bool qwen_sparse(const struct hf_read *x)
{
    uint64_t step = 1;
    if (!jsonread_u64(&x->tr, x->o, "decoder_sparse_step", false, 1, 100000, &step, x->d))
        return false;
    const cJSON *dense = cJSON_GetObjectItemCaseSensitive(x->o, "mlp_only_layers");
    if (step != 1 || (cJSON_IsArray(dense) && cJSON_GetArraySize(dense) > 0))
        return jsonread_fail(&x->tr, x->d, "%s: kvplan counts %s with every layer MoE",
                             step != 1 ? "decoder_sparse_step" : "mlp_only_layers", x->type);
    return true;
}

bool hf_moe_layers(struct hf_read *x)
{
    const struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    if (a->experts == 0)
        return true;
    switch (a->family) {
    case ARCH_DEEPSEEK:
    case ARCH_GLM4_MOE:
    case ARCH_KIMI_LINEAR: {
        uint64_t freq = 1;
        if (!jsonread_u64(&x->tr, x->o, "moe_layer_freq", false, 1, 100000, &freq, x->d))
            return false;
        if (freq != 1)
            return jsonread_fail(&x->tr, x->d, "moe_layer_freq: %llu; kvplan counts %s with "
                                               "every layer past first_k_dense_replace MoE",
                                 (unsigned long long)freq, x->type);
        m->moe_first_dense = (uint32_t)a->first_dense;
        return true;
    }
    case ARCH_LLAMA4:
    case ARCH_JAMBA:
        /* Llama 4: every moe_every-th layer, the last of each run; Jamba: its period and offset */
        if (a->moe_every > 1) {
            m->moe_period = (uint32_t)a->moe_every;
            m->moe_offset = (uint32_t)(a->family == ARCH_JAMBA ? a->moe_offset : a->moe_every - 1);
        }
        return true;
    case ARCH_QWEN3_MOE:
    case ARCH_QWEN3_NEXT:
        return qwen_sparse(x);
    default:
        return true;
    }
}
