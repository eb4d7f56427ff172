/* scenario_layout: the layout a scenario without --tp and --pp runs
 * (scenario_tp, scenario_pp): tensor parallel within a node, replicas over
 * the rest, and pipeline stages when tensor parallel alone cannot hold the
 * weights. */
#include "scenario.h"

#include "engine_desc.h"

/* The GPUs of a stage in one group when the heads split over them, else the
 * largest group they do split over, in whole replicas (12 GPUs of 64 heads
 * and 8 KV heads: TP 4 x 3); never wider than a node or NVLink domain
 * (spec_gpu_domain), as engines deploy tensor parallel: 16 H100s are 2 x TP 8,
 * not one group over two nodes. vLLM refuses the rest: its
 * ModelConfig.verify_with_parallel_config (vllm/config/model.py) wants the
 * attention heads a multiple of TP, and QKVParallelLinear
 * (model_executor/layers/linear.py) divide()s the KV heads by TP or TP by
 * them. */
static uint32_t stage_tp(const struct scenario *s, uint32_t all)
{
    uint32_t widest = all;
    if (!engine_desc(s->engine.kind)->splits_layers && widest > spec_gpu_domain(&s->gpu))
        widest = spec_gpu_domain(&s->gpu);
    for (uint32_t t = widest; t > 1; t--)
        if (all % t == 0 && scenario_tp_even(s, t))
            return t;
    return all ? 1 : 0;
}

/* Whether a GPU holds its share of the weights within PART of the nine
 * tenths of its memory the engines' default budgets keep for weights and
 * cache (vLLM's gpu_memory_utilization 0.9, TensorRT-LLM's free fraction
 * 0.9), so that the cache keeps a quarter of it where it can: a layout whose
 * weights fill the budget serves next to no one (6 H100s of a 70B model in
 * bf16 as 3 x TP 2 hold 65 GiB of weights a GPU and 1 user a replica, where
 * TP 2 x PP 3 holds 22 GiB and serves more than the 5 GPUs' PP 5). PART
 * is the part of the budget the weights may take: three quarters, else all. */
static bool weights_hold(const struct scenario *s, uint32_t tp, uint32_t pp, long double part)
{
    enum dtype used;
    uint64_t all = scenario_weights_bytes(s, &used), memory = scenario_gpu_memory(s);
    if (memory == 0)
        return true;
    uint64_t group = (uint64_t)tp * pp;
    uint64_t share = all == UINT64_MAX ? UINT64_MAX : all / group + (all % group != 0);
    return (long double)share <= part * 0.9L * (long double)memory;
}

/* Without --tp and --pp: the fewest pipeline stages whose layout holds the
 * weights (stage_tp within each stage), as vLLM's distributed serving guide
 * adds stages when a model outgrows the tensor-parallel group (TP 8 x PP 2
 * over two nodes of 8); one stage when none does, or when the engine splits
 * layers itself or DP attention spans the group. 5 H100s of a 70B model in
 * bf16: TP 1 x PP 5 (26 GiB a GPU), not 5 replicas of 131 GiB. The weights
 * leave the cache a quarter of the budget where some layout does (weights_hold),
 * else fill it. */
static bool staged_layout(const struct scenario *s, long double part, uint32_t *tp, uint32_t *pp)
{
    uint32_t most = s->model.layers ? s->model.layers : s->gpus;
    for (uint32_t p = 1; p <= s->gpus && p <= most; p++) {
        if (s->gpus % p != 0)
            continue;
        uint32_t t = stage_tp(s, s->gpus / p);
        if (weights_hold(s, t, p, part)) {
            *tp = t;
            *pp = p;
            return true;
        }
    }
    return false;
}

static void default_layout(const struct scenario *s, uint32_t *tp, uint32_t *pp)
{
    *pp = s->pp ? s->pp : 1;
    *tp = s->tp ? s->tp : stage_tp(s, s->gpus / *pp);
    if (s->tp || s->pp || s->dp_attention || engine_desc(s->engine.kind)->splits_layers)
        return;
    if (!staged_layout(s, 0.75L, tp, pp))
        staged_layout(s, 1.0L, tp, pp);
}

bool scenario_pp_written(const struct scenario *s)
{
    if (s->pp != 1)
        return s->pp > 1;
    struct scenario d = *s;
    d.pp = 0;
    return scenario_pp(&d) > 1;
}

uint32_t scenario_tp(const struct scenario *s)
{
    uint32_t tp, pp;
    default_layout(s, &tp, &pp);
    return tp;
}

uint32_t scenario_pp(const struct scenario *s)
{
    uint32_t tp, pp;
    default_layout(s, &tp, &pp);
    return pp;
}
