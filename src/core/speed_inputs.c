/* speed_inputs.c: what a plan gives the speed stage once, its rates, layout
 * and per-token work (struct inputs, speed_inputs.h), moved out of speed.c,
 * which times the steps from them. */
#include "speed_inputs.h"
#include "engine_desc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvcost.h"
#include "offload_fit.h"
#include "speed_ttft.h"
#include "speedfamily.h"
#include "steptime.h"
#include "units.h"

enum dtype speed_compute_dtype(const struct scenario *s, const struct speed_basis *r,
                                double *peak)
{
    const struct gpu_spec *g = &s->gpu;
    /* weight-only quantisation (int4, q4_0, q8_0) still computes in 16 bits */
    if (r->layout->weight_dtype == DTYPE_FP8 && g->tflops_fp8 > 0 &&
        !r->layout->weights_as_released) {
        *peak = g->tflops_fp8 * 1e12;
        return DTYPE_FP8;
    }
    /* NVFP4 and MXFP4 GEMMs run on the FP4 tensor cores where the GPU has
     * them (Blackwell, CDNA 4), their activations quantised on the fly */
    if (r->layout->weight_dtype == DTYPE_FP4 && g->tflops_fp4 > 0) {
        *peak = g->tflops_fp4 * 1e12;
        return DTYPE_FP4;
    }
    if (r->layout->weight_dtype == DTYPE_INT8 && g->tops_int8 > 0) {
        *peak = g->tops_int8 * 1e12;
        return DTYPE_INT8;
    }
    /* Apple silicon publishes no peak: the FP16 rate llama.cpp's Metal
     * prefill reaches, derived from llama-bench pp512 (the preset's basis) */
    if (g->tflops_bf16 <= 0 && g->tflops_measured > 0) {
        *peak = g->tflops_measured * 1e12;
        return DTYPE_FP16;
    }
    *peak = g->tflops_bf16 * 1e12;
    /* the same tensor-core peak, named as the engine computes: FP16 weights,
     * and llama.cpp's GGUF types dequantised to F16 (ggml-cuda), in FP16 */
    switch (r->layout->weight_dtype) {
    case DTYPE_FP16:
    case DTYPE_Q8_0:
    case DTYPE_Q4_0:
    case DTYPE_Q6_K:
    case DTYPE_Q5_K_M:
    case DTYPE_Q4_K_M:
        return DTYPE_FP16;
    default:
        return DTYPE_BF16;
    }
}

static void attention_flops_of(const struct model_spec *m, struct inputs *in)
{
    /* QK^T and PV, 2 flops a multiply-add, per context token, per layer:
     * 4 x heads x head_dim. MLA runs two forms (vLLM
     * vllm/v1/attention/backends/mla/common.py, the module notes and
     * MLACommonImpl._forward_decode / _forward_prefill; SGLang
     * attention_backend_handler.py _handle_attention_backend: MHA_ONE_SHOT or
     * MHA_CHUNKED_KV for an extend, MLA for decode): decode absorbs W_UK
     * and W_UV into the query and output, an MQA over the latent: QK^T over
     * rank + rope, PV over rank; prefill expands the latent to every head, an
     * MHA: QK^T over qk_nope + qk_rope (192 for DeepSeek-V3), PV over
     * v_head_dim (128). */
    if (m->attention == ATTENTION_MLA) {
        in->per_ctx_token = (double)m->attention_heads *
                           (2.0 * (m->kv_lora_rank + m->qk_rope_head_dim) + 2.0 * m->kv_lora_rank);
        uint32_t nope = m->qk_nope_head_dim ? m->qk_nope_head_dim : m->head_dim;
        uint32_t v = m->v_head_dim ? m->v_head_dim : m->head_dim;
        in->per_ctx_prefill = (double)m->attention_heads *
                             (2.0 * (nope + m->qk_rope_head_dim) + 2.0 * v);
    } else {
        in->per_ctx_token = 4.0 * m->attention_heads * m->head_dim;
        in->per_ctx_prefill = in->per_ctx_token;
    }
}

/* DeepSeek-V3.2's sparse attention: the indexer's flops and the share of
 * the cache a decode step reads */
static void sparse_index_of(const struct model_spec *m, const struct speed_basis *r,
                            struct inputs *in)
{
    in->read_share = 1.0;
    in->topk = in->index_flops = 0;
    if (m->attention == ATTENTION_MLA && m->index_topk && r->cost->index_bytes) {
        /* vLLM models/deepseek_v2.py Indexer (replicated weights, no TP split) and
         * the sparse MLA backends (FlashMLASparse: index_topk tokens a query) */
        in->topk = (double)m->index_topk;
        in->index_flops = 2.0 * m->index_n_heads * m->index_head_dim;
        double avg = (double)r->layout->avg_context_tokens;
        if (avg > in->topk && r->cost->bytes_per_layer)
            in->read_share = ((double)r->cost->index_bytes +
                             (double)r->cost->latent_bytes * in->topk / avg) /
                            (double)r->cost->bytes_per_layer;
    }
}

/* The compute fraction without --mfu: llama.cpp's fitted on the GPU where
 * its prefill was measured (the preset's achievable_mfu: on the RTX 4090 its
 * F16 GEMM runs cuBLAS with FP16 accumulate, ggml-cuda.cu
 * batched_mul_mat_traits<GGML_TYPE_F16>, past half the FP32-accumulate
 * peak), else the global default. */
double speed_default_mfu(const struct scenario *s)
{
    if (engine_desc(s->engine.kind)->uses_preset_mfu && s->gpu.achievable_mfu > 0)
        return s->gpu.achievable_mfu;
    return SPEED_DEFAULT_MFU;
}

/* The routed experts' share of a token's parameters (expert_params x k /
 * E): computed where the experts are, which under expert parallelism is not
 * the token's rank; 0 for a dense model or one without the figure. */
static double routed_active(const struct model_spec *m, double active)
{
    double routed = m->experts && m->expert_params
                        ? (double)m->expert_params * m->experts_per_token / m->experts
                        : 0;
    return routed > active ? 0 : routed;
}

/* Each stage sends a token's activations to the next: vLLM and SGLang the
 * hidden states and the residual, 16 bits each (IntermediateTensors,
 * PPProxyTensors), llama.cpp one F32 tensor (ggml_backend_tensor_copy): 4
 * bytes a hidden value either way; within the NVLink domain (or the host,
 * for a layer split) at the GPU's link, past it over the network. */
static void stage_send_of(const struct scenario *s, bool layer_split, uint32_t domain,
                          const struct speed_family_terms *fam, struct inputs *in)
{
    in->stage_send = 4.0 * in->hidden;
    in->stage_network = !layer_split && (double)in->tp * in->pp > domain;
    in->stage_link = (double)s->gpu.link_bytes_per_s;
    if (in->stage_network &&
        (in->stage_link <= 0 || in->stage_link > SPEED_INTERNODE_BYTES_PER_S))
        in->stage_link = SPEED_INTERNODE_BYTES_PER_S;
    in->stage_latency = in->stage_network         ? SPEED_INTERNODE_LATENCY_S
                        : fam->allreduce_hop_s > 0 ? fam->allreduce_hop_s
                                                   : SPEED_ALLREDUCE_LATENCY_S;
}

struct inputs speed_inputs_of(const struct scenario *s, const struct speed_basis *r)
{
    const struct model_spec *m = &s->model;
    struct inputs in; /* every field set below: no zeroing of the whole */
    in.bw = (double)s->gpu.bandwidth_bytes_per_s;
    in.dtype = speed_compute_dtype(s, r, &in.peak);
    /* FP4 checkpoints quantise the linear layers; attention runs in FP8 at best */
    in.attn_dtype = in.dtype;
    in.attn_peak = in.peak;
    if (in.dtype == DTYPE_FP4) {
        in.attn_dtype = s->gpu.tflops_fp8 > 0 ? DTYPE_FP8 : DTYPE_BF16;
        in.attn_peak = (s->gpu.tflops_fp8 > 0 ? s->gpu.tflops_fp8 : s->gpu.tflops_bf16) * 1e12;
    }
    in.mbu = s->mbu > 0                  ? s->mbu
             : s->gpu.achievable_mbu > 0 ? s->gpu.achievable_mbu
                                         : SPEED_DEFAULT_MBU;
    /* a measured rate is what the engine reached: used in full unless --mfu */
    in.measured = s->gpu.tflops_bf16 <= 0 && s->gpu.tflops_measured > 0;
    in.mfu = s->mfu > 0 ? s->mfu : in.measured ? 1.0 : speed_default_mfu(s);
    in.experts = m->experts ? (double)r->layout->expert_bytes : 0;
    in.active = (double)(m->active_params ? m->active_params : m->params);
    in.active_routed = routed_active(m, in.active);
    in.hidden = (double)(m->hidden_size ? m->hidden_size : m->attention_heads * m->head_dim);
    attention_flops_of(m, &in);
    bool layers = engine_desc(s->engine.kind)->splits_layers;
    if (layers) {
        /* llama.cpp splits layers, not heads: its GPUs take a token in turn,
         * one batch at a time, with no all-reduce (llama.cpp's default
         * --split-mode layer) */
        in.tp = 1;
        in.pp = r->layout->tp ? r->layout->tp : 1;
        in.microbatches = 1;
    } else {
        /* vLLM and SGLang keep as many batches in flight as there are stages */
        in.tp = r->layout->tp;
        in.pp = r->layout->pp ? r->layout->pp : 1;
        in.microbatches = in.pp;
    }
    /* past one node the ring runs over the network, at its speed; an NVLink
     * domain wider than a node (NVL72) keeps it on NVLink up to its size */
    uint32_t domain = spec_gpu_domain(&s->gpu);
    in.nodes = (in.tp + domain - 1) / domain;
    in.domain = domain;
    in.link_used = (double)s->gpu.link_bytes_per_s;
    /* fitted on the measurements (doc/SPEED-FIT.md), the family's own terms
     * on its DeepSeek-R1 cases (core/speedfamily.h) */
    const struct speed_family_terms *fam = speed_family_terms(s->gpu.family);
    /* a ring of tp GPUs passes 2 (tp - 1) hops an all-reduce, each of a
     * fixed latency where the family has one fitted; else one flat figure */
    uint32_t ring = in.tp < domain ? in.tp : domain; /* the GPUs of one domain in it */
    double hops = fam->allreduce_hop_s * 2.0 * (ring > 1 ? ring - 1 : 0);
    in.latency = fam->allreduce_hop_s > 0 && in.tp > 1 ? hops : SPEED_ALLREDUCE_LATENCY_S;
    in.hop = in.tp > 1 ? fam->allreduce_hop_s : 0;
    if (in.nodes > 1) {
        if (in.link_used <= 0 || in.link_used > SPEED_INTERNODE_BYTES_PER_S)
            in.link_used = SPEED_INTERNODE_BYTES_PER_S;
        /* the network's latency, after (with a hop fitted) the ring within a
         * node: never less than the node's own all-reduce (no case to fit) */
        in.latency = SPEED_INTERNODE_LATENCY_S + (fam->allreduce_hop_s > 0 ? hops : 0);
    }
    stage_send_of(s, layers, domain, fam, &in);
    in.shards = (double)in.tp * in.pp;
    in.expert_div = r->layout->experts_spread ? (double)r->layout->gpus : in.shards;
    const struct offload_split *o = &r->budget->engine.offload;
    if (o->active && m->experts) /* llama.cpp: the routed experts left on the GPUs */
        in.experts = (double)o->gpu_expert_bytes * in.expert_div;
    in.ranks = r->layout->dp_attention ? r->layout->tp : 1;
    /* every layer all-reduces, state and plain layers too; attention reads
     * the KV of the attention layers only */
    in.layers = r->cost->layers + (s->model.state_parallel ? 0 : r->cost->state_layers) +
                s->model.plain_layers;
    in.global = r->cost->global_layers;
    in.windowed = r->cost->windowed_layers;
    if (layers) { /* its layers are spread over the GPUs */
        in.layers /= in.pp;
        in.global /= in.pp;
        in.windowed /= in.pp;
    }
    in.window = r->cost->window_tokens;
    /* A decoder layer of attention and MLP all-reduces after each; a hybrid
     * whose layers are single blocks (Nemotron-H: a Mamba-2, attention or
     * MLP block a layer, one row-parallel output each) once a block. */
    in.allreduces_per_layer = m->plain_layers ? 1.0 : 2.0;
    double family_mbu = s->gpu.achievable_mbu > 0 ? s->gpu.achievable_mbu : SPEED_DEFAULT_MBU;
    /* the experts' fraction is fitted on fine-grained MoE (DeepSeek-R1's 256
     * experts); a coarse MoE (Mixtral's 8) reads its experts as the dense */
    bool fine = m->experts > SPEED_MOE_FINE_EXPERTS;
    in.moe_mbu = fine && fam->expert_mbu > 0 ? fam->expert_mbu / family_mbu : 1.0;
    in.attn_mbu = m->attention == ATTENTION_MLA ? fam->mla_decode_reach : 1.0;
    in.step_overhead = s->has_step_overhead ? s->step_overhead_s
                                            : engine_desc(s->engine.kind)->step_overhead_s;
    in.moe_layer_overhead = fine ? fam->moe_layer_s : 0;
    /* a calibrated or given overhead stands for the whole fixed part */
    in.layer_overhead = s->has_step_overhead ? 0 : s->gpu.layer_overhead_s;
    sparse_index_of(m, r, &in);
    speed_a2a_inputs(s, r, &in);
    return in;
}
