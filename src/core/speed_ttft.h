/* speed_ttft: the time to first token as a client measures it (vllm bench
 * serve, sglang.bench_serving: from sending the request to the first
 * streamed token), not the prefill alone. Three parts:
 *
 *  - the prompt's prefill, a step of its own (core/steptime.h);
 *  - the engine's time outside the GPU steps, once a request (its
 *    request_overhead_s, core/engine_desc.h): the HTTP server, tokenizing,
 *    the hand-off to the scheduler's process and the first token's way back
 *    through the detokenizer, the same term `kvplan simulate` adds;
 *  - with other users decoding, the step in progress when the request
 *    arrives: a scheduler admits new requests only between steps (vLLM V1
 *    v1/engine/core.py EngineCoreProc.run_busy_loop: the input queue, then
 *    EngineCore.step's schedule, execute and update in turn; SGLang
 *    managers/scheduler.py event_loop_normal: recv_requests, then
 *    get_next_batch_to_run, then run_batch), so a request sent at a random
 *    moment waits on average half a decode step of the others first.
 *
 * A pure function of its inputs: it knows nothing of the plan. */
#ifndef KVPLAN_CORE_SPEED_TTFT_H
#define KVPLAN_CORE_SPEED_TTFT_H

#include <stddef.h>
#include <stdint.h>

struct ttft_terms {
    double prefill_s; /* the prompt's prefill alone, one step */
    double request_s; /* the engine's per-request time outside the steps */
    double wait_s;    /* waiting for the step in progress: half a decode step of the others */
    double total_s;   /* the three together */
};

/* The first token of a prompt whose prefill takes prefill_s, on an engine
 * with request_s outside the steps, when `users` decode on the replica
 * (the request among them) at a step of decode_step_s: alone (users <= 1)
 * the engine is idle when it arrives and nothing is waited for. */
struct ttft_terms speed_ttft_terms(double prefill_s, double request_s, double decode_step_s,
                                   uint64_t users);

/* The engine's per-request time outside the steps for the scenario's GPU
 * vendor and model kind (core/engine_desc.h request_overhead_s): its own
 * where tools/fit_ttft.py fitted one; else every engine's cases of the
 * vendor and kind (a pooled median), else NVIDIA's of the kind; none for an
 * engine with no fitted term at all. What plan and simulate both add. */
struct scenario;
double speed_request_overhead_s(const struct scenario *s);

/* Where that term comes from, for its explain row: "vLLM's dense NVIDIA
 * cases", "every engine's dense NVIDIA cases: none under SGLang", ...;
 * "" without a term. */
void speed_request_overhead_basis(const struct scenario *s, char *buf, size_t size);

/* The same, into the plan's speed figures: ttft_seconds and its parts. */
struct speed_result;
void speed_ttft_fill(struct speed_result *sp, double prefill_s, double request_s,
                     double decode_step_s, uint64_t users);

#endif
