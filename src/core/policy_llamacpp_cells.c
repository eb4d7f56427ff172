/* policy_llamacpp_cells: llama.cpp's cache cells (policy_llamacpp.h): the
 * bytes of a cell of one layer in the cache's types, the cells a slot
 * holds (padded as llama-context.cpp pads them, the windowed layers' as
 * llama-kv-cache-iswa.cpp sizes them), and the whole cache of the slots.
 * Upstream: src/llama-context.cpp, src/llama-kv-cache.cpp,
 * src/llama-kv-cache-iswa.cpp, src/llama-memory-recurrent.cpp. */
#include "engine_desc.h"
#include "policy.h"
#include "policy_llamacpp.h"

#include <string.h>

/* A cell of one layer in llama.cpp's types (-ctk, -ctv; f16 unless told):
 * K and V of every head, as layers, not heads, are split across the GPUs;
 * the layer counts, window, state and draft as the plan's cost holds them. */
void llamacpp_layer_cells(const struct scenario *s, const struct kv_cost *k, struct lcpp *l)
{
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    memset(l, 0, sizeof *l);
    l->tk = s->kv_dtype != DTYPE_AUTO ? s->kv_dtype : engine_llamacpp.cache_default;
    l->tv = f->v_dtype != DTYPE_AUTO ? f->v_dtype : l->tk;
    l->ubatch = scenario_ubatch(s);
    if (m->attention == ATTENTION_MLA && f->rule == RULE_LLAMACPP_PRE_MLA) {
        /* before MLA support: K and V expanded per head */
        l->k_row = dtype_bytes_for(l->tk, (uint64_t)m->attention_heads *
                                              (m->qk_nope_head_dim + m->qk_rope_head_dim));
        l->v_row = dtype_bytes_for(l->tv, (uint64_t)m->attention_heads * m->v_head_dim);
    } else if (m->attention == ATTENTION_MLA) {
        /* the latent as K; V is a view of it (the V-less cache of January 2026,
         * src/llama-kv-cache.cpp with llama_hparams::is_mla: no V tensors). From
         * MLA support (April 2025) until then the cache kept a V row too, of
         * n_embd_head_v = kv_lora_rank values. */
        l->k_row = dtype_bytes_for(l->tk, (uint64_t)m->kv_lora_rank + m->qk_rope_head_dim);
        if (f->rule == RULE_LLAMACPP_MLA_KV || f->rule == RULE_LLAMACPP_OUTPUT_FIRST)
            l->v_row = dtype_bytes_for(l->tv, m->kv_lora_rank);
        /* V3.2: llama_kv_cache_dsa (src/llama-kv-cache-dsa.cpp) builds a second
         * llama_kv_cache for the lightning indexer with one KV head of
         * indexer_head_size, in the same K type and with as many cells */
        l->i_row = dtype_bytes_for(l->tk, m->index_head_dim);
    } else {
        uint64_t kvh = s->kv_heads ? s->kv_heads : m->kv_heads;
        l->k_row = dtype_bytes_for(l->tk, kvh * m->head_dim);
        l->v_row = dtype_bytes_for(l->tv, kvh * m->head_dim);
    }
    l->global = k->global_layers;
    l->windowed = k->windowed_layers;
    l->window = k->window_tokens;
    /* State layers: src/llama-model.cpp (create_memory) builds a hybrid
     * memory whose recurrent part (src/llama-memory-recurrent.cpp) holds
     * max(1, n_seq_max) cells, one per slot, of n_embd_r() + n_embd_s()
     * values per layer (src/llama-hparams.cpp: (d_conv - 1) x (d_inner +
     * 2 x n_group x d_state) and d_state x d_inner) in F32; the KV part
     * covers the attention layers only. */
    l->state = k->state_bytes;
    l->draft = k->draft_bytes_per_token;
}

/* The plan's per-token cost is llama.cpp's, all GPUs together: a cell of
 * every head in the cache's types (the plan runs this once kvcost_compute
 * has run at attention TP 1, before the draft's KV is added). */
void llamacpp_cell_cost(const struct scenario *s, struct kv_cost *k)
{
    struct lcpp l;
    llamacpp_layer_cells(s, k, &l);
    k->bytes_per_layer = l.k_row + l.v_row + l.i_row;
    k->index_bytes = l.i_row;
    k->latent_bytes = l.i_row ? l.k_row : 0;
    k->latent_fp8_blocks = false;
    k->global_bytes_per_layer = k->bytes_per_layer; /* Gemma 4's global layers are refused */
    kvcost_totals(k);
}

/* llama-context.cpp: n_ctx = GGML_PAD(-c, 256); with -np given the cache is
 * not unified and each slot (stream) gets GGML_PAD(n_ctx / n_seq, 256) cells.
 * kvplan's launch line always passes -c ctx x np and -np np. */
static uint64_t pad256(uint64_t n)
{
    return kv_ceil_div(n, 256) * 256;
}

uint64_t llamacpp_slot_cells(uint64_t ctx, uint64_t np)
{
    return pad256(pad256(kv_sat_mul(ctx, np)) / (np ? np : 1));
}

/* llama-kv-cache-iswa.cpp: the windowed cache of a stream holds
 * GGML_PAD(min(size, n_swa x (unified ? n_seq : 1) + n_ubatch), 256) cells;
 * not unified (-np given), that is per slot: min(slot cells, PAD(n_swa + n_ubatch)). */
uint64_t llamacpp_swa_slot_cells(const struct lcpp *l, uint64_t slot)
{
    if (l->windowed == 0)
        return 0;
    uint64_t want = pad256(kv_sat_add(l->window, l->ubatch ? l->ubatch : OFFLOAD_UBATCH));
    return want < slot ? want : slot;
}

/* The whole cache of np slots of ctx tokens, summed over the GPUs. */
uint64_t llamacpp_cache_total(const struct lcpp *l, uint64_t ctx, uint64_t np)
{
    uint64_t slot = llamacpp_slot_cells(ctx, np);
    uint64_t cells = kv_sat_add(kv_sat_mul(l->global, slot),
                                kv_sat_mul(l->windowed, llamacpp_swa_slot_cells(l, slot)));
    /* server.cpp init: each slot's draft context holds the slot's cells; a
     * recurrent cell a slot holds the state layers' states */
    return kv_sat_add(kv_sat_add(kv_sat_mul(kv_sat_mul(cells, np), l->k_row + l->v_row + l->i_row),
                                 kv_sat_mul(kv_sat_mul(slot, np), l->draft)),
                      kv_sat_mul(np, l->state));
}

