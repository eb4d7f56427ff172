#include "spec.h"

#include <string.h>
#include <strings.h>

#include "diag.h"

static const char *attention_names[] = {"MHA", "GQA", "MQA", "MLA"};

const char *spec_attention_name(enum attention_kind kind)
{
    if ((int)kind < 0 || kind > ATTENTION_MLA)
        return "?";
    return attention_names[kind];
}

enum attention_kind spec_attention_with(const struct model_spec *m, uint32_t kv_heads)
{
    uint32_t kvh = kv_heads ? kv_heads : m->kv_heads;
    if (m->attention == ATTENTION_MLA)
        return ATTENTION_MLA;
    return kvh == 1 ? ATTENTION_MQA : kvh == m->attention_heads ? ATTENTION_MHA : ATTENTION_GQA;
}

bool spec_attention_parse(const char *text, enum attention_kind *out)
{
    for (int i = 0; i <= ATTENTION_MLA; i++) {
        if (text && strcasecmp(text, attention_names[i]) == 0) {
            *out = (enum attention_kind)i;
            return true;
        }
    }
    return false;
}

uint32_t spec_kv_layers(const struct model_spec *m)
{
    uint64_t other = (m->state_parallel ? 0 : (uint64_t)m->state_layers) + m->plain_layers;
    return other < m->layers ? m->layers - (uint32_t)other : 0;
}

static bool state_validate(const struct model_spec *m, struct diag *d)
{
    if (m->state_layers == 0 && m->plain_layers == 0)
        return true;
    if (m->state_parallel ? m->plain_layers >= m->layers || m->state_layers > m->layers
                          : (uint64_t)m->state_layers + m->plain_layers >= m->layers)
        return diag_fail(d, "state.layers: %u state and %u plain layers leave no attention layer "
                            "of num_layers %u (kvplan counts hybrid models only)",
                         m->state_layers, m->plain_layers, m->layers);
    if (m->windowed_layers > 0)
        return diag_fail(d, "sliding_window: kvplan does not count windows in a model with "
                            "state layers");
    if (m->state_layers == 0)
        return true;
    if (m->state_conv_kernel < 2 || m->state_conv_kernel > 1024)
        return diag_fail(d, "state.conv_kernel: %u is impossible (expected 2 to 1024)",
                         m->state_conv_kernel);
    if (m->state_heads == 0 || m->state_heads > 1000000)
        return diag_fail(d, "state.heads: expected 1 to 1000000, not %u", m->state_heads);
    if (m->state_head_dim == 0 || m->state_head_dim > 100000)
        return diag_fail(d, "state.head_dim: expected 1 to 100000, not %u", m->state_head_dim);
    if (m->state_size == 0 || m->state_size > 100000)
        return diag_fail(d, "state.d_state: expected 1 to 100000, not %u", m->state_size);
    if (m->state_groups > 100000)
        return diag_fail(d, "state.groups: %u is impossible", m->state_groups);
    return true;
}

/* One part of an id: 1 to 96 of [A-Za-z0-9_.-], a letter, digit or '_'
 * at each end (huggingface_hub validate_repo_id: the word boundaries of
 * REPO_ID_REGEX). */
static bool hf_part_valid(const char *p, size_t len)
{
    if (len == 0 || len > 96)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
        if (!word && ((c != '-' && c != '.') || i == 0 || i + 1 == len))
            return false;
    }
    return true;
}

bool spec_hf_id_valid(const char *id)
{
    const char *slash = strchr(id, '/');
    size_t len = strlen(id);
    if (len >= SPEC_HF_ID_MAX || strstr(id, "--") || strstr(id, "..") ||
        (len >= 4 && strcmp(id + len - 4, ".git") == 0))
        return false;
    if (slash == NULL)
        return hf_part_valid(id, len);
    return strchr(slash + 1, '/') == NULL && hf_part_valid(id, (size_t)(slash - id)) &&
           hf_part_valid(slash + 1, len - (size_t)(slash - id) - 1);
}

bool spec_moe_layer(const struct model_spec *m, uint32_t i)
{
    uint32_t period = m->moe_period > 1 ? m->moe_period : 1;
    return m->experts > 0 && i < m->layers && i >= m->moe_first_dense &&
           i % period == m->moe_offset % period;
}

uint64_t spec_layer_bytes(const struct model_spec *m, uint32_t i)
{
    return i < m->layer_bytes_count ? m->size_bytes[m->layer_size[i]] : 0;
}

uint64_t spec_layer_expert_bytes(const struct model_spec *m, uint32_t i)
{
    return i < m->layer_bytes_count ? m->size_expert_bytes[m->layer_size[i]] : 0;
}

bool spec_set_layer_bytes(struct model_spec *m, uint32_t i, uint64_t bytes, uint64_t experts)
{
    uint8_t k = 0;
    while (k < m->layer_sizes && (m->size_bytes[k] != bytes || m->size_expert_bytes[k] != experts))
        k++;
    if (k == m->layer_sizes) {
        if (k == SPEC_LAYER_SIZES_MAX)
            return false;
        m->size_bytes[k] = bytes;
        m->size_expert_bytes[k] = experts;
        m->layer_sizes++;
    }
    m->layer_size[i] = k;
    return true;
}

uint32_t spec_moe_layers_in(const struct model_spec *m, uint32_t from, uint32_t to)
{
    uint32_t n = 0;
    for (uint32_t i = from; i < to && i < m->layers; i++)
        n += spec_moe_layer(m, i);
    return n;
}

/* The MoE layers' pattern is possible and leaves some layer MoE. */
static bool moe_pattern_validate(const struct model_spec *m, struct diag *d)
{
    uint32_t period = m->moe_period > 1 ? m->moe_period : 1;
    if (m->moe_period > m->layers && m->moe_period > 1)
        return diag_fail(d, "moe.layer_period: %u is more than num_layers %u", m->moe_period,
                         m->layers);
    if (m->moe_offset >= period)
        return diag_fail(d, "moe.layer_offset: %u is not less than layer_period %u",
                         m->moe_offset, period);
    if (m->moe_first_dense > m->layers)
        return diag_fail(d, "moe.first_dense: %u is more than num_layers %u", m->moe_first_dense,
                         m->layers);
    if (m->experts > 0 && spec_moe_layers_in(m, 0, m->layers) == 0)
        return diag_fail(d, "moe.first_dense: no layer is left with experts");
    return true;
}

bool spec_model_validate(const struct model_spec *m, struct diag *d)
{
    if (!moe_pattern_validate(m, d))
        return false;
    if (m->hf_id[0] && !spec_hf_id_valid(m->hf_id))
        return diag_fail(d, "hf_id: '%s' is not a Hugging Face id (%s)", m->hf_id,
                         SPEC_HF_ID_RULE);
    if (m->layers == 0 || m->layers > 100000)
        return diag_fail(d, "num_layers: %u is impossible (expected 1 to 100000)", m->layers);
    if (m->attention_heads == 0 || m->attention_heads > 100000)
        return diag_fail(d, "num_attention_heads: %u is impossible (expected 1 to 100000)",
                         m->attention_heads);
    if (m->attention == ATTENTION_MLA) {
        if (m->kv_lora_rank == 0 || m->kv_lora_rank > 1000000)
            return diag_fail(d, "mla.kv_lora_rank: expected a positive integer for an MLA model");
        if (m->qk_rope_head_dim > 1000000)
            return diag_fail(d, "mla.qk_rope_head_dim: %u is impossible", m->qk_rope_head_dim);
        if ((m->index_head_dim != 0) != (m->index_topk != 0))
            return diag_fail(d, "mla.%s: sparse attention needs both index_head_dim and index_topk",
                             m->index_head_dim ? "index_topk" : "index_head_dim");
    } else {
        if (m->index_head_dim || m->index_topk)
            return diag_fail(d, "mla.index_head_dim: sparse attention's indexer needs MLA");
        if (m->kv_heads == 0)
            return diag_fail(d, "num_kv_heads: expected a positive integer");
        if (m->kv_heads > m->attention_heads || m->attention_heads % m->kv_heads != 0)
            return diag_fail(d, "num_kv_heads: %u does not divide num_attention_heads %u",
                             m->kv_heads, m->attention_heads);
        if (m->head_dim == 0 || m->head_dim > 100000)
            return diag_fail(d, "head_dim: %u is impossible (expected 1 to 100000)", m->head_dim);
        if (m->attention == ATTENTION_MQA && m->kv_heads != 1)
            return diag_fail(d, "attention: MQA needs num_kv_heads 1, not %u", m->kv_heads);
        if (m->attention == ATTENTION_MHA && m->kv_heads != m->attention_heads)
            return diag_fail(d, "attention: MHA needs num_kv_heads equal to "
                                "num_attention_heads (%u), not %u",
                             m->attention_heads, m->kv_heads);
    }
    if (m->windowed_layers > m->layers)
        return diag_fail(d, "sliding_window.windowed_layers: %u is more than num_layers %u",
                         m->windowed_layers, m->layers);
    if (m->windowed_layers > 0 && m->window_tokens == 0)
        return diag_fail(d, "sliding_window.window_tokens: expected a positive token count");
    if (m->windowed_layers > 0 && m->max_context_tokens > 0 &&
        m->window_tokens > m->max_context_tokens)
        return diag_fail(d,
                         "sliding_window.window_tokens: %llu is more than max_context_tokens %llu "
                         "(a window that never fills is full attention)",
                         (unsigned long long)m->window_tokens,
                         (unsigned long long)m->max_context_tokens);
    if (!state_validate(m, d) || !spec_global_validate(m, d) ||
        !spec_compressed_validate(m, d))
        return false;
    if (m->params == 0 && m->weights_bytes == 0)
        return diag_fail(d, "params: expected a positive parameter count");
    if (m->active_params > m->params)
        return diag_fail(d, "active_params: %llu is more than params %llu",
                         (unsigned long long)m->active_params, (unsigned long long)m->params);
    if (m->weight_dtype == DTYPE_AUTO)
        return diag_fail(d, "weight_dtype: the released precision must be named (bf16, fp16, ...)");
    if (m->max_context_tokens == 0)
        return diag_fail(d, "max_context_tokens: expected a positive token count");
    return true;
}

bool spec_gpu_validate(const struct gpu_spec *g, struct diag *d)
{
    if (g->memory_bytes == 0)
        return diag_fail(d, "memory_bytes: expected a positive byte count");
    if (g->memory_bytes > ((uint64_t)1 << 44))
        return diag_fail(d, "memory_bytes: %llu is more than any GPU has (16 TiB)",
                         (unsigned long long)g->memory_bytes);
    if (g->unified_bytes && g->memory_bytes > g->unified_bytes)
        return diag_fail(d, "memory_bytes: %llu is more than unified_memory_bytes %llu",
                         (unsigned long long)g->memory_bytes,
                         (unsigned long long)g->unified_bytes);
    return true;
}

uint32_t spec_gpu_node(const struct gpu_spec *g)
{
    return g->gpus_per_node ? g->gpus_per_node : SPEC_GPUS_PER_NODE;
}

uint32_t spec_gpu_domain(const struct gpu_spec *g)
{
    uint32_t node = spec_gpu_node(g);
    return g->nvlink_domain_gpus > node ? g->nvlink_domain_gpus : node;
}

uint64_t spec_metal_working_set(uint64_t unified)
{
    /* 16 GiB: 11453.25 MB, 32 GiB: 22906.50 MB (2/3, up to a whole 16 KiB
     * page: 22,906,503,168 B); 36 GiB: 28991.03 MB, 64 GiB: 51539.61 MB,
     * 128 GiB: 103079.22 MB (3/4), as llama.cpp's ggml_metal_device_init
     * prints it (bytes / 1e6) */
    const uint64_t page = 16384;
    uint64_t pages = unified / page;
    uint64_t share = unified <= (uint64_t)32 << 30 ? (pages * 2 + 2) / 3 : (pages * 3 + 3) / 4;
    return share * page;
}

uint64_t spec_wired_limit_max(uint64_t unified)
{
    uint64_t mib = unified / ((uint64_t)1 << 20);
    uint64_t share = mib * 80 / 100, most = mib > 5120 ? mib - 5120 : 0;
    return (share > most ? share : most) << 20;
}

const char *spec_gpu_api(const struct gpu_spec *g)
{
    return g->unified_bytes && strcasecmp(g->vendor, "Apple") == 0 ? "Metal" : "CUDA";
}
