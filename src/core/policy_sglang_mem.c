/* policy_sglang_mem: what SGLang holds on a GPU beside the weights' share
 * that the placement splits over it (core/placement.c): the router gate of
 * every MoE layer. python/sglang/srt/models/deepseek_v2.py (commit
 * 00114aef), MoEGate: the gate is a plain nn.Parameter of n_routed_experts x
 * hidden_size in the model's dtype, no tensor-parallel split and no
 * quantization, so every rank holds each of its layers' gates whole in bf16
 * (the e_score_correction_bias beside it, a few hundred bytes a layer, is
 * not counted). SGLang measures its weights after loading, so the gates are
 * in what it subtracts from mem_fraction_static; kvplan's weights count them
 * split, and the rest comes out of the pool here. */
#include "policy.h"

uint64_t sglang_held_extra(const struct policy_ctx *c)
{
    uint64_t gate = policy_gate_row(c, "an unsplit gate (MoEGate, ReplicatedLinear) in the "
                                       "model's dtype: every GPU holds its layers' gates whole");
    if (gate == 0)
        return 0;
    struct explain_row *row = explain_row_begin(c->x, "weights_extra", "Beside weights", "per GPU");
    explain_ref(c->x, row, "moe_gate", "router gates");
    explain_row_end(c->x, row, XU_BYTES, 0, "what SGLang keeps whole on every GPU, outside KV");
    return gate;
}
