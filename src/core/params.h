/* params: a transformer's parameter count from its dimensions, exactly as
 * its checkpoint stores them (biases, norms, tied embeddings, MoE experts,
 * MLA projections), for the families kvplan's presets use. */
#ifndef KVPLAN_CORE_PARAMS_H
#define KVPLAN_CORE_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

enum arch_family {
    ARCH_UNKNOWN = 0,
    ARCH_LLAMA,   /* llama, mistral, yi, phi3: gated MLP, 2 norms, no biases */
    ARCH_QWEN2,   /* + q/k/v biases */
    ARCH_QWEN3,   /* + q/k norms */
    ARCH_MIXTRAL, /* MoE of gated experts, router */
    ARCH_QWEN3_MOE,
    ARCH_GEMMA,   /* gemma 1: 2 norms, tied */
    ARCH_GEMMA2,  /* 4 norms per layer */
    ARCH_GEMMA3,  /* 4 norms + q/k norms */
    ARCH_COHERE,  /* one norm per layer, parallel block */
    ARCH_DEEPSEEK, /* MLA + MoE with shared experts, first k dense */
    ARCH_GPT_OSS, /* biases, attention sinks, MoE with biased experts */
    ARCH_FALCON,  /* fused QKV, 4h MLP, LayerNorms with bias */
    ARCH_OPT,     /* learned positions, biases, ReLU MLP */
    ARCH_MPT,     /* no biases, 1 weight-only norm per sublayer */
    ARCH_LLAMA4,  /* MoE with a shared expert, interleaved dense layers */
    ARCH_GLM4_MOE, /* GQA with q/k/v biases (and q/k norms), DeepSeek-style MoE:
                      first k dense, shared experts, router score bias */
    ARCH_MINIMAX_M2, /* GQA with q/k norms over all heads, MoE with router score bias */
    /* hybrids of attention and state layers (the state dims below) */
    ARCH_QWEN3_NEXT,   /* gated attention + gated DeltaNet, MoE with a gated shared expert */
    ARCH_NEMOTRON_H,   /* Mamba-2, attention and squared-ReLU MLP blocks, one norm each */
    ARCH_GRANITE_HYBRID, /* Mamba-2 or attention, then MoE and a shared MLP, every layer */
    ARCH_JAMBA,          /* Mamba-1 or attention, then MoE or a dense MLP */
    ARCH_FALCON_H1,      /* attention and Mamba-2 side by side, then a gated MLP, every layer */
    ARCH_GEMMA4,         /* windowed and global layers of their own dims, K=V (params_gemma4.c) */
    ARCH_KIMI_LINEAR,    /* Kimi Delta Attention state layers and MLA layers, DeepSeek-style MoE */
    ARCH_DEEPSEEK_V4     /* compressed attention, hyper-connections, MoE (params_dsv4.c) */
};

struct arch_dims {
    enum arch_family family;
    uint64_t layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
    bool tied;
    uint64_t max_positions;       /* OPT: learned position rows (+2) */
    /* MoE */
    uint64_t experts, experts_per_token, moe_intermediate, shared_experts;
    uint64_t shared_intermediate; /* llama4 */
    uint64_t dense_intermediate;  /* llama4 interleaved dense layers */
    uint64_t moe_every;           /* llama4: an MoE layer every N (1 = all); jamba's period */
    uint64_t first_dense;         /* deepseek first_k_dense_replace */
    bool score_bias;              /* deepseek v3 e_score_correction_bias */
    bool qkv_bias;                /* glm4_moe: attention_bias (q, k, v; not o) */
    bool qk_norm;                 /* glm4_moe: per-head q/k norms; minimax_m2: over all heads */
    /* MLA */
    uint64_t q_lora_rank, kv_lora_rank, rope_dim, nope_dim, v_head_dim;
    uint64_t index_head_dim, index_n_heads; /* DeepSeek-V3.2's lightning indexer; 0 = none */
    bool new_decoder;             /* falcon 40b: two LayerNorms per layer */
    /* MXFP4 experts (gpt-oss): 4-bit values and an 8-bit scale per 32 */
    bool mxfp4_experts;
    /* Hybrids: attention and state layers of `layers` (the rest MLP-only, for
     * nemotron_h); a state layer's dimensions as in core/spec.h (Mamba-2:
     * heads, head_dim, n_groups, d_state; gated DeltaNet: value heads, value
     * head dim, key heads, key head dim). */
    uint64_t attention_layers, state_layers;
    uint64_t conv_kernel, state_heads, state_head_dim, state_groups, state_size;
    bool conv_bias;
    uint64_t dt_rank;    /* Mamba-1: the rank of the dt projection */
    uint64_t moe_layers; /* jamba: layers with MoE (the rest dense), i % moe_every == moe_offset */
    uint64_t moe_offset;
    bool no_state_norm;  /* falcon_h1 without mamba_rms_norm: no gated norm in the mixer */
    /* Gemma 4: global_layers of the layers keep global_kv_heads of global_head_dim, the key
     * their value when k_eq_v (no v_proj); MoE beside the dense MLP */
    uint64_t global_layers, global_kv_heads, global_head_dim;
    bool k_eq_v;
    /* DeepSeek V4: csa_layers at compress ratio 4 (with an indexer), hca_layers at
     * 128, the rest windows only; the output's o_groups of o_lora_rank, hc_mult
     * residual streams, hash_layers routed by token id; experts in FP4 (else FP8) */
    uint64_t csa_layers, hca_layers, o_groups, o_lora_rank, hc_mult, hash_layers;
    bool fp4_experts;
    /* Kimi K3 (kimi_k3, its text model kimi_linear): routed experts working in a latent of
     * latent_hidden (routed_expert_hidden_size), projected down from and up to the hidden
     * size with a norm of the latent; a full-rank sigmoid output gate (g_proj, hidden to
     * heads x v_head_dim) in the MLA layers (mla_gate: mla_use_output_gate) and in the KDA
     * layers in place of the low-rank g_a and g_b (kda_full_gate: use_full_rank_gate);
     * attention residuals (attn_res: attn_res_block_size), a norm and a 1 x hidden
     * projection before each sublayer and before the output. */
    uint64_t latent_hidden;
    bool mla_gate, kda_full_gate, attn_res;
};

/* Gemma 4's count (params_gemma4.c), every expert or the active ones; false past 64 bits. */
bool params_gemma4(const struct arch_dims *a, bool active_only, uint64_t *out);

/* DeepSeek V4's count (params_dsv4.c), every expert or the active ones, and
 * the bytes its checkpoint ships them in; false past 64 bits. */
bool params_deepseek_v4(const struct arch_dims *a, bool active_only, uint64_t *out);
bool params_deepseek_v4_bytes(const struct arch_dims *a, uint64_t *out);

/* Total parameters, and those active per token (MoE); false for an
 * unknown family, a dimension above 2^24, first_dense above the layers,
 * more experts per token than experts (when there are experts), or a count past 64 bits. */
bool params_count(const struct arch_dims *a, uint64_t *total, uint64_t *active);

/* Parameters held in MoE experts (for MXFP4 checkpoint sizes); false when
 * there are none, or when they would be more than the whole count (a dense
 * family naming experts). */
bool params_in_experts(const struct arch_dims *a, uint64_t *out);

/* A vision tower a multimodal checkpoint carries beside the language model. */
enum vision_kind {
    VISION_NONE = 0,
    VISION_SIGLIP, /* Gemma 3: SigLIP encoder, then a norm and a projection to the text hidden */
    VISION_LLAMA4, /* Llama 4: ViT with class token, pixel-shuffle adapter MLP, projector */
    VISION_QWEN3,  /* Qwen3.5 (Qwen3-VL's ViT without deepstack): 3-D patches, patch merger */
    VISION_GEMMA4  /* Gemma 4: patch projection, 2-D position table, sandwich-norm layers */
};

struct vision_dims {
    enum vision_kind kind;
    uint64_t hidden, intermediate, layers, patch, image, channels;
    uint64_t adapter_in, adapter_out; /* llama4: pixel-shuffled width and projector_input_dim */
    uint64_t text_hidden;             /* the language model's hidden size */
    uint64_t temporal_patch, positions, merge; /* qwen3: frames a patch, learned positions, 2x2 */
    uint64_t heads, kv_heads, head_dim; /* gemma4: its attention's own heads; positions per axis */
    bool standardize, clipped;          /* gemma4: std_bias and std_scale; clip bounds a linear */
};

/* Gemma 4's vision tower and its projection (params_gemma4.c). */
uint64_t params_gemma4_vision(const struct vision_dims *v);

/* Parameters of the vision tower and its projection into the language
 * model; false for a dimension above 2^24 or a count past 64 bits. */
bool params_vision(const struct vision_dims *v, uint64_t *out);

/* "llama", "qwen2", ... */
const char *params_family_name(enum arch_family f);

#endif
