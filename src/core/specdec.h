/* specdec: speculative decoding in GPU memory. A draft model (or the
 * model's own MTP layers) sits on every GPU of the replica beside the model,
 * keeps its own KV for every user's tokens, and the verifier holds the
 * speculative tokens of each step as extra slots per user.
 *
 * Upstream, as read:
 *  - vLLM V1: vllm/v1/spec_decode/draft_model.py (DraftModelProposer: the
 *    draft's attention layers join the model's forward context, so the KV
 *    cache spec and every block cover them; _raise_if_draft_tp_mismatch: the
 *    draft runs at the model's TP; _maybe_share_embeddings/_lm_head are
 *    no-ops: a draft keeps its own); vllm/v1/spec_decode/eagle.py
 *    (_maybe_share_embeddings, _maybe_share_lm_head: EAGLE/MTP heads use the
 *    model's embedding and head); vllm/config/speculative.py
 *    (SpeculativeConfig: num_speculative_tokens defaults to the draft
 *    config's n_predict, num_nextn_predict_layers for MTP);
 *    vllm/v1/core/sched/scheduler.py (schedule: allocate_slots with
 *    num_lookahead_tokens, the speculative tokens of each request).
 *  - SGLang: python/sglang/srt/model_executor/model_runner.py (init_memory_pool:
 *    the draft worker's pool holds draft_runner_cache_size tokens, the model's
 *    pool and a headroom); python/sglang/srt/server_args.py
 *    (_handle_gpu_memory_settings: 2 GiB more reserve for EAGLE/NEXTN drafts,
 *    6 GiB for STANDALONE).
 *  - llama.cpp: tools/server/server.cpp (server_context::init: each slot
 *    creates its own draft context, llama_init_from_model(model_dft,
 *    cparams_dft), of the slot's cells).
 *  - TensorRT-LLM: no draft-target memory rule read; counted as vLLM. */
#ifndef KVPLAN_CORE_SPECDEC_H
#define KVPLAN_CORE_SPECDEC_H

#include <stdint.h>

#include "kvcost.h"
#include "scenario.h"

struct spec_result {
    enum spec_method method;
    uint32_t tokens;               /* speculative tokens per step (slots per user) */
    uint64_t weights_bytes;        /* the draft (or MTP layers), whole */
    uint64_t weights_bytes_per_gpu;
    uint64_t kv_bytes_per_token;   /* the draft's (or MTP layers') KV per token, one GPU */
    uint32_t layers;               /* draft layers, or MTP layers */
};

/* The draft's (or the MTP layers') weights on each of the replica's TP
 * ranks and its KV per token at the attention TP of k, the model's cost
 * (its cache type and, for MTP, its bytes per layer). The plan adds them to
 * the weights per GPU (core/placement.h) and to the cost (kvcost_add_draft);
 * its rows are the policies' (core/policy.h). */
void specdec_compute(const struct scenario *s, const struct kv_cost *k, struct spec_result *out);

#endif
