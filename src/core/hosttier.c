/* hosttier: the second tier of the KV cache, in host memory (--host-kv).
 *
 * How the engines size it, read at their source:
 * - vLLM (vllm/config/kv_offloading.py, NativeOffloadingParser.
 *   configure_kv_transfer): --kv-offloading-size is GiB for the whole engine,
 *   split evenly over its TP x PP worker ranks (kv_bytes_per_rank); each
 *   rank's CPU blocks are those bytes over one offloaded block's bytes
 *   (vllm/v1/kv_offload/, CPUOffloadingSpec).
 * - SGLang (python/sglang/srt/mem_cache/memory_pool_host.py, since moved to
 *   mem_cache/pool_host/base.py: HostKVCache.__init__): each TP rank's host
 *   pool mirrors its own device pool layout; --hicache-size GB (1e9 bytes)
 *   over that rank's bytes per token, or --hicache-ratio x the device pool's
 *   tokens (default 2).
 * - Both write caches through to host memory as they are computed (vLLM
 *   offloading_connector.py OffloadingConnectorScheduler._get_reqs_to_store
 *   stores every newly filled block; SGLang hiradix_cache.py HiRadixCache
 *   backs a node up at its first hit under the write_through policy,
 *   write_through_threshold 1; write_through is the default of
 *   hicache_write_policy in server_args.py, where hicache_size is a whole
 *   number of GB), so the host pool also holds copies of the users on the GPU.
 * - llama.cpp has no second tier: --no-kv-offload (-nkvo, cparams.offload_kqv
 *   false) puts the whole cache in host memory instead (src/llama-kv-cache.cpp,
 *   the llama_kv_cache constructor picks the CPU buffer type for every layer
 *   unless offload), which kvplan does not model.
 * - TensorRT-LLM's host offloading (KvCacheConfig host_cache_size) was not
 *   read at its source here: the generic tier's arithmetic is used.
 *
 * --host-kv is therefore per GPU (one rank's pool); a parked user costs what
 * the engine allocates for its tokens in use on one GPU, and comes back over
 * that GPU's own host link while the other GPUs of the replica bring theirs. */
#include "hosttier.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"

/* How the engine sizes the pool, for the users row's note. */
static void pool_note(const struct scenario *s, const struct placement *l, char *note,
                      size_t size)
{
    const struct engine_host *h = &engine_desc(s->engine.kind)->host;
    if (h->note)
        h->note(s, l, note, size);
    else
        snprintf(note, size, "%s", h->words ? h->words : "");
}

uint64_t host_tier_pool_bytes(const struct scenario *s)
{
    const struct engine_host *h = &engine_desc(s->engine.kind)->host;
    return h->pool_bytes ? h->pool_bytes(s) : s->host_kv_bytes;
}

/* The parked caches are sized at the tokens in use (the pool's allocation
 * of them): users on the GPUs are counted the same way when fewer tokens
 * than the context are in use. */
static bool host_paged_basis(const struct speed_basis *b)
{
    return b->layout->avg_context_tokens < b->layout->context_tokens &&
           b->totals->max_users_paged > 0;
}

static void users_rows(const struct scenario *s, const struct speed_basis *b,
                       const struct host_tier *h, struct explain *x)
{
    const struct placement *l = b->layout;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const char *holder = e->server ? e->name : "the pool";
    char note[200], t[32];
    struct explain_row *row = explain_row_begin(x, "host_user", "KV per parked user", "per GPU");
    units_format_int(l->avg_context_tokens, t, sizeof t);
    if (l->prefix_tokens > 0 && l->prefix_tokens < l->avg_context_tokens) {
        char pre[32];
        units_format_int(l->prefix_tokens, pre, sizeof pre);
        snprintf(note, sizeof note, "its %s tokens in use less the %s-token shared prefix "
                 "(kept once on the GPU), as %s allocates them", t, pre, holder);
    } else {
        snprintf(note, sizeof note, "its %s tokens in use, as %s allocates them", t, holder);
    }
    if (!e->server)
        explain_ref(x, row, "kv_per_user_paged", "paged");
    else
        explain_term(row, (long double)h->user_bytes_per_gpu, XU_BYTES, "KV of one user");
    explain_row_end(x, row, XU_BYTES, 0, note);

    /* under DP attention each rank parks its own users whole */
    uint32_t ranks = l->dp_attention ? l->tp : 1;
    row = explain_row_begin(x, "host_users", "Users in host pool",
                            l->replicas > 1 ? "all replicas" : "");
    int n = 0;
    if (l->replicas > 1) {
        units_format_int(h->users_per_replica, t, sizeof t);
        n = snprintf(note, sizeof note, "%s per replica; ", t);
    }
    pool_note(s, l, note + n, sizeof note - (size_t)n);
    if (e->host.none) {
        explain_row_end(x, row, XU_COUNT, 0, note);
    } else if (!h->serving) {
        explain_row_end(x, row, XU_COUNT, 0, "no user fits on the GPUs: no server runs to park "
                                             "caches for");
    } else if (h->user_bytes_per_gpu == 0) {
        explain_row_end(x, row, XU_COUNT, 0, "no user's cache to park");
    } else {
        explain_term(row, (long double)h->pool_bytes_per_gpu, XU_BYTES,
                     e->host.pool_term ? e->host.pool_term : "host pool (--host-kv)");
        explain_ref(x, row, "host_user", "per user");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_FLOOR);
        if (ranks > 1) {
            explain_term(row, ranks, XU_COUNT, "attention ranks");
            explain_op(row, XOP_MUL);
        }
        if (l->replicas > 1) {
            explain_term(row, l->replicas, XU_COUNT, "replicas");
            explain_op(row, XOP_MUL);
        }
        explain_row_end(x, row, XU_COUNT, 0, note);
    }
    row = explain_row_begin(x, "host_beyond", "Parked beyond GPUs", "all replicas");
    explain_ref(x, row, "host_users", "in host memory");
    /* on the same basis as the parked caches: the tokens in use */
    explain_ref(x, row, host_paged_basis(b) ? "users_paged" : "users", "on the GPUs");
    explain_op(row, XOP_SUB);
    explain_term(row, 0, XU_COUNT, "");
    explain_op(row, XOP_MAX);
    explain_row_end(x, row, XU_COUNT, 0,
                    "the engines write caches through, so host memory also holds the "
                    "resident users'");
}

static void time_rows(const struct scenario *s, const struct speed_basis *b, struct host_tier *h,
                      struct explain *x)
{
    const struct placement *l = b->layout;
    struct explain_row *row = explain_row_begin(x, "host_reload", "Reload one user", "");
    if (h->reload_seconds <= 0) {
        explain_row_end(x, row, XU_SECONDS, 0,
                        h->link_bytes_per_s == 0 ? "no host link figure for this GPU"
                                                 : "no cache to reload");
    } else {
        char note[EXPLAIN_TEXT_MAX / 2];
        snprintf(note, sizeof note, "every GPU over its own link at its peak, a lower bound: %s",
                 s->gpu.host_link_basis);
        explain_ref(x, row, "host_user", "per GPU");
        explain_term(row, (long double)h->link_bytes_per_s, XU_LINK_BYTES_PER_S,
                     "host link each way");
        explain_op(row, XOP_DIV);
        explain_row_end(x, row, XU_SECONDS, 0, note);
    }
    /* the shared prefix stays cached on the GPU: only the user's own tokens */
    uint64_t own = l->avg_context_tokens > l->prefix_tokens
                       ? l->avg_context_tokens - l->prefix_tokens
                       : l->avg_context_tokens;
    h->recompute_seconds =
        speed_recompute_seconds(s, b, own, x, "host_recompute", "Recompute one user");
    if (!h->has_hit_rate)
        return;
    row = explain_row_begin(x, "host_restore", "Returning user", "");
    if (h->reload_seconds <= 0 || h->recompute_seconds <= 0) {
        explain_row_end(x, row, XU_SECONDS, 0, "needs both the reload and the recompute time");
        return;
    }
    h->restore_seconds =
        h->hit_rate * h->reload_seconds + (1.0 - h->hit_rate) * h->recompute_seconds;
    explain_term(row, h->hit_rate, XU_FRACTION, "hit rate");
    explain_ref(x, row, "host_reload", "reload");
    explain_op(row, XOP_MUL);
    explain_term(row, 1.0 - h->hit_rate, XU_FRACTION, "misses");
    explain_ref(x, row, "host_recompute", "recompute");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_row_end(x, row, XU_SECONDS, 0,
                    "the expected time to restore a returning user's cache: found in host "
                    "memory at the hit rate, else computed again");
}

void host_tier_compute(const struct scenario *s, const struct speed_basis *b,
                       struct host_tier *out, struct explain *x)
{
    const struct placement *l = b->layout;
    const struct plan_budget *g = b->budget;
    struct host_tier *h = out;
    memset(h, 0, sizeof *h);
    if (s->host_kv_bytes == 0)
        return;
    h->present = true;
    /* the pool the launch line asks for (SGLang: whole GB) */
    h->pool_bytes_per_gpu = host_tier_pool_bytes(s);
    h->user_bytes_per_gpu = g->user_bytes_paged_per_gpu;
    /* parked caches need a server: none when no user fits, or an engine without a tier */
    const struct engine_host *eh = &engine_desc(s->engine.kind)->host;
    h->serving = g->fits && b->totals->max_users > 0;
    bool tier = h->serving && !eh->none;
    uint32_t ranks = l->dp_attention ? l->tp : 1;
    h->users_per_replica = tier && h->user_bytes_per_gpu
                               ? kv_sat_mul(h->pool_bytes_per_gpu / h->user_bytes_per_gpu, ranks)
                               : 0;
    /* an engine that asks for more host tokens than device tokens (SGLang) */
    h->below_device = tier && eh->beyond_device && b->cost->bytes_per_token &&
                      h->pool_bytes_per_gpu / b->cost->bytes_per_token <= g->engine.units;
    h->users = kv_sat_mul(h->users_per_replica, l->replicas);
    uint64_t resident = host_paged_basis(b) ? b->totals->max_users_paged : b->totals->max_users;
    h->beyond_gpu = h->users > resident ? h->users - resident : 0;
    h->link_bytes_per_s = s->gpu.host_link_bytes_per_s;
    if (h->link_bytes_per_s && h->user_bytes_per_gpu)
        h->reload_seconds = (double)h->user_bytes_per_gpu / (double)h->link_bytes_per_s;
    h->has_hit_rate = s->has_prefix_hit_rate;
    h->hit_rate = s->has_prefix_hit_rate ? s->prefix_hit_rate : 0;
    users_rows(s, b, h, x);
    time_rows(s, b, h, x);
}
