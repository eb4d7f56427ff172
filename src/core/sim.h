/* sim: a discrete-event simulation of one deployment serving a stream of
 * requests (core/workload.h), step by step, as the engine's own scheduler
 * runs them, on the plan's own KV pool, each step as long as the step
 * function (core/steptime.h) says for the sequences it runs.
 *
 * The engines' schedulers (config.sched, from the engine descriptor's sched
 * traits) are one file each behind struct sim_scheduler_ops
 * (sim_internal.h); the event loop, the client, the router and the figures
 * are shared:
 *  - vLLM V1 (sim_sched_vllm.c), below;
 *  - SGLang (sim_sched_sglang.c): prefill batches first, each new request
 *    charged against the free tokens less the running ones' reserve
 *    (new_token_ratio), decode of every running request otherwise,
 *    retract_decode when a decode does not fit (scheduler.py,
 *    schedule_policy.py PrefillAdder at sgl-project/sglang 00550cd1,
 *    schedule_batch.py);
 *  - llama.cpp's server (sim_sched_slots.c): --parallel slots, a request
 *    waiting for an idle one, one batch of n_batch tokens a step run in
 *    n_ubatch passes (tools/server/server.cpp update_slots at
 *    ggml-org/llama.cpp aa6192d3);
 *  - TensorRT-LLM (sim_sched_trtllm.c): in-flight batching of whole prompts
 *    and decodes within max_batch_size and max_num_tokens, capacity policy
 *    GUARANTEED_NO_EVICT or MAX_UTILIZATION (batch_manager/
 *    capacityScheduler.cpp at NVIDIA/TensorRT-LLM 02a10fed,
 *    microBatchScheduler.cpp at 0a949d31).
 * Each file's head says what it models and leaves out; doc/MODEL.md
 * section 13 has them all.
 *
 * vLLM's scheduler is Scheduler.schedule() (vllm/v1/core/sched/
 * scheduler.py) and KVCacheManager.allocate_slots() (vllm/v1/core/
 * kv_cache_manager.py), read at vllm-project/vllm commits 00024d31 and
 * 003df296, with its default FCFS policy, chunked prefill on, no
 * speculative tokens, synchronous steps. Each step has a budget of
 * max_num_batched_tokens tokens:
 *  1. the running requests first, in the order they joined: each takes the
 *     tokens it has not computed (1 when it decodes, the rest of its prompt
 *     when it prefills), at most what the budget has left; its new tokens
 *     need KV blocks (ceil(tokens / block) in all, less those it holds);
 *     when the pool has too few free, the newest running request is
 *     preempted (its blocks freed, its computed tokens forgotten, back to the
 *     front of the waiting queue) until they fit, or the request itself was
 *     the newest;
 *  2. then, unless a request was preempted this step, the waiting requests
 *     in order while fewer than max_num_seqs run: each takes its prompt (or,
 *     resumed, its prompt and the tokens it had generated) less what the
 *     prefix cache holds, at most the budget left, if the pool has the
 *     blocks for it; the first that does not fit ends the step's admissions.
 * A step's time is step_time() over its sequences: a decode of 1 token over
 * its context, a prefill chunk over the prompt before it. When a request's
 * computed tokens reach its prompt and outputs, the step's end gives it its
 * next token; the last token frees its blocks.
 *
 * What kvplan leaves out: the watermark of newer vLLM (0 here), a
 * preempted request's own freed blocks found again in the prefix cache (it
 * computes everything again), the shared prefix's blocks ever being
 * evicted (held for the whole run), a shared prefix's blocks in window
 * groups (each request holds its own), the other engines' windowed pools
 * (every layer's blocks counted as full attention's: the plan's
 * kv_tokens_per_replica; vLLM V1's hybrid groups are allocated as it does,
 * config.full_groups), where in the request's life its time outside the
 * steps falls (config.request_overhead_s, the engine's: HTTP, tokenizing,
 * the hand-off to the scheduler, detokenizing, added whole to its TTFT and
 * E2EL; the engine and the client's next send do not wait for it, and every
 * later token reaches the client at the end of its step), and EOS (every
 * request generates its whole output, as `vllm bench serve --ignore-eos`).
 *
 * Several replicas (data parallel) each run their own scheduler on their
 * own pool; an arriving request goes to the replica config.router picks
 * (sim_route.c), ties to the first: vLLM's DPLB, the least 4 x waiting +
 * running (vllm/v1/engine/core_client.py DPLBAsyncMPClient, whose counts
 * kvplan reads at once, not 100 ms late); round robin; the least waiting +
 * running; or SGLang's router's cache-aware policy.
 *
 * The client is `vllm bench serve`'s: each request is sent when it
 * arrives, or with --max-concurrency when fewer than that many are in
 * flight (first come, first sent); its times count from when it is sent.
 *
 * Memory is linear in the requests, plus one record a step for the
 * inter-token latencies. sim_run allocates and frees it; in the rest of
 * core only load_run (core/loadrun.h) allocates, the requests it hands to
 * sim_run, freed before it returns. */
#ifndef KVPLAN_CORE_SIM_H
#define KVPLAN_CORE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_desc.h"
#include "plan.h"
#include "steptime.h"
#include "workload.h"

/* The most kvplan simulates: requests, engine steps (all replicas), seconds
 * of simulated time, and replicas. */
#define SIM_MAX_REQUESTS 1000000
/* A run that cannot judge its capacity is continued to at most this many
 * times its requests (sim_result.judged_requests). */
#define SIM_CONTINUE_MAX 8
#define SIM_MAX_STEPS 10000000
#define SIM_MAX_SECONDS (7 * 86400.0)
#define SIM_MAX_REPLICAS 256

/* TensorRT-LLM's capacity scheduler policies (executor CapacitySchedulerPolicy). */
enum sim_capacity {
    SIM_GUARANTEED_NO_EVICT = 0, /* the default: a request starts when its whole life fits */
    SIM_MAX_UTILIZATION          /* one step at a time, pausing the newest when short */
};

struct sim_config {
    enum sim_scheduler sched;      /* the engine's (engine_desc's sched); 0: vLLM V1's */
    bool no_continue;              /* a continued run's own: judged as it is */
    enum sim_router router;        /* how a request finds a replica; 0: vLLM's DPLB */
    enum sim_capacity capacity;    /* TensorRT-LLM's policy */
    uint64_t ubatch;               /* a step runs in passes of this many tokens; 0: one */
    struct step_model model;       /* one GPU's share of a replica (speed_step_inputs) */
    struct step_machine machine;
    uint32_t replicas;
    uint64_t blocks;               /* one replica's KV pool */
    uint64_t block_tokens;
    /* vLLM V1's hybrid pool (engine_detail's): blocks are one group's, a
     * request holding ceil(tokens / block) in each of full_groups and in each
     * window or state group what its kind keeps (sim_own_blocks); 0: a block
     * is every layer's, every layer counted as full attention */
    uint32_t full_groups, nwindows;
    struct engine_window windows[ENGINE_WINDOW_KINDS];
    uint64_t prefix_tokens;        /* every prompt's first tokens: their whole blocks are held
                                    * once, for the whole run, and found by every prompt */
    uint32_t max_num_seqs;
    uint64_t max_num_batched_tokens;
    uint64_t max_model_len;
    uint64_t max_concurrency;      /* the client's cap on requests in flight; 0: none */
    uint32_t recv_interval;        /* SGLang's --scheduler-recv-interval: a sent request
                                    * reaches the scheduler only when it polls (sim_sched_
                                    * sglang.c); 0 or 1: every step */
    uint64_t max_prefill_tokens;   /* SGLang's --max-prefill-tokens: the prompt tokens one
                                    * prefill batch takes (PrefillAdder's rem_input_tokens);
                                    * 0: its default, 16384 */
    uint64_t warm_requests;        /* the first this many requests (arrival order) find
                                    * their prompt in the prefix cache, left by an earlier
                                    * run on the same server: its whole blocks but the
                                    * one of the last token (get_computed_blocks), held
                                    * as their own, forgotten when preempted */
    double request_overhead_s;     /* each request's time outside the steps (the engine's
                                    * request_overhead_s): added to its TTFT and E2EL */
    uint64_t max_steps;            /* SIM_MAX_STEPS, or fewer */
    double max_seconds;            /* SIM_MAX_SECONDS, or fewer */
    /* goodput's objectives, seconds: a request is good when it keeps every one
     * given (vLLM's --goodput); < 0: not given */
    double slo_ttft, slo_tpot, slo_e2el;
    /* A disaggregated deployment's pools (core/sim_disagg.h): kv_hold, when
     * not NULL, the seconds each request's blocks stay taken after its last
     * token (a prefill instance's, until the decode instance has read them);
     * kv_arrives: each request comes with its prompt's KV but the last
     * token's (a decode instance's: it computes that one for its first
     * token), held in its own blocks, computed again when preempted. */
    const double *kv_hold;
    bool kv_arrives;
    /* When not NULL, called on every step and every token (the tests' view). */
    void (*on_step)(void *ctx, uint32_t replica, double start, double seconds,
                    const struct step_seq *seqs, size_t n);
    void (*on_token)(void *ctx, size_t request, uint64_t index, double t);
    void *ctx;
};

enum sim_status {
    SIM_OK,
    SIM_STEPS,     /* past max_steps */
    SIM_SECONDS,   /* past max_seconds */
    SIM_NO_MEMORY, /* an allocation failed */
    SIM_STALLED,   /* the step function gave no time (no bandwidth figure) */
    SIM_STUCK      /* requests left that the scheduler never starts (a reservation
                    * larger than the pool) */
};

/* Mean, median, standard deviation (of the population) and percentiles,
 * seconds: numpy's defaults, as vLLM's benchmark computes them (percentiles
 * by linear interpolation between the closest ranks); all 0 for none. */
struct sim_stats {
    double mean, median, std, p90, p95, p99;
};

struct sim_result {
    enum sim_status status;
    uint64_t completed, total_input, total_output;
    uint64_t steps, preemptions;
    double duration;               /* from 0 to the last token */
    double request_throughput, output_throughput, total_token_throughput;
    struct sim_stats ttft, tpot, itl, e2el;
    /* time averages over the run (all replicas), and their peaks */
    double mean_running, mean_waiting;
    uint64_t max_running, max_waiting;
    double peak_kv_usage;          /* the fullest a replica's pool got, 0 to 1 */
    bool goodput;                  /* an objective was given */
    uint64_t good;                 /* requests that kept every objective */
    double request_goodput;        /* good / duration */
    /* The server's waiting queue, or the requests in it (running and
     * waiting), grow through the second half of the sending by 10 or more
     * and by more than 5% of the requests sent meanwhile (the second also by
     * more than a Poisson count's noise, and only once the system has
     * filled): the rate is past what the deployment serves (sim_stats.c). */
    bool over_capacity;
    double queue_growth_per_s;   /* the server's waiting queue, second half of the sending */
    double system_growth_per_s;  /* the requests in the system (running and waiting), so */
    double served_per_s;         /* requests finished a second over that half */
    /* Where the run cannot tell a backlog from its filling (its requests take
     * longer than half the sending: the system never fills), the same stream
     * continued (its requests again after it, at its rate) to 2, 4 or 8 times
     * as many decides over_capacity, and its growth and served figures are
     * that run's: the requests it ran; 0 when the run decided alone. */
    uint64_t judged_requests;
    bool unjudged;               /* the run alone could not tell */
    uint64_t measured;           /* the requests finished over that half */
    /* The requests a second the stream offered (over the last arrival) and
     * the client sent (over the last send: fewer when --max-concurrency held
     * them back); 0 for a burst at 0. */
    double offered_per_s, sent_per_s;
};

/* Simulates the n requests (in arrival order) on c; fills *out. */
enum sim_status sim_run(const struct sim_config *c, const struct workload_request *reqs, size_t n,
                        struct sim_result *out);

/* The most private KV blocks a request holds with `tokens` in the cache, its
 * prefix's shared whole blocks not counted: in a window group, at most the
 * window less one and a whole batch, the prompt being prefilled. */
uint64_t sim_request_blocks(const struct sim_config *c, uint64_t tokens);
/* The shared prefix's whole blocks, held for the whole run (in every full
 * group of a hybrid pool). */
uint64_t sim_prefix_blocks(const struct sim_config *c);
/* The longest request the pool holds alone (sim_request_blocks of its
 * tokens but the last, the prefix not counted). */
uint64_t sim_most_tokens(const struct sim_config *c);

/* The config for the plan r of scenario s: its step function, its
 * replicas, its pool in the engine's blocks, the engine's scheduler, router
 * and limits (its batch when the plan has none), the context as
 * max_model_len; no client cap, no objective, the caps at their most. */
void sim_config_of_plan(const struct scenario *s, const struct plan_result *r,
                        struct sim_config *c);

/* The router's name as --router spells it: "round-robin", ...; vLLM's is
 * "dplb". */
const char *sim_router_name(enum sim_router r);

/* The policy as TensorRT-LLM spells it: "GUARANTEED_NO_EVICT", ... */
const char *sim_capacity_name(enum sim_capacity p);

/* The p-th percentile (0 to 100) of n sorted values as numpy computes it
 * (linear, its lerp); 0 for none. */
double sim_percentile(const double *sorted, size_t n, double p);

#endif
