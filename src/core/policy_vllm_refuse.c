/* policy_vllm_refuse: the models a vLLM release does not serve at all, and
 * the cache types its --kv-cache-dtype names.
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
