#include "params.h"

/* Counts are summed in 128 bits and checked against 64 at the end: with
 * hostile dimensions a product of five of them passes 2^64 long before any
 * one is absurd (a config once gave 18446743685127091456 parameters). */
__extension__ typedef unsigned __int128 wide;

static const char *family_names[] = {"unknown", "llama",   "qwen2",   "qwen3",  "mixtral",
                                     "qwen3_moe", "gemma", "gemma2",  "gemma3", "cohere",
                                     "deepseek", "gpt_oss", "falcon", "opt",    "mpt", "llama4",
                                     "glm4_moe", "minimax_m2", "qwen3_next", "nemotron_h",
                                     "granitemoehybrid", "jamba", "falcon_h1", "gemma4",
                                     "kimi_linear", "deepseek_v4"};

const char *params_family_name(enum arch_family f)
{
    return f >= 0 && f <= ARCH_DEEPSEEK_V4 ? family_names[f] : "unknown";
}

/* A Mamba-2 mixer (transformers' NemotronHMamba2Mixer, GraniteMoeHybridMambaLayer):
 * in_proj to x, z, B, C and dt (no bias), a depthwise conv over x, B and C
 * (with its bias when conv_bias), A_log, D and dt_bias per head, a gated
 * RMSNorm over x and out_proj (no bias). */
static wide mamba2(const struct arch_dims *a)
{
    wide h = a->hidden, heads = a->state_heads, x = heads * a->state_head_dim;
    wide conv = x + 2 * (wide)a->state_groups * a->state_size;
    return h * (2 * x + 2 * (wide)a->state_groups * a->state_size + heads) +
           conv * a->conv_kernel + (a->conv_bias ? conv : 0) + 3 * heads +
           (a->no_state_norm ? 0 : x) + x * h;
}

/* A Mamba-1 mixer as Jamba stores it (transformers' JambaMambaMixer):
 * in_proj to x and z (no bias), a depthwise conv over x (with its bias),
 * x_proj to dt (dt_rank) and B, C (d_state each), dt_proj with bias, A_log,
 * D, out_proj, and RMSNorms of dt, B and C. */
static wide mamba1(const struct arch_dims *a)
{
    wide h = a->hidden, x = a->state_heads, n = a->state_size, r = a->dt_rank;
    return h * 2 * x + x * a->conv_kernel + (a->conv_bias ? x : 0) + x * (r + 2 * n) + r * x + x +
           x * n + x + x * h + r + 2 * n;
}

/* A gated DeltaNet layer (transformers' Qwen3NextGatedDeltaNet): in_proj_qkvz
 * (q, k of the key heads, v, z of the value heads), in_proj_ba (b, a per
 * value head), a depthwise conv over q, k and v without bias, dt_bias and
 * A_log per value head, an RMSNorm of the value head dim and out_proj. */
static wide gated_deltanet(const struct arch_dims *a)
{
    wide h = a->hidden, key = (wide)a->state_groups * a->state_size;
    wide value = (wide)a->state_heads * a->state_head_dim;
    return h * (2 * key + 2 * value) + h * 2 * a->state_heads + (2 * key + value) * a->conv_kernel +
           2 * (wide)a->state_heads + a->state_head_dim + value * h;
}

/* A Kimi Delta Attention layer (vLLM model_executor/layers/kda.py,
 * KimiDeltaAttention): q, k and v projections to heads x head_dim, a
 * depthwise conv over each without bias, the forget gate's low-rank f_a and
 * f_b with dt_bias per channel, b_proj (beta) per head, A_log per head, the
 * output gate's g_a and g_b, o_norm of the head dim and o_proj. */
static wide kda(const struct arch_dims *a)
{
    wide h = a->hidden, d = a->state_head_dim, x = (wide)a->state_heads * d;
    /* Kimi K3 (kda_full_gate): the output gate a full-rank g_proj (hidden to heads x
     * head_dim) instead of g_a and g_b, and A_log of head_dim values, as its checkpoint
     * stores them (self_attn.g_proj [12288, 7168], self_attn.A_log [128]) */
    if (a->kda_full_gate)
        return 3 * h * x + 3 * x * a->conv_kernel + (h * d + d * x) + x + h * a->state_heads +
               d + d + h * x + x * h;
    return 3 * h * x + 3 * x * a->conv_kernel + 2 * (h * d + d * x) + x + h * a->state_heads +
           a->state_heads + d + x * h;
}

/* Attention projections (and their extras) of one layer. */
static wide attention(const struct arch_dims *a)
{
    wide h = a->hidden, q = (wide)a->heads * a->head_dim, kv = (wide)a->kv_heads * a->head_dim;
    if (a->family == ARCH_DEEPSEEK || a->family == ARCH_KIMI_LINEAR) {
        wide qk = (wide)a->nope_dim + a->rope_dim;
        wide p = a->q_lora_rank
                         ? h * a->q_lora_rank + a->q_lora_rank + (wide)a->q_lora_rank * a->heads * qk
                         : h * a->heads * qk;
        p += h * (a->kv_lora_rank + a->rope_dim) + a->kv_lora_rank;
        p += (wide)a->kv_lora_rank * a->heads * ((wide)a->nope_dim + a->v_head_dim);
        /* V3.2's lightning indexer (vLLM models/deepseek_v2.py Indexer): wq_b from
         * the query latent to its heads, wk, a LayerNorm (weight and bias) on the
         * key, weights_proj from the hidden state to a weight per head */
        wide id = a->index_head_dim, in = a->index_n_heads;
        if (id)
            p += (wide)a->q_lora_rank * in * id + h * id + 2 * id + h * in;
        /* Kimi K3's gated MLA (mla_gate): g_proj, hidden to heads x v_head_dim */
        if (a->mla_gate)
            p += h * a->heads * a->v_head_dim;
        return p + (wide)a->heads * a->v_head_dim * h;
    }
    wide p = h * q + 2 * h * kv + q * h;
    switch (a->family) {
    case ARCH_QWEN3_NEXT:
        p += h * q + 2 * (wide)a->head_dim; /* the output gate's half of q_proj; q/k norms */
        break;
    case ARCH_QWEN2:
        p += q + 2 * kv; /* q, k, v biases */
        break;
    case ARCH_QWEN3:
    case ARCH_QWEN3_MOE:
    case ARCH_GEMMA3:
        p += 2 * (wide)a->head_dim; /* q and k norms */
        break;
    case ARCH_GPT_OSS:
        p += q + 2 * kv + h + a->heads; /* biases of q, k, v, o; a sink per head */
        break;
    case ARCH_GLM4_MOE:
        if (a->qkv_bias)
            p += q + 2 * kv;
        if (a->qk_norm)
            p += 2 * (wide)a->head_dim; /* RMSNorm(head_dim), shared by the heads */
        break;
    case ARCH_MINIMAX_M2:
        if (a->qk_norm)
            p += q + kv; /* RMSNorm over all q heads and all kv heads */
        break;
    default:
        break;
    }
    return p;
}

static wide norms(const struct arch_dims *a)
{
    switch (a->family) {
    case ARCH_GEMMA2:
    case ARCH_GEMMA3:
        return 4 * (wide)a->hidden;
    case ARCH_COHERE:
        return a->hidden;
    default:
        return 2 * (wide)a->hidden;
    }
}

/* The MLP of a layer with `experts` of them active (all for the total). */
static wide moe_layer(const struct arch_dims *a, wide experts)
{
    wide h = a->hidden, mi = a->moe_intermediate;
    switch (a->family) {
    case ARCH_GPT_OSS: /* gate_up and down projections with biases; router with bias */
        return experts * (h * 2 * mi + 2 * mi + mi * h + h) + h * a->experts + a->experts;
    case ARCH_KIMI_LINEAR:
        /* Kimi K3's latent MoE: the routed experts work in latent_hidden, reached by
         * routed_expert_down_proj and left by routed_expert_up_proj, with
         * routed_expert_norm; the shared experts and the gate at the hidden size */
        if (a->latent_hidden) {
            wide r = a->latent_hidden;
            return experts * 3 * r * mi + a->shared_experts * 3 * h * mi + h * a->experts +
                   (a->score_bias ? a->experts : 0) + 2 * h * r + r;
        }
        return experts * 3 * h * mi + a->shared_experts * 3 * h * mi + h * a->experts +
               (a->score_bias ? a->experts : 0);
    case ARCH_DEEPSEEK:
    case ARCH_GLM4_MOE:
        return experts * 3 * h * mi + a->shared_experts * 3 * h * mi + h * a->experts +
               (a->score_bias ? a->experts : 0);
    case ARCH_MINIMAX_M2: /* router without bias, then its score correction bias */
        return experts * 3 * h * mi + h * a->experts + a->experts;
    case ARCH_LLAMA4:
        return experts * 3 * h * mi + h * a->experts + 3 * h * a->shared_intermediate;
    default:
        return experts * 3 * h * mi + h * a->experts;
    }
}

/* A transformer of one kind of layer a block: dense, MoE, or DeepSeek's and
 * Llama 4's first dense then MoE layers; false for another family. */
static bool transformer_total(const struct arch_dims *a, wide k, wide emb, wide *total)
{
    wide h = a->hidden, L = a->layers;
    switch (a->family) {
    case ARCH_LLAMA:
    case ARCH_QWEN2:
    case ARCH_QWEN3:
    case ARCH_GEMMA:
    case ARCH_GEMMA2:
    case ARCH_GEMMA3:
    case ARCH_COHERE:
        *total = emb + L * (attention(a) + 3 * h * a->intermediate + norms(a)) + h;
        return true;
    case ARCH_MIXTRAL:
    case ARCH_QWEN3_MOE:
    case ARCH_GPT_OSS:
    case ARCH_MINIMAX_M2:
        *total = emb + L * (attention(a) + moe_layer(a, k) + norms(a)) + h;
        return true;
    case ARCH_DEEPSEEK:
    case ARCH_GLM4_MOE:
        *total = emb + L * (attention(a) + 2 * h) +
                 (wide)a->first_dense * 3 * h * a->intermediate +
                 (L - a->first_dense) * moe_layer(a, k) + h;
        return true;
    case ARCH_LLAMA4: {
        wide every = a->moe_every ? a->moe_every : 1, moe = L / every;
        wide dense = a->dense_intermediate ? a->dense_intermediate : a->intermediate;
        *total = emb + L * (attention(a) + 2 * h) + moe * moe_layer(a, k) +
                 (L - moe) * 3 * h * dense + h;
        return true;
    }
    default:
        return false;
    }
}

/* The older checkpoints' own layouts (Falcon, OPT, MPT): their embedding
 * counted once, as they store it. */
static bool legacy_total(const struct arch_dims *a, wide *total)
{
    wide h = a->hidden, L = a->layers, V = a->vocab;
    switch (a->family) {
    case ARCH_FALCON: {
        wide per = h * ((wide)a->heads + 2 * (wide)a->kv_heads) * a->head_dim + h * h + 2 * h * 4 * h +
                       (a->new_decoder ? 4 : 2) * h;
        *total = V * h + L * per + 2 * h;
        return true;
    }
    case ARCH_OPT: {
        wide per = 4 * (h * h + h) + (h * a->intermediate + a->intermediate) +
                       (a->intermediate * h + h) + 4 * h;
        *total = V * h + ((wide)a->max_positions + 2) * h + L * per + 2 * h;
        return true;
    }
    case ARCH_MPT:
        *total = V * h + L * (4 * h * h + 2 * h * a->intermediate + 2 * h) + h;
        return true;
    default:
        return false;
    }
}

/* The hybrids: attention in some layers, a state-space or linear mixer in
 * the others (or beside it), then their MLP or MoE. */
static bool hybrid_total(const struct arch_dims *a, wide k, wide emb, wide *total)
{
    wide h = a->hidden, L = a->layers;
    switch (a->family) {
    case ARCH_QWEN3_NEXT: /* every layer MoE, a shared expert with a one-unit gate; or every
                           * layer a dense gated MLP (Qwen3.5's dense sizes, no experts) */
        *total = emb + (wide)a->attention_layers * attention(a) +
                 (wide)a->state_layers * gated_deltanet(a) +
                 L * ((a->experts ? moe_layer(a, k) + 3 * h * a->shared_intermediate + h
                                  : 3 * h * a->intermediate) + 2 * h) + h;
        return true;
    case ARCH_NEMOTRON_H: { /* one norm a block; the MLP is up and down (squared ReLU) */
        wide plain = L - a->attention_layers - a->state_layers;
        *total = emb + (wide)a->attention_layers * (attention(a) + h) +
                 (wide)a->state_layers * (mamba2(a) + h) +
                 plain * (2 * h * a->intermediate + h) + h;
        return true;
    }
    case ARCH_FALCON_H1: /* attention and a Mamba-2 mixer in every layer, then a gated MLP */
        *total = emb + (wide)a->attention_layers * attention(a) + (wide)a->state_layers * mamba2(a) +
                 L * (3 * h * a->intermediate + 2 * h) + h;
        return true;
    case ARCH_JAMBA: /* a mixer, then MoE in moe_layers of the layers, a gated MLP in the rest */
        *total = emb + (wide)a->attention_layers * attention(a) + (wide)a->state_layers * mamba1(a) +
                 (wide)a->moe_layers * moe_layer(a, k) +
                 (L - a->moe_layers) * 3 * h * a->intermediate + L * 2 * h + h;
        return true;
    case ARCH_GRANITE_HYBRID: { /* a mixer, then MoE (if any) and a shared MLP, every layer */
        wide mlp = (a->experts ? moe_layer(a, k) : 0) + 3 * h * a->shared_intermediate;
        *total = emb + (wide)a->attention_layers * attention(a) +
                 (wide)a->state_layers * mamba2(a) + L * (mlp + 2 * h) + h;
        return true;
    }
    case ARCH_KIMI_LINEAR: /* MLA in attention_layers, KDA in the rest; first k dense, then MoE */
        /* attention residuals (Kimi K3): self_attention_res_norm and _proj, mlp_res_norm
         * and _proj a layer, output_attn_res_norm and _proj before the final norm */
        *total = emb + (wide)a->attention_layers * attention(a) + (wide)a->state_layers * kda(a) +
                 L * (a->attn_res ? 6 : 2) * h + (wide)a->first_dense * 3 * h * a->intermediate +
                 (L - a->first_dense) * moe_layer(a, k) + (a->attn_res ? 3 : 1) * h;
        return true;
    default:
        return false;
    }
}

static bool count(const struct arch_dims *a, bool active_only, uint64_t *out)
{
    if (a->family == ARCH_GEMMA4)
        return params_gemma4(a, active_only, out);
    if (a->family == ARCH_DEEPSEEK_V4)
        return params_deepseek_v4(a, active_only, out);
    wide h = a->hidden, V = a->vocab;
    wide emb = V * h * (a->tied ? 1u : 2u);
    /* gpt-oss counts the (untied) embedding once among its active parameters,
     * as OpenAI's model card does */
    if (active_only && a->family == ARCH_GPT_OSS)
        emb = V * h;
    wide total = 0;
    wide k = active_only ? a->experts_per_token : a->experts;
    if (!transformer_total(a, k, emb, &total) && !legacy_total(a, &total) &&
        !hybrid_total(a, k, emb, &total))
        return false;
    /* OpenAI's published active counts (3.61B, 5.13B) leave out the final norm */
    if (active_only && a->family == ARCH_GPT_OSS)
        total -= h;
    if (total > UINT64_MAX)
        return false;
    *out = (uint64_t)total;
    return true;
}

bool params_count(const struct arch_dims *a, uint64_t *total, uint64_t *active)
{
    /* every dimension is far below 2^24 for real models: refuse absurd ones,
     * so no product of them passes 2^128 before the 64-bit check */
    uint64_t dims[] = {a->layers,          a->hidden,           a->heads,
                       a->kv_heads,        a->head_dim,         a->intermediate,
                       a->vocab,           a->experts,          a->moe_intermediate,
                       a->kv_lora_rank,    a->q_lora_rank,      a->rope_dim,
                       a->nope_dim,        a->v_head_dim,       a->shared_experts,
                       a->experts_per_token, a->shared_intermediate, a->dense_intermediate,
                       a->moe_every,       a->first_dense,      a->max_positions,
                       a->index_head_dim,  a->index_n_heads,
                       a->attention_layers, a->state_layers,    a->conv_kernel,
                       a->state_heads,     a->state_head_dim,   a->state_groups,
                       a->state_size,      a->dt_rank,          a->moe_layers,
                       a->global_layers,   a->global_kv_heads,  a->global_head_dim,
                       a->csa_layers,      a->hca_layers,       a->o_groups,
                       a->o_lora_rank,     a->hc_mult,          a->hash_layers,
                       a->latent_hidden};
    for (unsigned i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i] > (1u << 24))
            return false;
    if (a->layers == 0 || a->hidden == 0 || a->vocab == 0 || a->first_dense > a->layers ||
        (a->family == ARCH_FALCON_H1 ? a->attention_layers > a->layers || a->state_layers > a->layers
                                     : a->attention_layers + a->state_layers > a->layers) ||
        a->moe_layers > a->layers ||
        (a->experts > 0 && a->experts_per_token > a->experts))
        return false;
    if (!count(a, false, total))
        return false;
    *active = 0;
    if (a->experts > 0 && !count(a, true, active))
        return false;
    return true;
}

bool params_in_experts(const struct arch_dims *a, uint64_t *out)
{
    /* routed experts only, in the layers that have them: DeepSeek's first
     * dense layers and Llama 4's interleaved dense layers hold none */
    uint64_t moe_layers = a->family == ARCH_DEEPSEEK || a->family == ARCH_GLM4_MOE ||
                                  a->family == ARCH_KIMI_LINEAR
                              ? a->layers - a->first_dense
                          : a->family == ARCH_LLAMA4 && a->moe_every > 1 ? a->layers / a->moe_every
                          : a->family == ARCH_JAMBA                      ? a->moe_layers
                                                                         : a->layers;
    /* Kimi K3's latent experts: latent_hidden x moe_intermediate each */
    wide h = a->latent_hidden ? a->latent_hidden : a->hidden, mi = a->moe_intermediate;
    wide n = (wide)moe_layers * a->experts;
    wide p = a->family == ARCH_GPT_OSS ? n * (h * 2 * mi + mi * h) /* MXFP4: gate_up and down */
                                       : n * 3 * h * mi;
    uint64_t total = 0, active = 0;
    /* experts are part of the count only for a family that has them: a dense
     * config naming experts must not claim more expert weights than weights */
    if (a->experts == 0 || !params_count(a, &total, &active) || p > total)
        return false;
    *out = (uint64_t)p;
    return true;
}

/* SigLIP (Gemma 3): patch embedding (conv with bias), learned positions,
 * per layer q/k/v/o with biases, fc1/fc2 with biases and two LayerNorms,
 * a final LayerNorm; then the projector's RMSNorm (vision hidden) and its
 * matrix (vision hidden x text hidden, no bias).
 * Llama 4: patch embedding (no bias), a class token, positions for the
 * patches and the class token, LayerNorms before and after, per layer the
 * same as SigLIP; the pixel-shuffle adapter MLP (adapter_in x adapter_out,
 * adapter_out x adapter_out, no biases) and the projector (adapter_out x
 * text hidden, no bias).
 * Qwen3.5 (transformers' Qwen3_5VisionModel, Qwen3-VL's without deepstack):
 * a Conv3d patch embedding with bias over temporal_patch frames, learned
 * positions, per layer the same as SigLIP (qkv and proj with biases); the
 * patch merger's LayerNorm (vision hidden), then fc1 (merge^2 x hidden
 * square, with bias) and fc2 to the text hidden (with bias). */
bool params_vision(const struct vision_dims *v, uint64_t *out)
{
    const uint64_t big = (uint64_t)1 << 24;
    if (v->kind == VISION_NONE) {
        *out = 0;
        return true;
    }
    if (v->hidden > big || v->intermediate > big || v->layers > big || v->patch > big ||
        v->image > big || v->channels > big || v->adapter_in > big || v->adapter_out > big ||
        v->text_hidden > big || v->temporal_patch > big || v->positions > big ||
        v->merge > 64 || v->patch == 0)
        return false;
    if (v->kind == VISION_GEMMA4) {
        if (v->heads > big || v->kv_heads > big || v->head_dim > big)
            return false;
        *out = params_gemma4_vision(v);
        return true;
    }
    uint64_t h = v->hidden, i = v->intermediate, side = v->image / v->patch;
    uint64_t layer = 4 * (h * h + h) + 2 * h * i + i + h + 4 * h;
    uint64_t n = v->layers * layer;
    uint64_t patch = v->channels * v->patch * v->patch * h;
    if (v->kind == VISION_QWEN3) {
        uint64_t m = h * v->merge * v->merge;
        n += patch * v->temporal_patch + h + v->positions * h + 2 * h + m * m + m +
             m * v->text_hidden + v->text_hidden;
    } else if (v->kind == VISION_SIGLIP)
        n += patch + h + side * side * h + 2 * h + h + h * v->text_hidden;
    else
        n += patch + h + (side * side + 1) * h + 4 * h + v->adapter_in * v->adapter_out +
             v->adapter_out * v->adapter_out + v->adapter_out * v->text_hidden;
    *out = n;
    return true;
}
