/* policy_vllm_refuse: the models a vLLM release does not serve at all, the
 * blocks it does not start with, and the cache types its --kv-cache-dtype
 * names.
 *
 * DeepSeek-V3.2's sparse attention (its lightning indexer, index_n_heads and
 * index_head_dim in the model) came with vLLM 0.11.0, the release that also
 * removed the V0 engine: the indexer's cache and its top-k selection are V1
 * attention backends only (vllm/v1/attention/backends/mla/indexer.py,
 * DeepseekV32IndexerBackend; v1/attention/backends/mla/flashmla_sparse.py),
 * and no V0 release had a model class for deepseek_v32.
 *
 * gpt-oss likewise: its model class (vllm/model_executor/models/gpt_oss.py)
 * and the MXFP4 MoE method (model_executor/layers/quantization/mxfp4.py) came
 * with vLLM 0.10.1 (August 2025, after the "gptoss" pre-release image), two
 * releases after V1 became the default in 0.8.0 and past the end of the
 * vllm@0 rule (0.x before 0.8); its attention sinks are run only by V1
 * backends ("Sinks are only supported in FlashAttention 3", the assertion of
 * v1/attention/backends/flash_attn.py in vllm#22331; with VLLM_USE_V1=0 the
 * backend selector refuses it, "sink setting not supported", vllm#28589). */
#include "policy.h"

#include "scenario.h"

#include <stdio.h>

const char *vllm_refuses_model(const struct scenario *s, enum scenario_field *at)
{
    (void)at; /* the engine's rule is at fault: --engine */
    if (s->engine.rule == RULE_VLLM_V0 && s->model.index_n_heads > 0)
        return "vLLM's V0 engine never served DeepSeek-V3.2's sparse attention (the indexer "
               "is a V1 attention backend, v1/attention/backends/mla/indexer.py): take "
               "--engine vllm";
    if (s->engine.rule == RULE_VLLM_V0 && vllm_mxfp4_checkpoint(s))
        return "vLLM's V0 engine never served gpt-oss (its model class and MXFP4 experts came "
               "in vLLM 0.10.1, its attention sinks run on V1 backends only, "
               "v1/attention/backends/flash_attn.py): take --engine vllm";
    return NULL;
}

/* The blocks a vLLM release starts with (--block-size given):
 * - V0: its paged-attention kernels' 8, 16 or 32 (csrc/attention/
 *   paged_attention_v1.cu and _v2.cu: a launcher for each, "Unsupported block
 *   size" otherwise, as quoted in vllm#10938), and on CUDA
 *   vllm/config.py CacheConfig._verify_args refusing more than 32 ("CUDA Paged
 *   Attention kernel only supports block sizes up to 32", vllm#11259, December
 *   2024); vllm serve's choices before that were 8, 16 and 32.
 * - V1 to 0.17: vllm serve's choices, the BlockSize literal of
 *   vllm/config/cache.py (CacheConfig.block_size, read at c1d86421): 1, 8, 16,
 *   32, 64, 128, and 256 from 0.11 (the literal of 0.9.0 to 0.10.2 ends at
 *   128, those of 0.11.1 and 0.16.0 at 256; 0.8's choices, 8 to 128, are
 *   counted with 0.9's, and 0.17 with 0.16); any other is an invalid choice.
 *   From 0.18 CacheConfig.block_size is an int (gt=0 at 002f10e0): any.
 * - Then V1's attention kernels: FlashAttention, FlashInfer and Triton take a
 *   multiple of 16 (v1/attention/backends, get_supported_kernel_block_sizes:
 *   MultipleOf(16)), and the KV cache does not start on another
 *   (vllm/v1/worker/utils.py select_common_block_size: "No common block size
 *   for 8", vllm#42510; up to 0.10 FlashAttentionBackend.get_kv_cache_shape:
 *   "Block size must be a multiple of 16", vllm#15508). An MLA model's block
 *   is its backend's: one that forces its own (block_override, policy_vllm.c
 *   mla_block), or Triton MLA, which takes any (v1/attention/backends/mla/
 *   triton_mla.py: no kernel sizes of its own, MultipleOf(1)); DeepSeek V4's
 *   likewise (policy_vllm_dsv4.c). Up to 0.17 a hybrid model's attention
 *   block below the one its state needs is enlarged to it (policy_vllm.c
 *   group_layers), so its 1 and 8 are taken; from 0.18 a block given is
 *   checked against the kernels like any other. */
const char *vllm_refuses_block(const struct scenario *s, char *buf, size_t size)
{
    uint64_t b = s->block_tokens;
    if (s->engine.rule == RULE_VLLM_V0) {
        if (b == 8 || b == 16 || b == 32)
            return NULL;
        snprintf(buf, size, "refused at startup: V0's paged-attention kernels take 8, 16 or 32 "
                 "(csrc/attention/paged_attention_v2.cu; vllm/config.py, "
                 "CacheConfig._verify_args: \"only supports block sizes up to 32\" on CUDA)");
        return buf;
    }
    bool literal = s->engine.rule == RULE_VLLM_0_13 || s->engine.rule == RULE_VLLM_0_17;
    bool to256 = !s->engine.release_asked[0] ||
                 !engine_release_before(s->engine.release_asked, "0.11");
    bool choice = b == 1 || b == 8 || (b >= 16 && b <= (to256 ? 256u : 128u) && !(b & (b - 1)));
    bool own = s->model.attention == ATTENTION_MLA || kvcost_has_compressed(&s->model) ||
               (literal && s->model.state_layers > 0);
    const char *sizes = to256 ? "16, 32, 64, 128 or 256" : "16, 32, 64 or 128";
    if (literal && !choice)
        snprintf(buf, size, "refused at startup: not one of vllm serve's --block-size choices "
                 "(vllm/config/cache.py, CacheConfig.block_size: BlockSize%s); it starts with "
                 "%s%s%s", to256 ? "" : ", 256 from 0.11", own ? "1, 8, " : "", sizes,
                 own ? "" : " (the choices its attention kernels take, multiples of 16)");
    else if (own || b % 16 == 0)
        return NULL;
    else
        snprintf(buf, size, "refused at startup: its attention kernels take a multiple of 16 "
                 "(get_supported_kernel_block_sizes; vllm/v1/worker/utils.py, "
                 "select_common_block_size)%s%s", literal ? "; of its choices, " : "",
                 literal ? sizes : "");
    return buf;
}

/* DeepSeek-V3.2 under vLLM 0.11 to 0.13: auto is the fp8_ds_mla cache
 * (vllm/model_executor/models/config.py, DeepseekV32ForCausalLM's
 * verify_and_update_config: cache_dtype "auto" or fp8* -> "fp8_ds_mla", "we
 * use a custom fp8 format as default", vllm#25988 of 2025-09-30, in 0.11.0);
 * the newest rule's source takes only fp8* there, auto the model's bf16. */
enum dtype vllm_auto_cache(const struct scenario *s)
{
    if (s->model.index_n_heads > 0 && s->engine.rule == RULE_VLLM_0_13)
        return DTYPE_FP8;
    return DTYPE_AUTO;
}

/* --kv-cache-dtype's choices (CacheDType): "auto" is the model's own dtype,
 * and there has never been a float32; a 16-bit type not named is had with
 * --dtype (ModelDType: float16, bfloat16 in every release). float16 came with vllm#37199 (March
 * 2026, read at 002f10e0); bfloat16 (for DeepSeek-V3.2, whose auto meant
 * fp8) is there at c1d86421 (0.11 to 0.13), not in the 0.x config.py of
 * V0 (CacheDType auto, fp8, fp8_e4m3, fp8_e5m2). */
const struct engine_cache_flags *vllm_cache_flags(enum engine_rule rule)
{
    static const struct engine_cache_flags v0 = {
        NULL, NULL, "auto, fp8, fp8_e4m3 or fp8_e5m2", "vllm/config.py, CacheDType, V0 releases"},
        v013 = {NULL, "bfloat16", "auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc or fp8_ds_mla",
                "vllm/config/cache.py, CacheDType, read at c1d86421"},
        now = {"float16", "bfloat16", "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2 and "
               "the fp8, int and nvfp4 kinds", "vllm/config/cache.py, CacheDType: float16 from "
               "vllm#37199, read at 002f10e0"};
    return rule == RULE_VLLM_V0 ? &v0 : rule == RULE_VLLM_0_13 ? &v013 : &now;
}
