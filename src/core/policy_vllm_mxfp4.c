/* policy_vllm_mxfp4: vLLM's MXFP4 experts (gpt-oss) padded to the MoE
 * kernel's tiles at load (see policy.h). */
#include <string.h>

#include "policy.h"

/* the SM100 family (B200, GB200, B300), where FlashInfer's kernel runs */
static bool sm100_family(const struct gpu_spec *g)
{
    return strcmp(g->family, "Blackwell") == 0 || strcmp(g->family, "Blackwell Ultra") == 0;
}

/* MXFP4 experts (gpt-oss): the checkpoint's routed experts at 17/32 of a
 * byte a parameter (4-bit values, an 8-bit scale per 32). Not a model with
 * dense layers before its experts (Kimi K3): its intermediate_size is the
 * dense MLP's, not the experts' the padding below needs, and its MXFP4 is
 * compressed-tensors' (compressed_tensors_moe.py), not Mxfp4MoEMethod's. */
static bool mxfp4_experts(const struct scenario *s)
{
    const struct model_spec *m = &s->model;
    if (s->has_weights || s->weight_dtype != DTYPE_AUTO || m->weights_bytes == 0 ||
        m->expert_params == 0 || m->moe_first_dense > 0)
        return false;
    long double bytes = (long double)scenario_expert_bytes(s) * 32;
    long double want = (long double)m->expert_params * 17;
    return bytes > want - 64 && bytes < want + 64;
}

bool vllm_mxfp4_checkpoint(const struct scenario *s)
{
    return mxfp4_experts(s);
}

static uint32_t round_up(uint32_t n, uint32_t to)
{
    return (n + to - 1) / to * to;
}

/* quantization/mxfp4.py (Mxfp4MoEMethod.create_weights, get_mxfp4_backend;
 * main at 007d5005): each rank's experts are allocated padded to the MoE
 * kernel's tiles. On the SM100 family FlashInfer's MXFP4 x BF16 kernel pads
 * the intermediate of a rank and the hidden size to 256; elsewhere on NVIDIA
 * (Hopper and older, and the SM120 parts) Marlin pads the intermediate to 128
 * and the hidden size to 256 (n % 256 and k % 128 of both matrices). ROCm's
 * alignment is not modelled. */
bool vllm_mxfp4_padding(const struct scenario *s, uint32_t split, uint32_t *inter,
                        uint32_t *hidden)
{
    const struct model_spec *m = &s->model;
    if (!mxfp4_experts(s) || strncmp(s->gpu.vendor, "NVIDIA", 6) != 0 || split == 0)
        return false;
    uint32_t per_rank = (m->intermediate_size + split - 1) / split;
    uint32_t tile = sm100_family(&s->gpu) ? 256 : 128;
    *inter = round_up(per_rank, tile) * split;
    *hidden = round_up(m->hidden_size, 256);
    return *inter != m->intermediate_size || *hidden != m->hidden_size;
}
