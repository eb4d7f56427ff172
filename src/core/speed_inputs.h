/* speed_inputs: what speed.c derives from a plan once (rates, layout,
 * per-token work), shared with its explain rows (speed_rows.c). Internal to
 * core's speed stage. */
#ifndef KVPLAN_CORE_SPEED_INPUTS_H
#define KVPLAN_CORE_SPEED_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "speed.h"
#include "steptime.h"

/* inputs_of (speed.c) sets every field rather than zero the whole (a sweep
 * row computes it; the zeroing, and the copy it cost, were a twentieth of
 * the row's time): a new field is set there. */
struct inputs {
    double bw, peak, mbu, mfu;
    bool measured;              /* peak is Apple's measured prefill rate, not a vendor's peak */
    enum dtype dtype;           /* the compute precision (peak's) */
    double attn_peak;           /* attention's peak: FP4 GEMMs' attention computes in FP8 */
    enum dtype attn_dtype;
    double experts;             /* bytes of the model's routed experts */
    double active, hidden;      /* parameters per token, hidden width */
    double active_routed;       /* of active, the routed experts' (expert_params x k / E) */
    double per_ctx_token;       /* decode attention flops per context token per layer, all heads */
    double per_ctx_prefill;     /* the same in prefill (MLA computes it expanded) */
    double link_used, latency;  /* the all-reduce's bandwidth per GPU and step latency */
    double hop;                 /* of latency, one hop of the ring within a node; 0 = flat */
    uint32_t nodes;             /* nodes (NVLink domains) one tensor-parallel group spans */
    uint32_t domain;            /* GPUs of one: a node's, or the NVLink domain's (spec_gpu_domain) */
    uint32_t tp;
    double layers, global, windowed; /* on one GPU: a stage's, or llama.cpp's share */
    double allreduces_per_layer; /* 2 (attention, MLP), or 1 where a layer is one block */
    double moe_mbu;             /* a grouped expert GEMM's share of mbu */
    double attn_mbu;            /* the decode attention kernels' share of mbu reading the cache */
    double step_overhead, moe_layer_overhead; /* seconds */
    double layer_overhead;      /* seconds a layer adds to a step (Apple silicon, llama.cpp) */
    uint32_t pp;                /* stages a token passes in turn: --pp, or llama.cpp's
                                 * layer split over a replica's GPUs */
    uint32_t microbatches;      /* batches in flight: PP keeps its stages busy, llama.cpp not */
    /* A stage's send of a token's activations to the next (pp > 1): bytes a
     * token, over the link at stage_link bytes/s and stage_latency seconds a
     * send; stage_network: past the NVLink domain, over the network */
    double stage_send, stage_link, stage_latency;
    bool stage_network;
    double shards;              /* GPUs one replica's weights split over: TP x stages */
    double expert_div;          /* GPUs the routed experts split over (vLLM spreads them) */
    uint32_t ranks;             /* SGLang DP attention: each TP rank holds its own users */
    /* Expert parallel under DP attention (speed_a2a.c): ep_ranks GPUs hold
     * the routed experts, each rank's experts serving ep_scale times the
     * tokens its GEMMs see; a2a_copies remote copies a token per all-to-all,
     * a2a_dispatch bytes an element dispatched (fp8 or bf16), bf16 combined,
     * over a2a_nodes nodes at a2a_link bytes/s each way and a2a_latency
     * seconds an all-to-all. ep_ranks 0: none. */
    uint32_t ep_ranks, a2a_nodes, a2a_layers; /* a2a_layers: MoE layers on one GPU */
    double ep_scale, a2a_copies, a2a_dispatch, a2a_link, a2a_latency;
    bool a2a_whole;             /* whole experts to their ranks (else slices: every rank) */
    uint64_t window;
    /* DeepSeek sparse attention: attention reads `topk` latents a layer, the
     * indexer scores every token (index_flops per context token per layer,
     * replicated on every GPU) and reads every indexer key: a decoding user
     * reads read_share of its cache. topk 0: dense. */
    double topk, index_flops, read_share;
};

/* The users of one batch in flight: all of the replica's, or with pipeline
 * stages one batch per stage. */
static inline uint64_t batch_users(const struct inputs *in, uint64_t n)
{
    return (n + in->microbatches - 1) / in->microbatches;
}

/* The users whose cache one GPU reads: the replica's, or under DP attention
 * its rank's share. */
static inline uint64_t users_per_gpu(const struct inputs *in, uint64_t n)
{
    return (n + in->ranks - 1) / in->ranks;
}

/* The expert-parallel terms of in (speed_a2a.c): ep_ranks 0 where the
 * layout has none. */
void speed_a2a_inputs(const struct scenario *s, const struct speed_basis *r, struct inputs *in);
/* Its terms in the step function's model (a decode's or a prefill's). */
void speed_a2a_model(const struct inputs *in, bool decode, struct step_model *m);
/* The all-to-all's explain row (after the all-reduce's). */
void speed_a2a_row(const struct inputs *in, const struct scenario *s, struct explain *x,
                   const struct step_time *st, const struct step_model *m);
/* One GPU's share of the replica as the step function sees it, for a decode
 * batch (gathered under DP attention) or for one prompt's prefill. */
struct step_model step_model_of(const struct inputs *in, const struct scenario *s,
                                const struct speed_basis *r, bool decode);

/* The weights one GPU holds (llama.cpp's split's, when it has one). */
uint64_t speed_gpu_weights(const struct speed_basis *r);

/* The decode step's rows (weights, bytes, memory, compute, all-reduce, MoE
 * kernels, time, speed, throughput) for n users of a replica. */
void speed_rows(const struct inputs *in, const struct scenario *s, const struct speed_basis *r,
                 struct explain *x, const struct speed_result *sp, const struct step_time *st);

/* The first token's row (or a recompute's, under key and label). */
void speed_prefill_row(const struct inputs *in, const struct scenario *s, struct explain *x,
                        const char *key, const char *label, uint64_t tokens,
                        const struct step_time *f,
                       const struct speed_result *sp);

/* The inputs of s's speed (speed_inputs.c); the compute precision and its
 * peak (Apple's measured rate where the preset has one). */
struct inputs speed_inputs_of(const struct scenario *s, const struct speed_basis *r);
enum dtype speed_compute_dtype(const struct scenario *s, const struct speed_basis *r,
                               double *peak);

#endif
