/* sim_disagg: a disaggregated deployment (prefill and decode on separate
 * instances) serving a stream of requests, each pool simulated by sim_run
 * (core/sim.h) with its own plan: GPU, count, layout, KV pool, step time and
 * the engine's scheduler.
 *
 *   client --> prefill pool --(KV over the link)--> decode pool --> client
 *
 *  1. The prefill pool runs each request's prompt to its first token, as a
 *     prefill instance does for the proxy's max_tokens=1 request (vLLM's
 *     disaggregated prefill proxy and NixlConnector; SGLang's
 *     --disaggregation-mode prefill): its steps are the engine's, its token
 *     budget the engine's; the request's blocks stay taken until the
 *     decode instance has pulled its KV (kv_hold: vLLM's delayed free of
 *     the blocks a remote decode pulls).
 *  2. The KV moves over the link: link_latency, then the busier end's
 *     share at link_bytes_per_s (each GPU its own link, the ranks in
 *     parallel). Transfers do not share a link and do not wait for the
 *     decode pool's memory: a real decode instance allocates the blocks
 *     first and pulls (NIXL's read), holding the prefill's blocks longer
 *     when it is full; kvplan leaves that back-pressure out.
 *  3. The decode pool admits the request when its KV has arrived, with the
 *     prompt's KV but the last token's (kv_arrives), so its first step
 *     computes that token and gives the first output token, which the
 *     client sees (the proxy streams the decode instance's answer): TTFT is
 *     the prefill queue, the prefill, the transfer, the decode queue and
 *     that step. A request preempted there computes its prompt again on the
 *     decode instance.
 * The client sends every request when it arrives (no --max-concurrency:
 * the cap would couple the pools' clocks). TPOT and ITL are the decode
 * pool's. Pure but for the memory it allocates and frees. */
#ifndef KVPLAN_CORE_SIM_DISAGG_H
#define KVPLAN_CORE_SIM_DISAGG_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "sim.h"
#include "workload.h"

/* The link between the pools. */
enum sim_link {
    SIM_LINK_NVLINK, /* both pools in one NVLink domain: the GPUs' interconnect */
    SIM_LINK_IB,     /* InfiniBand NDR, a 400 Gb/s ConnectX-7 a GPU */
    SIM_LINK_ROCE,   /* RoCE, 400 GbE a GPU */
    SIM_LINK_COUNT
};

struct sim_disagg_config {
    struct sim_config prefill, decode; /* each pool's, from its own plan */
    uint64_t kv_bytes_per_token;  /* the busier end's GPU's share of a token's KV */
    uint64_t decode_bytes_per_token; /* a decode GPU's share */
    uint32_t decode_gpus;         /* GPUs of a decode replica */
    double link_bytes_per_s;      /* one GPU's link, each way; INFINITY: instant */
    double link_latency;          /* seconds before a transfer's first byte */
    double slo_ttft, slo_tpot, slo_e2el; /* seconds; < 0: not given */
};

/* One pool's figures. */
struct sim_pool_figures {
    uint32_t replicas;
    uint64_t steps, preemptions;
    double busy;           /* the replicas' steps' seconds, added up */
    double utilisation;    /* busy / (replicas x the run's duration) */
    double mean_running, mean_waiting; /* over the pool's own run (to its last token) */
    uint64_t max_running, max_waiting;
    double peak_kv_usage;  /* the fullest a replica's pool got, 0 to 1 */
    double duration;       /* from 0 to the pool's last token */
    double mean_sojourn;   /* seconds a request is in the pool, waiting or running */
    bool over_capacity;    /* its own run's verdict (sim_result's) */
    double served_per_s;   /* requests it finished a second over the second half of
                            * their arrivals at it (sim_result's) */
};

struct sim_disagg_result {
    struct sim_result all; /* the deployment's, vllm bench serve's figures */
    struct sim_pool_figures prefill, decode;
    struct sim_stats transfer; /* seconds a request's KV takes over the link */
    double bytes_moved;        /* every request's KV, all decode GPUs' shares */
};

/* Simulates the n requests (in arrival order); fills *out. */
enum sim_status sim_disagg_run(const struct sim_disagg_config *c,
                               const struct workload_request *reqs, size_t n,
                               struct sim_disagg_result *out);

/* The tokens whose KV a request of `prompt` tokens moves (the decode pool's
 * prefix cache holds the rest) and the seconds it takes. */
uint64_t sim_disagg_moved_tokens(const struct sim_disagg_config *c, uint64_t prompt);
double sim_disagg_transfer_seconds(const struct sim_disagg_config *c, uint64_t prompt);

/* The config of two plans (prefill sp/rp, decode sd/rd, each as
 * sim_config_of_plan makes it) and a link of rate bytes_per_s and latency
 * seconds; no objective. */
void sim_disagg_config_of_plans(const struct scenario *sp, const struct plan_result *rp,
                                const struct scenario *sd, const struct plan_result *rd,
                                double bytes_per_s, double latency, struct sim_disagg_config *c);

/* A link's rate (one GPU's, each way) and latency (seconds) between GPUs
 * a and b: NVLink the slower's interconnect (0 when a preset has none),
 * InfiniBand and RoCE a 400 Gb/s NIC's. */
void sim_link_figures(enum sim_link k, const struct gpu_spec *a, const struct gpu_spec *b,
                      double *bytes_per_s, double *latency);

/* "nvlink", "ib", "roce" (and "NVLink", "InfiniBand", "RoCE"); the parse
 * SIM_LINK_COUNT for another word. */
const char *sim_link_name(enum sim_link k);
const char *sim_link_title(enum sim_link k);
enum sim_link sim_link_parse(const char *word);

#endif
