/* policy: the budgeting rule of each profile, internal to core (plan.c
 * calls exactly one, the descriptor's budget). A policy turns one GPU's
 * memory into a KV pool and users per replica: from the earlier stages'
 * results in its context (core/budget.h) it writes the budget's result,
 * c->b, and the explain rows of its own steps. Here too the rows of the
 * earlier stages, which read the same context and write only rows. */
#ifndef KVPLAN_CORE_POLICY_H
#define KVPLAN_CORE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "engine_desc.h"
#include "plan.h"
#include "shell.h"

/* The rows of the table in engine.c, one in each policy file. Each budget
 * writes c->b: memory_bytes_per_gpu ... kv_tokens_per_replica, fits and,
 * for engines, engine; the cost, the placement and the rest are its inputs. */
extern const struct engine_desc engine_generic, engine_vllm, engine_sglang, engine_llamacpp,
    engine_trtllm, engine_ollama;

/* ---- the earlier stages' rows ---- */

/* Rows "draft_weights", "draft_kv_per_token" (before "kv_per_token", which
 * adds it) and "spec_tokens" (context + speculative tokens); none without a
 * draft (specdec.c). */
void specdec_weights_row(const struct policy_ctx *c);
void specdec_kv_row(const struct policy_ctx *c);
void specdec_tokens_row(const struct policy_ctx *c, uint64_t context);

/* The row "weights_per_gpu" (and the draft's), when the model is split or a
 * draft sits beside it (placement.c). */
void placement_weights_row(const struct policy_ctx *c);
/* The terms of placement_share on the row's value: x the fullest GPU's
 * layers / all layers in a layer split, else / its GPUs; then the ceiling. */
void placement_share_terms(struct explain_row *row, const struct placement *l);

/* The rows of the cost of a token ("kv_per_layer" ... "kv_past_window"),
 * nothing without c->x, and of LoRA's slots ("lora_features", "lora_slot",
 * "lora") (plan_rows.c). */
void plan_cost_rows(const struct policy_ctx *c);

/* DeepSeek V4's compressed attention (plan_rows_compressed.c): the rows
 * "kv_per_layer" (a row), "kv_csa_row", "kv_compressed_span", "kv_per_token"
 * and the compressor's "state_per_user"; and the bytes of `global` tokens and
 * `windowed` tokens in the window as an expression in row. */
void plan_compressed_rows(const struct policy_ctx *c);
void policy_compressed_expr(const struct policy_ctx *c, struct explain_row *row, uint64_t global,
                            uint64_t windowed, const char *what);
void plan_lora_rows(const struct policy_ctx *c);

/* The "context" row: text tokens + images x tokens per image (images.c). */
void images_context_row(const struct policy_ctx *c);

/* vLLM V1's encoder cache on one GPU for `batched` tokens a step: sets
 * c->b->encoder_cache_tokens and _bytes_per_gpu and writes the row (images.c). */
void images_encoder_cache(const struct policy_ctx *c, uint64_t batched);

/* ---- shared by the policies (policy_common.c; the allocation, policy_blocks.c) ---- */

/* What CUDA reports as total per GPU: the logged figure, --vram, the
 * preset's observed figure, or the driver total less 460 MiB. On unified
 * memory, what Metal reports (llama.cpp ggml-metal-device.m,
 * ggml_metal_device_get_memory: total = recommendedMaxWorkingSetSize): the
 * wired limit, whole. */
uint64_t policy_cuda_total(const struct scenario *s);

/* Peak of a profiling forward pass (vLLM, TensorRT-LLM): hidden states of
 * the batched tokens and fp32 logits of the sampled rows. */
uint64_t policy_activation_estimate(const struct model_spec *m, uint64_t tokens,
                                    uint64_t logit_rows);

uint64_t policy_gib(double gib);
uint32_t policy_vocab(const struct model_spec *m);
uint32_t policy_hidden(const struct model_spec *m);
const char *policy_model_ref(const struct model_spec *m);
/* The GGUF file llama-server opens for m: the one import-gguf read it from
 * (its gguf_file), else ID.gguf (the file of that type named by the id). */
void policy_gguf_word(struct shell_line *sl, const struct model_spec *m);

/* How an engine's launch line begins: the command and the model, the
 * context and the memory fraction, then, when they apply, the cache's fp8
 * flag and the tensor and pipeline parallel sizes. */
struct launch_head {
    const char *command;  /* "vllm serve" */
    const char *context;  /* "--max-model-len" */
    const char *fraction; /* "--gpu-memory-utilization" */
    int fraction_digits;  /* 2: 0.90 */
    const char *kv_fp8;   /* "--kv-cache-dtype fp8"; NULL: the options file's */
    const char *tp, *pp;  /* "-tp", "-pp" */
};

/* The launch line (core/shell.h) in c->b->engine.launch: begin starts it;
 * lora_targets adds "--lora-target-modules" and each module as its own
 * word; done ends it with "  # x N replicas, one server each" when the
 * replicas are separate servers, and says so, rather than keep a cut line,
 * when the line does not fit. */
struct shell_line;
void policy_launch_begin(const struct policy_ctx *c, const struct launch_head *h,
                         struct shell_line *l);
void policy_launch_lora_targets(struct shell_line *l, uint32_t targets);
void policy_launch_done(const struct policy_ctx *c, struct shell_line *l, bool separate_servers);
void policy_log(struct engine_detail *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The commands of a plan over several nodes or servers (core/launch.h):
 * server_args appends the launch line's words up to its remark, less the
 * option `drop` and its value (NULL: none); servers_by_replica is the rule
 * of an engine whose replicas are servers of their own: one a replica (1
 * when a replica is wider than a node), with out the k-th: its GPUs in
 * CUDA_VISIBLE_DEVICES, counted from 0 on each node, the launch line and
 * --port, port0 and up on each node. */
void policy_server_args(struct shell_line *out, const char *launch, const char *drop);
/* CUDA_VISIBLE_DEVICES=first,...: count GPUs of a node, from first. */
void policy_devices(struct shell_line *out, uint32_t first, uint32_t count);
/* The address of a node the others name, one word: "$NAME" (or "$NAME_2",
 * replica 2's, when several), and ":port" unless port is 0; set in the shell
 * before pasting (HEAD_IP=10.0.0.1). */
void policy_head_address(struct shell_line *out, const char *name, uint32_t replica,
                         uint32_t replicas, unsigned port);
/* The remark of node `rank` of `span` of a replica of `per` GPUs wider
 * than a node (a server of its own when there are several): its GPUs and
 * ranks (per / span a node, as the engines spread them), and the HEAD_IP it
 * needs. */
void policy_replica_node_comment(struct shell_line *out, uint32_t replica, uint32_t replicas,
                                 uint32_t rank, uint32_t span, uint32_t per);
int policy_servers_by_replica(const struct placement *l, const char *launch, int k,
                              struct shell_line *out, unsigned port0);

/* vLLM over several nodes (policy_vllm_nodes.c), after the launch line's
 * words: a replica of `per` GPUs wider than a node, each replica a server
 * of its own over its nodes (--nnodes, --node-rank, --master-addr); or
 * whole replicas to a node, one data-parallel deployment (node 0 the API
 * server, --headless engines on the others). The count, and with out the
 * k-th command's own words. */
int policy_vllm_nodes_per_replica(const struct placement *l, uint32_t per, int k,
                                  struct shell_line *out);
int policy_vllm_replicas_over_nodes(const struct placement *l, uint32_t per, int k,
                                    struct shell_line *out);

/* The MoE layers' router gates held whole in bf16 on every GPU (policy_gates.c):
 * the last pipeline stage's, less their share in the weights, as the row
 * "moe_gate" (with `note`); 0 and no row when none. The first layer of the
 * last stage (a stage of ceil(layers / pp)). */
uint64_t policy_gate_row(const struct policy_ctx *c, const char *note);
uint32_t policy_last_stage_start(const struct policy_ctx *c);

/* What SGLang holds whole on every GPU beyond the weights' split share
 * (policy_sglang_mem.c): the MoE layers' router gates, the rows "moe_gate"
 * and "weights_extra"; 0 and no rows when there are none. */
uint64_t sglang_held_extra(const struct policy_ctx *c);

/* What vLLM holds whole on every GPU beyond the weights' split share
 * (policy_vllm_mem.c): the MoE layers' router gates and MLA's dequantized
 * W_UV and W_UK_T, with the rows "moe_gate", "mla_copies" and their sum
 * "weights_extra"; 0 and no rows when there are none. */
uint64_t vllm_held_extra(const struct policy_ctx *c);
/* The activation peak of vLLM's profiling run, the larger of the forward
 * pass and the sampler, with its explain rows (policy_vllm_profile.c); the
 * bytes per row and vocabulary entry of V1's top-k/top-p sort, and the
 * programs (buffer rows) of the Triton kernel that replaced it on a GPU of
 * `sms` SMs (vllm_triton_sms: the preset's sm_count, H100's 132 unknown). */
enum vllm_topk {
    VLLM_TOPK_V0,     /* V0's sampler */
    VLLM_TOPK_SORT,   /* V1 to 0.17: PyTorch's sort */
    VLLM_TOPK_TRITON  /* from 0.18: apply_top_k_top_p_triton at 8 rows or more */
};
uint64_t vllm_activation_row(const struct policy_ctx *c, uint64_t tokens, uint32_t seqs,
                             enum vllm_topk topk);
uint32_t vllm_sort_bytes_per_entry(uint64_t rows);
uint64_t vllm_triton_programs(uint64_t rows, uint32_t sms);
uint32_t vllm_triton_sms(const struct gpu_spec *g);
/* V1's figures for one request and for its log (policy_vllm_mem.c) */
uint64_t vllm_request_bytes(uint64_t request_blocks, uint64_t block_bytes);
/* vLLM's padded MXFP4 expert sizes for an expert split of `split` ranks
 * (policy_vllm_mxfp4.c): false when nothing is padded. */
/* The checkpoint's routed experts are MXFP4 (gpt-oss): the model's weights
 * at 17/32 of a byte an expert parameter (policy_vllm_mxfp4.c). */
bool vllm_mxfp4_checkpoint(const struct scenario *s);
bool vllm_mxfp4_padding(const struct scenario *s, uint32_t split, uint32_t *inter,
                        uint32_t *hidden);
uint64_t vllm_logged_tokens(const struct plan_budget *r);
/* ... and from 0.21.0: int(maximum concurrency x max_model_len) */
uint64_t vllm_concurrency_tokens(double max_concurrency, uint64_t max_model_len);

/* Why vLLM does not serve the scenario's model at its rule, or NULL
 * (policy_vllm_refuse.c). */
const char *vllm_refuses_model(const struct scenario *s, enum scenario_field *at);
/* ... and why it does not start with the block given (core/engine_desc.h
 * refuses_block), or NULL. */
const char *vllm_refuses_block(const struct scenario *s, char *buf, size_t size);
const struct engine_cache_flags *vllm_cache_flags(enum engine_rule rule);
enum dtype vllm_auto_cache(const struct scenario *s);
const struct engine_cache_flags *sglang_cache_flags(enum engine_rule rule);

/* vLLM V1's windowed group (policy_vllm_dsv4.c): the blocks of `unit`
 * tokens a request of len tokens holds in a sliding window (the window less
 * one plus a batch, at most len, rounded up, and one more: the window may
 * start inside a block) or a chunk of local attention (the chunk plus a
 * batch, nothing more): v1/kv_cache_interface.py SlidingWindowSpec and
 * ChunkedLocalAttentionSpec max_memory_usage_bytes. */
uint64_t vllm_window_blocks(uint64_t window, bool chunked, uint64_t batched, uint64_t len,
                            uint64_t unit);
/* The row "max_concurrency": the "units" row over the row `ref` (one request
 * as vLLM counts it, every window group prefilling a batch), the figure vLLM
 * logs beside the users the pool runs (engine.max_concurrency). */
void vllm_concurrency_row(const struct policy_ctx *c, const char *ref);


/* SGLang over several nodes (policy_sglang_nodes.c) and llama.cpp over
 * several servers or nodes (policy_llamacpp_nodes.c): the engine's
 * descriptor's `servers` (core/engine_desc.h). */
int policy_sglang_servers(const struct placement *l, const char *launch, int k,
                          struct shell_line *out);
int policy_llamacpp_servers(const struct placement *l, const char *launch, int k,
                            struct shell_line *out);
int policy_trtllm_servers(const struct placement *l, const char *launch, int k,
                          struct shell_line *out); /* policy_trtllm_nodes.c */

/* The state rows of a model with state layers: "state_conv", "state_ssm"
 * and "state_per_user" (one sequence, every state layer, one GPU); `gpus`
 * is how many GPUs the state layers' heads are split over. */
void policy_state_rows(const struct policy_ctx *c, uint32_t gpus);

/* Bytes of one user at the full context and at the average length, and of
 * the prefix (exact tokens, windows applied): c->b->user_bytes_per_gpu,
 * user_bytes_avg_per_gpu and prefix_bytes_per_gpu, with rows "kv_per_user"
 * and "prefix". The average is the run's (with the speculative tokens). */
void policy_user_bytes(const struct policy_ctx *c);

/* Pushes `global` tokens x per-token bytes (and, with windows, `windowed`
 * tokens x windowed layers x per-layer bytes) onto row. */
void policy_bytes_expr(const struct policy_ctx *c, struct explain_row *row, uint64_t global,
                       uint64_t windowed, const char *what);

/* Pushes the KV one token keeps in one layer on one GPU, as kvcost computes
 * k->bytes_per_layer for model m: K and V of the heads a GPU holds, or the MLA
 * latent (in FlashMLA's FP8 layout for sparse attention), plus a sparse
 * attention's indexer key. Shared by the model's and a draft's rows. */
void policy_kv_layer_expr(struct explain_row *row, const struct model_spec *m,
                          const struct kv_cost *k);

/* Pushes the weights one GPU holds (the weights_per_gpu row when split). */
void policy_weights_term(const struct policy_ctx *c, struct explain_row *row);

/* The pool row of an engine: budget - weights - activation - runtime, or
 * what a log gave; sets c->b->kv_pool_bytes_per_gpu or the shortfall. `budget`
 * is the row key of the budget the pool is taken from. */
/* A KV cache size given (--kv-memory, a calibration's logged cache) that,
 * with the memory held beside it (the weights), passes the engine's budget
 * (the GPU's memory less what the engine keeps outside it): the
 * pool row's note and the pool less the excess (below zero: the shortfall),
 * so that fits and the shortfall say what the memory table shows. */
long double policy_logged_pool(const struct policy_ctx *c, struct explain_row *row,
                               uint64_t held);

void policy_engine_pool(const struct policy_ctx *c, uint64_t budget, const char *budget_key,
                        uint64_t activation, uint64_t runtime);

/* Allocation in fixed units of tokens (vLLM blocks, SGLang tokens,
 * TensorRT-LLM blocks): units in the pool, units per user, users capped by
 * the scheduler. `hybrid` is vLLM V1's uniform-page grouping of layer types
 * (v1/core/kv_cache_utils.py): layers form groups of `group_layers` of one
 * type (the last of a type padded), a unit is one block of one group, and
 * every group draws from the one pool. */
struct block_rule {
    uint64_t unit_tokens;
    const char *unit_name;   /* "block", "token" */
    bool hybrid;
    uint32_t group_layers;   /* hybrid: layers in a group (they share a block's memory) */
    uint32_t full_groups, window_groups; /* hybrid: groups of global and of windowed layers */
    uint64_t window_units;   /* hybrid: units a windowed group holds at the full context (vLLM
                              * V1: decoding, its window's blocks and one more) */
    uint64_t window_units_avg;
    uint64_t window_units_peak; /* hybrid windows: what vLLM's Maximum concurrency counts in a
                              * group, a whole batch prefilled (0: window_units) */
    uint64_t scratch_units;  /* hybrid windows: the units one prompt being prefilled holds
                              * beyond its share decoding, in all its groups (set aside once) */
    bool state;              /* hybrid: the other groups are state layers (vLLM's MambaSpec), one
                              * block per sequence each (+ spec_units), not windows */
    uint64_t spec_units;     /* state: blocks each state group adds per speculative token */
    uint64_t user_cap_units; /* not hybrid: most units one user holds (vLLM V0 windows); 0 = none */
    bool units_given;        /* the caller set engine.units and wrote the "units" row */
    uint64_t pool_bytes;     /* with pool_key: the pool the units come from */
    const char *pool_key;    /* its row; NULL = "pool" (c->b->kv_pool_bytes_per_gpu) */
    uint64_t state_units;    /* not hybrid: units each user adds for its state */
    uint32_t cap;            /* scheduler cap per replica; 0 = none */
    const char *cap_name;    /* "max-num-seqs" */
    const char *window_ref;  /* hybrid: the row of a user's blocks in all the window groups,
                              * window_units their total (vLLM's DeepSeek V4); NULL: per group */
    const char *peak_ref;    /* with window_ref: the row of window_units_peak's total */
};
void policy_blocks(const struct policy_ctx *c, const struct block_rule *b);

/* vLLM V1's packed cache for DeepSeek V4's compressed attention
 * (policy_vllm_dsv4.c): each kind's page, the groups, the block stride and
 * the blocks of the pool, a user's blocks in every group, then policy_blocks;
 * sets the engine's request_units and max_concurrency. The launch line's
 * flags for such a model (nothing for another). */
void vllm_dsv4_blocks(const struct policy_ctx *c, struct block_rule *rule);
/* ... whose block is the one given when it is a multiple of the compressed
 * span (128: kvcost_compressed_span), else 256; *why says so. */
uint64_t vllm_dsv4_block(const struct scenario *s, const char **why);
void vllm_dsv4_launch(const struct policy_ctx *c, struct shell_line *l);

/* A hybrid pool of pages of one size (vLLM v1/core/kv_cache_utils.py,
 * unify_kv_cache_spec_page_size): the layer type whose page per token is
 * smaller takes blocks that many times larger, Gemma 4's global layers (heads
 * and head_dim of their own) beside its windowed ones. b->unit_tokens becomes
 * the global layers' block; returns the windowed layers'. Writes the row
 * "global_block" or "window_block". */
uint64_t policy_unify_pages(const struct policy_ctx *c, struct block_rule *b);

/* Begins the users row of a replica: "users_replica" (Users) at the full
 * context, or paged "users_paged_replica" (Users, paged) with `note` "at N
 * tokens in use" (else ""). */
struct explain_row *policy_users_row_begin(const struct policy_ctx *c, bool paged, char *note,
                                           size_t size);

/* A separate pool of `slots` whole states (SGLang's MambaPool, vLLM V0's
 * MambaCacheManager) taken from the pool, after a row "state_slots", with
 * `spec` bytes of SGLang's draft-token states (row "state_spec"): writes
 * "kv_pool_after_state" = pool - slots x state - spec (with `note`), sets
 * c->b->state_slots_per_replica and returns the KV pool left. After
 * policy_blocks, policy_state_pool_used counts the whole state pool in kv_used
 * and the users' states (and the draft-token states) as state_used. */
uint64_t policy_state_pool(const struct policy_ctx *c, uint64_t slots, uint64_t spec,
                           const char *note);
void policy_state_pool_used(const struct policy_ctx *c);

#endif
