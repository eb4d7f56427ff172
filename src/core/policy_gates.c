/* policy_gates: the MoE layers' router gates, which the engines hold whole
 * on every GPU in 16 bits where the weights count them split over TP x PP at
 * the weights' precision (vLLM: policy_vllm_mem.c; SGLang:
 * policy_sglang_mem.c). */
#include "policy.h"

#include <math.h>

/* The layers of the last pipeline stage (a stage of ceil(layers / pp), as
 * core/plan.c costs it): the one holding the most MoE layers when the
 * dense ones come first. */
uint32_t policy_last_stage_start(const struct policy_ctx *c)
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

uint64_t policy_gate_row(const struct policy_ctx *c, const char *note)
{
    const struct model_spec *m = &c->s->model;
    uint32_t here = spec_moe_layers_in(m, policy_last_stage_start(c), m->layers);
    uint32_t all = spec_moe_layers_in(m, 0, m->layers);
    if (here == 0 || m->hidden_size == 0)
        return 0;
    long double per_layer = (long double)m->hidden_size * m->experts;
    long double whole = here * per_layer * 2; /* bf16 */
    uint64_t split = (uint64_t)c->l->tp * (c->l->pp ? c->l->pp : 1);
    /* whole bytes, so that the row's result is the plan's */
    long double counted = floorl(all * per_layer * bytes_per_param(c) / (long double)split);
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
    explain_row_end(c->x, row, XU_BYTES, 0, note);
    return (uint64_t)(whole - counted);
}
