/* policy_vllm_refuse: the models a vLLM release does not serve at all.
 *
 * DeepSeek-V3.2's sparse attention (its lightning indexer, index_n_heads and
 * index_head_dim in the model) came with vLLM 0.11.0, the release that also
 * removed the V0 engine: the indexer's cache and its top-k selection are V1
 * attention backends only (vllm/v1/attention/backends/mla/indexer.py,
 * DeepseekV32IndexerBackend; v1/attention/backends/mla/flashmla_sparse.py),
 * and no V0 release had a model class for deepseek_v32. */
#include "policy.h"

#include "scenario.h"

const char *vllm_refuses_model(const struct scenario *s)
{
    if (s->engine.rule == RULE_VLLM_V0 && s->model.index_n_heads > 0)
        return "vLLM's V0 engine never served DeepSeek-V3.2's sparse attention (the indexer "
               "is a V1 attention backend, v1/attention/backends/mla/indexer.py): take "
               "--engine vllm";
    return NULL;
}
