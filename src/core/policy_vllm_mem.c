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

/* The layers of the last pipeline stage (a stage of ceil(layers / pp), as
 * core/plan.c costs it): the one holding the most MoE layers when the
 * dense ones come first. */
static uint32_t stage_start(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    uint32_t pp = c->l->pp ? c->l->pp : 1;
    uint32_t stage = (uint32_t)kv_ceil_div(m->layers, pp);
    return m->layers > stage ? m->layers - stage : 0;
}

/* Bytes a parameter outside the routed experts as the weights count it: the
 * weights' precision (a checkpoint counted as released keeps its gates,
 * attention and the rest in it, its experts in their own format). */
static long double bytes_per_param(const struct policy_ctx *c)
{
    const struct dtype_info *w = dtype_info(c->l->weight_dtype);
    return (long double)w->bytes_num / w->bytes_den;
}

static uint64_t gate_row(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    uint32_t here = spec_moe_layers_in(m, stage_start(c), m->layers);
    uint32_t all = spec_moe_layers_in(m, 0, m->layers);
    if (here == 0 || m->hidden_size == 0)
        return 0;
    long double per_layer = (long double)m->hidden_size * m->experts;
    long double whole = here * per_layer * 2; /* bf16 */
    uint64_t split = (uint64_t)c->l->tp * (c->l->pp ? c->l->pp : 1);
    long double counted = all * per_layer * bytes_per_param(c) / (long double)split;
    if (whole <= counted)
        return 0;
    struct explain_row *row = explain_row_begin(c->x, "moe_gate", "Router gates", "per GPU");
    explain_term(row, here, XU_COUNT, "MoE layers");
    explain_term(row, m->hidden_size, XU_COUNT, "hidden");
    explain_op(row, XOP_MUL);
    explain_term(row, m->experts, XU_COUNT, "experts");
    explain_op(row, XOP_MUL);
    explain_term(row, 2, XU_PER_VALUE, "B (bf16)");
    explain_op(row, XOP_MUL);
    explain_term(row, counted, XU_BYTES,
                 split > 1 ? "their share in the weights (split)" : "their bytes in the weights");
    explain_op(row, XOP_SUB);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "ReplicatedLinear, not quantized: every GPU holds its layers' gates whole");
    return (uint64_t)(whole - counted);
}

static uint64_t mla_row(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    if (!c->k->mla || m->attention != ATTENTION_MLA || bytes_per_param(c) >= 2)
        return 0;
    uint32_t layers = m->layers - stage_start(c);
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
    uint64_t gate = gate_row(c), mla = mla_row(c);
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
