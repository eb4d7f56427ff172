/* offload_fit: the bytes of llama.cpp's split between the GPUs and host
 * memory, the --fit search over it, its rows and its part of a step. */
#include "offload_fit.h"
#include "engine_desc.h"
#include "kvcost.h"
#include "policy.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* common/common.h: n_ubatch 512 (--ubatch: scenario_ubatch); ggml-cuda.cu ggml_backend_cuda_device_offload_op:
 * an op whose weights are in host memory runs on the GPU from a batch of
 * op_offload_min_batch_size (32, GGML_OP_OFFLOAD_MIN_BATCH) tokens */
enum { OP_OFFLOAD_MIN_BATCH = 32 };

/* Bytes of `params` parameters at the precision of the weights outside the
 * routed experts (a checkpoint with MXFP4 experts keeps the rest in bf16). */
static uint64_t dense_bytes_of(const struct scenario *s, const struct placement *l, uint64_t params)
{
    const struct model_spec *m = &s->model;
    uint64_t rest = l->weights_bytes > l->expert_bytes ? l->weights_bytes - l->expert_bytes : 0;
    uint64_t rest_params = m->params > m->expert_params ? m->params - m->expert_params : 0;
    if (rest_params == 0)
        return 0;
    return (uint64_t)((long double)rest * params / rest_params + 0.5L);
}

/* With a GGUF's own bytes by block (import-gguf; core/spec.h) and the
 * weights as the file holds them, the split from those: the GPUs hold
 * blocks [start, n) but the experts of those below `below`, and the output
 * layer when -ngl passes n; the averages shown are the blocks'. */
static bool exact_layers(const struct scenario *s, const struct placement *l, uint32_t start,
                         uint32_t below, struct offload_split *o)
{
    const struct model_spec *m = &s->model;
    uint32_t n = m->layers;
    if (n == 0 || m->layer_bytes_count != n || l->weights_bytes != m->weights_bytes ||
        l->expert_padding_bytes)
        return false;
    uint64_t all = 0, experts = 0, gpu = 0, kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bytes = spec_layer_bytes(m, i), exps = spec_layer_expert_bytes(m, i);
        all += bytes;
        experts += exps;
        if (i < start)
            continue;
        gpu += bytes - (i < below ? exps : 0);
        kept += i < below ? 0 : exps;
    }
    uint32_t moe = spec_moe_layers_in(m, 0, n);
    o->exact = true;
    o->embed_bytes = m->embed_bytes;
    o->output_bytes = m->output_bytes;
    o->layer_bytes = all / n;
    o->layer_expert_bytes = moe ? experts / moe : 0;
    o->layer_rest_bytes = (all - experts) / n;
    o->gpu_layers_bytes = gpu;
    if (o->output_on_gpu)
        gpu = kv_sat_add(gpu, o->output_bytes);
    uint64_t gpus = l->tp ? l->tp : 1;
    uint64_t draft = l->weights_bytes_per_gpu - placement_share(l, l->weights_bytes);
    o->gpu_weights_bytes = kv_sat_add(kv_ceil_div(gpu, gpus), draft);
    o->gpu_expert_bytes = kv_ceil_div(kept, gpus);
    o->host_weights_bytes = l->weights_bytes > gpu ? l->weights_bytes - gpu : 0;
    o->host_expert_bytes = experts - kept;
    return true;
}

/* The servers of a node (core/offload.h): a server spans tp x pp GPUs, a
 * node holds spec_gpu_node's (8; a GB200 or GB300 NVL72 tray 4); those decoding at once, fewer than them
 * only when the scenario's concurrency is. A Mac holds one GPU. */
static void node_share(const struct scenario *s, const struct placement *l, struct offload_split *o)
{
    uint64_t span = (uint64_t)(l->tp ? l->tp : 1) * (l->pp ? l->pp : 1);
    uint64_t node = spec_gpu_node(&s->gpu), per_node = span < node ? node / span : 1;
    if (s->gpu.unified_bytes)
        per_node = 1; /* a Mac is its own host: its GPU and its CPU share one memory */
    uint64_t reps = l->replicas ? l->replicas : 1;
    o->node_servers = (uint32_t)(reps < per_node ? reps : per_node);
    o->host_readers = s->concurrency && s->concurrency < o->node_servers ? (uint32_t)s->concurrency
                                                                          : o->node_servers;
}

uint64_t offload_gpu_part(const struct offload_split *o, uint64_t gpu_kv)
{
    return kv_sat_add(kv_sat_add(o->gpu_weights_bytes, gpu_kv), o->gpu_buffers_bytes);
}

uint64_t offload_host_room(const struct offload_split *o, uint64_t gpu_kv)
{
    if (o->unified_pool_bytes == 0)
        return o->host_memory_bytes;
    uint64_t gpu = offload_gpu_part(o, gpu_kv);
    return o->unified_pool_bytes > gpu ? o->unified_pool_bytes - gpu : 0;
}

bool offload_host_holds(const struct offload_split *o, uint64_t host_bytes, uint64_t gpu_kv)
{
    uint64_t servers = o->node_servers ? o->node_servers : 1;
    return !o->host_memory_known || kv_sat_mul(host_bytes, servers) <= offload_host_room(o, gpu_kv);
}

/* Whether -ngl offloads the output layer first: llama.cpp from PR #18148
 * ("llama: offload output layer to GPU first", December 2025; the rows
 * llama.cpp@output-first and on). src/llama-model.cpp load_tensors then has
 * i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0) over the layers 0..n_layer
 * (the output layer is layer n_layer), so -ngl N >= 1 puts the output layer
 * and the last N - 1 repeating layers on the GPUs; before it, i_gpu_start =
 * max(n_layer - n_gpu_layers, 0): the last N layers, the output layer only
 * from N = n_layer + 1 (the descriptor's ngl_last_n). Ollama from 0.30
 * starts a 2026 llama-server. */
static bool output_first(const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    return !(e && e->ngl_last_n && e->ngl_last_n(s->engine.rule));
}

void offload_layers(const struct scenario *s, const struct placement *l, uint32_t ngl,
                    uint32_t n_cpu_moe, struct offload_split *o)
{
    const struct model_spec *m = &s->model;
    memset(o, 0, sizeof *o);
    o->placed = o->active = true;
    o->n_layer = m->layers;
    uint32_t n = m->layers;
    o->ngl = ngl > n + 1 ? n + 1 : ngl;
    o->output_first = output_first(s);
    if (o->output_first) {
        o->gpu_layers = o->ngl ? o->ngl - 1 : 0;
        o->output_on_gpu = o->ngl > 0;
    } else {
        o->gpu_layers = o->ngl > n ? n : o->ngl;
        o->output_on_gpu = o->ngl > n;
    }
    o->n_cpu_moe = n_cpu_moe > n ? n : n_cpu_moe;
    o->kv_on_host = s->offload.no_kv_offload;
    /* the token embedding and the output layer: vocab x hidden each */
    uint64_t table = (uint64_t)m->vocab_size * m->hidden_size;
    o->embed_bytes = o->output_bytes = dense_bytes_of(s, l, table);
    uint64_t whole = l->weights_bytes;
    uint64_t ends = kv_sat_add(o->embed_bytes, o->output_bytes);
    uint64_t layers = whole > ends ? whole - ends : 0;
    o->layer_bytes = n ? layers / n : 0;
    /* the experts sit in the MoE layers only (core/spec.h: DeepSeek's first
     * dense layers, Jamba's every other layer), each of those a share */
    uint32_t moe = spec_moe_layers_in(m, 0, n);
    o->layer_expert_bytes = moe ? l->expert_bytes / moe : 0;
    o->moe_layers_dense = moe && moe != n;
    uint64_t spread = n ? l->expert_bytes / n : 0;
    o->layer_rest_bytes = o->layer_bytes > spread ? o->layer_bytes - spread : 0;
    /* layers [n - gpu_layers, n) are on the GPUs; of those, the experts of
     * MoE layers below --n-cpu-moe stay in host memory */
    uint32_t start = n - o->gpu_layers;
    uint32_t below = o->n_cpu_moe > start ? o->n_cpu_moe : start;
    o->moe_host_layers = o->layer_expert_bytes ? spec_moe_layers_in(m, start, below) : 0;
    uint32_t kept = spec_moe_layers_in(m, start, n) - o->moe_host_layers;
    o->moe_gpu_layers = kept;
    uint64_t gpu = kv_sat_add(kv_sat_mul(o->gpu_layers, o->layer_rest_bytes),
                              (uint64_t)kept * o->layer_expert_bytes);
    if (o->output_on_gpu)
        gpu = kv_sat_add(gpu, o->output_bytes);
    uint64_t gpus = l->tp ? l->tp : 1;
    uint64_t draft = l->weights_bytes_per_gpu - placement_share(l, l->weights_bytes);
    o->gpu_weights_bytes = kv_sat_add(kv_ceil_div(gpu, gpus), draft);
    o->gpu_expert_bytes = kv_ceil_div((uint64_t)kept * o->layer_expert_bytes, gpus);
    o->host_weights_bytes = whole > gpu ? whole - gpu : 0;
    o->host_expert_bytes = l->expert_bytes - (uint64_t)kept * o->layer_expert_bytes;
    exact_layers(s, l, start, below, o);
    o->host_bytes_per_s = scenario_host_bandwidth(s);
    o->link_bytes_per_s = (double)s->gpu.host_link_bytes_per_s;
    /* unified memory (Apple silicon) copies nothing: the CPU's layers run there */
    o->link_assumed = o->link_bytes_per_s <= 0 && s->gpu.unified_bytes == 0;
    if (o->link_assumed)
        o->link_bytes_per_s = OFFLOAD_LINK_DEFAULT;
    o->unified = s->gpu.unified_bytes > 0;
    o->tp = l->tp ? l->tp : 1;
    o->ubatch = scenario_ubatch(s);
    o->host_memory_bytes = scenario_host_memory(s);
    o->host_memory_known = s->gpu.unified_bytes || o->host_memory_bytes > 0;
    if (o->unified) { /* one RAM: the GPU's part comes out of it (offload_host_room) */
        o->unified_pool_bytes = o->host_memory_bytes;
        o->os_reserve_bytes = scenario_os_reserve(s);
        o->host_memory_bytes = offload_host_room(o, 0);
    }
    node_share(s, l, o);
}

uint64_t offload_kv_gpu(const struct offload_split *o, uint64_t total)
{
    double share = offload_kv_gpu_share(o);
    if (share >= 1.0)
        return total;
    if (share <= 0.0)
        return 0;
    /* the GPU layers' share in whole bytes (a double's 59/80 rounds up a byte) */
    uint64_t part = kv_sat_mul(total, o->gpu_layers);
    if (part < UINT64_MAX)
        return kv_ceil_div(part, o->n_layer);
    return (uint64_t)ceill((long double)total * share);
}

void offload_cache(struct offload_split *o, uint64_t total, uint64_t user_avg)
{
    uint64_t gpu = offload_kv_gpu(o, total);
    o->host_kv_bytes = total - gpu;
    o->host_kv_user_avg_bytes = user_avg - offload_kv_gpu(o, user_avg);
    o->host_bytes = kv_sat_add(o->host_weights_bytes, o->host_kv_bytes);
    o->node_host_bytes = kv_sat_mul(o->host_bytes, o->node_servers ? o->node_servers : 1);
    uint64_t kv = kv_ceil_div(gpu, o->tp ? o->tp : 1);
    o->host_memory_bytes = offload_host_room(o, kv);
    o->host_fits = offload_host_holds(o, o->host_bytes, kv);
}

/* Whether split o holds a replica's cache of `cache` bytes beside its
 * weights and `buffers`: on the GPUs, and in the host memory this split
 * leaves (on unified memory its own, offload_host_room). */
static bool holds(struct offload_split *o, const struct placement *l, uint64_t room,
                  uint64_t cache, uint64_t buffers)
{
    uint64_t gpus = l->tp ? l->tp : 1;
    uint64_t kv = kv_ceil_div(offload_kv_gpu(o, cache), gpus);
    o->gpu_buffers_bytes = buffers;
    offload_cache(o, cache, 0);
    return o->host_fits && o->gpu_weights_bytes <= room && kv <= room - o->gpu_weights_bytes;
}

/* The bytes split o lacks per GPU beyond `room` (kept in o->gpu_lack_bytes);
 * holds() has run. */
static uint64_t lack_of(struct offload_split *o, const struct placement *l, uint64_t room,
                        uint64_t cache)
{
    uint64_t gpus = l->tp ? l->tp : 1;
    uint64_t kv = kv_ceil_div(offload_kv_gpu(o, cache), gpus);
    uint64_t gpu = kv_sat_add(o->gpu_weights_bytes, kv);
    o->gpu_lack_bytes = gpu > room ? gpu - room : 0;
    return o->gpu_lack_bytes;
}

/* Split o, which does not hold, as the closest tried when it lacks less on
 * the GPU: the first whose GPU side fits is the split llama.cpp's --fit
 * would choose (common/fit.cpp weighs device memory only), so its host
 * memory is what binds; the search's order keeps the most GPU layers. */
static void keep_closest(struct offload_split *o, const struct placement *l, uint64_t room,
                         uint64_t cache, struct offload_split *best, uint64_t *least)
{
    uint64_t lack = lack_of(o, l, room, cache);
    if (best && lack < *least) {
        *least = lack;
        *best = *o;
    }
}

/* The search: the experts of the first layers to host memory one layer at a
 * time (a MoE model), then whole layers from the first; the first that
 * holds, else (false) the closest in *best. */
static bool search(const struct scenario *s, const struct placement *l, uint64_t room,
                   uint64_t cache, uint64_t buffers, struct offload_split *o,
                   struct offload_split *best)
{
    uint32_t n = s->model.layers;
    bool moe = s->model.experts > 0 && l->expert_bytes > 0;
    uint64_t least = UINT64_MAX;
    for (uint32_t k = 0; moe && k <= n; k++) {
        offload_layers(s, l, n + 1, k, o);
        if (holds(o, l, room, cache, buffers))
            return true;
        keep_closest(o, l, room, cache, best, &least);
    }
    /* from -ngl n + 1, every layer and the output layer (all a
     * --no-kv-offload plan may need to move), down to none */
    for (uint32_t g = n + 2; g-- > 0;) {
        offload_layers(s, l, g, moe ? n : 0, o);
        if (holds(o, l, room, cache, buffers))
            return true;
        keep_closest(o, l, room, cache, best, &least);
    }
    return false;
}

bool offload_choose(const struct scenario *s, const struct placement *l, uint64_t room,
                    uint64_t cache, uint64_t buffers, struct offload_split *o,
                    struct offload_split *tried)
{
    const struct offload_opts *p = &s->offload;
    memset(o, 0, sizeof *o);
    if (tried)
        memset(tried, 0, sizeof *tried);
    if (s->model.layers == 0 || l->weights_bytes == UINT64_MAX)
        return false;
    if (p->ngl_given || p->n_cpu_moe_given) { /* as asked: llama.cpp's --fit leaves them */
        offload_layers(s, l, p->ngl_given ? p->ngl : OFFLOAD_NGL_ALL, p->n_cpu_moe, o);
        o->gpu_buffers_bytes = buffers;
        return true;
    }
    bool whole = l->weights_bytes_per_gpu <= room &&
                 placement_share(l, cache) <= room - l->weights_bytes_per_gpu;
    if (whole && !p->no_kv_offload)
        return false;
    /* unified memory (Apple silicon) as well: the CPU layers take what each
     * candidate's GPU part leaves of the RAM (offload_host_room) */
    if (search(s, l, room, cache, buffers, o, tried)) {
        o->searched = o->found = true;
        if (tried)
            memset(tried, 0, sizeof *tried);
        return true;
    }
    if (tried && tried->placed)
        tried->searched = true;
    memset(o, 0, sizeof *o);
    if (p->no_kv_offload) { /* asked, though nothing fits */
        offload_layers(s, l, OFFLOAD_NGL_ALL, 0, o);
        o->gpu_buffers_bytes = buffers;
        return true;
    }
    return false;
}

bool offload_whole(const struct scenario *s, const struct placement *l, struct offload_split *o)
{
    memset(o, 0, sizeof *o);
    if (s->model.layers == 0 || l->weights_bytes == UINT64_MAX)
        return false;
    offload_layers(s, l, OFFLOAD_NGL_ALL, 0, o);
    o->active = false;
    /* a layer split holds whole layers: the fullest GPU's share of the
     * GPUs' part, as the placement counts it (core/placement.h) */
    uint64_t draft = l->weights_bytes_per_gpu - placement_share(l, l->weights_bytes);
    o->gpu_weights_bytes =
        kv_sat_add(placement_share(l, l->weights_bytes - o->host_weights_bytes), draft);
    /* the embedding alone is checked only against a --host-memory given, so
     * that such a plan reads the same on every machine */
    if (s->offload.host_memory_read || s->gpu.unified_bytes) {
        o->host_memory_bytes = o->unified_pool_bytes = 0;
        o->host_memory_known = false;
    }
    return true;
}

void offload_sentence(const struct offload_split *o, char *buf, size_t size)
{
    uint32_t cpu = o->n_layer - o->gpu_layers;
    int n = snprintf(buf, size, "-ngl %u of %u: ", o->ngl, o->n_layer + 1);
    if (cpu)
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%u layer%s%s on the CPU",
                      cpu, cpu == 1 ? "" : "s", o->output_on_gpu ? "" : " and the output layer");
    else
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s",
                      o->output_on_gpu ? "every layer on the GPU" : "the output layer on the CPU");
    if (o->moe_host_layers && n >= 0)
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                      "; --n-cpu-moe %u: the experts of %u GPU layer%s in host memory", o->n_cpu_moe,
                      o->moe_host_layers, o->moe_host_layers == 1 ? "" : "s");
    if (o->kv_on_host && n >= 0)
        snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                 "; --no-kv-offload: the cache in host memory");
}

/* The GPU layers' weights as shares of the whole: layers x a layer, the
 * experts of MoE layers as they sit. */
static void layer_share_terms(struct explain_row *row, const struct offload_split *o)
{
    explain_term(row, o->gpu_layers, XU_COUNT, "GPU layers");
    explain_term(row, (long double)(o->moe_layers_dense ? o->layer_rest_bytes : o->layer_bytes),
                 XU_BYTES, o->moe_layers_dense ? "a layer outside the experts" : "a layer");
    explain_op(row, XOP_MUL);
    if (o->moe_layers_dense) { /* some layers dense: the experts by the MoE layers kept */
        explain_term(row, o->moe_gpu_layers, XU_COUNT, "MoE layers on the GPU");
        explain_term(row, (long double)o->layer_expert_bytes, XU_BYTES, "their experts");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    } else if (o->moe_host_layers) {
        explain_term(row, o->moe_host_layers, XU_COUNT, "--n-cpu-moe layers");
        explain_term(row, (long double)o->layer_expert_bytes, XU_BYTES, "their experts");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_SUB);
    }
}

/* The rows of the weights on each side. */
static void weights_rows(const struct policy_ctx *c, const struct offload_split *o)
{
    struct explain_row *row = explain_row_begin(c->x, "offload_gpu_weights", "Weights on GPU", "per GPU");
    if (o->exact) /* the GGUF's bytes of those blocks, not a share */
        explain_term(row, (long double)o->gpu_layers_bytes, XU_BYTES,
                     o->moe_host_layers ? "GPU layers' tensors (GGUF), --n-cpu-moe experts out"
                                        : "GPU layers' tensors (GGUF)");
    else
        layer_share_terms(row, o);
    if (o->output_on_gpu) {
        explain_term(row, (long double)o->output_bytes, XU_BYTES, "output layer");
        explain_op(row, XOP_ADD);
    }
    if (!o->active && c->l->layers_all) {
        placement_share_terms(row, c->l); /* the fullest GPU's whole layers */
    } else if (c->l->tp > 1) {
        explain_term(row, c->l->tp, XU_COUNT, "GPUs");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
    }
    if (c->spec->weights_bytes_per_gpu) {
        explain_term(row, (long double)c->spec->weights_bytes_per_gpu, XU_BYTES, "draft");
        explain_op(row, XOP_ADD);
    }
    char why[192];
    const struct model_spec *m = &c->s->model;
    snprintf(why, sizeof why, "%s%s%s%s",
             o->output_first && o->active
                 ? "-ngl counts the output layer first, then the last layers of the model"
                 : "the last layers of the model, as -ngl counts them",
             !o->exact && m->layer_bytes_count ? "; --weight-dtype " : "",
             !o->exact && m->layer_bytes_count ? dtype_info(c->l->weight_dtype)->name : "",
             !o->exact && m->layer_bytes_count
                 ? " replaces the GGUF's own bytes by block: even shares" : "");
    explain_row_end(c->x, row, XU_BYTES, 0, why);
    row = explain_row_begin(c->x, "offload_host_weights", "Weights in host", "per replica");
    explain_term(row, (long double)c->l->weights_bytes, XU_BYTES, "weights");
    explain_term(row, (long double)(c->l->weights_bytes - o->host_weights_bytes), XU_BYTES,
                 "on the GPUs");
    explain_op(row, XOP_SUB);
    char note[160];
    uint32_t cpu = o->n_layer - o->gpu_layers;
    snprintf(note, sizeof note, "the token embedding (llama.cpp keeps the input layer on the CPU)%s%s%s",
             cpu ? ", the CPU layers" : "", o->output_on_gpu ? "" : ", the output layer",
             o->moe_host_layers ? ", the experts --n-cpu-moe keeps" : "");
    explain_row_end(c->x, row, XU_BYTES, 0, note);
}

void offload_rows(const struct policy_ctx *c, const struct offload_split *o)
{
    if (c->x == NULL || !o->placed)
        return;
    if (!o->active) { /* every layer on the GPUs: only the embedding in host memory */
        weights_rows(c, o);
        return;
    }
    char note[192];
    offload_sentence(o, note, sizeof note);
    struct explain_row *row = explain_row_begin(c->x, "offload_layers", "GPU layers", "per replica");
    explain_term(row, o->ngl, XU_COUNT, "-ngl");
    if (o->output_first && o->ngl) { /* the output layer is the first of them */
        explain_term(row, 1, XU_COUNT, "output layer");
        explain_op(row, XOP_SUB);
    } else if (!o->output_first) {
        explain_term(row, o->n_layer, XU_COUNT, "layers");
        explain_op(row, XOP_MIN);
    }
    explain_row_end(c->x, row, XU_COUNT, 0, note);
    weights_rows(c, o);
}

void offload_host_rows(const struct policy_ctx *c, const struct offload_split *o)
{
    if (c->x == NULL || !o->placed)
        return;
    char note[192];
    struct explain_row *row;
    if (o->active) {
        row = explain_row_begin(c->x, "offload_host_kv", "KV in host", "per replica");
        explain_term(row, (long double)o->host_kv_bytes, XU_BYTES, "cache");
        explain_row_end(c->x, row, XU_BYTES, 0,
                        o->kv_on_host ? "--no-kv-offload: every layer's cache in host memory"
                                      : "the CPU layers' cache sits beside them (llama-kv-cache.cpp)");
    }
    row = explain_row_begin(c->x, "offload_host_memory", "Host memory", "per replica");
    explain_ref(c->x, row, "offload_host_weights", "weights");
    if (o->active) {
        explain_ref(c->x, row, "offload_host_kv", "KV");
        explain_op(row, XOP_ADD);
    }
    char t[32];
    if (o->node_servers > 1) { /* one host a node: its servers' bytes together */
        explain_row_end(c->x, row, XU_BYTES, 0, "one server's");
        row = explain_row_begin(c->x, "offload_host_node", "Host, per node", "per node");
        explain_ref(c->x, row, "offload_host_memory", "host memory");
        explain_term(row, o->node_servers, XU_COUNT, "servers on the node");
        explain_op(row, XOP_MUL);
    }
    const char *whose = o->node_servers > 1 ? "; each server's counted: its own under --no-mmap, mmap may share one file's pages" : "";
    if (o->host_memory_known) {
        units_format_bytes(o->host_memory_bytes, c->s->units, t, sizeof t);
        snprintf(note, sizeof note, o->host_fits ? "within the %s of host memory%s%s"
                                                 : "more than the %s of host memory%s%s",
                 t, o->unified_pool_bytes ? " the GPU's part and macOS leave" : "", whose);
    } else {
        snprintf(note, sizeof note, "%s",
                 o->active ? "host memory unknown (--host-memory): not checked"
                           : "the token embedding alone; not checked against host memory");
    }
    explain_row_end(c->x, row, XU_BYTES, 0, note);
}

void offload_step(const struct offload_split *o, struct step_model *m, struct step_machine *hw)
{
    if (!o->active)
        return;
    /* a token reads one row of the embedding: the rest of the host's weights
     * (the layers' whole bytes are rounded down, so the two may cross) */
    uint64_t experts = o->host_expert_bytes, rest = kv_sat_add(experts, o->embed_bytes);
    uint64_t dense = o->host_weights_bytes > rest ? o->host_weights_bytes - rest : 0;
    m->host_dense_bytes = (double)dense;
    m->host_expert_bytes = (double)experts;
    /* the node's bandwidth, shared by its servers decoding at once */
    hw->host_bytes_per_s = o->host_bytes_per_s / (o->host_readers > 1 ? o->host_readers : 1);
    hw->host_mbu = offload_host_mbu(o, hw->mbu);
    hw->host_link_bytes_per_s = o->link_bytes_per_s;
    hw->host_offload_batch = OP_OFFLOAD_MIN_BATCH;
    hw->host_ubatch = o->ubatch ? o->ubatch : OFFLOAD_UBATCH;
}

void offload_pool(const struct policy_ctx *c, uint64_t budget, uint64_t buffers,
                  const struct offload_split *o)
{
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    e->activation_bytes = 0;
    uint64_t held = kv_sat_add(o->gpu_weights_bytes, c->lora->bytes);
    e->non_kv_bytes = kv_sat_add(held, buffers);
    r->runtime_bytes_per_gpu = buffers;
    offload_rows(c, o);
    struct explain_row *row = explain_row_begin(c->x, "pool", "KV pool", "per GPU");
    explain_ref(c->x, row, "budget", "budget");
    explain_ref(c->x, row, "offload_gpu_weights", "weights on GPU");
    explain_op(row, XOP_SUB);
    explain_term(row, (long double)buffers, XU_BYTES, "compute buffers");
    explain_op(row, XOP_SUB);
    long double pool = (long double)budget - (long double)e->non_kv_bytes;
    explain_row_end(c->x, row, XU_BYTES, pool, "the GPU layers' cache; buffers are estimates");
    if (pool > 0) {
        r->kv_pool_bytes_per_gpu = (uint64_t)pool;
    } else {
        r->kv_pool_bytes_per_gpu = 0;
        r->shortfall_bytes_per_gpu = (uint64_t)(-pool);
    }
    r->weights_fit = o->gpu_weights_bytes <= budget;
    r->fits = r->weights_fit && r->kv_pool_bytes_per_gpu > 0;
}
