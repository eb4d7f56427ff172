/* llama.cpp: -c x -np cells allocated up front (no paging), f16 unless told
 * (-ctk/-ctv), layers split across the GPUs; --fit keeps a margin free.
 * Without --parallel, kvplan picks the most slots whose cache fits, and the
 * launch line, the log and the answer all use that count.
 * Upstream: src/llama-context.cpp (n_ctx, n_seq), src/llama-kv-cache.cpp and
 * src/llama-kv-cache-iswa.cpp (cells, the SWA cache size), common/arg.cpp. */
#include "engine_desc.h"
#include "offload_fit.h"
#include "policy.h"
#include "policy_llamacpp.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

/* llama.cpp's most sequences (slots) in one context: src/llama-cparams.h
 * LLAMA_MAX_SEQ, and the llama_context constructor (src/llama-context.cpp)
 * throws "n_seq_max must be <= 256" above it. */
enum { LLAMA_MAX_SEQ = 256 };

/* ggml's names for the cache types (-ctk/-ctv and the log) */
static const char *ggml_name(enum dtype d)
{
    switch (d) {
    case DTYPE_FP16:
        return "f16";
    case DTYPE_FP32:
        return "f32";
    default:
        return dtype_info(d)->name;
    }
}

/* The per-token rows, llama.cpp's way: a cell holds K and V of every head in
 * each type given; the layers are split across the GPUs. */
static void cost_rows(const struct policy_ctx *c, const struct lcpp *l)
{
    char k[48], v[48];
    snprintf(k, sizeof k, "K (%s)", ggml_name(l->tk));
    snprintf(v, sizeof v, "V (%s)", ggml_name(l->tv));
    struct explain_row *row = explain_row_begin(c->x, "kv_per_layer", "KV per layer", "");
    explain_term(row, (long double)l->k_row, XU_BYTES_EXACT, k);
    explain_term(row, (long double)l->v_row, XU_BYTES_EXACT, v);
    explain_op(row, XOP_ADD);
    if (l->i_row) {
        snprintf(k, sizeof k, "indexer K (%s)", ggml_name(l->tk));
        explain_term(row, (long double)l->i_row, XU_BYTES_EXACT, k);
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    l->i_row ? "one cell of one layer; V is a view of K; the sparse-attention "
                               "indexer keeps its own cache of one key head (llama-kv-cache-dsa.cpp)"
                    : l->v_row ? "one cell of one layer"
                               : "one cell of one layer; V is a view of K");
    specdec_kv_row(c);
    const char *scope = c->l->tp > 1 ? "all GPUs" : "";
    row = explain_row_begin(c->x, "kv_per_token", "KV per token", scope);
    explain_term(row, c->k->layers, XU_COUNT, "layers");
    explain_ref(c->x, row, "kv_per_layer", "");
    explain_op(row, XOP_MUL);
    if (l->draft) {
        explain_ref(c->x, row, "draft_kv_per_token", "draft");
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    c->l->tp > 1 ? "the layers are split across the GPUs" : NULL);
    if (l->windowed) {
        row = explain_row_begin(c->x, "kv_past_window", "Past the window", scope);
        explain_term(row, c->k->global_layers, XU_COUNT, "global layers");
        explain_ref(c->x, row, "kv_per_layer", "");
        explain_op(row, XOP_MUL);
        if (l->draft) {
            explain_ref(c->x, row, "draft_kv_per_token", "draft");
            explain_op(row, XOP_ADD);
        }
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, NULL);
    }
}

/* --fit keeps a margin free on every GPU, 1 GiB unless told */
static uint64_t fit_margin(const struct scenario *s)
{
    return s->engine.fit_target_bytes ? s->engine.fit_target_bytes
                                      : (uint64_t)engine_llamacpp.knobs[1].def;
}

/* What llama.cpp prints at startup, and how it budgets in a sentence. */
/* src/llama-kv-cache.cpp (llama_kv_cache): a cell a token of each sequence,
 * a slot's context whole (no paging, policy_llamacpp_cells.c); neither
 * llama-server nor Ollama's options name a block. */
const char *llamacpp_refuses_block(const struct scenario *s, char *buf, size_t size)
{
    (void)s;
    snprintf(buf, size, "no block to size: llama-server keeps each slot's context whole, in "
             "cells of one token (src/llama-kv-cache.cpp); --block-size is vLLM's --block-size, "
             "SGLang's --page-size and TensorRT-LLM's tokens_per_block");
    return buf;
}

void llamacpp_log(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    struct lcpp cell;
    const struct lcpp *l = &cell;
    llamacpp_layer_cells(s, c->k, &cell);
    uint64_t np = e->slots, slot = llamacpp_slot_cells(s->context_tokens, np), n_ctx = slot * np;
    uint64_t cells = kv_sat_mul(np, kv_sat_add(kv_sat_mul(l->global, slot),
                                               kv_sat_mul(l->windowed, llamacpp_swa_slot_cells(l, slot))));
    double k_mib = (double)kv_sat_mul(cells, l->k_row) / (double)MIB;
    double v_mib = (double)kv_sat_mul(cells, l->v_row) / (double)MIB;
    policy_log(e, "llama_kv_cache: size = %.2f MiB (%8llu cells, %3u layers, %2llu/%2llu seqs), "
                  "K (%s): %.2f MiB, V (%s): %.2f MiB",
               k_mib + v_mib, (unsigned long long)n_ctx, c->k->layers, (unsigned long long)np,
               (unsigned long long)np, ggml_name(l->tk), k_mib, ggml_name(l->tv), v_mib);
    if (l->i_row) {
        double i_mib = (double)kv_sat_mul(cells, l->i_row) / (double)MIB;
        policy_log(e, "llama_kv_cache: size = %.2f MiB (%8llu cells, %3u layers, %2llu/%2llu "
                      "seqs), K (%s): %.2f MiB, V (%s): 0.00 MiB  [indexer]",
                   i_mib, (unsigned long long)n_ctx, m->layers, (unsigned long long)np,
                   (unsigned long long)np, ggml_name(l->tk), i_mib, ggml_name(l->tv));
    }
    if (l->state) {
        double conv = (double)dtype_bytes_for(DTYPE_FP32, c->k->state_conv_values) *
                      c->k->state_layers * np / (double)MIB;
        double ssm = (double)dtype_bytes_for(DTYPE_FP32, c->k->state_ssm_values) *
                     c->k->state_layers * np / (double)MIB;
        policy_log(e, "llama_memory_recurrent: size = %.2f MiB (%6llu cells, %3u layers, %2llu "
                      "seqs), R (f32): %.2f MiB, S (f32): %.2f MiB",
                   conv + ssm, (unsigned long long)np, c->k->state_layers, (unsigned long long)np, conv,
                   ssm);
    }
    snprintf(e->note, sizeof e->note,
             "llama.cpp allocates -c x -np cells up front (no paging); --fit keeps %.2f GiB free "
             "per GPU; %s",
             (double)fit_margin(s) / (double)GIB,
             s->engine.rule == RULE_LLAMACPP_PRE_MLA && m->attention == ATTENTION_MLA
                 ? "before MLA support, DeepSeek K and V were stored per head"
             : s->engine.parallel ? "-np as given"
             : c->b->users_fit_per_replica > c->b->users_per_replica
                 ? "-np is 256, llama.cpp's most (LLAMA_MAX_SEQ); more slots' cache fits"
                 : "-np is the most slots whose cache fits");
}

/* llama-server -m MODEL.gguf and the flags that make it plan what kvplan planned. */
static void launch(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    struct engine_detail *e = &c->b->engine;
    struct lcpp cell;
    const struct lcpp *l = &cell;
    llamacpp_layer_cells(s, c->k, &cell);
    uint64_t np = e->slots, n_ctx = llamacpp_slot_cells(s->context_tokens, np) * np;
    struct shell_line sl;
    shell_line_init(&sl, e->launch, sizeof e->launch);
    shell_words(&sl, "llama-server -m");
    policy_gguf_word(&sl, m); /* the imported file's name, else ID.gguf */
    shell_option(&sl, "-c", "%llu", (unsigned long long)n_ctx);
    shell_option(&sl, "-np", "%llu", (unsigned long long)np);
    if (l->tk != DTYPE_FP16) {
        shell_option(&sl, "-ctk", "%s", ggml_name(l->tk));
        shell_option(&sl, "-ctv", "%s", ggml_name(l->tv));
        shell_words(&sl, "-fa on");
    } else if (l->tv != l->tk) {
        shell_option(&sl, "-ctv", "%s", ggml_name(l->tv));
        shell_words(&sl, "-fa on");
    }
    const struct offload_split *o = &e->offload;
    if (o->active && o->ngl <= o->n_layer)
        shell_option(&sl, "-ngl", "%u", o->ngl);
    else
        shell_words(&sl, "-ngl 999");
    if (o->active && o->n_cpu_moe) /* common/arg.cpp: --n-cpu-moe, --no-kv-offload */
        shell_option(&sl, "--n-cpu-moe", "%u", o->n_cpu_moe);
    if (o->active && o->kv_on_host)
        shell_words(&sl, "--no-kv-offload");
    if (s->offload.ubatch) { /* -b caps -ub (llama_context: n_ubatch = min(n_batch, n_ubatch)) */
        if (s->offload.ubatch > OFFLOAD_NBATCH)
            shell_option(&sl, "-b", "%u", s->offload.ubatch);
        shell_option(&sl, "-ub", "%u", s->offload.ubatch);
    }
    if (c->spec->method == SPEC_DRAFT) { /* common/arg.cpp: -md, --draft-max */
        shell_word(&sl, "-md");
        policy_gguf_word(&sl, &s->draft);
        shell_option(&sl, "--draft-max", "%u", c->spec->tokens);
        shell_words(&sl, "-ngld 999");
    }
    policy_launch_done(c, &sl, true);
}

/* The most slots whose cache fits in `room` on the fullest GPU of the
 * layer split (core/placement.h placement_share; at least one, at most
 * 65,536): whole slots of one size, or, with windows (a slot's cells depend
 * on the count), one more at a time. */
static uint64_t most_slots(const struct scenario *s, const struct lcpp *l, uint64_t room,
                           const struct placement *at)
{
    uint64_t slot = llamacpp_cache_total(l, s->context_tokens, 1), most = 1;
    if (l->windowed == 0) { /* the slots in the share's room, then its own test */
        long double over = at->layers_all ? (long double)at->layers_all / at->layers_fullest
                                          : (long double)(at->tp ? at->tp : 1);
        long double n = slot ? (long double)room * over / slot : 0;
        most = n > 65536 ? 65536 : n > 1 ? (uint64_t)n : 1;
        while (most > 1 && placement_share(at, llamacpp_cache_total(l, s->context_tokens, most)) > room)
            most--;
        return most;
    }
    while (most < 65536 && placement_share(at, llamacpp_cache_total(l, s->context_tokens, most + 1)) <= room)
        most++;
    return most;
}

/* Of a replica's cache of `bytes`, the fullest GPU's: with layers in host
 * memory the GPUs' part over them (core/offload_fit.h), else its share of
 * the layer split (core/placement.h). */
static uint64_t on_gpu(const struct policy_ctx *c, const struct offload_split *o, uint64_t bytes)
{
    return o->active ? kv_ceil_div(offload_kv_gpu(o, bytes), c->l->tp)
                     : placement_share(c->l, bytes);
}

/* With a split (core/offload_fit.h): whether np slots' cache fits, its
 * GPUs' part in `room` on each of `gpus` and the rest in host memory. */
static bool split_holds(const struct scenario *s, const struct lcpp *l,
                        const struct offload_split *o, uint64_t room, uint64_t gpus, uint64_t np)
{
    uint64_t total = llamacpp_cache_total(l, s->context_tokens, np);
    uint64_t gpu = offload_kv_gpu(o, total);
    uint64_t host = kv_sat_add(o->host_weights_bytes, total - gpu);
    uint64_t per_gpu = kv_ceil_div(gpu, gpus);
    return per_gpu <= room && offload_host_holds(o, host, per_gpu);
}

/* The most slots a split holds (at least one, at most 65,536). */
static uint64_t split_slots(const struct scenario *s, const struct lcpp *l,
                            const struct offload_split *o, uint64_t room, uint64_t gpus)
{
    uint64_t lo = 1, hi = 65536;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (split_holds(s, l, o, room, gpus, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The row "cache": every slot's cells of every layer (windows, draft and
 * recurrent cells included), over the GPUs. */
static void cache_row(const struct policy_ctx *c, const struct lcpp *l, uint64_t np,
                      uint64_t slot, const struct llamacpp_words *w)
{
    const struct engine_detail *e = &c->b->engine;
    uint64_t gpus = c->l->tp;
    struct explain_row *row = explain_row_begin(c->x, "cache", "KV cache", "per GPU");
    explain_term(row, l->global, XU_COUNT, "layers");
    explain_term(row, (long double)e->units, XU_TOKENS, "cells");
    explain_op(row, XOP_MUL);
    if (l->windowed) {
        explain_term(row, l->windowed, XU_COUNT, "windowed layers");
        explain_term(row, (long double)llamacpp_swa_slot_cells(l, slot) * np, XU_TOKENS, "window cells");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    explain_term(row, l->k_row + l->v_row + l->i_row, XU_BYTES_EXACT,
                 l->i_row ? "per cell (K+V, indexer K)" : "per cell (K+V)");
    explain_op(row, XOP_MUL);
    if (l->draft) {
        explain_term(row, (long double)e->units, XU_TOKENS, "draft cells");
        explain_ref(c->x, row, "draft_kv_per_token", "per draft cell");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    if (l->state) {
        explain_term(row, (long double)np, XU_COUNT, np == 1 ? "recurrent cell" : "recurrent cells");
        explain_ref(c->x, row, "state_per_user", "state each");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    const struct offload_split *o = &e->offload;
    if (o->active && (o->kv_on_host || o->n_layer == 0)) {
        explain_term(row, offload_kv_gpu_share(o), XU_RATIO, "on the GPUs (--no-kv-offload)");
        explain_op(row, XOP_MUL);
    } else if (o->active) { /* whole bytes, as offload_kv_gpu takes the share */
        explain_term(row, o->gpu_layers, XU_COUNT, "layers on the GPUs");
        explain_op(row, XOP_MUL);
        explain_term(row, o->n_layer, XU_COUNT, "layers");
        explain_op(row, XOP_DIV);
    }
    if (o->active && gpus > 1) {
        explain_term(row, gpus, XU_COUNT, "GPUs");
        explain_op(row, XOP_DIV);
    }
    if (!o->active && gpus > 1)
        placement_share_terms(row, c->l); /* the fullest GPU's whole layers */
    else if (o->active)
        explain_op(row, XOP_CEIL);
    char note[96], t[32];
    units_format_int(np, t, sizeof t);
    snprintf(note, sizeof note, "%s %s slot%s of the full context, cells padded to 256", w->slots,
             t, np == 1 ? "" : "s");
    explain_row_end(c->x, row, XU_BYTES, 0, note);
}

/* The rows of a slot's user, the users (slots) and the tokens they hold. */
static void users_rows(const struct policy_ctx *c, const struct lcpp *l, uint64_t np,
                       uint64_t most, uint64_t slot, const struct llamacpp_words *w)
{
    const struct scenario *s = c->s;
    const struct engine_flags *f = &s->engine;
    const struct plan_budget *r = c->b;
    uint64_t gpus = c->l->tp;
    bool fits = r->fits, capped = most > np;
    char note[96], t[32];
    units_format_int(np, t, sizeof t);
    struct explain_row *row = explain_row_begin(c->x, "kv_per_user", "KV per user", "per GPU");
    explain_ref(c->x, row, "cache", "cache");
    explain_term(row, (long double)np, XU_COUNT, np == 1 ? "slot" : "slots");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    explain_row_end(c->x, row, XU_BYTES, 0, "every slot holds its full context; no prefix is shared");

    row = explain_row_begin(c->x, "users_replica", "Users", "per replica");
    if (!fits) {
        snprintf(note, sizeof note, "the cache of %s %s does not fit in the %s left", w->slots, t,
                 "memory");
        explain_row_end(c->x, row, XU_COUNT, 0, note);
    } else if (f->parallel == 0 && w->default_slots == 0 && l->windowed == 0 &&
               !c->b->engine.offload.active) {
        explain_ref(c->x, row, "pool", "pool");
        if (c->l->layers_all) { /* the fullest GPU's layers bind (most_slots) */
            explain_term(row, c->l->layers_all, XU_COUNT, "layers");
            explain_op(row, XOP_MUL);
            explain_term(row, c->l->layers_fullest, XU_COUNT, "on the fullest GPU");
            explain_op(row, XOP_DIV);
        } else {
            explain_term(row, gpus, XU_COUNT, gpus == 1 ? "GPU" : "GPUs");
            explain_op(row, XOP_MUL);
        }
        explain_term(row, llamacpp_cache_total(l, s->context_tokens, 1), XU_BYTES, "per slot");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_FLOOR);
        if (most == 65536) {
            explain_term(row, 65536, XU_COUNT, "slots at most");
            explain_op(row, XOP_MIN);
        }
        if (capped) {
            explain_term(row, LLAMA_MAX_SEQ, XU_COUNT, "LLAMA_MAX_SEQ");
            explain_op(row, XOP_MIN);
        }
        explain_row_end(c->x, row, XU_COUNT, 0,
                        capped ? "llama.cpp's slot cap (LLAMA_MAX_SEQ) binds before memory"
                               : "slots whose cache fits; the -np launched");
    } else {
        snprintf(note, sizeof note, "the %s slots given, each of the full context", w->slots);
        explain_row_end(c->x, row, XU_COUNT, (long double)np,
                        f->parallel        ? note
                        : w->default_slots ? w->default_note
                        : capped    ? "llama.cpp's slot cap (LLAMA_MAX_SEQ): more slots' cache fits"
                        : c->b->engine.offload.searched
                            ? "one slot: the fit search sizes the split for it (--parallel N: N slots)"
                        : c->b->engine.offload.active
                            ? "the most -np slots whose cache fits on the GPUs and in host memory"
                            : "the most -np slots whose cache fits");
    }
    row = explain_row_begin(c->x, "users_paged_replica", "Users, paged", "per replica");
    explain_ref(c->x, row, "users_replica", r->users_per_replica == 1 ? "slot" : "slots");
    explain_row_end(c->x, row, XU_COUNT, 0, "no paging: every slot holds its full context");
    row = explain_row_begin(c->x, "kv_tokens_replica", "Tokens held", "per replica");
    if (fits) {
        explain_term(row, slot, XU_TOKENS, "cells per slot");
        explain_ref(c->x, row, "users_replica", r->users_per_replica == 1 ? "slot" : "slots");
        explain_op(row, XOP_MUL);
    }
    explain_row_end(c->x, row, XU_TOKENS, 0, NULL);
}

void llamacpp_budget(const struct policy_ctx *c, const struct llamacpp_words *w)
{
    const struct scenario *s = c->s;
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    struct lcpp l;
    llamacpp_layer_cells(s, c->k, &l);
    uint64_t gpus = c->l->tp;
    cost_rows(c, &l);

    e->gpu_total_bytes = policy_cuda_total(s);
    r->memory_bytes_per_gpu = e->gpu_total_bytes;
    uint64_t margin = fit_margin(s);
    e->budget_bytes = e->gpu_total_bytes > margin ? e->gpu_total_bytes - margin : 0;
    r->reserved_bytes_per_gpu = e->gpu_total_bytes - e->budget_bytes;
    /* compute buffers: a micro-batch (512 tokens unless --ubatch) of logits and hidden states */
    uint64_t buffers = (uint64_t)scenario_ubatch(s) * (policy_vocab(m) + 4ull * policy_hidden(m)) *
                           4 / gpus + 256 * MIB;
    e->unit_tokens = 1;

    struct explain_row *row = explain_row_begin(c->x, "budget", w->title, "per GPU");
    char api[32]; /* "Metal total" on Apple silicon */
    snprintf(api, sizeof api, "%s total", spec_gpu_api(&s->gpu));
    explain_term(row, e->gpu_total_bytes, XU_BYTES, api);
    explain_term(row, margin, XU_BYTES, w->margin);
    explain_op(row, XOP_SUB);
    explain_row_end(c->x, row, XU_BYTES, 0, NULL);
    /* layers, experts or the cache in host memory: as asked, or when the
     * model does not fit whole, the split --fit finds (core/offload_fit.h) */
    struct offload_split *o = &e->offload;
    uint64_t wroom = e->budget_bytes > buffers ? e->budget_bytes - buffers : 0;
    uint64_t np = f->parallel ? f->parallel : w->default_slots, most = np;
    bool logged = f->non_kv_bytes || f->kv_memory_bytes;
    memset(&e->offload_tried, 0, sizeof e->offload_tried);
    bool split = !logged &&
                 offload_choose(s, c->l, wroom, llamacpp_cache_total(&l, s->context_tokens, np ? np : 1),
                                buffers, o, &e->offload_tried);
    /* src/llama-model.cpp load_tensors: "assign the input layer ... always
     * keep it on the CPU" (dev_input = cpu_dev): with every layer on the
     * GPUs the token embedding still sits in host memory, out of the budget */
    if (!split && !logged)
        offload_whole(s, c->l, o);
    if (o->placed)
        offload_pool(c, e->budget_bytes, buffers, o);
    else
        policy_engine_pool(c, e->budget_bytes, "budget", 0, buffers);
    uint64_t room = r->kv_pool_bytes_per_gpu;

    /* The slots: as given, or the most whose cache fits (at least one), at
     * most LLAMA_MAX_SEQ (src/llama-cparams.h; llama_context refuses more). */
    if (np == 0 && split && o->searched) {
        np = most = 1; /* the search sized the split for one slot */
    } else if (np == 0) {
        most = split ? split_slots(s, &l, o, room, gpus) : most_slots(s, &l, room, c->l);
        np = most > LLAMA_MAX_SEQ ? LLAMA_MAX_SEQ : most;
    }
    e->slots = (uint32_t)np;
    uint64_t total = llamacpp_cache_total(&l, s->context_tokens, np);
    uint64_t per_gpu = on_gpu(c, o, total);
    struct token_split avg = kvcost_split(c->k, scenario_avg_tokens(s), 0);
    uint64_t user_avg = kv_sat_add(kvcost_bytes(c->k, avg.user_global, avg.user_windowed), l.state);
    if (o->placed) {
        offload_cache(o, total, user_avg);
        o->gpu_kv_bytes = per_gpu;
        offload_host_rows(c, o);
    }
    /* the host's check binds a split; the embedding alone is read through mmap */
    bool fits = r->weights_fit && room > 0 && per_gpu <= room && (!o->active || o->host_fits);
    uint64_t slot = llamacpp_slot_cells(s->context_tokens, np);
    e->units = kv_sat_mul(slot, np);
    e->unit_bytes = kv_ceil_div(total, e->units ? e->units : 1);
    e->max_num_seqs = e->scheduler_cap = (uint32_t)np;
    e->kv_cache_bytes = per_gpu;
    e->request_units = s->context_tokens;
    e->max_concurrency = (double)np;
    /* by memory alone: more than the slots when LLAMA_MAX_SEQ binds */
    r->users_fit_per_replica = fits ? most : 0;
    r->users_per_replica = fits ? np : 0;
    r->users_paged_per_replica = r->users_per_replica; /* no paging */
    r->kv_tokens_per_replica = fits ? e->units : 0;
    r->kv_used_bytes_per_gpu = fits ? per_gpu : 0;
    r->prefix_bytes_per_gpu = r->prefix_bytes_paged_per_gpu = 0; /* every slot holds its own */
    /* every slot holds its whole context: no prefix is shared between slots */
    r->user_bytes_per_gpu = kv_ceil_div(per_gpu, np);
    r->user_bytes_avg_per_gpu = on_gpu(c, o, user_avg);
    r->state_bytes_per_user_per_gpu = on_gpu(c, o, l.state);
    r->state_used_bytes_per_gpu = fits ? on_gpu(c, o, kv_sat_mul(np, l.state)) : 0;
    r->user_bytes_paged_per_gpu = r->user_bytes_per_gpu;
    if (!fits && r->weights_fit && per_gpu > room)
        r->shortfall_bytes_per_gpu = per_gpu - room;
    r->fits = fits;

    cache_row(c, &l, np, slot, w);
    users_rows(c, &l, np, most, slot, w);
}

static void budget(const struct policy_ctx *c)
{
    static const struct llamacpp_words words = {"llama.cpp budget", "--fit margin", "-np", 0, NULL};
    llamacpp_budget(c, &words);
}

#define FLAG_AT(field) offsetof(struct engine_flags, field)

/* -ngl before PR #18148 (llama.cpp@mla-kv and @pre-mla): the last N layers
 * (src/llama-model.cpp load_tensors, i_gpu_start = max(n_layer - ngl, 0)) */
static bool ngl_last_n(enum engine_rule rule)
{
    return rule == RULE_LLAMACPP_MLA_KV || rule == RULE_LLAMACPP_PRE_MLA;
}

const struct engine_desc engine_llamacpp = {
    .step_overhead_s = 0, /* llama-bench's decode loop: no server scheduler between steps */
    .refuses_block = llamacpp_refuses_block,
    /* common/common.h common_params: n_batch 2048, n_ubatch 512; one llama-server a
     * replica, so a router in front takes turns */
    .simulated = engine_any_rule,
    .sched = {.kind = SIM_SCHED_SLOTS, .router = SIM_ROUTE_ROUND_ROBIN, .batch = 2048,
              .ubatch = 512, .title = "llama.cpp's server", .seqs_name = "parallel",
              .tokens_name = "batch-size", .ubatch_name = "ubatch-size"},
    /* batched-bench on V100 (ggml-org/llama.cpp PR #3545, 2023-10): 2, 4 and
     * 8 sequences took 2.2, 2.3 and 2.8 times one sequence's time per token */
    .batched_decode_unvalidated_family = "Volta",
    .kind = ENGINE_LLAMACPP,
    .name = "llama.cpp",
    .title = "llama.cpp",
    .title_a = "a llama.cpp",
    .aliases = {"llamacpp", "llama-cpp"},
    .versions = {{RULE_CURRENT, "llama.cpp@v-less", {"v-less", "2026"},
                  "the latest: an MLA model's latent cached once, as K (V a view of it)",
                  "2026 builds", "b7816", "b10760", NULL},
                 {RULE_LLAMACPP_OUTPUT_FIRST, "llama.cpp@output-first", {"output-first"},
                  "mla-kv's cache, with -ngl's output layer offloaded first (Dec 2025 to Jan "
                  "2026): -ngl N the output layer and the last N - 1 layers",
                  "late-2025 builds", "b7571", NULL, NULL},
                 {RULE_LLAMACPP_MLA_KV, "llama.cpp@mla-kv", {"mla-kv", "2025"},
                  "MLA support before the V-less cache (Apr 2025 to Jan 2026): the latent "
                  "as K and its kv_lora_rank values again as V; -ngl N the last N layers, "
                  "the output layer only past them", "2025 builds", "b5116", NULL, NULL},
                 {RULE_LLAMACPP_PRE_MLA, "llama.cpp@pre-mla", {"pre-mla"},
                  "before MLA support: DeepSeek K and V stored per head",
                  "early-2025 builds", "b1", NULL, NULL}},
    .server = true,
    .cache_dtypes = {DTYPE_FP16, DTYPE_BF16, DTYPE_FP32, DTYPE_Q8_0, DTYPE_Q4_0},
    .cache_default = DTYPE_FP16,
    .v_dtype = true,
    /* GGUF: f32, f16, bf16, q8_0, q4_0 and the K-quants; an fp8 or fp4
     * checkpoint is converted to one of those first */
    .weight_dtypes = {DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_Q8_0, DTYPE_Q4_0, DTYPE_Q6_K,
                      DTYPE_Q5_K_M, DTYPE_Q4_K_M},
    .knobs = {{.offset = FLAG_AT(parallel),
               .role = KNOB_SEQS,
               .label = "Slots -np",
               .engine_flag = "-np",
               .min = 1,
               .max = LLAMA_MAX_SEQ,
               .max_name = "LLAMA_MAX_SEQ",
               .counts = "slots",
               .help = "slots of the full context each (default: as many as fit)"},
              {.offset = FLAG_AT(fit_target_bytes),
               .label = "Fit margin",
               .engine_flag = "--fit-target",
               .def = (double)GIB,
               .help = "memory --fit keeps free on every GPU"},
              {.offset = FLAG_AT(v_dtype),
               .label = "V cache",
               .engine_flag = "-ctv",
               .help = "the V cache's type (default: the K cache's)"}},
    .splits_layers = true,
    .fixed_slots = true,
    .uses_preset_mfu = true,
    .offloads = true,
    .ngl_last_n = ngl_last_n,
    /* src/llama-model.cpp (create_memory): the recurrent r and s tensors in
     * GGML_TYPE_F32 */
    .state_conv = DTYPE_FP32,
    .state_ssm = DTYPE_FP32,
    /* common/common.h: common_params_speculative n_max = 16 (--draft-max);
     * a slot's cells are fixed: no lookahead joins them */
    .spec_tokens = 16,
    /* common/common.cpp (common_init_from_params) loads each --lora FILE whole */
    .lora_none = "keeps no adapter slots: it loads each --lora FILE as given",
    .lora_in_weights = true,
    .lora_flag = "--lora",
    .runtime_words = "compute buffers",
    .reserved_words = "outside budget",
    .server_command = "llama-server",
    .quant_serve = ", the GGUF file of that type (llama-quantize makes it)",
    .host = {.none = true,
             .words = "llama.cpp has no host tier (-nkvo moves the whole cache to host memory, "
                      "not modelled)"},
    .cell_cost = llamacpp_cell_cost,
    .own_cost_rows = true,
    .budget = budget,
    .launch = launch,
    .servers = policy_llamacpp_servers,
    .log = llamacpp_log,
};
