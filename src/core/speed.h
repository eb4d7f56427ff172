/* speed: how fast the users that fit are served. A decode step reads every
 * weight it needs (for MoE, only the experts a batch touches) and every
 * user's cache, and computes 2 x active parameters per token plus attention
 * over each user's context; the slower of the two binds, and tensor
 * parallelism adds its all-reduces. The time to the first token computes a
 * prompt's prefill. Users at a service level are the most that keep a target
 * speed. Internal to core: plan.c calls speed_compute once per plan, after
 * the totals, and the plan holds its result (struct speed_result). */
#ifndef KVPLAN_CORE_SPEED_H
#define KVPLAN_CORE_SPEED_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "dtype.h"
#include "explain.h"
#include "kvcost.h"
#include "placement.h"
#include "scenario.h"
#include "specdec.h"
#include "steptime.h"
#include "totals.h"

/* Defaults of the achievable fractions of peak bandwidth and compute, and
 * the latency of one all-reduce, until a measurement says otherwise
 * (doc/MODEL.md says where they come from). */
#define SPEED_DEFAULT_MBU 0.7
#define SPEED_DEFAULT_MFU 0.5
/* Fitted by tools/fit_speed.py on the public measurements (doc/SPEED-FIT.md):
 * a serving engine's step overhead (scheduler, sampling, graph launch; the
 * engine descriptors take it, llama.cpp's bench loop none) and what each
 * fine-grained MoE layer adds (routing, top-k, the grouped GEMM's launch and
 * gather over tens of small expert slices). */
#define SPEED_STEP_OVERHEAD_S 0.9e-3
#define SPEED_MOE_LAYER_OVERHEAD_S 78.8793e-6 /* 75 us a layer of DeepSeek's 61, a MoE layer of its 58 */
/* more routed experts than this is "fine-grained": the speed model is optimistic */
#define SPEED_MOE_FINE_EXPERTS 16
#define SPEED_ALLREDUCE_LATENCY_S 8e-6
/* GPUs one node holds (DGX/HGX H100, H200, B200; MI300X platforms): tensor
 * parallel wider than this all-reduces over the network between nodes. */
#define SPEED_GPUS_PER_NODE 8
/* The network between nodes, per GPU: one 400 Gb/s InfiniBand or RoCE NIC
 * per GPU (ConnectX-7 in the DGX H100 / HGX reference builds) = 50 GB/s each
 * way; an all-reduce step over it waits longer than over NVLink. */
#define SPEED_INTERNODE_BYTES_PER_S 50e9
#define SPEED_INTERNODE_LATENCY_S 25e-6

/* A prompt's steps timed one by one up to this many; past it, in groups */
#define SPEED_PROMPT_STEPS 32

/* The closed loop of --output-len: n users a replica, each request a prompt
 * then `output` tokens, a new one sent as one ends (vllm bench serve
 * --max-concurrency n, its TPOT). One user's decode of output - 1 gaps,
 * D = gaps x TPOT, shares the replica's steps with the prompts the other
 * users start meanwhile: each of them (n - 1 a replica, a DP rank's share
 * under DP attention) starts D / (A + D) requests, A the first token's time,
 * and each prompt adds prompt_s to the steps it runs in. So
 * D = gaps x step + prompts_max x prompt_s x D / (A + D), solved for D. */
/* What one prompt adds to the steps it runs in (speed_prompt_seconds):
 * prompt_s in all, full_s to a step its budget fills with prompts (the most
 * a step takes: whole prompts as many as fit, or a longer one's chunk);
 * room, the prompt tokens a step takes beside its decodes. */
struct speed_prompt {
    double prompt_s, full_s;
    uint64_t room;
};

struct speed_loop {
    double step_s;      /* the decode step at the loop's mean context */
    double prompt_s;    /* what one prompt adds to the steps (core/speed.c) */
    double full_s;      /* ... to a step full of prompts: a gap's most */
    uint64_t room;      /* the prompt tokens such a step takes */
    bool saturated;     /* the prompts fill every step: TPOT a full step's, the
                         * rest waits in the first token */
    double queue_s;     /* ... that wait, past the first token alone */
    double prompts_max; /* the other users: prompts a decode shares, at most */
    double prompts;     /* ... of them, D / (A + D) each */
    double tpot_s;      /* the time per output token */
};
struct speed_loop speed_loop_of(double step_s, struct speed_prompt prompt, double first_s,
                                uint64_t n, uint32_t ranks, uint64_t output);

/* Whether a speed calibration's decode was fitted on a serving benchmark's
 * TPOT (several users, with prompts), which holds the others' prompts: the
 * closed loop then adds none (its mean context stays). */
bool speed_loop_calibrated(const struct scenario *s);

/* What limits the users at a service level. */
enum binding_limit { BIND_MEMORY, BIND_DECODE, BIND_PREFILL, BIND_SCHEDULER };

/* Speed at the service level (core/speed.c): one decode step of `concurrency`
 * users, the time to the first token of one prompt, and the users that keep
 * a target speed. Rates are per second; all estimates from bandwidth and
 * compute at achievable fractions (mbu, mfu). */
struct speed_result {
    bool known;                  /* the GPU's bandwidth is known */
    double mbu, mfu;             /* the fractions used */
    double peak_flops;           /* dense peak per GPU in the compute precision; 0 unknown */
    enum dtype compute_dtype;
    uint64_t concurrency;        /* users decoding at once, every replica */
    uint64_t concurrency_per_replica;
    uint64_t step_bytes_per_gpu; /* read per decode step */
    double step_flops_per_gpu;
    double memory_seconds, compute_seconds, comm_seconds;
    double a2a_seconds;         /* of comm_seconds, the expert-parallel all-to-alls' */
    double a2a_bytes_per_gpu;   /* what they move a step, each way, on one GPU */
    double moe_seconds;          /* a stage's fine-grained MoE kernels */
    double send_seconds;         /* the stages' sends of activations to the next, all of them */
    double overhead_seconds;     /* each step's own */
    uint32_t step_layers, step_moe_layers, stages; /* layers one GPU runs, in turn over stages */
    uint32_t domain_gpus;        /* GPUs one all-reduce keeps on NVLink: a node, or the domain */
    double step_seconds;         /* the decode step: time per output token alone */
    /* --output-len: a closed loop's mean context and TPOT (struct speed_loop);
     * without it, decode_context_tokens is the average in use and tpot_seconds
     * the step */
    uint64_t output_tokens, decode_context_tokens;
    struct speed_loop loop;
    double tpot_seconds;
    double tokens_per_s_per_user, tokens_per_s_total;
    uint64_t prompt_tokens;
    /* an engine that runs a prompt whole in one step (TensorRT-LLM without
     * chunked context) and a prompt longer than its step's tokens
     * (max_num_tokens): the engine never starts it */
    uint64_t prompt_step_tokens;
    bool prompt_never_runs;
    double prefill_flops_per_gpu, ttft_seconds, prefill_tokens_per_s;
    /* ttft_seconds' parts (core/speed_ttft.h): the prefill alone, the
     * engine's per-request time outside the steps, the wait for the step in
     * progress when other users decode */
    double ttft_prefill_seconds, ttft_request_seconds, ttft_wait_seconds;
    double ttft_queue_seconds;   /* a saturated closed loop's queue (--output-len) */
    uint64_t users_at_service_level;
    bool level_unknown;          /* a target kvplan cannot check (no bandwidth or compute figure):
                                  * users_at_service_level is then 0 */
    bool level_target;           /* a target was given (--min-tok-s, --max-ttft) */
    bool level_missed;           /* a target no count of users keeps, not even one alone:
                                  * users_at_service_level is 0 and the speed is one user's */
    bool level_forced_missed;    /* --concurrency users decode slower than --min-tok-s; the
                                  * count that keeps it stays users_at_service_level */
    double target_tokens_per_s;  /* --min-tok-s, for the warning's words */
    double target_ttft_seconds;  /* --max-ttft, the same */
    enum binding_limit binding;
};

/* "memory", "decode", "prefill", "scheduler" */
const char *plan_binding_name(enum binding_limit b);

/* What the speed model reads: the results of the stages before it. */
struct speed_basis {
    const struct placement *layout;
    const struct kv_cost *cost;
    const struct spec_result *spec;
    const struct plan_budget *budget;
    const struct plan_totals *totals;
};

/* The service level of the plan in b: fills *out and writes its rows to x
 * when not NULL. */
void speed_compute(const struct scenario *s, const struct speed_basis *b, struct speed_result *out,
                   struct explain *x);

/* One decode step of n users of one replica (seconds), for searches. */
/* The MFU without --mfu or a calibration: the preset's achievable_mfu under
 * llama.cpp, else SPEED_DEFAULT_MFU (a measured-rate GPU uses its rate in full). */
double speed_default_mfu(const struct scenario *s);

double speed_step_seconds(const struct scenario *s, const struct speed_basis *b, uint64_t n);

/* The same step with its parts (memory, compute, all-reduce, MoE kernels,
 * overhead; st not NULL), and the prefill of `tokens` alone on a replica as
 * the first token computes it (0, st zeroed, without a compute figure): what
 * a calibration compares with a benchmark's TPOT and TTFT. */
double speed_decode_parts(const struct scenario *s, const struct speed_basis *b, uint64_t n,
                          struct step_time *st);
double speed_prefill_parts(const struct scenario *s, const struct speed_basis *b, uint64_t tokens,
                           struct step_time *st);

/* The time to compute the cache of `tokens` again by prefill, alone on a
 * replica, as the first token is computed (0 when the GPU has no compute or
 * bandwidth figure); writes row `key` to x when not NULL. */
double speed_recompute_seconds(const struct scenario *s, const struct speed_basis *b,
                               uint64_t tokens, struct explain *x, const char *key,
                               const char *label);

/* What one prompt of the scenario (--prompt, less a shared prefix) adds
 * to the steps of n decoding users a replica: its chunks (the plan's token
 * budget) mixed into their steps, each step's time less the decode's alone;
 * under SGLang, whose prefill batches run alone, its steps' whole time. */
struct speed_prompt speed_prompt_seconds(const struct scenario *s, const struct speed_basis *b,
                                         uint64_t n);

/* What the step function reads for the plan in b, as the serving simulator
 * (core/sim.h) steps it: one GPU's share of a replica, with decode's
 * attention for a sequence of one token and prefill's for a chunk (MLA runs
 * each its own form), and the GPU as the speed model reaches it. */
void speed_step_inputs(const struct scenario *s, const struct speed_basis *b,
                       struct step_model *m, struct step_machine *hw);

/* The share of a layer's experts a batch of n tokens touches:
 * 1 - (1 - k/E)^n (all of them for a dense model). */
double speed_expert_share(const struct model_spec *m, uint64_t n);

#endif
