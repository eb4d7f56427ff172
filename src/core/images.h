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

#include <stdint.h>

#include "scenario.h"

/* The images of a request: the plan's first stage (core/plan.c). A list of
 * fields, so that the plan holds the result whole and each field by its own
 * name too (core/plan.h). */
#define IMAGE_COUNTS_FIELDS                                                                        \
    uint32_t images, tokens_per_image; /* per request */                                           \
    uint64_t image_tokens;             /* images x tokens per image, in the context */             \
    uint64_t text_tokens;              /* the context without them (--context) */

struct image_counts {
    IMAGE_COUNTS_FIELDS
};

/* eff = s with the image tokens added to the context (and to the average
 * and prompt when given), its image knobs cleared; out counts the images.
 * Their rows and vLLM's encoder cache are the policies' (core/policy.h). */
void images_apply(const struct scenario *s, struct scenario *eff, struct image_counts *out);

#endif
