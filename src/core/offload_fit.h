/* offload_fit: llama.cpp's split of a model between the GPUs and host
 * memory (core/offload.h): the bytes each side holds for an -ngl and a
 * --n-cpu-moe, and, when neither is given and the model does not fit on the
 * GPUs whole, the search llama.cpp's --fit makes (common/fit.cpp,
 * llama_params_fit): for a MoE model the experts of the first layers go to
 * host memory first, then whole layers; a dense model gives up whole layers
 * from the first. Its explain rows, and the host's part of a decode step. */
#ifndef KVPLAN_CORE_OFFLOAD_FIT_H
#define KVPLAN_CORE_OFFLOAD_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "offload.h"
#include "steptime.h"

/* The weights of the split of -ngl `ngl`, --n-cpu-moe `n_cpu_moe` (and
 * --no-kv-offload as the scenario asks): o's weights and layer figures;
 * the cache's and the host check are offload_cache's. */
void offload_layers(const struct scenario *s, const struct placement *l, uint32_t ngl,
                    uint32_t n_cpu_moe, struct offload_split *o);

/* Of a replica's cache of `total` bytes, the part on its GPUs (all of it
 * when nothing is offloaded). */
uint64_t offload_kv_gpu(const struct offload_split *o, uint64_t total);

/* The split for the scenario: as asked, or searched. `room` is what one GPU
 * has for weights and cache after the budget's margin and the `buffers`,
 * `cache` a replica's cache of the slots the search assumes (those given,
 * else one); on unified memory each candidate's host room is its own
 * (offload_host_room). Returns false, o zeroed, when nothing is to go to host memory: no
 * option asks it and the model fits whole, or no split fits either; then
 * *tried (zeroed, placed false, when the search found one or did not run)
 * is the split the search came closest with: the first whose GPU side
 * fits (--fit's choice, the host what binds), else the least short on the
 * GPU; its gpu_lack_bytes and host figures say which binds. */
bool offload_choose(const struct scenario *s, const struct placement *l, uint64_t room,
                    uint64_t cache, uint64_t buffers, struct offload_split *o,
                    struct offload_split *tried);

/* Every layer on the GPUs (-ngl all, as llama.cpp's default when the model
 * fits): o's figures with only the token embedding in host memory, active
 * false. False, o zeroed, when the model has no layers to place. */
bool offload_whole(const struct scenario *s, const struct placement *l, struct offload_split *o);

/* The host memory a split has: the node's (o->host_memory_bytes); on
 * unified memory what the GPU's part leaves of the RAM less macOS's reserve,
 * the GPU's part its weights, `gpu_kv` bytes of cache and its compute
 * buffers (gpu_part_bytes), all one GPU's: the CPU layers and the GPU's
 * share one RAM, so a split that moves a layer to the GPU gives the host
 * less room and needs less of it. */
uint64_t offload_host_room(const struct offload_split *o, uint64_t gpu_kv);
uint64_t offload_gpu_part(const struct offload_split *o, uint64_t gpu_kv);

/* Whether `host_bytes` a server, times the servers of a node, fit the
 * node's host memory (or it is unknown), beside `gpu_kv` bytes of cache on
 * each GPU (offload_host_room). */
bool offload_host_holds(const struct offload_split *o, uint64_t host_bytes, uint64_t gpu_kv);

/* Sets o's cache figures for a replica's cache of `total` bytes and one
 * user's of `user_avg` at the average length, its host total and check. */
void offload_cache(struct offload_split *o, uint64_t total, uint64_t user_avg);

/* The pool row of llama.cpp with a split: budget - the GPU's weights -
 * buffers; sets the budget's pool (or shortfall), non-KV and runtime bytes,
 * weights_fit and fits, after the split's rows (offload_rows). */
void offload_pool(const struct policy_ctx *c, uint64_t budget, uint64_t buffers,
                  const struct offload_split *o);

/* The rows "offload_layers" (an active split only), "offload_gpu_weights"
 * and "offload_host_weights", and, once offload_cache has run,
 * "offload_host_kv" (active only) and "offload_host_memory" (nothing
 * without c->x or a placed split). */
void offload_rows(const struct policy_ctx *c, const struct offload_split *o);
void offload_host_rows(const struct policy_ctx *c, const struct offload_split *o);

/* "-ngl 61 of 81: 20 layers on the CPU" and what else is in host memory. */
void offload_sentence(const struct offload_split *o, char *buf, size_t size);

/* The host's part of a step model: what a decode step reads in host memory
 * (and a prefill copies to the GPU), and the rates it reads at. */
void offload_step(const struct offload_split *o, struct step_model *m, struct step_machine *hw);

#endif
