/* speedfamily: what a GPU family's kernels reach in the parts of a step the
 * dense decode measurements behind its MBU do not show: MLA's decode
 * attention over the latent cache, the grouped GEMMs that read the routed
 * experts, and the kernels a fine-grained MoE layer adds (routing, top-k,
 * the grouped GEMM's launch and gather). Fitted per family by
 * tools/fit_speed_family.py on the DeepSeek-R1 measurements fitted on, the
 * held-out ones only checked (doc/SPEED-FIT.md); a family the table does
 * not name takes the defaults (no term). Pure data, read by speed.c. */
#ifndef KVPLAN_CORE_SPEEDFAMILY_H
#define KVPLAN_CORE_SPEEDFAMILY_H

struct speed_family_terms {
    const char *family;          /* a GPU preset's family: "Hopper", "CDNA 3" */
    /* MLA decode: the share of the family's MBU the attention kernel reaches
     * reading the latent cache (absorbed MLA's few query heads a GPU leave
     * the kernel short of work; 1 = as the weights are read) */
    double mla_decode_reach;
    /* the fraction of peak bandwidth the grouped expert GEMMs reach reading
     * the routed experts (large contiguous slabs) where the dense reads reach
     * the family's MBU (its presets' achievable_mbu); 0 = as the dense. A
     * share of MBU: --mbu or a calibration moves both alike */
    double expert_mbu;
    double moe_layer_s;          /* a fine-grained MoE layer's own kernels, seconds */
    /* one hop of a tensor-parallel all-reduce within a node: a ring of p GPUs
     * passes 2 (p - 1) hops, so one all-reduce's fixed cost is 2 (p - 1) x
     * this (the alpha of the alpha-beta cost of a ring all-reduce); 0 = the
     * flat SPEED_ALLREDUCE_LATENCY_S whatever p. Fitted on the family's dense
     * decode cases at TP 1, 2 and 8 (tools/fit_allreduce.py) */
    double allreduce_hop_s;
};

/* The terms of a family: its row, or the defaults (reach 1, the family's MBU,
 * SPEED_MOE_LAYER_OVERHEAD_S, the flat all-reduce latency) for a family the
 * table does not name. */
const struct speed_family_terms *speed_family_terms(const char *family);

#endif
