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

/* A cell of every layer in llama.cpp's cache types (the descriptor's cell_cost). */
void llamacpp_cell_cost(const struct scenario *s, struct kv_cost *k);

/* llama-server's budget: the card less --fit's margin, compute buffers, the
 * weights (or the split --fit finds), then the slots' cells. */
void llamacpp_budget(const struct policy_ctx *c, const struct llamacpp_words *w);

/* llama-server's startup lines of the cache, and llama.cpp's note. */
void llamacpp_log(const struct policy_ctx *c);

/* Ollama's default num_ctx for the GPUs' total memory (less
 * OLLAMA_GPU_OVERHEAD), summed: 4,096, 32,768 or 262,144. */
uint64_t ollama_default_context(uint64_t total_vram);

#endif
