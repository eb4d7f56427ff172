/* hf_dsv4: what import-hf reads of DeepSeek V4 (model_type deepseek_v4)
 * beyond the dimensions every family shares: compress_ratios (each layer's
 * kind: 4 a CSA layer with its indexer, 128 an HCA layer, 0 a window only),
 * the grouped output (o_groups, o_lora_rank), the residual streams (hc_mult),
 * the hash-routed layers and the experts' precision. Called by hfconfig.c and
 * hfconfig_spec.c. */
#ifndef KVPLAN_IO_HF_DSV4_H
#define KVPLAN_IO_HF_DSV4_H

#include <stdbool.h>

struct hf_read;

/* Into the dimensions; false with d naming the field (an entry of
 * compress_ratios other than 0, 4 or 128, fewer entries than layers). */
bool hf_dsv4_dims(struct hf_read *x);

/* The model's compressed layers, its indexer and its window in every layer. */
void hf_dsv4_spec(struct hf_read *x);

/* The weights as the checkpoint ships them (params_deepseek_v4_bytes). */
bool hf_dsv4_weights(struct hf_read *x);

#endif
