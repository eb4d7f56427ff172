#include "params.h"

static const char *family_names[] = {"unknown", "llama",   "qwen2",   "qwen3",  "mixtral",
                                     "qwen3_moe", "gemma", "gemma2",  "gemma3", "cohere",
                                     "deepseek", "gpt_oss", "falcon", "opt",    "mpt", "llama4"};

const char *params_family_name(enum arch_family f)
{
    return f >= 0 && f <= ARCH_LLAMA4 ? family_names[f] : "unknown";
}

/* Attention projections (and their extras) of one layer. */
static uint64_t attention(const struct arch_dims *a)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    if (a->family == ARCH_DEEPSEEK) {
        uint64_t qk = a->nope_dim + a->rope_dim;
        uint64_t p = a->q_lora_rank
                         ? h * a->q_lora_rank + a->q_lora_rank + a->q_lora_rank * a->heads * qk
                         : h * a->heads * qk;
        p += h * (a->kv_lora_rank + a->rope_dim) + a->kv_lora_rank;
        p += a->kv_lora_rank * a->heads * (a->nope_dim + a->v_head_dim);
        return p + a->heads * a->v_head_dim * h;
    }
    uint64_t p = h * q + 2 * h * kv + q * h;
    switch (a->family) {
    case ARCH_QWEN2:
        p += q + 2 * kv; /* q, k, v biases */
        break;
    case ARCH_QWEN3:
    case ARCH_QWEN3_MOE:
    case ARCH_GEMMA3:
        p += 2 * a->head_dim; /* q and k norms */
        break;
    case ARCH_GPT_OSS:
        p += q + 2 * kv + h + a->heads; /* biases of q, k, v, o; a sink per head */
        break;
    default:
        break;
    }
    return p;
}

static uint64_t norms(const struct arch_dims *a)
{
    switch (a->family) {
    case ARCH_GEMMA2:
    case ARCH_GEMMA3:
        return 4 * a->hidden;
    case ARCH_COHERE:
        return a->hidden;
    default:
        return 2 * a->hidden;
    }
}

/* The MLP of a layer with `experts` of them active (all for the total). */
static uint64_t moe_layer(const struct arch_dims *a, uint64_t experts)
{
    uint64_t h = a->hidden, mi = a->moe_intermediate;
    switch (a->family) {
    case ARCH_GPT_OSS: /* gate_up and down projections with biases; router with bias */
        return experts * (h * 2 * mi + 2 * mi + mi * h + h) + h * a->experts + a->experts;
    case ARCH_DEEPSEEK:
        return experts * 3 * h * mi + a->shared_experts * 3 * h * mi + h * a->experts +
               (a->score_bias ? a->experts : 0);
    case ARCH_LLAMA4:
        return experts * 3 * h * mi + h * a->experts + 3 * h * a->shared_intermediate;
    default:
        return experts * 3 * h * mi + h * a->experts;
    }
}

static bool count(const struct arch_dims *a, bool active_only, uint64_t *out)
{
    uint64_t h = a->hidden, L = a->layers, V = a->vocab;
    uint64_t emb = V * h * (a->tied ? 1 : 2);
    /* gpt-oss counts the (untied) embedding once among its active parameters,
     * as OpenAI's model card does */
    if (active_only && a->family == ARCH_GPT_OSS)
        emb = V * h;
    uint64_t total = 0;
    uint64_t k = active_only ? a->experts_per_token : a->experts;
    switch (a->family) {
    case ARCH_LLAMA:
    case ARCH_QWEN2:
    case ARCH_QWEN3:
    case ARCH_GEMMA:
    case ARCH_GEMMA2:
    case ARCH_GEMMA3:
    case ARCH_COHERE:
        total = emb + L * (attention(a) + 3 * h * a->intermediate + norms(a)) + h;
        break;
    case ARCH_MIXTRAL:
    case ARCH_QWEN3_MOE:
    case ARCH_GPT_OSS:
        total = emb + L * (attention(a) + moe_layer(a, k) + norms(a)) + h;
        /* OpenAI's published active counts (3.61B, 5.13B) leave out the final norm */
        if (active_only && a->family == ARCH_GPT_OSS)
            total -= h;
        break;
    case ARCH_DEEPSEEK:
        total = emb + L * (attention(a) + 2 * h) + a->first_dense * 3 * h * a->intermediate +
                (L - a->first_dense) * moe_layer(a, k) + h;
        break;
    case ARCH_LLAMA4: {
        uint64_t every = a->moe_every ? a->moe_every : 1, moe = L / every;
        uint64_t dense = a->dense_intermediate ? a->dense_intermediate : a->intermediate;
        total = emb + L * (attention(a) + 2 * h) + moe * moe_layer(a, k) +
                (L - moe) * 3 * h * dense + h;
        break;
    }
    case ARCH_FALCON: {
        uint64_t per = h * (a->heads + 2 * a->kv_heads) * a->head_dim + h * h + 2 * h * 4 * h +
                       (a->new_decoder ? 4 : 2) * h;
        total = V * h + L * per + 2 * h;
        break;
    }
    case ARCH_OPT: {
        uint64_t per = 4 * (h * h + h) + (h * a->intermediate + a->intermediate) +
                       (a->intermediate * h + h) + 4 * h;
        total = V * h + (a->max_positions + 2) * h + L * per + 2 * h;
        break;
    }
    case ARCH_MPT:
        total = V * h + L * (4 * h * h + 2 * h * a->intermediate + 2 * h) + h;
        break;
    default:
        return false;
    }
    *out = total;
    return true;
}

bool params_count(const struct arch_dims *a, uint64_t *total, uint64_t *active)
{
    /* every dimension is far below 2^24 for real models: refuse absurd ones
     * before the products below could pass 2^64 */
    uint64_t dims[] = {a->layers, a->hidden, a->heads, a->kv_heads, a->head_dim, a->intermediate,
                       a->vocab, a->experts, a->moe_intermediate, a->kv_lora_rank};
    for (unsigned i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i] > (1u << 24))
            return false;
    if (a->layers == 0 || a->hidden == 0 || a->vocab == 0)
        return false;
    if (!count(a, false, total))
        return false;
    *active = 0;
    if (a->experts > 0 && !count(a, true, active))
        return false;
    return true;
}

uint64_t params_in_experts(const struct arch_dims *a)
{
    if (a->experts == 0)
        return 0;
    uint64_t h = a->hidden, mi = a->moe_intermediate;
    if (a->family == ARCH_GPT_OSS) /* the MXFP4 tensors: gate_up and down, not their biases */
        return a->layers * a->experts * (h * 2 * mi + mi * h);
    return a->layers * a->experts * 3 * h * mi;
}
