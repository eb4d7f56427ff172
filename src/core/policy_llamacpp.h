/* policy_llamacpp: what the engines that run llama.cpp's server take from
 * its rule (policy_llamacpp.c): the cost of a cell, the budget under their
 * own words and default slot count, and llama-server's log lines. Ollama
 * (policy_ollama.c) launches llama-server itself and budgets as it does. */
#ifndef KVPLAN_CORE_POLICY_LLAMACPP_H
#define KVPLAN_CORE_POLICY_LLAMACPP_H

#include "policy.h"

/* How a profile over llama-server names the budget's terms. */
struct llamacpp_words {
    const char *title;         /* the budget row: "llama.cpp budget" */
    const char *margin;        /* its margin term: "--fit margin" */
    const char *slots;         /* the slot count's name in the notes: "-np" */
    uint32_t default_slots;    /* the slots without --parallel; 0: the most that fit */
    const char *default_note;  /* the users row's note then */
};

/* llama.cpp's cache of one context (policy_llamacpp_cells.c): its types,
 * the bytes of a cell of one layer, and the layers, window, state and
 * draft it holds cells for. */
struct lcpp {
    enum dtype tk, tv;
    uint64_t k_row, v_row;       /* bytes of one cell of one layer */
    uint64_t i_row;              /* DeepSeek-V3.2: the indexer's key cell, K type (0 without) */
    uint64_t global, windowed;   /* layers */
    uint64_t window;
    uint64_t draft;              /* bytes of one cell of every draft layer (own context per slot) */
    uint64_t state;              /* one slot's recurrent cell, every state layer, all GPUs */
    uint64_t ubatch;             /* n_ubatch (core/scenario.h scenario_ubatch) */
};

/* A cell of one layer in llama.cpp's types, from the scenario and its cost. */
void llamacpp_layer_cells(const struct scenario *s, const struct kv_cost *k, struct lcpp *l);

/* The cells of a slot of ctx tokens among np (padded to 256), the windowed
 * layers' of such a slot, and the whole cache of np slots, all GPUs. */
uint64_t llamacpp_slot_cells(uint64_t ctx, uint64_t np);
uint64_t llamacpp_swa_slot_cells(const struct lcpp *l, uint64_t slot);
uint64_t llamacpp_cache_total(const struct lcpp *l, uint64_t ctx, uint64_t np);

/* A cell of every layer in llama.cpp's cache types (the descriptor's cell_cost). */
void llamacpp_cell_cost(const struct scenario *s, struct kv_cost *k);

/* llama-server's budget: the card less --fit's margin, compute buffers, the
 * weights (or the split --fit finds), then the slots' cells. */
void llamacpp_budget(const struct policy_ctx *c, const struct llamacpp_words *w);

/* A block given (core/engine_desc.h refuses_block): llama-server has none
 * to size, its cache being cells of one token. */
const char *llamacpp_refuses_block(const struct scenario *s, char *buf, size_t size);

/* llama-server's startup lines of the cache, and llama.cpp's note. */
void llamacpp_log(const struct policy_ctx *c);

/* Ollama's default num_ctx for the GPUs' total memory (less
 * OLLAMA_GPU_OVERHEAD), summed: 4,096, 32,768 or 262,144. */
uint64_t ollama_default_context(uint64_t total_vram);

#endif
