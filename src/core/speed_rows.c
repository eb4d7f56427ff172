/* speed_rows: the speed stage's explain rows, each term with its value and
 * unit, from the same step parts the figures come from (speed.c). */
#include "offload.h"
#include "speed_inputs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"
#include "speed_ttft.h"
#include "units.h"

/* MoE: the weights a batch reads, less the experts it leaves untouched. */
static void weights_row(const struct inputs *in, const struct scenario *s,
                        const struct speed_basis *r, struct explain *x, uint64_t m)
{
    char name[96];
    struct explain_row *row = explain_row_begin(x, "speed_weights", "Weights read", "per GPU");
    explain_term(row, (long double)(speed_gpu_weights(r) - r->spec->weights_bytes_per_gpu),
                 XU_BYTES, "weights on the GPU");
    explain_term(row, in->experts, XU_BYTES, "in experts");
    explain_term(row, in->expert_div, XU_COUNT,
                 in->expert_div == 1 ? "GPU" : r->layout->experts_spread ? "GPUs (all)" : "GPUs");
    explain_op(row, XOP_DIV);
    explain_term(row, 1, XU_COUNT, "");
    /* under DP + EP every replica's batch reaches this GPU's experts */
    uint64_t g = in->ep_scale > 1 ? (uint64_t)(m * in->ep_scale + 0.5) : m;
    if (g != m)
        snprintf(name, sizeof name, "share the %llu tokens of all %.0f ranks touch",
                 (unsigned long long)g, in->ep_scale);
    else
        snprintf(name, sizeof name, "share a batch of %llu touches", (unsigned long long)m);
    explain_term(row, speed_expert_share(&s->model, g), XU_RATIO, name);
    explain_op(row, XOP_SUB);
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_SUB);
    snprintf(name, sizeof name, "share = 1 - (1 - %u/%u)^%llu experts a layer",
             s->model.experts_per_token, s->model.experts, (unsigned long long)g);
    explain_row_end(x, row, XU_BYTES, 0, name);
}

/* What one decode step reads: the weights, the shared prefix once, and each
 * user's KV (and writes its new token's) and recurrent state, read and
 * written back. */
static void bytes_row(const struct inputs *in, const struct speed_basis *r, struct explain *x,
                      uint64_t m, const struct step_time *st, const char *wkey)
{
    char name[96];
    struct explain_row *row = explain_row_begin(x, "speed_bytes", "Read per step", "per GPU");
    if (wkey)
        explain_ref(x, row, wkey, "weights");
    else
        explain_term(row, st->weights_bytes, XU_BYTES, "weights");
    if (r->budget->prefix_bytes_per_gpu) {
        explain_term(row, (long double)r->budget->prefix_bytes_per_gpu, XU_BYTES, "prefix");
        explain_op(row, XOP_ADD);
    }
    uint64_t ng = users_per_gpu(in, m);
    explain_term(row, (long double)ng, XU_COUNT,
                 in->ranks > 1          ? (ng == 1 ? "user on this rank" : "users on this rank")
                 : in->microbatches > 1 ? "users a batch in flight"
                 : ng == 1              ? "user"
                                        : "users");
    double kv = (st->kv_bytes - (double)r->budget->prefix_bytes_per_gpu) / (double)ng;
    double state = st->state_bytes / (double)ng;
    explain_term(row, kv, XU_BYTES, in->read_share < 1.0 ? "KV each, the share read" : "KV each, its new token written");
    if (state > 0) {
        explain_term(row, 2, XU_COUNT, "");
        explain_term(row, state / 2, XU_BYTES, "state each, read and written back");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    if (in->read_share < 1.0)
        snprintf(name, sizeof name, "sparse attention reads every indexer key and the top "
                 "%.0f latents a layer", in->topk);
    explain_row_end(x, row, XU_BYTES, 0,
                    in->read_share < 1.0 ? name
                    : in->windowed       ? "windowed layers read at most their window"
                                         : NULL);
}

/* The rate a compute row divides by: the peak x MFU, or Apple silicon's
 * measured prefill rate in full (the GPU preset's measured_fp16_tflops). */
static void rate_terms(const struct inputs *in, struct explain_row *row, double peak,
                       enum dtype dt)
{
    char name[EXPLAIN_NAME_MAX];
    if (in->measured && in->mfu == 1.0) {
        explain_term(row, peak, XU_FLOPS, "per s (FP16 measured, llama.cpp pp512)");
        return;
    }
    snprintf(name, sizeof name, in->measured ? "per s (%s measured)" : "per s (%s peak)",
             dtype_info(dt)->name);
    explain_term(row, peak, XU_FLOPS, name);
    explain_term(row, in->mfu, XU_FRACTION, "MFU");
    explain_op(row, XOP_MUL);
}

/* GEMM flops at the compute peak and attention's at its own (FP4 weights:
 * attention in FP8), each over its peak x MFU, added. */
static void compute_terms(const struct inputs *in, struct explain_row *row, double gemm,
                          double attn)
{
    const double peaks[2] = {in->peak, in->attn_peak};
    const enum dtype dtypes[2] = {in->dtype, in->attn_dtype};
    const double flops[2] = {gemm, attn};
    for (int i = 0; i < 2; i++) {
        explain_term(row, flops[i], XU_FLOPS, i ? "attention" : "GEMMs");
        rate_terms(in, row, peaks[i], dtypes[i]);
        explain_op(row, XOP_DIV);
        if (i)
            explain_op(row, XOP_ADD);
    }
}

static void memory_compute_rows(const struct inputs *in, struct explain *x, uint64_t m,
                                const struct step_time *st)
{
    char name[96];
    struct explain_row *row = explain_row_begin(x, "speed_memory", "Memory time", "per step");
    explain_ref(x, row, "speed_bytes", "");
    /* the experts and the cache at their kernels' own reach (core/speedfamily.h):
     * as if more (or fewer) bytes were read at the MBU */
    double touched = st->expert_read_bytes;
    if (in->moe_mbu != 1.0 && in->experts > 0) {
        snprintf(name, sizeof name, "%s: experts read at %.0f%% of peak",
                 in->moe_mbu < 1.0 ? "more" : "less", in->moe_mbu * in->mbu * 100);
        explain_term(row, touched * fabs(1.0 / in->moe_mbu - 1.0), XU_BYTES, name);
        explain_op(row, in->moe_mbu < 1.0 ? XOP_ADD : XOP_SUB);
    }
    if (in->attn_mbu != 1.0 && st->kv_read_bytes > 0) {
        snprintf(name, sizeof name, "%s: MLA decode reads KV at %.0f%% of MBU",
                 in->attn_mbu < 1.0 ? "more" : "less", in->attn_mbu * 100);
        explain_term(row, st->kv_read_bytes * fabs(1.0 / in->attn_mbu - 1.0), XU_BYTES, name);
        explain_op(row, in->attn_mbu < 1.0 ? XOP_ADD : XOP_SUB);
    }
    explain_term(row, in->bw, XU_BYTES_PER_S, "bandwidth");
    explain_term(row, in->mbu, XU_FRACTION, "MBU");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_DIV);
    explain_row_end(x, row, XU_SECONDS, 0, NULL);

    row = explain_row_begin(x, "speed_flops", "Compute per step", "per GPU");
    explain_term(row, 2, XU_COUNT, "");
    explain_term(row, in->active, XU_COUNT, "active params");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)m, XU_COUNT, m == 1 ? "user" : "users");
    explain_op(row, XOP_MUL);
    explain_term(row, in->shards, XU_COUNT, in->shards == 1 ? "GPU" : "GPUs");
    explain_op(row, XOP_DIV);
    explain_term(row, st->attention_flops, XU_FLOPS,
                 in->ranks > 1 ? "attention over this rank's contexts"
                               : "attention over their contexts, this GPU's share");
    explain_op(row, XOP_ADD);
    explain_row_end(x, row, XU_FLOPS, 0, NULL);

    row = explain_row_begin(x, "speed_compute", "Compute time", "per step");
    if (in->peak > 0 && in->attn_peak != in->peak) {
        compute_terms(in, row, st->gemm_flops, st->attention_flops);
        explain_row_end(x, row, XU_SECONDS, 0, NULL);
    } else if (in->peak > 0) {
        explain_ref(x, row, "speed_flops", "");
        rate_terms(in, row, in->peak, in->dtype);
        explain_op(row, XOP_DIV);
        explain_row_end(x, row, XU_SECONDS, 0, NULL);
    } else {
        explain_row_end(x, row, XU_SECONDS, 0, "no compute figure for this GPU: memory alone");
    }
}

static void comm_row(const struct inputs *in, struct explain *x, const struct step_time *st,
                     double allreduces)
{
    char name[200], hops[64] = "";
    struct explain_row *row = explain_row_begin(x, "speed_comm", "All-reduce", "per step");
    uint32_t ring = in->tp < in->domain ? in->tp : in->domain;
    if (in->hop > 0 && in->nodes > 1) /* the network's, then 2 (p - 1) hops a node */
        snprintf(hops, sizeof hops, " (%.0f us + 2 x %u hops of %.1f us)",
                 SPEED_INTERNODE_LATENCY_S * 1e6, ring - 1, in->hop * 1e6);
    else if (in->hop > 0) /* the ring's: 2 (p - 1) hops (core/speedfamily.h) */
        snprintf(hops, sizeof hops, " (2 x %u hops of %.1f us)", ring - 1, in->hop * 1e6);
    explain_term(row, allreduces, XU_COUNT, in->allreduces_per_layer == 1
                                                ? "all-reduces (one a block)"
                                                : "all-reduces (two a layer)");
    explain_term(row, (st->comm_s - st->a2a_s) / allreduces, XU_SECONDS, "each");
    explain_op(row, XOP_MUL);
    if (in->nodes > 1)
        snprintf(name, sizeof name, "each: ring over %u GPUs across %u nodes at %.0f GB/s "
                 "(network) plus %.0f us%s", in->tp, in->nodes, in->link_used / 1e9,
                 in->latency * 1e6, hops);
    else if (in->tp > SPEC_GPUS_PER_NODE)
        snprintf(name, sizeof name, "each: ring over %u GPUs in one %u-GPU NVLink domain at "
                 "%.0f GB/s plus %.0f us%s", in->tp, in->domain, in->link_used / 1e9,
                 in->latency * 1e6, hops);
    else
        snprintf(name, sizeof name, "each: ring over %u GPUs at %.0f GB/s plus %.0f us%s",
                 in->tp, in->link_used / 1e9, in->latency * 1e6, hops);
    explain_row_end(x, row, XU_SECONDS, 0, name);
}

/* The stages' sends: each but the last sends the batch's activations to
 * the next, point to point. */
static void send_row(const struct inputs *in, const struct scenario *s, struct explain *x,
                     uint64_t batch)
{
    char name[160];
    struct explain_row *row = explain_row_begin(x, "speed_send", "Stage sends", "per step");
    double tokens = (double)batch; /* a batch in flight decodes a token each */
    explain_term(row, in->pp - 1, XU_COUNT, in->pp == 2 ? "send" : "sends");
    explain_term(row, in->stage_latency, XU_SECONDS, "latency");
    explain_term(row, tokens, XU_TOKENS, "tokens");
    explain_term(row, in->stage_send, XU_BYTES, "a token");
    explain_op(row, XOP_MUL);
    explain_term(row, in->stage_link, XU_LINK_BYTES_PER_S,
                 in->stage_network ? "network" : "link");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_ADD);
    explain_op(row, XOP_MUL);
    snprintf(name, sizeof name, "%s activations, 4 bytes a hidden value, to the next %s",
             engine_desc(s->engine.kind)->splits_layers ? "each GPU sends the batch's F32"
                                                        : "each stage sends the batch's",
             engine_desc(s->engine.kind)->splits_layers ? "GPU" : "stage");
    explain_row_end(x, row, XU_SECONDS, 0, name);
}

/* What a stage's fine-grained MoE layers add: routing, top-k, the grouped
 * GEMM's launch and gather. */
static void moe_row(const struct inputs *in, struct explain *x, const struct step_model *m)
{
    struct explain_row *row = explain_row_begin(x, "speed_moe", "MoE kernels", "per step");
    explain_term(row, m->moe_layers, XU_COUNT, "MoE layers");
    explain_term(row, in->moe_layer_overhead, XU_SECONDS, "each");
    explain_op(row, XOP_MUL);
    explain_row_end(x, row, XU_SECONDS, 0,
                    "routing, top-k and the grouped GEMM over small expert slices, fitted on "
                    "DeepSeek-R1 by GPU family (doc/SPEED-FIT-FAMILY.md)");
}

/* The step overhead's words: the engine's fitted figure, given, or calibrated. */
/* Each layer's kernel dispatch, where the GPU preset has it (Apple silicon
 * under llama.cpp): the layers a token passes, all stages', times its time. */
static void layer_term(const struct inputs *in, struct explain_row *row)
{
    char name[EXPLAIN_NAME_MAX];
    if (in->layer_overhead <= 0)
        return;
    double layers = (double)(uint32_t)(in->layers + 0.5) * in->pp;
    snprintf(name, sizeof name, "%.0f layers' kernel dispatch", layers);
    explain_term(row, layers * in->layer_overhead, XU_SECONDS, name);
    explain_op(row, XOP_ADD);
}

static const char *overhead_words(const struct scenario *s, const char *own)
{
    if (!s->has_step_overhead)
        return own;
    return s->speed_calibrated & SPEED_CAL_OVERHEAD ? "step overhead (calibrated)"
                                                    : "step overhead (--step-overhead)";
}

/* llama.cpp's layers, experts and cache in host memory: read there each
 * step, in turn with the GPU's layers. */
static void host_row(const struct inputs *in, const struct speed_basis *r, struct explain *x,
                     const struct step_time *st)
{
    const struct offload_split *o = &r->budget->engine.offload;
    if (st->host_s <= 0)
        return;
    struct explain_row *row = explain_row_begin(x, "speed_host", "Host time", "per step");
    if (st->host_copied) {
        explain_term(row, st->host_bytes, XU_BYTES, "copied from host memory");
        explain_term(row, o->link_bytes_per_s, XU_LINK_BYTES_PER_S,
                     o->link_assumed ? "host link (assumed: PCIe Gen4 x16)" : "host link");
        explain_op(row, XOP_DIV);
        explain_row_end(x, row, XU_SECONDS, 0,
                        "a batch of 32 tokens or more runs the host layers' matmuls on the GPU, "
                        "their weights and their cache's views copied over each micro-batch "
                        "(op offload)");
        return;
    }
    explain_term(row, st->host_bytes, XU_BYTES, "read in host memory");
    explain_term(row, o->host_bytes_per_s, XU_LINK_BYTES_PER_S, "host bandwidth");
    if (o->host_readers > 1) { /* one host a node: its servers share the bandwidth */
        explain_term(row, o->host_readers, XU_COUNT, "servers reading it at once");
        explain_op(row, XOP_DIV);
    }
    double mbu = offload_host_mbu(o, in->mbu);
    explain_term(row, mbu, XU_FRACTION,
                 mbu < OFFLOAD_HOST_MBU ? "reached (assumed: at most the GPU's, one bus)"
                                        : "reached");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_DIV);
    explain_row_end(x, row, XU_SECONDS, 0,
                    o->host_readers > 1
                        ? "the CPU layers and experts run on the CPU, in turn with the GPU's; "
                          "the servers of a node share its host memory's bandwidth, all "
                          "decoding at once"
                        : "the CPU layers and experts run on the CPU, in turn with the GPU's");
}

/* --output-len's closed loop: each user's share of the steps the others'
 * prompts take, a token's worth (struct speed_loop) */
static void loop_row(const struct scenario *s, const struct inputs *in, struct explain *x,
                     const struct speed_result *sp)
{
    char name[400], c[32], o[96];
    const struct speed_loop *l = &sp->loop;
    double gaps = (double)(sp->output_tokens - 1);
    bool alone = engine_desc(s->engine.kind)->sched.kind == SIM_SCHED_SGLANG;
    struct explain_row *row = explain_row_begin(x, "speed_prompts", "Others' prompts", "per token");
    units_format_int(sp->decode_context_tokens, c, sizeof c);
    if (l->saturated) {
        char room[32];
        units_format_int(l->room, room, sizeof room);
        explain_term(row, l->full_s, XU_SECONDS, alone ? "a prefill batch full of prompts, each gap"
                                                       : "a step's budget full of prompts, each gap");
        snprintf(name, sizeof name, "saturated: the %.0f others' prompts would fill more than every "
                 "step (%s prompt tokens a step), so each gap takes a full one and the rest wait "
                 "for their first token, the queue in the first token's row (kvplan simulate "
                 "--max-concurrency runs it); users at %s tokens",
                 l->prompts_max * (in->ranks > 1 ? in->ranks : 1), room, c);
        explain_row_end(x, row, XU_SECONDS, 0, name);
        return;
    }
    explain_term(row, l->prompts, XU_COUNT, "prompts a user's decode shares");
    explain_term(row, l->prompt_s, XU_SECONDS,
                 alone ? "a prompt's own prefill steps" : "a prompt's chunks in the decode steps");
    explain_op(row, XOP_MUL);
    explain_term(row, gaps, XU_COUNT, "gaps between a request's output tokens");
    explain_op(row, XOP_DIV);
    if (in->ranks > 1)
        snprintf(o, sizeof o, "%.0f others, %.1f a rank (a prompt's time is one on every rank at once)",
                 l->prompts_max * in->ranks, l->prompts_max);
    else
        snprintf(o, sizeof o, "%.0f others", l->prompts_max);
    if (speed_loop_calibrated(s))
        snprintf(name, sizeof name, "a closed loop (--output-len %llu), users at %s tokens: none "
                 "added, the calibrated step was fitted on a serving benchmark's TPOT, which "
                 "holds them", (unsigned long long)sp->output_tokens, c);
    else
        snprintf(name, sizeof name, "a closed loop (--output-len %llu): of the %s, each starts "
                 "D / (first token + D) requests while one decodes for D; users at %s tokens%s",
                 (unsigned long long)sp->output_tokens, o, c,
                 alone ? "; SGLang's prefill batches run alone, the decodes waiting" : "");
    explain_row_end(x, row, XU_SECONDS, 0, name);
}

static void step_rows(const struct inputs *in, const struct scenario *s,
                      const struct speed_basis *r, struct explain *x, const struct step_time *st,
                      const struct speed_result *sp)
{
    char name[96];
    host_row(in, r, x, st);
    struct explain_row *row = explain_row_begin(x, "speed_step", "Time per token", "per step");
    explain_ref(x, row, "speed_memory", "memory");
    if (in->peak > 0) { /* without a compute figure the step is the memory's alone */
        explain_ref(x, row, "speed_compute", "compute");
        explain_op(row, XOP_MAX);
    }
    if (st->moe_s > 0) {
        explain_ref(x, row, "speed_moe", "MoE kernels");
        explain_op(row, XOP_ADD);
    }
    if (in->tp > 1 && st->comm_s - st->a2a_s > 0) {
        explain_ref(x, row, "speed_comm", "all-reduce");
        explain_op(row, XOP_ADD);
    }
    if (st->a2a_s > 0) {
        explain_ref(x, row, "speed_a2a", "all-to-all");
        explain_op(row, XOP_ADD);
    }
    if (in->pp > 1) {
        explain_term(row, in->pp, XU_COUNT,
                     engine_desc(s->engine.kind)->splits_layers ? "GPUs in turn (layer split)"
                                                                : "stages in turn");
        explain_op(row, XOP_MUL);
    }
    if (st->send_s > 0) {
        explain_ref(x, row, "speed_send", "stage sends");
        explain_op(row, XOP_ADD);
    }
    if (st->host_s > 0) { /* once a step: the CPU layers are no GPU's */
        explain_ref(x, row, "speed_host", "host memory");
        explain_op(row, XOP_ADD);
    }
    layer_term(in, row);
    if (in->step_overhead > 0) {
        explain_term(row, in->step_overhead, XU_SECONDS, overhead_words(s, "each step's own"));
        explain_op(row, XOP_ADD);
    }
    explain_row_end(x, row, XU_SECONDS, 0,
                    in->peak <= 0                 ? "memory alone: no compute figure for this GPU"
                    : st->memory_s >= st->compute_s ? "memory binds"
                                                    : "compute binds");

    if (sp->output_tokens)
        loop_row(s, in, x, sp);
    row = explain_row_begin(x, "decode", "Speed per user", "");
    explain_term(row, 1, XU_COUNT, "token");
    explain_ref(x, row, "speed_step", "");
    if (sp->output_tokens) {
        explain_ref(x, row, "speed_prompts", "others' prompts");
        explain_op(row, XOP_ADD);
    }
    explain_op(row, XOP_DIV);
    snprintf(name, sizeof name, "at %llu user%s decoding at once%s%s",
             (unsigned long long)sp->concurrency, sp->concurrency == 1 ? "" : "s",
             r->layout->replicas > 1 ? " (all replicas)" : "",
             !sp->level_missed ? ""
             /* the speed keeps --min-tok-s (or there is none): the first token misses */
             : s->min_tokens_per_s <= 0 || sp->tokens_per_s_per_user >= s->min_tokens_per_s
                 ? "; one alone: its first token misses the target"
                 : "; misses the service level");
    explain_row_end(x, row, XU_TOK_PER_S, 0, name);

    row = explain_row_begin(x, "speed_total", "Throughput", "all replicas");
    if (sp->level_missed) { /* one user's speed alone is no one's at the service level */
        explain_row_end(x, row, XU_TOK_PER_S, 0,
                        "no user keeps the service level: the speed above is one user's alone");
        return;
    }
    explain_term(row, (long double)sp->concurrency, XU_COUNT,
                 sp->concurrency == 1 ? "user" : "users");
    explain_ref(x, row, "decode", "each");
    explain_op(row, XOP_MUL);
    explain_row_end(x, row, XU_TOK_PER_S, 0, NULL);
}

void speed_rows(const struct inputs *in, const struct scenario *s, const struct speed_basis *r,
                 struct explain *x, const struct speed_result *sp, const struct step_time *st)
{
    const char *wkey = NULL;
    if (x == NULL) /* rows only */
        return;
    uint64_t m = batch_users(in, sp->concurrency_per_replica); /* one batch in flight */
    if (s->model.experts) {
        weights_row(in, s, r, x, m);
        wkey = "speed_weights";
    }
    bytes_row(in, r, x, m, st, wkey);
    memory_compute_rows(in, x, m, st);
    struct step_model sm = step_model_of(in, s, r, true);
    if (in->tp > 1 && st->comm_s - st->a2a_s > 0)
        comm_row(in, x, st, sm.allreduces);
    speed_a2a_row(in, s, x, st, &sm);
    if (sm.moe_layers && in->moe_layer_overhead > 0)
        moe_row(in, x, &sm);
    if (st->send_s > 0)
        send_row(in, s, x, m);
    step_rows(in, s, r, x, st, sp);
}

/* The first token's terms beside its prefill (core/speed_ttft.h): the
 * engine's time outside the steps and the wait for the step in progress */
static void speed_ttft_row_terms(struct explain_row *row, const struct speed_result *sp)
{
    if (sp == NULL)
        return;
    if (sp->ttft_request_seconds > 0) {
        explain_term(row, sp->ttft_request_seconds, XU_SECONDS,
                     "per request, off the GPU");
        explain_op(row, XOP_ADD);
    }
    if (sp->ttft_wait_seconds > 0) {
        explain_term(row, sp->ttft_wait_seconds, XU_SECONDS,
                     "half a step, waited");
        explain_op(row, XOP_ADD);
    }
    if (sp->ttft_queue_seconds > 0) {
        explain_term(row, sp->ttft_queue_seconds, XU_SECONDS, "queued, the loop saturated");
        explain_op(row, XOP_ADD);
    }
}

void speed_prefill_row(const struct inputs *in, const struct scenario *s, struct explain *x,
                        const char *key, const char *label, uint64_t tokens,
                        const struct step_time *f, const struct speed_result *sp)
{
    char name[96];
    if (x == NULL) /* a row only */
        return;
    struct explain_row *row = explain_row_begin(x, key, label, "");
    if (in->peak <= 0 || in->bw <= 0) {
        explain_row_end(x, row, XU_SECONDS, 0, in->peak <= 0 ? "no compute figure for this GPU"
                                                             : "no bandwidth figure for this GPU");
        return;
    }
    if (in->attn_peak != in->peak) { /* one term: the row's terms are few */
        snprintf(name, sizeof name, "GEMMs at %s peak, attention at %s",
                 dtype_info(in->dtype)->name, dtype_info(in->attn_dtype)->name);
        explain_term(row, f->compute_s, XU_SECONDS, name);
    } else {
        explain_term(row, f->flops, XU_FLOPS, "prefill per GPU");
        rate_terms(in, row, in->peak, in->dtype);
        explain_op(row, XOP_DIV);
    }
    explain_term(row, f->memory_s, XU_SECONDS, "reading the weights, writing the KV");
    explain_op(row, XOP_MAX);
    if (f->moe_s > 0) {
        explain_term(row, f->moe_s, XU_SECONDS, "MoE kernels");
        explain_op(row, XOP_ADD);
    }
    if (f->comm_s - f->a2a_s > 0) {
        explain_term(row, f->comm_s - f->a2a_s, XU_SECONDS, "all-reduces");
        explain_op(row, XOP_ADD);
    }
    if (f->a2a_s > 0) {
        explain_term(row, f->a2a_s, XU_SECONDS, "all-to-alls");
        explain_op(row, XOP_ADD);
    }
    if (in->pp > 1) {
        explain_term(row, in->pp, XU_COUNT, "stages in turn");
        explain_op(row, XOP_MUL);
    }
    if (f->send_s > 0) {
        explain_term(row, f->send_s, XU_SECONDS, "stage sends");
        explain_op(row, XOP_ADD);
    }
    if (f->host_s > 0) { /* llama.cpp's host layers, once a step (not a stage's) */
        explain_term(row, f->host_s, XU_SECONDS,
                     f->host_copied ? "copying host layers to the GPU" : "host layers on the CPU");
        explain_op(row, XOP_ADD);
    }
    layer_term(in, row);
    if (in->step_overhead > 0) {
        explain_term(row, in->step_overhead, XU_SECONDS, overhead_words(s, "the step's own"));
        explain_op(row, XOP_ADD);
    }
    speed_ttft_row_terms(row, sp);
    char t[32], note[448];
    units_format_int(tokens, t, sizeof t);
    const struct model_spec *m = &s->model;
    /* the first token holds more than the prefill when it waits or the
     * engine adds its own time */
    const char *alone = sp && (sp->ttft_request_seconds > 0 || sp->ttft_wait_seconds > 0)
                            ? "prefilled"
                            : "alone";
    if (m->attention == ATTENTION_MLA)
        snprintf(note, sizeof note, "%s %s-token prompt %s: 2 x active params x tokens + "
                 "attention, MLA expanded as engines prefill it (QK %u, PV %u dims a head); "
                 "compute and weights overlap", units_article(t), t, alone,
                 (m->qk_nope_head_dim ? m->qk_nope_head_dim : m->head_dim) + m->qk_rope_head_dim,
                 m->v_head_dim ? m->v_head_dim : m->head_dim);
    else
        snprintf(note, sizeof note, "%s %s-token prompt %s: 2 x active params x tokens + "
                 "attention; compute and weights overlap", units_article(t), t, alone);
    /* the calibrated MFU stands for a first token measured with one request in
     * flight (kvplan calibrate): its per-request time is in it, the wait not */
    if (sp && (s->speed_calibrated & SPEED_CAL_MFU) && strlen(note) + 80 < sizeof note)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "; calibrated on one request in flight, its per-request time in it");
    if (sp && sp->prompt_never_runs) {
        char b[32];
        units_format_int(sp->prompt_step_tokens, b, sizeof b);
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "; %s runs a prompt whole in one step: more than its %s tokens a step "
                 "(max_num_tokens), so it never starts one", engine_desc(s->engine.kind)->title, b);
    }
    /* where the per-request term comes from (tools/fit_ttft.py) */
    char basis[128];
    speed_request_overhead_basis(s, basis, sizeof basis);
    if (sp && sp->ttft_request_seconds > 0 && basis[0] &&
        strlen(note) + strlen(basis) + 24 < sizeof note)
        snprintf(note + strlen(note), sizeof note - strlen(note), "; per request: %s", basis);
    explain_row_end(x, row, XU_SECONDS, 0, note);
}

