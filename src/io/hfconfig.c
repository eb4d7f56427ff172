#include "hfconfig.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text.h"
#include "core/units.h"
#include "io/hf_dsv4.h"
#include "io/hf_late2026.h"
#include "io/hfhybrid.h"
#include "io/hfconfig_read.h"
#include "io/jsonread.h"
#include "io/preset.h"

void hf_note(struct hf_import *h, const char *fmt, ...)
{
    if (h->note_count >= (int)(sizeof h->notes / sizeof h->notes[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->notes[h->note_count++], sizeof h->notes[0], fmt, ap);
    va_end(ap);
}

/* The first of several keys that is present, as a whole number. */
static bool u64_of(const struct jsonread *r, const cJSON *o, const char *const *keys,
                   bool required, uint64_t *out, struct diag *d)
{
    for (int i = 0; keys[i]; i++)
        if (jsonread_has(o, keys[i]))
            return jsonread_u64(r, o, keys[i], true, 0, (uint64_t)1 << 40, out, d);
    if (required)
        return jsonread_fail(r, d, "%s: missing", keys[0]);
    return true;
}

static const struct {
    const char *type;
    enum arch_family family;
    bool tied_default;
} families[] = {
    {"llama", ARCH_LLAMA, false},      {"mistral", ARCH_LLAMA, false},
    {"yi", ARCH_LLAMA, false},         {"phi3", ARCH_LLAMA, false},
    {"qwen2", ARCH_QWEN2, false},      {"qwen3", ARCH_QWEN3, false},
    {"mixtral", ARCH_MIXTRAL, false},  {"qwen3_moe", ARCH_QWEN3_MOE, false},
    {"gemma", ARCH_GEMMA, true},       {"gemma2", ARCH_GEMMA2, true},
    {"gemma3", ARCH_GEMMA3, true},     {"gemma3_text", ARCH_GEMMA3, true},
    {"cohere", ARCH_COHERE, true},     {"deepseek_v2", ARCH_DEEPSEEK, false},
    {"deepseek_v3", ARCH_DEEPSEEK, false}, {"gpt_oss", ARCH_GPT_OSS, false},
    {"falcon", ARCH_FALCON, true},     {"RefinedWeb", ARCH_FALCON, true},
    {"RefinedWebModel", ARCH_FALCON, true}, {"opt", ARCH_OPT, true},
    {"mpt", ARCH_MPT, true},           {"llama4", ARCH_LLAMA4, false},
    {"llama4_text", ARCH_LLAMA4, false},
    /* Kimi K2 ships DeepseekV3ForCausalLM under its own model_type so that
     * engines can tell it apart; the tensors are DeepSeek-V3's */
    {"kimi_k2", ARCH_DEEPSEEK, false}, {"kimi_linear", ARCH_KIMI_LINEAR, false},
    /* DeepSeek-V3.2: V3 with sparse attention's lightning indexer */
    {"deepseek_v32", ARCH_DEEPSEEK, false},
    {"glm4_moe", ARCH_GLM4_MOE, false}, {"minimax_m2", ARCH_MINIMAX_M2, false},
    /* hybrids of attention and state layers (io/hfhybrid.c) */
    {"qwen3_next", ARCH_QWEN3_NEXT, false}, {"nemotron_h", ARCH_NEMOTRON_H, false},
    {"granitemoehybrid", ARCH_GRANITE_HYBRID, false}, {"jamba", ARCH_JAMBA, false},
    {"falcon_h1", ARCH_FALCON_H1, false},
    /* Qwen3.5 and Qwen3.6: Qwen3-Next's layers, dense or MoE (io/hf_late2026.c) */
    {"qwen3_5", ARCH_QWEN3_NEXT, false}, {"qwen3_5_text", ARCH_QWEN3_NEXT, false},
    {"qwen3_5_moe", ARCH_QWEN3_NEXT, false}, {"qwen3_5_moe_text", ARCH_QWEN3_NEXT, false},
    /* GLM-5 and GLM-5.1: DeepSeek-V3.2's MLA, indexer and MoE under GLM's name */
    {"glm_moe_dsa", ARCH_DEEPSEEK, false},
    /* Gemma 4: global layers of their own dims, K=V (io/hf_late2026.c) */
    {"gemma4", ARCH_GEMMA4, true}, {"gemma4_text", ARCH_GEMMA4, true},
    /* DeepSeek V4: compressed attention, hyper-connections (io/hf_dsv4.c) */
    {"deepseek_v4", ARCH_DEEPSEEK_V4, false},
};

/* Whatever import-hf writes must load (it once wrote presets kvplan refused, or
 * holding wrapped values): the preset is written and read back by the
 * loader, and must come back as the same text. */
static bool round_trip(const char *path, const struct model_spec *m, struct diag *d)
{
    char *first = NULL, *second = NULL;
    struct preset back;
    struct diag v = {0};
    cJSON *j = preset_model_to_json(m, true);
    first = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    bool ok = first != NULL;
    if (!ok)
        diag_fail(d, "%s: out of memory", path);
    if (ok && !preset_parse("the imported preset", first, strlen(first), &back, &v))
        ok = diag_fail(d, "%s: the preset it gives would not load: %s", path, v.message);
    if (ok) {
        j = preset_model_to_json(&back.model, true);
        second = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        if (second == NULL || strcmp(first, second) != 0)
            ok = diag_fail(d, "%s: the preset it gives does not read back the same", path);
    }
    free(first);
    free(second);
    return ok;
}


static const char *k_layers[] = {"num_hidden_layers", "n_layer", "n_layers", "num_layers", 0};
static const char *k_hidden[] = {"hidden_size", "d_model", "n_embd", 0};
static const char *k_heads[] = {"num_attention_heads", "n_head", "n_heads", 0};
static const char *k_kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", 0};
static const char *k_inter[] = {"intermediate_size", "ffn_dim", 0};
static const char *k_vocab[] = {"vocab_size", 0};
static const char *k_pos[] = {"max_position_embeddings", "max_seq_len", "n_positions", 0};
static const char *k_head_dim[] = {"head_dim", 0};
static const char *k_experts[] = {"num_local_experts", "n_routed_experts", "num_experts", 0};
static const char *k_topk[] = {"num_experts_per_tok", "experts_per_token", "num_experts_per_token",
                               0};
static const char *k_moe_inter[] = {"moe_intermediate_size", 0};
static const char *k_shared[] = {"n_shared_experts", "num_shared_experts", 0};
static const char *k_first[] = {"first_k_dense_replace", 0};
static const char *k_q_lora[] = {"q_lora_rank", 0};
static const char *k_kv_lora[] = {"kv_lora_rank", 0};
static const char *k_rope[] = {"qk_rope_head_dim", 0};
static const char *k_nope[] = {"qk_nope_head_dim", 0};
static const char *k_v_head[] = {"v_head_dim", 0};
static const char *k_window[] = {"sliding_window", "attention_chunk_size", 0};
static const char *k_pattern[] = {"sliding_window_pattern", 0};
static const char *k_mlp[] = {"intermediate_size_mlp", 0};
static const char *k_step[] = {"interleave_moe_layer_step", 0};
static const char *k_expansion[] = {"expansion_ratio", 0};
static const char *k_index_dim[] = {"index_head_dim", 0};
static const char *k_index_heads[] = {"index_n_heads", 0};
static const char *k_index_topk[] = {"index_topk", 0};
/* the spellings of the fields with more than one, for the defaults; a
 * layer_types list stands for the pattern it spells out */
static const char *k_pattern_types[] = {"sliding_window_pattern", "layer_types", 0};
static const char *k_window_types[] = {"max_window_layers", "layer_types", 0};
static const char *const *const spellings[] = {k_layers, k_hidden,  k_heads,         k_kv,
                                               k_inter,  k_pos,     k_experts,       k_topk,
                                               k_window, k_pattern_types, k_window_types, 0};

/* model_type (inside text_config first), _name_or_path, and the family. */
static bool read_identity(struct hf_read *x)
{
    char outer_type[64] = "";
    bool ok = jsonread_string(&x->tr, x->o, "model_type", false, x->type, sizeof x->type, x->d) &&
              jsonread_string(&x->r, x->root, "model_type", false, outer_type, sizeof outer_type,
                              x->d) &&
              jsonread_string(&x->r, x->root, "_name_or_path", false, x->name_or_path,
                              sizeof x->name_or_path, x->d);
    /* It becomes the model of every launch line: a Hugging Face id or nothing.
     * A local checkout's path (what transformers saves) or anything else is
     * left out, and said: the preset id then names the model. */
    x->hf_id_ok = x->name_or_path[0] == '\0' || spec_hf_id_valid(x->name_or_path);
    if (ok && !x->hf_id_ok)
        hf_note(x->h, "_name_or_path '%.48s%s' is not a Hugging Face id: left out, so launch lines "
                   "name the preset id",
             x->name_or_path, strlen(x->name_or_path) > 48 ? "..." : "");
    if (ok && x->type[0] == '\0')
        snprintf(x->type, sizeof x->type, "%s", outer_type);
    snprintf(x->h->model_type, sizeof x->h->model_type, "%s", x->type);
    x->tied_default = true;
    for (size_t i = 0; ok && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(x->type, families[i].type) == 0) {
            x->h->dims.family = families[i].family;
            x->tied_default = families[i].tied_default;
        }
    if (ok && x->h->dims.family == ARCH_UNKNOWN)
        ok = jsonread_fail(&x->tr, x->d,
                           "model_type: '%s' is not a family kvplan can count (llama, mistral, "
                           "qwen2, qwen3, mixtral, qwen3_moe, gemma, gemma2, gemma3, gemma4, cohere, "
                           "deepseek_v2, deepseek_v3, deepseek_v32, deepseek_v4, kimi_k2, glm4_moe, "
                           "glm_moe_dsa, gpt_oss, "
                           "falcon, opt, "
                           "mpt, llama4, minimax_m2, qwen3_next, qwen3_5, qwen3_5_moe, nemotron_h, "
                           "granitemoehybrid, jamba, falcon_h1, kimi_linear)",
                           x->type);
    return ok;
}

/* Every dimension, by the first of its spellings that is present, each
 * that becomes a 32-bit field of the preset held to the preset loader's
 * range first (qk_rope_head_dim 4294967360 was once cut to 64). */
static bool read_dims(struct hf_read *x)
{
    const struct jsonread *tr = &x->tr;
    const cJSON *o = x->o;
    struct arch_dims *a = &x->h->dims;
    struct diag *d = x->d;
    bool ok = u64_of(tr, o, k_layers, true, &a->layers, d) &&
              u64_of(tr, o, k_hidden, true, &a->hidden, d) &&
              u64_of(tr, o, k_heads, true, &a->heads, d) && u64_of(tr, o, k_kv, false, &x->kv, d) &&
              u64_of(tr, o, k_inter, false, &a->intermediate, d) &&
              u64_of(tr, o, k_vocab, true, &a->vocab, d) &&
              u64_of(tr, o, k_pos, false, &a->max_positions, d) &&
              u64_of(tr, o, k_head_dim, false, &a->head_dim, d) &&
              u64_of(tr, o, k_experts, false, &a->experts, d) &&
              u64_of(tr, o, k_topk, false, &a->experts_per_token, d) &&
              u64_of(tr, o, k_moe_inter, false, &a->moe_intermediate, d) &&
              u64_of(tr, o, k_shared, false, &a->shared_experts, d) &&
              u64_of(tr, o, k_first, false, &a->first_dense, d) &&
              u64_of(tr, o, k_q_lora, false, &a->q_lora_rank, d) &&
              u64_of(tr, o, k_kv_lora, false, &a->kv_lora_rank, d) &&
              u64_of(tr, o, k_rope, false, &a->rope_dim, d) &&
              u64_of(tr, o, k_nope, false, &a->nope_dim, d) &&
              u64_of(tr, o, k_v_head, false, &a->v_head_dim, d) &&
              u64_of(tr, o, k_window, false, &x->window, d) &&
              u64_of(tr, o, k_pattern, false, &x->pattern, d) &&
              u64_of(tr, o, k_mlp, false, &a->dense_intermediate, d) &&
              u64_of(tr, o, k_step, false, &a->moe_every, d) &&
              u64_of(tr, o, k_expansion, false, &x->expansion, d) &&
              u64_of(tr, o, k_index_dim, false, &a->index_head_dim, d) &&
              u64_of(tr, o, k_index_heads, false, &a->index_n_heads, d) &&
              u64_of(tr, o, k_index_topk, false, &x->index_topk, d);
    const struct {
        const char *key;
        uint64_t value, max;
    } limits[] = {
        {k_layers[0], a->layers, 100000},          {k_hidden[0], a->hidden, 10000000},
        {k_heads[0], a->heads, 100000},            {k_kv[0], x->kv, 100000},
        {k_head_dim[0], a->head_dim, 100000},      {k_vocab[0], a->vocab, 100000000},
        {k_inter[0], a->intermediate, 100000000},  {k_kv_lora[0], a->kv_lora_rank, 1000000},
        {k_rope[0], a->rope_dim, 1000000},         {k_nope[0], a->nope_dim, 1000000},
        {k_v_head[0], a->v_head_dim, 1000000},     {k_q_lora[0], a->q_lora_rank, 1000000},
        {k_experts[0], a->experts, 1000000},       {k_moe_inter[0], a->moe_intermediate, 100000000},
        {k_mlp[0], a->dense_intermediate, 100000000},
        {k_index_dim[0], a->index_head_dim, 100000}, {k_index_heads[0], a->index_n_heads, 100000},
        {k_index_topk[0], x->index_topk, TOKENS_MAX},
    };
    for (size_t i = 0; ok && i < sizeof limits / sizeof limits[0]; i++)
        if (limits[i].value > limits[i].max)
            ok = jsonread_fail(tr, d, "%s: %llu is out of range (at most %llu)", limits[i].key,
                               (unsigned long long)limits[i].value,
                               (unsigned long long)limits[i].max);
    return ok;
}

/* Dimensions that cannot be together, or that are given as 0 (only an
 * absent field takes its default). */
static bool check_dims(struct hf_read *x)
{
    const struct jsonread *tr = &x->tr;
    const struct arch_dims *a = &x->h->dims;
    struct diag *d = x->d;
    bool ok = true;
    /* DeepSeek V4's indexer sits in its CSA layers, not on MLA (io/hf_dsv4.c) */
    if (a->family != ARCH_DEEPSEEK_V4 && (a->index_head_dim || x->index_topk) &&
        !(a->index_head_dim && x->index_topk && a->kv_lora_rank))
        ok = jsonread_fail(tr, d, "%s: sparse attention needs index_head_dim and index_topk "
                                  "on an MLA model (kv_lora_rank)",
                           !a->index_head_dim ? "index_head_dim"
                           : !x->index_topk   ? "index_topk"
                                              : "kv_lora_rank");
    if (ok && a->head_dim == 0 && jsonread_has(x->o, k_head_dim[0]))
        ok = jsonread_fail(tr, d, "head_dim: must be positive (leave it out for hidden_size / "
                                  "num_attention_heads)");
    for (int i = 0; ok && a->max_positions == 0 && k_pos[i]; i++)
        if (jsonread_has(x->o, k_pos[i]))
            ok = jsonread_fail(tr, d, "%s: must be positive", k_pos[i]);
    if (ok && a->first_dense > a->layers)
        ok = jsonread_fail(tr, d, "first_k_dense_replace: %llu is more than the %llu layers",
                           (unsigned long long)a->first_dense, (unsigned long long)a->layers);
    if (ok && a->experts && a->experts_per_token > a->experts)
        ok = jsonread_fail(tr, d, "num_experts_per_tok: %llu is more than the %llu experts",
                           (unsigned long long)a->experts_per_token,
                           (unsigned long long)a->experts);
    if (ok && (a->layers == 0 || a->hidden == 0 || a->heads == 0 || a->vocab == 0))
        ok = jsonread_fail(tr, d, "%s: must be positive",
                           a->layers == 0   ? "num_hidden_layers"
                           : a->hidden == 0 ? "hidden_size"
                           : a->heads == 0  ? "num_attention_heads"
                                            : "vocab_size");
    return ok;
}

/* The flags some families read (tied embeddings, Falcon's attention, GLM's
 * and MiniMax's biases and norms, the hybrids' state layers), then each
 * family's defaults for what its config leaves out. */
static bool read_family(struct hf_read *x)
{
    const struct jsonread *tr = &x->tr;
    const cJSON *o = x->o;
    struct arch_dims *a = &x->h->dims;
    struct diag *d = x->d;
    /* tie_word_embeddings absent means the family's default */
    bool tied = x->tied_default;
    bool ok = jsonread_bool(tr, o, "tie_word_embeddings", false, &tied, d) &&
              jsonread_bool(&x->r, x->root, "tie_word_embeddings", false, &tied, d);
    a->tied = tied;
    if (ok && a->family == ARCH_FALCON) {
        bool multi_query = false, new_arch = false;
        ok = jsonread_bool(tr, o, "multi_query", false, &multi_query, d) &&
             jsonread_bool(tr, o, "new_decoder_architecture", false, &new_arch, d);
        a->new_decoder = new_arch;
        if (x->kv == 0)
            x->kv = multi_query ? 1 : new_arch ? 8 : a->heads;
    }
    if (ok && (a->family == ARCH_GLM4_MOE || a->family == ARCH_MINIMAX_M2)) {
        /* Glm4MoeConfig defaults both to false; MiniMaxM2Config normalizes q and k */
        bool bias = false, qk_norm = a->family == ARCH_MINIMAX_M2;
        ok = jsonread_bool(tr, o, "attention_bias", false, &bias, d) &&
             jsonread_bool(tr, o, "use_qk_norm", false, &qk_norm, d);
        a->qkv_bias = bias && a->family == ARCH_GLM4_MOE; /* MiniMax-M2 has none */
        a->qk_norm = qk_norm;
        a->score_bias = true; /* both routers carry e_score_correction_bias */
    }
    if (ok && hfhybrid_family(a->family))
        ok = hfhybrid_dims(tr, o, a, d);
    if (ok && a->family == ARCH_GEMMA4)
        ok = hf_late_gemma4(x);
    if (ok && a->family == ARCH_DEEPSEEK_V4)
        ok = hf_dsv4_dims(x);
    if (ok && a->family == ARCH_MPT && a->intermediate == 0)
        a->intermediate = (x->expansion ? x->expansion : 4) * a->hidden;
    if (ok && a->family == ARCH_FALCON && a->intermediate == 0)
        a->intermediate = 4 * a->hidden;
    if (!ok)
        return false;
    a->kv_heads = x->kv ? x->kv : a->heads;
    if (a->head_dim == 0)
        a->head_dim = a->hidden / a->heads;
    if (a->family == ARCH_DEEPSEEK)
        a->score_bias = strcmp(x->type, "deepseek_v3") == 0 ||
                        strcmp(x->type, "deepseek_v32") == 0 || strcmp(x->type, "kimi_k2") == 0 ||
                        strcmp(x->type, "glm_moe_dsa") == 0;
    if (a->family == ARCH_LLAMA4) {
        if (a->moe_every == 0)
            a->moe_every = 1;
        a->shared_intermediate = a->intermediate;
        a->moe_intermediate = a->moe_intermediate ? a->moe_intermediate : a->intermediate;
        if (a->experts_per_token == 0)
            a->experts_per_token = 1;
    }
    if (a->family == ARCH_GPT_OSS && a->moe_intermediate == 0)
        a->moe_intermediate = a->intermediate;
    if ((a->family == ARCH_MIXTRAL || a->family == ARCH_MINIMAX_M2) && a->moe_intermediate == 0)
        a->moe_intermediate = a->intermediate;
    return true;
}

bool hfconfig_parse(const char *path, const char *text, size_t len, const char *id,
                    const char *name, struct hf_import *h, struct diag *d)
{
    memset(h, 0, sizeof *h);
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct hf_read x = {.path = path, .root = root, .o = root, .h = h, .d = d};
    x.r = (struct jsonread){path, text, len, 0, ""};
    x.tr = x.r;
    /* multimodal configs keep the language model under text_config */
    cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(tc)) {
        x.o = tc;
        x.tr = jsonread_child(&x.r, "text_config", "text_config.");
    }
    bool ok = read_identity(&x);
    if (ok) { /* what transformers' class gives a field the config leaves out */
        hfdefaults_apply(cJSON_IsObject(tc) ? tc : root, x.type, false, spellings,
                         &h->defaults[0]);
        const cJSON *outer = cJSON_GetObjectItemCaseSensitive(root, "model_type");
        if (cJSON_IsObject(tc) && cJSON_IsString(outer))
            hfdefaults_apply(root, outer->valuestring, true, spellings, &h->defaults[1]);
    }
    ok = ok && read_dims(&x) && check_dims(&x) && read_family(&x) &&
              hf_fill_spec(&x, id, name) && hf_read_windows(&x) && hf_read_precision(&x) &&
              hf_count_params(&x);
    cJSON_Delete(root);
    if (!ok)
        return false;
    /* the preset's source says which fields came from a class, not the file */
    for (int i = 0; i < 2; i++)
        if (h->defaults[i].count) {
            size_t n = strlen(h->model.source);
            snprintf(h->model.source + n, sizeof h->model.source - n, "; %s from transformers' %s",
                     h->defaults[i].fields, h->defaults[i].cls);
        }
    struct diag v = {0};
    if (!spec_model_validate(&h->model, &v))
        return diag_fail(d, "%s: the imported model is not valid: %s", path, v.message);
    return round_trip(path, &h->model, d);
}
