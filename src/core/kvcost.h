/* kvcost: what one token costs in the KV cache of one GPU, layer by layer,
 * and what a user's tokens and a shared prefix cost, with sliding-window
 * layers holding at most their window. Knows nothing of budgets or engines. */
#ifndef KVPLAN_CORE_KVCOST_H
#define KVPLAN_CORE_KVCOST_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

struct kv_cost {
    enum dtype kv_dtype;
    uint32_t tp;                 /* GPUs the layers' heads are split over */
    bool mla;                    /* one latent per layer, replicated on every GPU */
    uint32_t kv_heads;           /* used (override or model); 0 for MLA */
    uint32_t kv_heads_per_gpu;   /* max(1, ceil(kv_heads / tp)); 0 for MLA */
    uint64_t values_per_layer;   /* cached values per token per layer on one GPU (K+V or latent) */
    uint64_t bytes_per_layer;    /* those values in the cache precision, one GPU (with the
                                  * indexer key of sparse attention) */
    uint64_t latent_bytes;       /* sparse attention (MLA): the latent's part of bytes_per_layer */
    uint64_t index_bytes;        /* sparse attention: the indexer key's part; 0 without */
    bool latent_fp8_blocks;      /* the FP8 latent in FlashMLA's sparse layout (scales per 128) */
    uint32_t layers, global_layers, windowed_layers;
    /* Gemma 4's global layers (core/spec.h): wide_layers of the layers keep
     * global_kv_heads_per_gpu heads of global_head_dim, global_rows rows a head
     * (1 when the key is the value and stored once, else 2), in
     * global_bytes_per_layer; 0 wide layers: every layer is bytes_per_layer. */
    uint32_t wide_layers, global_kv_heads_per_gpu, global_head_dim, global_rows;
    bool k_eq_v;
    uint64_t global_values_per_layer, global_bytes_per_layer;
    uint64_t global_layer_bytes; /* one token in every global layer (past the window), no draft */
    /* DeepSeek V4's compressed attention (core/spec.h, kvcost_compressed.c):
     * bytes_per_layer is a window row, held in every layer; csa_layers keep
     * csa_row_bytes (a compressed row and its indexer key, csa_index_bytes)
     * per csa_ratio tokens, hca_layers hca_row_bytes per hca_ratio tokens:
     * compressed_span_bytes in all of them for compressed_span tokens (the
     * larger ratio), so t tokens take ceil(t x span bytes / span); 0 span:
     * none. The compressor's state (kv and score in fp32 of the tokens not
     * yet compressed: 2 x ratio of them, overlapping, in a CSA layer and its
     * indexer, ratio in an HCA layer) is fixed a sequence, in state_bytes. */
    uint32_t csa_layers, hca_layers, csa_ratio, hca_ratio;
    uint64_t csa_index_bytes, csa_row_bytes, hca_row_bytes;
    uint64_t compressed_span, compressed_span_bytes;
    uint64_t csa_state_bytes, hca_state_bytes; /* one layer's compressor state, one sequence */
    uint64_t window_tokens;      /* 0 without windows */
    uint64_t bytes_per_token;    /* one GPU, every layer as if global (compressed
                                  * attention: past the window, as the next) */
    uint64_t bytes_per_token_global; /* one GPU, the global layers only (past the window) */
    uint64_t draft_bytes_per_token; /* speculative decoding: the draft's (or MTP layers') KV of a
                                     * token, one GPU, in both figures above; every user token */
    /* State layers (core/spec.h): a fixed state per sequence, no KV. Heads
     * split over tp (at least one each); groups split when tp divides them,
     * else one per GPU (vLLM's extra_groups_for_head_shards). */
    uint32_t state_layers;
    uint32_t state_heads_per_gpu, state_groups_per_gpu;
    uint64_t state_conv_values, state_ssm_values; /* one state layer, one GPU */
    enum dtype state_conv_dtype, state_ssm_dtype;
    uint64_t state_bytes_per_layer; /* conv + recurrent state, one layer, one GPU */
    uint64_t state_bytes;           /* one sequence, every state layer, one GPU */
};

/* Tokens a user holds privately, and the shared prefix holds once, in a
 * global and in a windowed layer, at length len. */
struct token_split {
    uint64_t user_global, user_windowed, prefix_global, prefix_windowed;
};

/* The cost for scenario s split over tp GPUs; false when a product passes
 * 64 bits.
 *
 * DeepSeek sparse attention (V3.2) keeps, per token per layer, an indexer key
 * of index_head_dim FP8 values and one fp32 scale per 128 of them, whatever the
 * cache precision (vLLM models/deepseek_v2.py Indexer: head_dim + head_dim //
 * quant_block_size * 4 bytes in DeepseekV32IndexerCache; SGLang
 * NSATokenToKVPool, the same bytes in index_k_with_scale_buffer). An FP8 latent
 * is stored in FlashMLA's sparse layout: kv_lora_rank FP8 values, an fp32 scale
 * per 128 of them and the rope dims in bf16, 656 B for DeepSeek (vLLM
 * FlashMLASparseBackend.get_kv_cache_shape, "fp8_ds_mla"). */
bool kvcost_compute(const struct scenario *s, uint32_t tp, struct kv_cost *c);

/* Gemma 4 (kvcost_global.c): true when the model's global layers have
 * dimensions of their own; kvcost_global_layers sets their bytes (the key
 * that is the value stored once), kvcost_global_rows stores `rows` rows a
 * head instead (an engine that keeps K and V apart: 2) and kvcost_totals sums
 * the layers again into the per-token figures. */
bool kvcost_has_global_dims(const struct model_spec *m);
void kvcost_global_layers(const struct scenario *s, struct kv_cost *c);
void kvcost_global_rows(struct kv_cost *c, uint32_t rows);
void kvcost_totals(struct kv_cost *c);

/* DeepSeek V4 (kvcost_compressed.c): true when the model has compressed
 * layers; kvcost_compressed_layers sets the window row and the compressed
 * rows on one GPU (one KV head, on every GPU) and the compressor's state. */
bool kvcost_has_compressed(const struct model_spec *m);
void kvcost_compressed_layers(const struct scenario *s, struct kv_cost *c);
/* ... and the tokens after which every compressed layer has whole rows (the
 * ratios' least common multiple: kv_cost compressed_span); 0 without them. */
uint64_t kvcost_compressed_span(const struct model_spec *m);

/* Sets the state's precisions (an engine's rule) and its bytes. */
void kvcost_state_dtypes(struct kv_cost *c, enum dtype conv, enum dtype ssm);

/* Adds a draft's (or the MTP layers') KV of a token on one GPU
 * (core/specdec.h) to both per-token figures. */
void kvcost_add_draft(struct kv_cost *c, uint64_t draft_bytes_per_token);


/* The indexer key's bytes of one token in one layer (132 for 128 dims); 0
 * without sparse attention. */
uint64_t kvcost_index_bytes(const struct model_spec *m);

/* A model's KV bytes per token on one GPU, all layers at full length, in
 * the cache precision it computes in (what catalogues and pickers show). */
uint64_t kvcost_model_bytes_per_token(const struct model_spec *m);

/* ceil(a / b); 0 when b is 0. Inline, as the next two: every plan calls
 * them dozens of times. */
static inline uint64_t kv_ceil_div(uint64_t a, uint64_t b)
{
    return b ? a / b + (a % b != 0) : 0;
}

/* a x b and a + b, saturating at UINT64_MAX instead of wrapping. */
static inline uint64_t kv_sat_mul(uint64_t a, uint64_t b)
{
    uint64_t out;
    return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}

static inline uint64_t kv_sat_add(uint64_t a, uint64_t b)
{
    uint64_t out;
    return __builtin_add_overflow(a, b, &out) ? UINT64_MAX : out;
}

/* A windowed layer keeps tokens [max(0, len - window), len); the part of the
 * prefix still inside that range is shared, the rest of the window private.
 * Inline, as kvcost_bytes: a plan calls each several times. */
static inline struct token_split kvcost_split(const struct kv_cost *c, uint64_t len,
                                              uint64_t prefix)
{
    struct token_split t = {0};
    if (prefix > len)
        prefix = len;
    t.user_global = len - prefix;
    t.prefix_global = prefix;
    if (c->windowed_layers > 0) {
        uint64_t w = c->window_tokens;
        uint64_t start = len > w ? len - w : 0;
        uint64_t shared = prefix > start ? prefix - start : 0;
        t.user_windowed = (len < w ? len : w) - shared;
        t.prefix_windowed = prefix < w ? prefix : w;
    }
    return t;
}

/* Bytes on one GPU of `tokens` tokens' compressed rows in every compressed
 * layer (DeepSeek V4): ceil(tokens x span bytes / span), saturating; 0
 * without. */
static inline uint64_t kvcost_compressed_bytes(const struct kv_cost *c, uint64_t tokens)
{
    if (c->compressed_span == 0)
        return 0;
    uint64_t all = kv_sat_mul(c->compressed_span_bytes, tokens);
    return all == UINT64_MAX ? all : kv_ceil_div(all, c->compressed_span);
}

/* Bytes on one GPU of `global` tokens in each global layer and `windowed`
 * tokens in each windowed layer (saturating at UINT64_MAX); the compressed
 * rows of DeepSeek V4 are of every token, as a global layer's. */
static inline uint64_t kvcost_bytes(const struct kv_cost *c, uint64_t global, uint64_t windowed)
{
    uint64_t g = kv_sat_mul(c->global_layer_bytes, global);
    if (c->windowed_layers == 0 && c->draft_bytes_per_token == 0 && c->compressed_span == 0)
        return g; /* most models: no more terms */
    uint64_t w = kv_sat_mul(kv_sat_mul(c->bytes_per_layer, c->windowed_layers), windowed);
    /* a draft holds every token of the user (its layers are full attention) */
    uint64_t dr = kv_sat_mul(c->draft_bytes_per_token, global);
    return kv_sat_add(kv_sat_add(kv_sat_add(g, w), dr), kvcost_compressed_bytes(c, global));
}

#endif
