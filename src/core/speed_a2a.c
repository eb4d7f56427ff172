/* speed_a2a: the expert-parallel terms of a decode step (core/speed_inputs.h):
 * under data-parallel attention with the routed experts over the DP group,
 * each GPU's experts serve the tokens of every rank, and each MoE layer
 * moves the tokens to the experts and the results back.
 *
 * vLLM (vllm/model_executor/layers/fused_moe/config.py,
 * FusedMoEParallelConfig.make): with --data-parallel-size R the MoE layers
 * span the R x TP GPUs, as whole experts with --enable-expert-parallel, as
 * tensor slices without. Either way a rank's tokens reach every rank's
 * experts through the EP group's all2all manager
 * (vllm/distributed/device_communicators/all2all.py): the default backend
 * (VLLM_ALL2ALL_BACKEND "allgather_reducescatter", vllm/envs.py) gathers
 * every rank's hidden states to every rank (dispatch) and reduce-scatters
 * the experts' partial sums back (combine): a ring moves (R - 1) / R of
 * the global tokens through each rank each way (R - 1 times a rank's own
 * when the ranks' batches are even; a prefill's prompt, on one rank, 7/8 of
 * it at R 8), 16-bit (the layer dispatches before the experts' kernels
 * quantize). A true all-to-all (DeepEP, pplx: the modular kernel's
 * prepare/finalize) would send a token only to its top-k experts' ranks,
 * k (E - 1) / E copies, fp8 for an fp8 model: not vLLM's default, and no
 * kvplan option selects it. One replica (R 1) has no all-to-all: the TP
 * ranks hold the same tokens and all-reduce.
 *
 * SGLang: kvplan's launch line gives --ep-size, not --moe-a2a-backend
 * deepep; its MoE layers then take DP attention's gathered tokens, which the
 * all-reduce term already counts (token_scale): no all-to-all added. */
#include <stdio.h>

#include "engine_desc.h"
#include "speed_inputs.h"
#include "speedfamily.h"

/* The link the EP ranks share: NVLink within a node or an NVL72 domain, the
 * network past it, as the all-reduce's (speed.c inputs_of); an all-to-all is
 * one exchange, a hop's latency (the network's across nodes). */
static void a2a_link(const struct scenario *s, struct inputs *in)
{
    const struct speed_family_terms *fam = speed_family_terms(s->gpu.family);
    uint32_t domain = spec_gpu_domain(&s->gpu);
    in->a2a_nodes = (in->ep_ranks + domain - 1) / domain;
    in->a2a_link = (double)s->gpu.link_bytes_per_s;
    in->a2a_latency = fam->allreduce_hop_s > 0 ? fam->allreduce_hop_s : SPEED_ALLREDUCE_LATENCY_S;
    if (in->a2a_nodes > 1) {
        if (in->a2a_link <= 0 || in->a2a_link > SPEED_INTERNODE_BYTES_PER_S)
            in->a2a_link = SPEED_INTERNODE_BYTES_PER_S;
        in->a2a_latency = SPEED_INTERNODE_LATENCY_S;
    }
}

void speed_a2a_inputs(const struct scenario *s, const struct speed_basis *r, struct inputs *in)
{
    const struct placement *l = r->layout;
    const struct model_spec *m = &s->model;
    in->ep_ranks = in->a2a_nodes = in->a2a_layers = 0;
    in->ep_scale = 1;
    in->a2a_whole = l->expert_parallel;
    in->a2a_copies = in->a2a_dispatch = in->a2a_link = in->a2a_latency = 0;
    if (m->experts == 0 || m->experts_per_token == 0 || r->budget->engine.offload.active)
        return;
    if (!l->experts_spread || l->replicas <= 1)
        return;
    /* vLLM: the R replicas' tokens reach every GPU's experts, gathered */
    in->ep_ranks = l->gpus;
    in->ep_scale = (double)l->replicas;
    in->a2a_copies = ((double)l->replicas - 1.0) / (double)l->replicas;
    in->a2a_dispatch = 2.0;
    uint32_t layers = spec_moe_layers_in(m, 0, m->layers);
    in->a2a_layers = (uint32_t)((double)layers * in->layers / (double)m->layers + 0.5);
    if (in->pp > 1 && !engine_desc(s->engine.kind)->splits_layers)
        in->a2a_layers = (layers + in->pp - 1) / in->pp;
    a2a_link(s, in);
}

void speed_a2a_model(const struct inputs *in, bool decode, struct step_model *m)
{
    if (in->ep_ranks == 0)
        return;
    /* a prefill is one rank's prompt; a decode step every rank's batch */
    m->ep_scale = decode ? in->ep_scale : 1;
    m->a2a_copies = in->a2a_copies;
    m->a2a_bytes = in->hidden * (in->a2a_dispatch + 2.0);
    m->a2a_layers = in->a2a_layers;
}

void speed_a2a_row(const struct inputs *in, const struct scenario *s, struct explain *x,
                   const struct step_time *st, const struct step_model *m)
{
    char name[160], note[240];
    if (x == NULL || st->a2a_s <= 0 || m->a2a_layers == 0)
        return;
    struct explain_row *row = explain_row_begin(x, "speed_a2a", "All-to-all", "per step");
    double layer = st->a2a_bytes / m->a2a_layers;
    explain_term(row, m->a2a_layers, XU_COUNT, "MoE layers");
    snprintf(name, sizeof name, "a layer (%.0f/%.0f of %.0f tokens x %u x %.0f+2 B)",
             in->ep_scale - 1, in->ep_scale, layer / (m->a2a_copies * m->a2a_bytes),
             s->model.hidden_size, in->a2a_dispatch);
    explain_term(row, layer, XU_BYTES, name);
    explain_term(row, in->a2a_link, XU_LINK_BYTES_PER_S, in->a2a_nodes > 1 ? "network" : "NVLink");
    explain_op(row, XOP_DIV);
    explain_term(row, 2, XU_COUNT, "all-to-alls");
    explain_term(row, in->a2a_latency, XU_SECONDS, "each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_op(row, XOP_MUL);
    const char *how = in->a2a_whole
                          ? "vLLM's allgather_reducescatter: every rank's tokens to every "
                            "GPU's whole experts, the partial sums reduce-scattered back, bf16"
                          : "every rank's tokens to every GPU's expert slices, the partial "
                            "sums reduce-scattered back, bf16";
    snprintf(note, sizeof note, "%s, over %u GPUs%s at %.0f GB/s plus %.1f us each", how,
             in->ep_ranks, in->a2a_nodes > 1 ? " across nodes (network)" : "",
             in->a2a_link / 1e9, in->a2a_latency * 1e6);
    explain_row_end(x, row, XU_SECONDS, 0, note);
}
