#include "hf_dsv4.h"

#include <string.h>

#include "core/units.h"
#include "io/hfconfig_read.h"

bool hf_dsv4_dims(struct hf_read *x)
{
    const struct jsonread *r = &x->tr;
    const cJSON *o = x->o;
    struct arch_dims *a = &x->h->dims;
    struct diag *d = x->d;
    const cJSON *ratios = cJSON_GetObjectItemCaseSensitive(o, "compress_ratios");
    if (!cJSON_IsArray(ratios))
        return jsonread_fail(r, d, "compress_ratios: missing (DeepSeek V4 names each layer's "
                                   "compression)");
    char expert[16] = "fp4"; /* vLLM DeepseekV4FP8Config: absent means fp4 */
    if (!jsonread_u64(r, o, "o_groups", true, 1, 100000, &a->o_groups, d) ||
        !jsonread_u64(r, o, "o_lora_rank", true, 1, 1000000, &a->o_lora_rank, d) ||
        !jsonread_u64(r, o, "hc_mult", false, 1, 64, &a->hc_mult, d) ||
        !jsonread_u64(r, o, "num_hash_layers", false, 0, 100000, &a->hash_layers, d) ||
        !jsonread_string(r, o, "expert_dtype", false, expert, sizeof expert, d))
        return false;
    if (strcmp(expert, "fp4") != 0 && strcmp(expert, "fp8") != 0)
        return jsonread_fail(r, d, "expert_dtype: '%s' is not fp4 or fp8", expert);
    a->fp4_experts = strcmp(expert, "fp4") == 0;
    uint64_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ratios)
    {
        if (n++ >= a->layers) /* the MTP layers' entries follow the model's */
            break;
        double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
        /* vLLM's DeepseekV4 layer types (sparse_swa.py _layer_type_for): 0 or 1, 4, 128 */
        if (v != 0 && v != 1 && v != 4 && v != 128)
            return jsonread_fail(r, d, "compress_ratios: entry %llu is not 0, 4 or 128",
                                 (unsigned long long)n);
        a->csa_layers += v == 4;
        a->hca_layers += v == 128;
    }
    if (n < a->layers)
        return jsonread_fail(r, d, "compress_ratios: %llu entries for num_hidden_layers %llu",
                             (unsigned long long)n, (unsigned long long)a->layers);
    if (a->hash_layers > a->layers)
        return jsonread_fail(r, d, "num_hash_layers: %llu is more than the %llu layers",
                             (unsigned long long)a->hash_layers, (unsigned long long)a->layers);
    if (a->csa_layers && (a->index_head_dim == 0 || x->index_topk == 0))
        return jsonread_fail(r, d, "%s: the CSA layers' indexer needs index_head_dim and "
                                   "index_topk",
                             a->index_head_dim ? "index_topk" : "index_head_dim");
    if (x->kv != 1 || a->rope_dim >= a->head_dim)
        return jsonread_fail(r, d, "%s: DeepSeek V4 keeps one KV head of head_dim values, "
                                   "qk_rope_head_dim of them positional",
                             x->kv != 1 ? "num_key_value_heads" : "qk_rope_head_dim");
    return true;
}

void hf_dsv4_spec(struct hf_read *x)
{
    const struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    m->csa_layers = (uint32_t)a->csa_layers;
    m->hca_layers = (uint32_t)a->hca_layers;
    m->csa_ratio = a->csa_layers ? 4 : 0;
    m->hca_ratio = a->hca_layers ? 128 : 0;
    m->qk_rope_head_dim = (uint32_t)a->rope_dim;
    m->csa_index_dim = a->csa_layers ? (uint32_t)a->index_head_dim : 0;
    m->csa_index_heads = a->csa_layers ? (uint32_t)a->index_n_heads : 0;
    m->csa_index_topk = a->csa_layers ? x->index_topk : 0;
    hf_note(x->h, "compressed attention: %llu CSA layers (a row per 4 tokens and an indexer key), "
                  "%llu HCA layers (a row per 128), a window in every layer",
            (unsigned long long)a->csa_layers, (unsigned long long)a->hca_layers);
}

bool hf_dsv4_weights(struct hf_read *x)
{
    struct model_spec *m = &x->h->model;
    uint64_t bytes = 0;
    if (!params_deepseek_v4_bytes(&x->h->dims, &bytes))
        return diag_fail(x->d, "%s: the dimensions are too large to count", x->path);
    m->weights_bytes = bytes;
    hf_note(x->h, "%s experts, FP8 attention, the rest bf16 and fp32: %.2f GiB of weights",
            x->h->dims.fp4_experts ? "FP4" : "FP8", (double)bytes / (double)GIB);
    return true;
}
