/* images: images in every request. Their tokens take KV cells like any
 * other, so they add to each user's context; vLLM V1 also holds the image
 * encoder's outputs for a batch (its encoder cache) outside the KV cache.
 *
 * vLLM: vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget (the
 * cache holds max(encoder_cache_size or max_num_batched_tokens, the most
 * tokens of one item) embeddings) and v1/worker/gpu_model_runner.py
 * profile_run (dummy encoder outputs for that budget stay in encoder_cache
 * while the profiling forward pass runs, so the peak it measures, and the
 * KV cache it leaves, count them). One embedding is hidden_size values in
 * the model's compute precision. SGLang keeps encoder outputs in an LRU
 * MultiModalCache (python/sglang/srt/mem_cache/multimodal_cache.py) filled
 * as requests come, in the memory it leaves outside --mem-fraction-static, so
 * its pool does not shrink; llama.cpp (mtmd) and TensorRT-LLM: the tokens
 * only (no reserved encoder memory found in their budgets). */
#ifndef KVPLAN_CORE_IMAGES_H
#define KVPLAN_CORE_IMAGES_H

#include "policy.h"

/* eff = s with the image tokens added to the context (and to the average
 * and prompt when given), its image knobs cleared; r records the images. */
void images_apply(const struct scenario *s, struct scenario *eff, struct plan_result *r);

/* The "context" row: text tokens + images x tokens per image. */
void images_context_row(struct policy_ctx *c);

/* vLLM V1's encoder cache on one GPU for `batched` tokens a step: sets
 * r->encoder_cache_tokens and _bytes_per_gpu and writes the row. */
void images_encoder_cache(struct policy_ctx *c, uint64_t batched);

#endif
