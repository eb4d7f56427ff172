/* DeepSeek V4's parameters, as its checkpoint's tensor families hold them
 * (model.safetensors.index.json of deepseek-ai/DeepSeek-V4-Flash; vLLM
 * models/deepseek_v4.py, layers/deepseek_v4_attention.py and
 * layers/deepseek_compressor.py load the same). A layer: the attention's
 * wq_a (q_lora_rank x h) and q_norm, wq_b (heads x head_dim x q_lora_rank),
 * wkv (head_dim x h) and kv_norm, wo_a (o_groups x o_lora_rank by heads x
 * head_dim / o_groups), wo_b (h x o_groups x o_lora_rank) and the attention
 * sink (a value a head); a compressed layer's compressor, ape (ratio x coff x
 * head_dim), wkv and wgate (coff x head_dim x h each) and a norm, coff 2 at
 * ratio 4 (overlapping groups) and 1 at 128; a CSA layer's indexer, wq_b
 * (index heads x index dim x q_lora_rank), weights_proj (index heads x h)
 * and its own compressor at the index dim (coff 2); the MoE, routed experts
 * of gate, up and down (3 x moe_intermediate x h each), the shared ones,
 * the gate (experts x h) and, past the hash layers (routed by token id,
 * tid2eid), a score bias; two norms; the hyper-connections of hc_mult = m
 * streams before the attention and the MoE, fn ((2m + m^2) x m h), base
 * (2m + m^2) and scale (3) each. Then the embedding, the head, the final
 * norm and the head's hyper-connection (m x m h, m, 1). The MTP layer is
 * counted apart. */
#include "params.h"

__extension__ typedef unsigned __int128 wide;

/* parameters and bytes, summed as the tensors come: FP8 matrices with a
 * scale per 128 x 128 (UE8M0, 1 B, with FP4 experts; fp32 else), FP4
 * experts (2 a byte) with a UE8M0 scale per 32, the rest bf16 or fp32 */
struct tally {
    wide params, bytes, scale;
};

static void fp8(struct tally *t, wide rows, wide cols)
{
    t->params += rows * cols;
    t->bytes += rows * cols + ((rows + 127) / 128) * ((cols + 127) / 128) * t->scale;
}

static void plain(struct tally *t, wide n, unsigned bytes)
{
    t->params += n;
    t->bytes += n * bytes;
}

static void compressor(struct tally *t, const struct arch_dims *a, wide ratio, wide dim)
{
    wide coff = ratio == 4 ? 2 : 1;
    plain(t, ratio * coff * dim, 4);            /* ape */
    plain(t, 2 * coff * dim * a->hidden, 2);    /* wkv, wgate */
    plain(t, dim, 2);                           /* norm */
}

static void attention(struct tally *t, const struct arch_dims *a, wide ratio)
{
    wide h = a->hidden, ql = a->q_lora_rank, hd = a->head_dim, heads = a->heads;
    wide groups = a->o_groups ? a->o_groups : 1;
    fp8(t, ql, h);
    plain(t, ql, 2);
    fp8(t, heads * hd, ql);
    fp8(t, hd, h);
    plain(t, hd, 2);
    fp8(t, groups * a->o_lora_rank, heads * hd / groups);
    fp8(t, h, groups * a->o_lora_rank);
    plain(t, heads, 4);
    if (ratio)
        compressor(t, a, ratio, hd);
    if (ratio == 4) { /* the indexer */
        fp8(t, (wide)a->index_n_heads * a->index_head_dim, ql);
        plain(t, (wide)a->index_n_heads * h, 2);
        compressor(t, a, 4, a->index_head_dim);
    }
}

static void moe(struct tally *t, const struct arch_dims *a, wide experts, bool hashed)
{
    wide h = a->hidden, mi = a->moe_intermediate, e = experts * 3 * mi * h;
    t->params += e;
    t->bytes += a->fp4_experts ? e / 2 + e / 32 : e + experts * 3 * ((mi + 127) / 128) *
                                                          ((h + 127) / 128) * t->scale;
    for (uint64_t i = 0; i < (a->shared_experts ? a->shared_experts : 1); i++) {
        fp8(t, mi, h);
        fp8(t, mi, h);
        fp8(t, h, mi);
    }
    plain(t, (wide)a->experts * h, 2);
    if (hashed)
        t->bytes += (wide)a->vocab * a->experts_per_token * 8; /* tid2eid, int64: no parameter */
    else
        plain(t, a->experts, 4);
}

/* one layer's part (fill), taken n times */
static void times(struct tally *t, wide n, const struct tally *one)
{
    t->params += one->params * n;
    t->bytes += one->bytes * n;
}

static bool tally(const struct arch_dims *a, bool active_only, struct tally *t)
{
    wide h = a->hidden, m = a->hc_mult ? a->hc_mult : 1, L = a->layers;
    if (a->csa_layers + a->hca_layers > L || a->hash_layers > L)
        return false;
    wide scale = a->fp4_experts ? 1 : 4;
    *t = (struct tally){0, 0, scale};
    wide experts = active_only ? a->experts_per_token : a->experts;
    wide count[3] = {a->csa_layers, a->hca_layers, L - a->csa_layers - a->hca_layers};
    wide ratio[3] = {4, 128, 0};
    for (int k = 0; k < 3; k++) { /* each kind of attention */
        struct tally one = {0, 0, scale};
        attention(&one, a, ratio[k]);
        times(t, count[k], &one);
    }
    for (int hashed = 0; hashed < 2; hashed++) { /* the MoE, by its routing */
        struct tally one = {0, 0, scale};
        moe(&one, a, experts, hashed);
        plain(&one, 2 * h, 2);
        plain(&one, 2 * ((2 * m + m * m) * m * h + 2 * m + m * m + 3), 4);
        times(t, hashed ? a->hash_layers : L - a->hash_layers, &one);
    }
    plain(t, 2 * (wide)a->vocab * h + h, 2);
    plain(t, m * m * h + m + 1, 4);
    return t->params <= UINT64_MAX && t->bytes <= UINT64_MAX;
}

bool params_deepseek_v4(const struct arch_dims *a, bool active_only, uint64_t *out)
{
    struct tally t;
    if (!tally(a, active_only, &t))
        return false;
    *out = (uint64_t)t.params;
    return true;
}

bool params_deepseek_v4_bytes(const struct arch_dims *a, uint64_t *out)
{
    struct tally t;
    if (!tally(a, false, &t))
        return false;
    *out = (uint64_t)t.bytes;
    return true;
}
