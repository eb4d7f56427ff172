/* The class defaults of transformers' configuration_<model>.py, per
 * model_type: only the fields import-hf reads. Each row cites the class and
 * the transformers commit it was read at; a model_type without a row keeps
 * import-hf's own rules for an absent field (noted when it guesses): falcon
 * (FalconConfig's multi_query true does not agree with import-hf's reading of
 * the old schema's kv heads), and kimi_k2, deepseek_v32, yi and RefinedWeb,
 * whose classes ship with the checkpoint, not with transformers. */
#include "hfdefaults.h"

#include <stdio.h>
#include <string.h>

#define T_NEW "@008e574" /* transformers main, dataclass configs */
#define T_G3 "@008f5c8"  /* transformers as Gemma 3 was released (4.50) */

struct field_default {
    const char *key, *json; /* the value as JSON text */
};

static const struct {
    const char *type, *cls;
    bool root; /* the outer object of a multimodal config */
    struct field_default f[16];
} rows[] = {
    {"llama", "LlamaConfig " T_NEW, false,
     {{"vocab_size", "32000"}, {"intermediate_size", "11008"},
      {"max_position_embeddings", "2048"}}},
    {"mistral", "MistralConfig " T_NEW, false,
     {{"vocab_size", "32000"}, {"intermediate_size", "14336"}, {"num_key_value_heads", "8"},
      {"max_position_embeddings", "131072"}, {"sliding_window", "4096"}}},
    {"mixtral", "MixtralConfig " T_NEW, false,
     {{"vocab_size", "32000"}, {"intermediate_size", "14336"}, {"num_key_value_heads", "8"},
      {"max_position_embeddings", "131072"}, {"num_local_experts", "8"},
      {"num_experts_per_tok", "2"}}},
    {"qwen2", "Qwen2Config " T_NEW, false,
     {{"vocab_size", "151936"}, {"intermediate_size", "22016"}, {"num_key_value_heads", "32"},
      {"max_position_embeddings", "32768"}, {"use_sliding_window", "false"},
      {"sliding_window", "4096"}, {"max_window_layers", "28"}}},
    {"qwen3", "Qwen3Config " T_NEW, false,
     {{"vocab_size", "151936"}, {"intermediate_size", "22016"}, {"num_key_value_heads", "32"},
      {"head_dim", "128"}, {"max_position_embeddings", "32768"}, {"use_sliding_window", "false"},
      {"sliding_window", "4096"}, {"max_window_layers", "28"}}},
    {"qwen3_moe", "Qwen3MoeConfig " T_NEW, false,
     {{"vocab_size", "151936"}, {"intermediate_size", "6144"}, {"num_key_value_heads", "4"},
      {"max_position_embeddings", "32768"}, {"use_sliding_window", "false"},
      {"sliding_window", "4096"}, {"moe_intermediate_size", "768"},
      {"num_experts_per_tok", "8"}, {"num_experts", "128"}}},
    {"phi3", "Phi3Config " T_NEW, false,
     {{"vocab_size", "32064"}, {"intermediate_size", "8192"},
      {"max_position_embeddings", "4096"}}},
    {"gemma", "GemmaConfig " T_NEW, false,
     {{"vocab_size", "256000"}, {"intermediate_size", "24576"}, {"num_key_value_heads", "16"},
      {"head_dim", "256"}, {"max_position_embeddings", "8192"}}},
    {"gemma2", "Gemma2Config " T_NEW, false,
     {{"vocab_size", "256000"}, {"intermediate_size", "9216"}, {"num_key_value_heads", "4"},
      {"head_dim", "256"}, {"max_position_embeddings", "8192"}, {"sliding_window", "4096"}}},
    {"gemma3_text", "Gemma3TextConfig " T_G3, false,
     {{"vocab_size", "262208"}, {"intermediate_size", "9216"}, {"num_key_value_heads", "4"},
      {"head_dim", "256"}, {"max_position_embeddings", "131072"}, {"sliding_window", "4096"},
      {"sliding_window_pattern", "6"}}},
    {"gemma3", "Gemma3Config " T_G3, true, {{"mm_tokens_per_image", "256"}}},
    {"cohere", "CohereConfig " T_NEW, false,
     {{"vocab_size", "256000"}, {"intermediate_size", "22528"},
      {"max_position_embeddings", "8192"}}},
    /* sliding_window 128 in alternate layers (layer_types) */
    {"gpt_oss", "GptOssConfig @02b8f42", false,
     {{"vocab_size", "201088"}, {"intermediate_size", "2880"}, {"head_dim", "64"},
      {"num_key_value_heads", "8"}, {"sliding_window", "128"},
      {"max_position_embeddings", "131072"}, {"num_experts_per_tok", "4"},
      {"num_local_experts", "128"}}},
    /* chunked attention in every layer but each 4th (no_rope_layer_interval) */
    {"llama4_text", "Llama4TextConfig " T_NEW, false,
     {{"vocab_size", "202048"}, {"intermediate_size", "8192"}, {"intermediate_size_mlp", "16384"},
      {"num_key_value_heads", "8"}, {"head_dim", "128"}, {"max_position_embeddings", "131072"},
      {"num_experts_per_tok", "1"}, {"num_local_experts", "16"},
      {"interleave_moe_layer_step", "1"}, {"attention_chunk_size", "8192"}}},
    {"opt", "OPTConfig @014674d", false,
     {{"vocab_size", "50272"}, {"max_position_embeddings", "2048"}, {"ffn_dim", "3072"}}},
    {"mpt", "MptConfig @05699a7", false,
     {{"vocab_size", "50368"}, {"max_seq_len", "2048"}, {"expansion_ratio", "4"}}},
    {"deepseek_v2", "DeepseekV2Config " T_NEW, false,
     {{"vocab_size", "32000"}, {"intermediate_size", "11008"}, {"max_position_embeddings", "2048"},
      {"kv_lora_rank", "512"}, {"q_lora_rank", "1536"}, {"n_routed_experts", "64"},
      {"n_shared_experts", "2"}, {"qk_nope_head_dim", "128"}, {"qk_rope_head_dim", "64"},
      {"v_head_dim", "128"}, {"moe_intermediate_size", "1407"}, {"first_k_dense_replace", "0"}}},
    {"glm4_moe", "Glm4MoeConfig " T_NEW, false,
     {{"vocab_size", "151552"}, {"intermediate_size", "10944"}, {"num_key_value_heads", "8"},
      {"max_position_embeddings", "131072"}, {"moe_intermediate_size", "1408"},
      {"num_experts_per_tok", "8"}, {"n_shared_experts", "1"}, {"n_routed_experts", "128"},
      {"first_k_dense_replace", "1"}}},
    {"minimax_m2", "MiniMaxM2Config " T_NEW, false,
     {{"vocab_size", "200064"}, {"intermediate_size", "1536"}, {"num_key_value_heads", "8"},
      {"head_dim", "128"}, {"max_position_embeddings", "196608"}, {"num_experts_per_tok", "8"},
      {"num_local_experts", "256"}}},
    /* a full-attention layer every full_attention_interval when no layer_types */
    {"qwen3_next", "Qwen3NextConfig " T_NEW, false,
     {{"vocab_size", "151936"}, {"intermediate_size", "5632"}, {"num_key_value_heads", "2"},
      {"max_position_embeddings", "32768"}, {"head_dim", "256"}, {"linear_conv_kernel_dim", "4"},
      {"linear_key_head_dim", "128"}, {"linear_value_head_dim", "128"},
      {"linear_num_key_heads", "16"}, {"linear_num_value_heads", "32"},
      {"moe_intermediate_size", "512"}, {"shared_expert_intermediate_size", "512"},
      {"num_experts_per_tok", "10"}, {"num_experts", "512"}, {"full_attention_interval", "4"}}},
    /* not mamba_ssm_cache_dtype (float32 here): engines keep their own default */
    {"nemotron_h", "NemotronHConfig @13923c6", false,
     {{"vocab_size", "131072"}, {"num_key_value_heads", "8"}, {"head_dim", "128"},
      {"max_position_embeddings", "4096"}, {"intermediate_size", "21504"},
      {"ssm_state_size", "128"}, {"mamba_num_heads", "128"}, {"mamba_head_dim", "64"}}},
    {"granitemoehybrid", "GraniteMoeHybridConfig " T_G3, false,
     {{"vocab_size", "32000"}, {"intermediate_size", "11008"}, {"max_position_embeddings", "2048"},
      {"num_local_experts", "8"}, {"num_experts_per_tok", "2"},
      {"shared_intermediate_size", "1024"}, {"mamba_n_heads", "128"}, {"mamba_n_groups", "1"},
      {"mamba_d_state", "256"}, {"mamba_d_conv", "4"}}},
    {"jamba", "JambaConfig " T_G3, false,
     {{"vocab_size", "65536"}, {"intermediate_size", "14336"}, {"num_key_value_heads", "8"},
      {"max_position_embeddings", "262144"}, {"num_experts_per_tok", "2"}, {"num_experts", "16"},
      {"expert_layer_period", "2"}, {"expert_layer_offset", "1"}, {"attn_layer_period", "8"},
      {"attn_layer_offset", "4"}, {"mamba_d_state", "16"}, {"mamba_d_conv", "4"}}},
    {"falcon_h1", "FalconH1Config @020a37d", false,
     {{"vocab_size", "128000"}, {"intermediate_size", "14336"}, {"num_key_value_heads", "8"},
      {"max_position_embeddings", "8192"}, {"mamba_d_ssm", "1024"}, {"mamba_n_heads", "128"},
      {"mamba_n_groups", "1"}, {"mamba_d_state", "256"}, {"mamba_d_conv", "4"}}},
    {"deepseek_v3", "DeepseekV3Config " T_NEW, false,
     {{"vocab_size", "129280"}, {"intermediate_size", "18432"}, {"moe_intermediate_size", "2048"},
      {"num_key_value_heads", "128"}, {"n_shared_experts", "1"}, {"n_routed_experts", "256"},
      {"kv_lora_rank", "512"}, {"q_lora_rank", "1536"}, {"qk_rope_head_dim", "64"},
      {"v_head_dim", "128"}, {"qk_nope_head_dim", "128"}, {"num_experts_per_tok", "8"},
      {"first_k_dense_replace", "3"}, {"max_position_embeddings", "4096"}}},
};

/* A text config without a model_type of its own takes the outer one's:
 * Gemma3Config builds its text_config as a Gemma3TextConfig, Llama4Config as a
 * Llama4TextConfig. */
static const char *text_type(const char *model_type, bool root)
{
    if (!root && strcmp(model_type, "gemma3") == 0)
        return "gemma3_text";
    if (!root && strcmp(model_type, "llama4") == 0)
        return "llama4_text";
    return model_type;
}

/* Whether obj holds key, or another spelling of the same field. */
static bool present(const cJSON *obj, const char *key, const char *const *const *spellings)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
        return true;
    for (int g = 0; spellings && spellings[g]; g++) {
        bool in_group = false;
        for (int i = 0; spellings[g][i]; i++)
            in_group = in_group || strcmp(spellings[g][i], key) == 0;
        for (int i = 0; in_group && spellings[g][i]; i++)
            if (cJSON_GetObjectItemCaseSensitive(obj, spellings[g][i]) != NULL)
                return true;
    }
    return false;
}

const char *hfdefaults_class(const char *model_type)
{
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        if (!rows[r].root && strcmp(rows[r].type, text_type(model_type, false)) == 0)
            return rows[r].cls;
    return NULL;
}

void hfdefaults_apply(cJSON *obj, const char *model_type, bool root,
                      const char *const *const *spellings, struct hf_defaulted *out)
{
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (rows[r].root != root || strcmp(rows[r].type, text_type(model_type, root)) != 0)
            continue;
        for (int i = 0; i < 16 && rows[r].f[i].key; i++) {
            const struct field_default *f = &rows[r].f[i];
            if (present(obj, f->key, spellings))
                continue;
            cJSON *v = cJSON_Parse(f->json);
            if (v == NULL || !cJSON_AddItemToObject(obj, f->key, v)) {
                cJSON_Delete(v);
                continue;
            }
            size_t n = strlen(out->fields);
            snprintf(out->fields + n, sizeof out->fields - n, "%s%s %s", n ? ", " : "", f->key,
                     f->json);
            out->cls = rows[r].cls;
            out->count++;
        }
    }
}
