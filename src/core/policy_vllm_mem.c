/* policy_vllm_mem: what vLLM holds on a GPU beside the weights' share that
 * the placement splits over it (core/placement.c), counted in its non-KV
 * memory with a row each:
 *  - the router gate of every MoE layer: vLLM builds it as a ReplicatedLinear
 *    with no quantization (models/deepseek_v2.py DeepseekV2MoE: GateLinear,
 *    a ReplicatedLinear of hidden x n_routed_experts in the model's dtype;
 *    models/qwen3_moe.py, mixtral.py and llama4.py: ReplicatedLinear,
 *    quant_config=None), so every GPU holds each of its layers' gates whole in
 *    bf16, where the weights count them split over TP x PP at the precision of
 *    the weights outside the experts;
 *  - MLA's W_UV and W_UK_T: after loading, vLLM's MLA attention
 *    (layers/attention/mla_attention.py, MLAAttention.process_weights_after_
 *    loading) dequantizes kv_b_proj (get_and_maybe_dequant_weights) and keeps
 *    the result as W_UV (heads, kv_lora_rank, v_head_dim) and W_UK_T (heads,
 *    qk_nope_head_dim, kv_lora_rank) in the activations' dtype, beside
 *    kv_b_proj itself (the prefill path still runs it); with weights in 16
 *    bits (Kimi K2.6's INT4 checkpoint keeps attention in bf16) the two are
 *    views of kv_b_proj and cost nothing. */
#include "policy.h"

#include "units.h"

static uint64_t mla_row(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    const struct dtype_info *w = dtype_info(c->l->weight_dtype);
    if (!c->k->mla || m->attention != ATTENTION_MLA || w->bytes_num >= 2 * w->bytes_den)
        return 0;
    uint32_t layers = m->layers - policy_last_stage_start(c);
    uint64_t heads = kv_ceil_div(m->attention_heads, c->l->tp ? c->l->tp : 1);
    uint64_t per_layer = heads * ((uint64_t)m->qk_nope_head_dim + m->v_head_dim) * m->kv_lora_rank;
    uint64_t bytes = kv_sat_mul(kv_sat_mul(layers, per_layer), 2);
    if (bytes == 0)
        return 0;
    struct explain_row *row = explain_row_begin(c->x, "mla_copies", "MLA W_UV, W_UK_T", "per GPU");
    explain_term(row, layers, XU_COUNT, "layers");
    explain_term(row, heads, XU_COUNT, c->l->tp > 1 ? "heads/GPU" : "heads");
    explain_op(row, XOP_MUL);
    explain_term(row, m->qk_nope_head_dim, XU_COUNT, "qk_nope_head_dim");
    explain_term(row, m->v_head_dim, XU_COUNT, "v_head_dim");
    explain_op(row, XOP_ADD);
    explain_op(row, XOP_MUL);
    explain_term(row, m->kv_lora_rank, XU_COUNT, "kv_lora_rank");
    explain_op(row, XOP_MUL);
    explain_term(row, 2, XU_PER_VALUE, "B (bf16)");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "kv_b_proj dequantized after loading, kept beside it for decode");
    return bytes;
}

uint64_t vllm_held_extra(const struct policy_ctx *c)
{
    uint64_t gate = policy_gate_row(c, "ReplicatedLinear, not quantized: every GPU holds its "
                                       "layers' gates whole");
    uint64_t mla = mla_row(c);
    if (gate == 0 && mla == 0)
        return 0;
    struct explain_row *row = explain_row_begin(c->x, "weights_extra", "Beside weights", "per GPU");
    if (gate)
        explain_ref(c->x, row, "moe_gate", "router gates");
    if (mla)
        explain_ref(c->x, row, "mla_copies", "MLA copies");
    if (gate && mla)
        explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES, 0, "what vLLM keeps whole on every GPU, outside KV");
    return kv_sat_add(gate, mla);
}

/* The memory one request of the whole context needs, as vLLM's start-up check
 * counts it (v1/core/kv_cache_utils.py, _check_enough_kv_cache_memory over
 * _max_memory_usage_bytes_from_groups: the blocks each group's spec needs for
 * max_model_len, max_memory_usage_bytes, times the group's layers' page): its
 * error quotes this figure ("... GiB KV cache is needed, which is larger than
 * the available KV cache memory"), windowed groups at their window and a
 * batch, not the generic per-token figure. */
uint64_t vllm_request_bytes(uint64_t request_blocks, uint64_t block_bytes)
{
    if (request_blocks == 0 || request_blocks == UINT64_MAX)
        return 0;
    return kv_sat_mul(request_blocks, block_bytes);
}

/* "GPU KV cache size: N tokens" up to 0.20 (v1/core/kv_cache_utils.py,
 * _report_kv_cache_config, in 0.19.0 and 0.20.0, vllm#40691 and vllm#43308):
 * num_blocks // the number of groups x the smallest block_size over the
 * groups. Gemma 4's global layers take blocks larger than the windowed ones'
 * (unify_kv_cache_spec_page_size), so the log counts in the windowed block,
 * not the global one; DeepSeek V4 in its compressor states' 4. */
uint64_t vllm_logged_tokens(const struct plan_budget *r)
{
    const struct engine_detail *e = &r->engine;
    uint64_t unit = e->unit_tokens, small = e->log_unit_tokens;
    if (small == 0 || unit == 0 || small >= unit)
        return r->kv_tokens_per_replica;
    return r->kv_tokens_per_replica / unit * small;
}

/* "GPU KV cache size: N tokens" from 0.21.0 (v1/core/kv_cache_utils.py,
 * report_kv_cache_config): num_tokens = int(max_concurrency x max_model_len),
 * the concurrency num_blocks over the blocks one max_model_len request holds
 * in every group (get_max_concurrency_for_kv_cache_config), as Python's
 * floats compute it: a double quotient times the length, truncated. For one
 * group and a length a multiple of the block it is the old form's; for
 * windowed and hybrid models up to the number of groups times it. */
uint64_t vllm_concurrency_tokens(double max_concurrency, uint64_t max_model_len)
{
    double tokens = max_concurrency * (double)max_model_len;
    if (!(tokens > 0))
        return 0;
    if (tokens >= 18446744073709551615.0)
        return UINT64_MAX;
    return (uint64_t)tokens;
}
