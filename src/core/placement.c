/* placement: how the replicas hold the model (core/placement.h), and the
 * explain rows of the weights each GPU holds. */
#include "placement.h"

#include <math.h>
#include <stdio.h>

#include "engine_desc.h"
#include "policy.h"

void placement_context(const struct scenario *s, struct placement *l)
{
    l->context_tokens = s->context_tokens;
    l->prefix_tokens = s->prefix_tokens;
    l->avg_context_tokens = scenario_avg_tokens(s);
}

/* The routed experts as the engine's MoE kernel loads them, padded (vLLM's
 * MXFP4 experts): their bytes in the proportion of the padded matrices. An
 * expert's intermediate is split over the TP ranks, or over the DP group when
 * the experts span it, or not at all as whole experts. */
static void expert_padding(const struct scenario *s, const struct engine_desc *e,
                           struct placement *l)
{
    const struct model_spec *m = &s->model;
    uint32_t split = !l->experts_spread ? l->tp : s->expert_parallel ? 1 : l->gpus;
    uint32_t inter = 0, hidden = 0;
    l->padded_inter = l->padded_hidden = 0;
    l->expert_padding_bytes = 0;
    if (e->expert_padding == NULL || l->expert_bytes == 0 || l->weights_bytes == UINT64_MAX ||
        m->intermediate_size == 0 || m->hidden_size == 0 ||
        !e->expert_padding(s, split, &inter, &hidden))
        return;
    long double grown = (long double)l->expert_bytes * inter * hidden /
                        ((long double)m->intermediate_size * m->hidden_size);
    if (grown <= (long double)l->expert_bytes || grown > (long double)(UINT64_MAX / 4))
        return;
    l->padded_inter = inter;
    l->padded_hidden = hidden;
    l->expert_padding_bytes = (uint64_t)grown - l->expert_bytes;
    l->expert_bytes += l->expert_padding_bytes;
    l->weights_bytes = kv_sat_add(l->weights_bytes, l->expert_padding_bytes);
}

uint32_t placement_fullest_layers(uint32_t layers, uint32_t gpus)
{
    if (gpus <= 1 || layers == 0)
        return layers;
    uint32_t most = (layers + 1 + gpus - 1) / gpus;
    return most < layers ? most : layers;
}

uint64_t placement_share(const struct placement *l, uint64_t bytes)
{
    if (l->layers_all == 0)
        return kv_ceil_div(bytes, (uint64_t)(l->tp ? l->tp : 1) * (l->pp ? l->pp : 1));
    long double part = (long double)bytes * l->layers_fullest / l->layers_all;
    uint64_t whole = (uint64_t)part;
    return part > (long double)whole ? whole + 1 : whole;
}

/* The routed experts the fullest GPU holds: an even share over the DP
 * group, or under expert parallel whole experts, ceil(E / GPUs) of them on
 * the first ranks (vLLM model_executor/layers/fused_moe/layer.py,
 * determine_expert_map: E // ep_size each, the remainder one more each on
 * the first ranks): 896 experts over 72 GPUs, 13 on the fullest. */
static uint64_t placement_experts_fullest(const struct placement *l, uint32_t experts)
{
    return l->expert_parallel && experts && experts % l->gpus ? (experts + l->gpus - 1) / l->gpus : 0;
}

static uint64_t expert_share(const struct scenario *s, const struct placement *l, uint64_t spread)
{
    uint64_t most = placement_experts_fullest(l, s->model.experts);
    if (most == 0)
        return kv_ceil_div(spread, l->gpus);
    return (uint64_t)ceill((long double)spread * most / s->model.experts);
}

void placement_compute(const struct scenario *s, const struct spec_result *spec,
                       struct placement *out)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    struct placement *l = out;
    l->profile = s->engine.kind;
    l->rule = s->engine.rule;
    l->gpus = s->gpus;
    l->tp = scenario_tp(s);
    l->pp = scenario_pp(s);
    l->layout_basis = scenario_layout_basis(s, &l->layouts_run);
    l->dp_attention = s->dp_attention;
    l->expert_parallel = s->expert_parallel;
    l->replicas = scenario_replicas(s);
    l->node_gpus = spec_gpu_node(&s->gpu);
    placement_context(s, l);
    l->block_tokens = s->block_tokens ? s->block_tokens : DEFAULT_BLOCK_TOKENS;
    l->kv_dtype = scenario_kv_dtype(s);
    l->weights_bytes = scenario_weights_bytes(s, &l->weight_dtype);
    l->weights_as_released = scenario_weights_as_file(s);
    l->expert_bytes = scenario_expert_bytes(s);
    /* vLLM V1 (fused_moe/config.py, FusedMoEParallelConfig.make): a MoE layer
     * flattens TP across the DP ranks, so routed experts are split over every
     * GPU of the DP group, as tensor slices or, with --enable-expert-parallel,
     * as whole experts; the other weights split by TP x PP */
    l->experts_spread = l->expert_bytes > 0 && e->experts_over_dp &&
                        e->experts_over_dp(s->engine.rule) &&
                        (l->replicas > 1 || s->expert_parallel);
    expert_padding(s, e, l);
    /* a layer split holds whole layers: the fullest GPU's are the figure */
    l->layers_all = e->splits_layers && l->tp > 1 ? s->model.layers : 0;
    l->layers_fullest = l->layers_all ? placement_fullest_layers(l->layers_all, l->tp) : 0;
    l->weights_bytes_per_gpu = l->weights_bytes == UINT64_MAX
                                   ? kv_ceil_div(l->weights_bytes, (uint64_t)l->tp * l->pp)
                                   : placement_share(l, l->weights_bytes);
    /* SGLang's DP attention: every GPU holds the attention and the embedding
     * whole, the rest split by TP */
    l->attention_bytes = s->dp_attention ? scenario_attention_bytes(s) : 0;
    /* MLA's latent down-projections (and V3.2's indexer) are ReplicatedLinear
     * in vLLM and SGLang (models/deepseek_v2.py): every TP rank holds them
     * whole. An engine that splits layers splits no tensor. */
    l->replicated_bytes =
        !l->attention_bytes && l->tp > 1 && !e->splits_layers ? scenario_replicated_bytes(s) : 0;
    uint64_t whole = l->attention_bytes ? l->attention_bytes : l->replicated_bytes;
    if ((whole || l->experts_spread) && l->weights_bytes != UINT64_MAX) {
        uint64_t spread = l->experts_spread ? l->expert_bytes : 0;
        l->weights_bytes_per_gpu =
            kv_ceil_div(l->weights_bytes - spread - whole, (uint64_t)l->tp * l->pp) +
            expert_share(s, l, spread) + kv_ceil_div(whole, l->pp);
    }
    /* the draft sits beside the model on every GPU of the replica */
    l->weights_bytes_per_gpu = kv_sat_add(l->weights_bytes_per_gpu, spec->weights_bytes_per_gpu);
}

const char *placement_weights_label(const struct placement *l)
{
    return l->weights_as_released ? "checkpoint" : dtype_info(l->weight_dtype)->name;
}

/* The routed experts as the engine's kernel loads them, when it pads them. */
static void padding_row(const struct policy_ctx *c)
{
    const struct placement *l = c->l;
    const struct model_spec *m = &c->s->model;
    if (l->expert_padding_bytes == 0)
        return;
    struct explain_row *row = explain_row_begin(c->x, "expert_padding", "Experts loaded", "in all");
    explain_term(row, (long double)(l->expert_bytes - l->expert_padding_bytes), XU_BYTES,
                 "routed experts (checkpoint)");
    explain_term(row, l->padded_inter, XU_COUNT, "intermediate padded");
    explain_op(row, XOP_MUL);
    explain_term(row, l->padded_hidden, XU_COUNT, "hidden padded");
    explain_op(row, XOP_MUL);
    explain_term(row, m->intermediate_size, XU_COUNT, "intermediate");
    explain_op(row, XOP_DIV);
    explain_term(row, m->hidden_size, XU_COUNT, "hidden");
    explain_op(row, XOP_DIV);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "the MoE kernel's tiles: the matrices padded as loaded, counted in the weights");
}

void placement_share_terms(struct explain_row *row, const struct placement *l)
{
    if (l->layers_all) {
        explain_term(row, l->layers_fullest, XU_COUNT, "layers on the fullest GPU");
        explain_op(row, XOP_MUL);
        explain_term(row, l->layers_all, XU_COUNT, "layers");
    } else {
        explain_term(row, l->tp * l->pp, XU_COUNT, l->pp > 1 ? "GPUs (TP x PP)" : "GPUs");
    }
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
}

/* The weights one GPU holds, when the model is split or a draft sits beside it. */
void placement_weights_row(const struct policy_ctx *c)
{
    const struct placement *l = c->l;
    padding_row(c);
    char note[96];
    struct explain_row *row = NULL;
    bool draft = c->spec->method != SPEC_NONE;
    specdec_weights_row(c);
    uint64_t whole = l->attention_bytes ? l->attention_bytes : l->replicated_bytes;
    if (l->experts_spread || whole) {
        /* split by TP x PP, routed experts over the DP group, the rest whole on every rank */
        uint64_t rest = l->weights_bytes - (l->experts_spread ? l->expert_bytes : 0) - whole;
        row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
        explain_term(row, (long double)rest, XU_BYTES,
                     l->attention_bytes    ? "weights outside attention"
                     : !l->experts_spread  ? "weights split by TP"
                     : l->replicated_bytes ? "the rest"
                                           : "weights outside the experts");
        explain_term(row, l->tp * l->pp, XU_COUNT,
                     l->tp * l->pp == 1 ? "GPU (TP)"
                     : l->pp > 1        ? "GPUs (TP x PP)"
                                        : "GPUs (TP)");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        uint64_t most = placement_experts_fullest(l, c->s->model.experts);
        if (l->experts_spread && most) {
            /* whole experts, not an even share: the fullest GPU's */
            explain_term(row, (long double)l->expert_bytes, XU_BYTES, "routed experts");
            explain_term(row, c->s->model.experts, XU_COUNT, "experts");
            explain_op(row, XOP_DIV);
            explain_term(row, (long double)most, XU_COUNT, "on the fullest GPU");
            explain_op(row, XOP_MUL);
            explain_op(row, XOP_CEIL);
            explain_op(row, XOP_ADD);
        } else if (l->experts_spread) {
            explain_term(row, (long double)l->expert_bytes, XU_BYTES, "routed experts");
            explain_term(row, l->gpus, XU_COUNT,
                         l->expert_parallel ? "GPUs (expert parallel)" : "GPUs (TP across DP)");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_CEIL);
            explain_op(row, XOP_ADD);
        }
        if (whole) {
            explain_term(row, (long double)whole, XU_BYTES,
                         l->attention_bytes ? "attention and embedding" : "whole on every GPU");
            if (l->pp > 1) {
                explain_term(row, l->pp, XU_COUNT, "stages");
                explain_op(row, XOP_DIV);
                explain_op(row, XOP_CEIL);
            }
            explain_op(row, XOP_ADD);
        }
        explain_row_end(c->x, row, XU_BYTES, 0,
                        l->experts_spread && l->expert_parallel
                            ? "whole experts on each GPU, the rest per replica"
                        : l->experts_spread  ? "vLLM's MoE layers span the data-parallel ranks"
                        : l->attention_bytes ? "DP attention: every rank holds attention whole"
                        : c->s->model.index_head_dim
                            ? "MLA's latent down-projections and the indexer are replicated, not "
                              "split (ReplicatedLinear)"
                            : "MLA's latent down-projections are replicated, not split "
                              "(ReplicatedLinear)");
    } else if (l->tp * l->pp > 1 || draft) {
        snprintf(note, sizeof note, "weights (%s)", placement_weights_label(l));
        row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
        explain_term(row, (long double)l->weights_bytes, XU_BYTES, note);
        if (l->tp * l->pp > 1)
            placement_share_terms(row, l);
        if (!draft)
            explain_row_end(c->x, row, XU_BYTES, 0,
                            l->layers_all ? "whole layers to a GPU: the fullest GPU's share" : NULL);
    }
    if (draft) {
        /* the row above is still open for the plain case; reopen the others */
        if (row == NULL || l->experts_spread || whole) {
            if (c->x)
                explain_rename(c->x, "weights_per_gpu", "weights_model");
            row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
            explain_ref(c->x, row, "weights_model", "model");
        }
        explain_ref(c->x, row, "draft_weights", c->spec->method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
        explain_row_end(c->x, row, XU_BYTES, 0,
                        c->spec->method == SPEC_MTP ? "the model and its MTP layers"
                                                    : "the model and its draft");
    }
}

uint32_t placement_node_gpus(const struct placement *l)
{
    return l->node_gpus ? l->node_gpus : SPEC_GPUS_PER_NODE;
}
