/* steptime: the time of one engine iteration (a step), a pure function of
 * the batch it runs. A step reads the weights the batch needs (for MoE,
 * the experts its tokens touch), every sequence's KV and recurrent state
 * (the state read and written back), computes the GEMMs (2 flops a
 * parameter a token) and the attention over each sequence's context, and
 * while the GPUs of a tensor-parallel group exchange their partial sums
 * (all-reduces, as each architecture issues them). Memory and compute
 * overlap (the slower binds); a fine-grained MoE layer's routing and
 * grouped-GEMM kernels and the all-reduces add; the stages pass in turn,
 * and a fixed overhead each step (scheduler, sampling, graph launch) adds.
 *
 * Decode and prefill are the same function: a decoding sequence computes 1
 * token over its context, a prefill chunk computes `tokens` over the prompt
 * before it plus itself (causally). A mixed batch (chunked prefill) is the
 * sum of both kinds. The serving simulator calls this for every step: it
 * allocates nothing and loops once over the batch. */
#ifndef KVPLAN_CORE_STEPTIME_H
#define KVPLAN_CORE_STEPTIME_H

#include <stddef.h>
#include <stdint.h>

/* One GPU and what an engine reaches on it. Rates per second. */
struct step_machine {
    double bytes_per_s;         /* memory bandwidth per GPU; 0 = unknown (no answer) */
    double flops_per_s;         /* dense peak in the compute precision; 0 = unknown */
    double attn_flops_per_s;    /* attention's peak where it computes in another precision
                                 * (FP4 GEMMs, attention in FP8); 0 = flops_per_s */
    double mbu, mfu;            /* achievable fractions of the two */
    double moe_mbu;             /* the share of mbu a grouped expert GEMM reaches reading
                                 * experts at a few tokens an expert (1 = as dense) */
    double attn_mbu;            /* the share of mbu decode's attention kernels reach reading
                                 * the cache before the step (0 or 1 = as the weights) */
    double link_bytes_per_s;    /* all-reduce bandwidth per GPU, each way */
    double link_latency_s;      /* the fixed cost of one all-reduce */
    double a2a_bytes_per_s;     /* an expert-parallel all-to-all's bandwidth per GPU, each way
                                 * (the link the EP ranks share: NVLink, or the network) */
    double a2a_latency_s;       /* the fixed cost of one all-to-all (a dispatch or a combine) */
    double stage_bytes_per_s;   /* a pipeline stage's send to the next, per GPU; 0 = none */
    double stage_latency_s;     /* the fixed cost of one such send (a point-to-point) */
    double step_overhead_s;     /* each step: scheduling, sampling, graph launch */
    double layer_overhead_s;    /* each layer a step passes, where the backend pays its
                                 * kernels' dispatch per layer (llama.cpp on Metal) */
    double moe_layer_overhead_s; /* each fine-grained MoE layer: routing, top-k, the grouped
                                  * GEMM's launch and gather over small expert slices */
    /* llama.cpp with layers or experts in host memory (core/offload.h): the
     * host's bandwidth (0: nothing there) and the share of it reached; a step
     * of at least host_offload_batch tokens runs their matmuls on the GPU
     * after copying the weights over the host link, once a micro-batch of
     * host_ubatch tokens (ggml_backend_sched's op offload) */
    double host_bytes_per_s, host_mbu;
    double host_link_bytes_per_s;
    double host_offload_batch, host_ubatch;
};

/* One GPU's share of one model replica (a stage's, under pipeline stages). */
struct step_model {
    double dense_bytes;         /* weights every step reads: all but the routed experts */
    double expert_bytes;        /* routed experts held on this GPU */
    uint32_t experts;           /* routed experts a MoE layer holds; 0 = dense */
    uint32_t experts_per_token;
    uint32_t moe_layers;        /* layers with fine-grained routed experts (this stage's) */
    uint32_t layers;            /* layers a token passes on this GPU (this stage's) */
    double flops_per_token;     /* GEMMs: 2 x active parameters / the GPUs they split over,
                                 * the routed experts' apart when expert_flops_per_token */
    double expert_flops_per_token; /* the routed experts': 2 x their active parameters / the
                                    * GPUs the experts spread over, for each global token */
    /* KV bytes one context token costs on this GPU, over the global layers and
     * over the windowed ones (which read at most `window` tokens) */
    double kv_bytes_global, kv_bytes_windowed;
    uint64_t window;
    double kv_read_share;       /* of a sequence's cache a decode step reads (sparse attention
                                 * reads its top-k); 1 = all */
    /* A prefix every sequence shares, stored once: the first shared_tokens of
     * each context; the step reads its shared_bytes once, not per sequence */
    uint64_t shared_tokens;
    double shared_bytes;
    double state_bytes;         /* recurrent and convolution state a sequence keeps here */
    /* attention flops per (query token x context token), this GPU's share,
     * over the global and over the windowed layers; prefill runs MLA expanded */
    double attn_decode_global, attn_decode_windowed;
    double attn_prefill_global, attn_prefill_windowed;
    double index_flops;         /* a sparse-attention indexer's flops per (query x context)
                                 * token, whole on every GPU */
    double attn_topk;           /* sparse attention attends at most this many; 0 = dense */
    double hidden;              /* the width of the vectors all-reduced, 16-bit */
    double token_scale;         /* tokens the GEMMs, experts and all-reduces see per token of
                                 * these sequences: the ranks under data-parallel attention,
                                 * whose batches gather for the MLP; 0 or 1 = the same */
    /* The routed experts under data-parallel attention with experts over the
     * DP group (vLLM's DP + EP, SGLang's DP attention + EP): the experts on
     * this GPU serve every rank's tokens, ep_scale global tokens per token
     * the GEMMs see (0 or 1 = the same); each MoE layer dispatches a token's
     * tokens' hidden states to the experts and combines the results back:
     * a rank moves a2a_copies of the global tokens each way (the all-gather's
     * (R - 1) / R), a2a_bytes a token (dispatch and combine together), over
     * a2a_layers layers; 0 = none */
    double ep_scale;
    double a2a_copies, a2a_bytes;
    uint32_t a2a_layers;
    uint32_t tp;                /* GPUs of one all-reduce ring; 1 = none */
    double allreduces;          /* all-reduces a token pass issues on this GPU */
    uint32_t stages;            /* stages a token passes in turn (pipeline, layer split) */
    double stage_send_bytes;    /* bytes a token's activations cost at each stage boundary */
    /* in host memory (llama.cpp's CPU layers and experts): the weights a step
     * reads, the routed experts there, the KV of a context token over the
     * global and the windowed layers, and the state a sequence keeps there */
    double host_dense_bytes, host_expert_bytes;
    double host_kv_global, host_kv_windowed, host_state_bytes;
};

/* One sequence of the batch: its context before the step and the tokens the
 * step computes for it (1 when it decodes, a chunk of its prompt when it
 * prefills). */
struct step_seq {
    uint64_t context;
    uint64_t tokens;
};

/* The time of a step and its parts, seconds (one stage's, and the total of
 * the stages in turn plus the step's overhead); bytes and flops on one GPU. */
struct step_time {
    double tokens;              /* tokens the step computes */
    double experts_touched;     /* routed experts a MoE layer reads (mean) */
    double tokens_per_expert;   /* tokens each touched expert computes (mean) */
    double weights_bytes, kv_bytes, state_bytes, bytes;
    double kv_read_bytes;       /* of kv_bytes, the decoding sequences' cache before the step
                                 * and the shared prefix: what decode's attention reads */
    double expert_read_bytes;   /* of weights_bytes, the routed experts' */
    double gemm_flops, attention_flops, flops;
    double weights_s, kv_s, state_s, memory_s;
    double gemm_s, attention_s, compute_s;
    double comm_s;              /* the all-reduces and the all-to-alls, one stage */
    double a2a_bytes;           /* the all-to-alls: bytes a GPU sends (and receives) a step */
    double a2a_s;               /* of comm_s, the all-to-alls' */
    double moe_s;               /* the MoE layers' own kernels, one stage */
    double host_bytes;          /* read in host memory (or copied from it to the GPU) */
    double host_s;              /* reading them there, or copying them over the link */
    int host_copied;            /* 1: copied to the GPU (a batch past host_offload_batch) */
    double overhead_s;          /* the step's own */
    double stage_s;             /* one stage: max(memory, compute) + moe + comm */
    double send_s;              /* the stages' sends to the next, (stages - 1) of them */
    double total_s;             /* stage_s x stages + send_s + host_s (once a step) + overhead_s */
};

/* The time of one step over `n` sequences (seconds; 0 when the GPU has no
 * bandwidth figure or the batch is empty); fills `out` when not NULL. */
double step_time(const struct step_model *m, const struct step_machine *hw,
                 const struct step_seq *seqs, size_t n, struct step_time *out);

/* The same step over `copies` sequences alike (one `alike`: the users of a
 * batch at one context) and the `n` others in seqs: what step_time gives
 * for the whole list, without writing it out (core/speed.c's closed loop). */
double step_time_alike(const struct step_model *m, const struct step_machine *hw,
                       const struct step_seq *alike, uint64_t copies, const struct step_seq *seqs,
                       size_t n, struct step_time *out);

/* The mean share of a MoE layer's routed experts a step of `tokens` tokens
 * touches, each token choosing k of E: 1 - (1 - k/E)^tokens (1 for dense). */
double step_expert_share(uint32_t experts, uint32_t experts_per_token, double tokens);

/* Tokens one query attends to over a window of w (0 = none) when its
 * context before the step is `ctx` and it is token i of a chunk (causal). */
double step_attended(double ctx, double w);

#endif
