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
#include "io/hfhybrid.h"
#include "io/jsonread.h"
#include "io/preset.h"

static void note(struct hf_import *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct hf_import *h, const char *fmt, ...)
{
    if (h->note_count >= 4)
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
    {"kimi_k2", ARCH_DEEPSEEK, false},
    /* DeepSeek-V3.2: V3 with sparse attention's lightning indexer */
    {"deepseek_v32", ARCH_DEEPSEEK, false},
    {"glm4_moe", ARCH_GLM4_MOE, false}, {"minimax_m2", ARCH_MINIMAX_M2, false},
    /* hybrids of attention and state layers (io/hfhybrid.c) */
    {"qwen3_next", ARCH_QWEN3_NEXT, false}, {"nemotron_h", ARCH_NEMOTRON_H, false},
    {"granitemoehybrid", ARCH_GRANITE_HYBRID, false}, {"jamba", ARCH_JAMBA, false},
    {"falcon_h1", ARCH_FALCON_H1, false},
};

static void derive_id(const char *path, const char *name_or_path, char *out, size_t size)
{
    const char *src = name_or_path && name_or_path[0] ? name_or_path : path;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", src);
    /* drop a trailing "/config.json", keep the last path component */
    char *slash = strrchr(buf, '/');
    if (slash && strcmp(slash, "/config.json") == 0) {
        *slash = '\0';
        slash = strrchr(buf, '/');
    }
    char *base = slash ? slash + 1 : buf;
    if (strcmp(base, "config.json") == 0)
        base = "imported-model";
    /* a file of another name ("qwen3next.json"): its name without ".json" */
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        base[len - 5] = '\0';
    size_t n = 0;
    while (*base && !isalnum((unsigned char)*base)) /* an id starts with a letter or digit */
        base++;
    for (const char *p = base; *p && n + 1 < size; p++) {
        char c = (char)tolower((unsigned char)*p);
        out[n++] = isalnum((unsigned char)c) || c == '.' || c == '_' ? c : '-';
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, size, "imported-model");
}

/* A --name is printed in lists and reports: UTF-8 text without controls. */
static bool name_valid(const char *name, struct diag *d)
{
    unsigned cp = 0;
    enum text_fault f = text_check(name, SPEC_NAME_MAX - 1, &cp);
    if (f == TEXT_TOO_LONG)
        return diag_fail(d, "--name: longer than %d bytes", SPEC_NAME_MAX - 1);
    if (f != TEXT_OK)
        return diag_fail(d, "--name: '%s' holds a control character or is not UTF-8 text",
                         name);
    return true;
}

/* Whatever import-hf writes must load (it once wrote presets kvplan refused, or
 * holding wrapped values): the preset is written and read back by the
 * loader, and must come back as the same text. */
/* Multi-token-prediction layers (num_nextn_predict_layers), counted apart
 * from the model: each is one more decoder layer (the count with one layer
 * more, less the count without), eh_proj 2h x h, and enorm, hnorm and the
 * shared head's norm; the embedding and head are the model's (vLLM
 * v1/spec_decode/eagle.py shares them). DeepSeek-V3 and GLM-4.5: their
 * MTP layer is a layer of the model's last kind; Qwen3-Next: a full-attention
 * layer. */
static bool mtp_count(const struct jsonread *r, const cJSON *root, const struct arch_dims *a,
                      uint64_t text_params, struct model_spec *m, struct hf_import *h,
                      struct diag *d)
{
    uint64_t nextn = 0, more = 0, unused = 0;
    /* Qwen3-Next names them mtp_num_hidden_layers (vLLM config/speculative.py
     * reads it as num_nextn_predict_layers for qwen3_next_mtp) */
    bool qnext = a->family == ARCH_QWEN3_NEXT;
    if (!jsonread_u64(r, root, qnext ? "mtp_num_hidden_layers" : "num_nextn_predict_layers", false,
                      0, 64, &nextn, d))
        return false;
    if (nextn == 0)
        return true;
    if (a->family != ARCH_DEEPSEEK && a->family != ARCH_GLM4_MOE && !qnext) {
        note(h, "%llu MTP layers not counted for this family", (unsigned long long)nextn);
        return true;
    }
    struct arch_dims one_more = *a;
    one_more.layers++;
    /* Qwen3-Next's MTP layer is a full-attention decoder layer with its MoE,
     * fc from 2 x hidden to hidden, pre_fc_norm_hidden, pre_fc_norm_embedding
     * and norm (vLLM models/qwen3_next_mtp.py, Qwen3NextMultiTokenPredictor) */
    if (qnext)
        one_more.attention_layers++;
    if (!params_count(&one_more, &more, &unused) || more <= text_params)
        return true;
    m->nextn_layers = (uint32_t)nextn;
    m->mtp_params = nextn * (more - text_params + 2 * a->hidden * a->hidden + 3 * a->hidden);
    note(h, "MTP: %llu layer%s of %.2f B parameters, for --speculative-method mtp",
         (unsigned long long)nextn, nextn == 1 ? "" : "s", (double)m->mtp_params / 1e9);
    return true;
}

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

/* The vision tower under vision_config, by its model_type; 0 when there is
 * none or kvplan does not know the type (then noted by the caller's count). */
static bool vision_count(const struct jsonread *r, const cJSON *root, uint64_t text_hidden,
                         uint64_t *out, struct diag *d)
{
    *out = 0;
    const cJSON *vc = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
    if (!cJSON_IsObject(vc))
        return true;
    struct jsonread vr = jsonread_child(r, "vision_config", "vision_config.");
    char type[64] = "";
    if (!jsonread_string(&vr, vc, "model_type", false, type, sizeof type, d))
        return false;
    struct vision_dims v = {.channels = 3, .adapter_out = 4096, .text_hidden = text_hidden};
    if (strcmp(type, "siglip_vision_model") == 0)
        v.kind = VISION_SIGLIP;
    else if (strcmp(type, "llama4_vision_model") == 0)
        v.kind = VISION_LLAMA4;
    else
        return true;
    const uint64_t max = (uint64_t)1 << 24;
    bool ok = jsonread_u64(&vr, vc, "hidden_size", true, 1, max, &v.hidden, d) &&
              jsonread_u64(&vr, vc, "intermediate_size", true, 1, max, &v.intermediate, d) &&
              jsonread_u64(&vr, vc, "num_hidden_layers", true, 1, max, &v.layers, d) &&
              jsonread_u64(&vr, vc, "patch_size", true, 1, max, &v.patch, d) &&
              jsonread_u64(&vr, vc, "image_size", true, 1, max, &v.image, d) &&
              jsonread_u64(&vr, vc, "num_channels", false, 1, 64, &v.channels, d) &&
              jsonread_u64(&vr, vc, "projector_input_dim", false, 1, max, &v.adapter_out, d);
    v.adapter_in = v.intermediate; /* the pixel-shuffle MLP's fc1 takes intermediate_size */
    if (!ok)
        return false;
    if (!params_vision(&v, out))
        return jsonread_fail(&vr, d, "the vision tower's dimensions are too large to count");
    return true;
}

bool hfconfig_parse(const char *path, const char *text, size_t len, const char *id,
                    const char *name, struct hf_import *h, struct diag *d)
{
    memset(h, 0, sizeof *h);
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    /* multimodal configs keep the language model under text_config */
    const cJSON *o = root;
    struct jsonread tr = r;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(tc)) {
        o = tc;
        tr = jsonread_child(&r, "text_config", "text_config.");
    }
    bool ok = true;
    char type[64] = "", outer_type[64] = "", name_or_path[SPEC_HF_ID_MAX] = "", dtype[32] = "";
    ok = jsonread_string(&tr, o, "model_type", false, type, sizeof type, d) &&
         jsonread_string(&r, root, "model_type", false, outer_type, sizeof outer_type, d) &&
         jsonread_string(&r, root, "_name_or_path", false, name_or_path, sizeof name_or_path, d);
    /* It becomes the model of every launch line: a Hugging Face id or nothing.
     * A local checkout's path (what transformers saves) or anything else is
     * left out, and said: the preset id then names the model. */
    bool hf_id_ok = name_or_path[0] == '\0' || spec_hf_id_valid(name_or_path);
    if (ok && !hf_id_ok)
        note(h, "_name_or_path '%.48s%s' is not a Hugging Face id: left out, so launch lines "
                "name the preset id",
             name_or_path, strlen(name_or_path) > 48 ? "..." : "");
    if (ok && type[0] == '\0')
        snprintf(type, sizeof type, "%s", outer_type);
    snprintf(h->model_type, sizeof h->model_type, "%s", type);
    struct arch_dims *a = &h->dims;
    struct model_spec *m = &h->model;
    bool tied_default = true;
    for (size_t i = 0; ok && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(type, families[i].type) == 0) {
            a->family = families[i].family;
            tied_default = families[i].tied_default;
        }
    if (ok && a->family == ARCH_UNKNOWN)
        ok = jsonread_fail(&tr, d,
                           "model_type: '%s' is not a family kvplan can count (llama, mistral, "
                           "qwen2, qwen3, mixtral, qwen3_moe, gemma, gemma2, gemma3, cohere, "
                           "deepseek_v2, deepseek_v3, deepseek_v32, kimi_k2, glm4_moe, gpt_oss, falcon, opt, "
                           "mpt, llama4, minimax_m2, qwen3_next, nemotron_h, granitemoehybrid, jamba, "
                           "falcon_h1)",
                           type);
    static const char *k_layers[] = {"num_hidden_layers", "n_layer", "n_layers", "num_layers", 0};
    static const char *k_hidden[] = {"hidden_size", "d_model", "n_embd", 0};
    static const char *k_heads[] = {"num_attention_heads", "n_head", "n_heads", 0};
    static const char *k_kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", 0};
    static const char *k_inter[] = {"intermediate_size", "ffn_dim", 0};
    static const char *k_vocab[] = {"vocab_size", 0};
    static const char *k_pos[] = {"max_position_embeddings", "max_seq_len", "n_positions", 0};
    static const char *k_head_dim[] = {"head_dim", 0};
    static const char *k_experts[] = {"num_local_experts", "n_routed_experts", "num_experts", 0};
    static const char *k_topk[] = {"num_experts_per_tok", "experts_per_token", 0};
    static const char *k_moe_inter[] = {"moe_intermediate_size", 0};
    static const char *k_shared[] = {"n_shared_experts", 0};
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
    uint64_t window = 0, pattern = 0, kv = 0, expansion = 0, index_topk = 0;
    ok = ok && u64_of(&tr, o, k_layers, true, &a->layers, d) &&
         u64_of(&tr, o, k_hidden, true, &a->hidden, d) &&
         u64_of(&tr, o, k_heads, true, &a->heads, d) && u64_of(&tr, o, k_kv, false, &kv, d) &&
         u64_of(&tr, o, k_inter, false, &a->intermediate, d) &&
         u64_of(&tr, o, k_vocab, true, &a->vocab, d) &&
         u64_of(&tr, o, k_pos, false, &a->max_positions, d) &&
         u64_of(&tr, o, k_head_dim, false, &a->head_dim, d) &&
         u64_of(&tr, o, k_experts, false, &a->experts, d) &&
         u64_of(&tr, o, k_topk, false, &a->experts_per_token, d) &&
         u64_of(&tr, o, k_moe_inter, false, &a->moe_intermediate, d) &&
         u64_of(&tr, o, k_shared, false, &a->shared_experts, d) &&
         u64_of(&tr, o, k_first, false, &a->first_dense, d) &&
         u64_of(&tr, o, k_q_lora, false, &a->q_lora_rank, d) &&
         u64_of(&tr, o, k_kv_lora, false, &a->kv_lora_rank, d) &&
         u64_of(&tr, o, k_rope, false, &a->rope_dim, d) &&
         u64_of(&tr, o, k_nope, false, &a->nope_dim, d) &&
         u64_of(&tr, o, k_v_head, false, &a->v_head_dim, d) &&
         u64_of(&tr, o, k_window, false, &window, d) &&
         u64_of(&tr, o, k_pattern, false, &pattern, d) &&
         u64_of(&tr, o, k_mlp, false, &a->dense_intermediate, d) &&
         u64_of(&tr, o, k_step, false, &a->moe_every, d) &&
         u64_of(&tr, o, k_expansion, false, &expansion, d) &&
         u64_of(&tr, o, k_index_dim, false, &a->index_head_dim, d) &&
         u64_of(&tr, o, k_index_heads, false, &a->index_n_heads, d) &&
         u64_of(&tr, o, k_index_topk, false, &index_topk, d);
    /* every dimension that becomes a 32-bit field of the preset is held to
     * the preset loader's range first: qk_rope_head_dim 4294967360 was cut
     * to 64 */
    const struct {
        const char *key;
        uint64_t value, max;
    } limits[] = {
        {k_layers[0], a->layers, 100000},          {k_hidden[0], a->hidden, 10000000},
        {k_heads[0], a->heads, 100000},            {k_kv[0], kv, 100000},
        {k_head_dim[0], a->head_dim, 100000},      {k_vocab[0], a->vocab, 100000000},
        {k_inter[0], a->intermediate, 100000000},  {k_kv_lora[0], a->kv_lora_rank, 1000000},
        {k_rope[0], a->rope_dim, 1000000},         {k_nope[0], a->nope_dim, 1000000},
        {k_v_head[0], a->v_head_dim, 1000000},     {k_q_lora[0], a->q_lora_rank, 1000000},
        {k_experts[0], a->experts, 1000000},       {k_moe_inter[0], a->moe_intermediate, 100000000},
        {k_mlp[0], a->dense_intermediate, 100000000},
        {k_index_dim[0], a->index_head_dim, 100000}, {k_index_heads[0], a->index_n_heads, 100000},
        {k_index_topk[0], index_topk, TOKENS_MAX},
    };
    for (size_t i = 0; ok && i < sizeof limits / sizeof limits[0]; i++)
        if (limits[i].value > limits[i].max)
            ok = jsonread_fail(&tr, d, "%s: %llu is out of range (at most %llu)", limits[i].key,
                               (unsigned long long)limits[i].value,
                               (unsigned long long)limits[i].max);
    if (ok && (a->index_head_dim || index_topk) && !(a->index_head_dim && index_topk && a->kv_lora_rank))
        ok = jsonread_fail(&tr, d, "%s: sparse attention needs index_head_dim and index_topk "
                                   "on an MLA model (kv_lora_rank)",
                           !a->index_head_dim ? "index_head_dim"
                           : !index_topk      ? "index_topk"
                                              : "kv_lora_rank");
    /* given as 0 is not left out: only an absent field takes the default */
    if (ok && a->head_dim == 0 && jsonread_has(o, k_head_dim[0]))
        ok = jsonread_fail(&tr, d, "head_dim: must be positive (leave it out for hidden_size / "
                                   "num_attention_heads)");
    for (int i = 0; ok && a->max_positions == 0 && k_pos[i]; i++)
        if (jsonread_has(o, k_pos[i]))
            ok = jsonread_fail(&tr, d, "%s: must be positive", k_pos[i]);
    if (ok && a->first_dense > a->layers)
        ok = jsonread_fail(&tr, d, "first_k_dense_replace: %llu is more than the %llu layers",
                           (unsigned long long)a->first_dense, (unsigned long long)a->layers);
    if (ok && a->experts && a->experts_per_token > a->experts)
        ok = jsonread_fail(&tr, d, "num_experts_per_tok: %llu is more than the %llu experts",
                           (unsigned long long)a->experts_per_token,
                           (unsigned long long)a->experts);
    if (ok && (a->layers == 0 || a->hidden == 0 || a->heads == 0 || a->vocab == 0))
        ok = jsonread_fail(&tr, d, "%s: must be positive",
                           a->layers == 0   ? "num_hidden_layers"
                           : a->hidden == 0 ? "hidden_size"
                           : a->heads == 0  ? "num_attention_heads"
                                            : "vocab_size");
    if (ok) {
        /* tie_word_embeddings absent means the family's default */
        a->tied = tied_default;
        bool tied = a->tied;
        ok = jsonread_bool(&tr, o, "tie_word_embeddings", false, &tied, d) &&
             jsonread_bool(&r, root, "tie_word_embeddings", false, &tied, d);
        a->tied = tied;
    }
    if (ok && a->family == ARCH_FALCON) {
        bool multi_query = false, new_arch = false;
        ok = jsonread_bool(&tr, o, "multi_query", false, &multi_query, d) &&
             jsonread_bool(&tr, o, "new_decoder_architecture", false, &new_arch, d);
        a->new_decoder = new_arch;
        if (kv == 0)
            kv = multi_query ? 1 : new_arch ? 8 : a->heads;
    }
    if (ok && (a->family == ARCH_GLM4_MOE || a->family == ARCH_MINIMAX_M2)) {
        /* Glm4MoeConfig defaults both to false; MiniMaxM2Config normalizes q and k */
        bool bias = false, qk_norm = a->family == ARCH_MINIMAX_M2;
        ok = jsonread_bool(&tr, o, "attention_bias", false, &bias, d) &&
             jsonread_bool(&tr, o, "use_qk_norm", false, &qk_norm, d);
        a->qkv_bias = bias && a->family == ARCH_GLM4_MOE; /* MiniMax-M2 has none */
        a->qk_norm = qk_norm;
        a->score_bias = true; /* both routers carry e_score_correction_bias */
    }
    if (ok && hfhybrid_family(a->family))
        ok = hfhybrid_dims(&tr, o, a, d);
    if (ok && a->family == ARCH_MPT && a->intermediate == 0)
        a->intermediate = (expansion ? expansion : 4) * a->hidden;
    if (ok && a->family == ARCH_FALCON && a->intermediate == 0)
        a->intermediate = 4 * a->hidden;
    if (!ok) {
        cJSON_Delete(root);
        return false;
    }
    a->kv_heads = kv ? kv : a->heads;
    if (a->head_dim == 0)
        a->head_dim = a->hidden / a->heads;
    if (a->family == ARCH_DEEPSEEK)
        a->score_bias = strcmp(type, "deepseek_v3") == 0 || strcmp(type, "deepseek_v32") == 0 ||
                        strcmp(type, "kimi_k2") == 0;
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

    /* the model spec */
    if (id && !preset_id_valid(id)) {
        cJSON_Delete(root);
        return diag_fail(d, "--id: '%s' must be 1 to %d lowercase letters, digits, '-', '.' or "
                            "'_', starting with a letter or digit",
                         id, SPEC_ID_MAX - 1);
    }
    if (name && !name_valid(name, d)) {
        cJSON_Delete(root);
        return false;
    }
    if (id)
        snprintf(m->id, sizeof m->id, "%s", id);
    else
        derive_id(path, hf_id_ok || strchr("/.~", name_or_path[0]) ? name_or_path : NULL, m->id,
                  sizeof m->id);
    snprintf(m->name, sizeof m->name, "%s", name ? name : m->id);
    snprintf(m->hf_id, sizeof m->hf_id, "%s", hf_id_ok ? name_or_path : "");
    char shown[SPEC_TEXT_MAX - 64];
    text_escape(path, shown, sizeof shown); /* the source is printed: no controls in it */
    snprintf(m->source, sizeof m->source, "imported from %s by kvplan import-hf", shown);
    m->layers = (uint32_t)a->layers;
    m->hidden_size = (uint32_t)a->hidden;
    m->attention_heads = (uint32_t)a->heads;
    m->vocab_size = (uint32_t)a->vocab;
    m->intermediate_size = (uint32_t)a->intermediate;
    /* Falcon (dense_h_to_4h, dense_4h_to_h), OPT (fc1, fc2) and MPT (up_proj,
     * down_proj): two MLP matrices, no gate */
    m->mlp_ungated = a->family == ARCH_FALCON || a->family == ARCH_OPT || a->family == ARCH_MPT;
    /* Gemma 3's config fixes the tokens of one image (mm_tokens_per_image) */
    if (!jsonread_u32(&r, root, "mm_tokens_per_image", false, 1, 1000000,
                      &m->image_tokens_per_image, d)) {
        cJSON_Delete(root);
        return false;
    }
    m->max_context_tokens = a->max_positions ? a->max_positions : 2048;
    if (a->max_positions == 0)
        note(h, "no max_position_embeddings: assumed 2,048 tokens");
    if (a->kv_lora_rank) {
        m->attention = ATTENTION_MLA;
        m->kv_lora_rank = (uint32_t)a->kv_lora_rank;
        m->qk_rope_head_dim = (uint32_t)a->rope_dim;
        m->qk_nope_head_dim = (uint32_t)a->nope_dim;
        m->v_head_dim = (uint32_t)a->v_head_dim;
        m->q_lora_rank = (uint32_t)a->q_lora_rank;
        m->index_head_dim = (uint32_t)a->index_head_dim;
        m->index_n_heads = (uint32_t)a->index_n_heads;
        m->index_topk = index_topk;
        if (index_topk)
            note(h, "sparse attention: an indexer key of %llu values per token per layer beside "
                    "the latent; attention reads %llu tokens",
                 (unsigned long long)a->index_head_dim, (unsigned long long)index_topk);
        note(h, "MLA: caching %llu latent values per layer; num_key_value_heads is ignored",
             (unsigned long long)(a->kv_lora_rank + a->rope_dim));
    } else {
        m->kv_heads = (uint32_t)a->kv_heads;
        m->head_dim = (uint32_t)a->head_dim;
        m->attention = a->kv_heads == 1 ? ATTENTION_MQA
                       : a->kv_heads == a->heads ? ATTENTION_MHA : ATTENTION_GQA;
    }

    /* sliding windows: layer_types, then the pattern, then the family's rule */
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(o, "layer_types");
    bool use_sw = true;
    if (jsonread_has(o, "use_sliding_window"))
        jsonread_bool(&tr, o, "use_sliding_window", false, &use_sw, d);
    uint64_t windowed = 0;
    bool chunked = false; /* Llama 4's chunked local attention, not a sliding window */
    if (cJSON_IsArray(types)) {
        const cJSON *t;
        cJSON_ArrayForEach(t, types)
        {
            if (cJSON_IsString(t) && (strcmp(t->valuestring, "sliding_attention") == 0 ||
                                      strcmp(t->valuestring, "chunked_attention") == 0))
                windowed++;
            if (cJSON_IsString(t) && strcmp(t->valuestring, "chunked_attention") == 0)
                chunked = true;
        }
        snprintf(m->window_pattern, sizeof m->window_pattern, "%s",
                 chunked ? "layer_types (chunked)" : "layer_types");
    } else if (pattern > 1) {
        windowed = a->layers - a->layers / pattern; /* layer i global iff (i+1) % N == 0 */
        snprintf(m->window_pattern, sizeof m->window_pattern, "%llu local : 1 global",
                 (unsigned long long)(pattern - 1));
    } else if (a->family == ARCH_GEMMA2) {
        windowed = (a->layers + 1) / 2; /* even layers local */
        snprintf(m->window_pattern, sizeof m->window_pattern, "alternating local/global");
    } else if (a->family == ARCH_LLAMA4 && window) {
        windowed = a->layers - a->layers / 4; /* every 4th layer global */
        snprintf(m->window_pattern, sizeof m->window_pattern, "3 chunked : 1 global");
    } else if (window && strcmp(type, "mistral") == 0) {
        windowed = a->layers;
        snprintf(m->window_pattern, sizeof m->window_pattern, "every layer");
    } else if (window && strcmp(type, "phi3") == 0) {
        note(h, "sliding_window %llu left out: kernels disagree on honouring it in Phi-3; "
                "planned as full attention",
             (unsigned long long)window);
    }
    if (!use_sw && windowed == 0 && window)
        note(h, "sliding_window %llu is disabled (use_sliding_window false)",
             (unsigned long long)window);
    if (hfhybrid_family(a->family)) {
        windowed = 0; /* layer_types name the state layers, not windows */
        if (!hfhybrid_spec(&tr, o, a, m, d)) {
            cJSON_Delete(root);
            return false;
        }
        note(h, "%u %s state layers keep a fixed state per sequence; %u attention layers keep KV",
             m->state_layers, m->state_kind, spec_kv_layers(m));
    }
    if (windowed && window && use_sw) {
        m->windowed_layers = (uint32_t)windowed;
        m->window_tokens = window;
    }

    /* precision: torch_dtype, then quantization_config */
    const char *dtype_key = "torch_dtype";
    jsonread_string(&tr, o, "torch_dtype", false, dtype, sizeof dtype, d);
    if (dtype[0] == '\0')
        jsonread_string(&r, root, "torch_dtype", false, dtype, sizeof dtype, d);
    if (dtype[0] == '\0' && (dtype_key = "dtype"))
        jsonread_string(&r, root, "dtype", false, dtype, sizeof dtype, d);
    /* torch's own spellings: "torch.bfloat16", "float8_e4m3fn" */
    if (strncmp(dtype, "torch.", 6) == 0)
        memmove(dtype, dtype + 6, strlen(dtype + 6) + 1);
    if (strncmp(dtype, "float8", 6) == 0)
        snprintf(dtype, sizeof dtype, "fp8");
    if (dtype[0] && !dtype_parse(dtype, &m->weight_dtype)) {
        char bad[64];
        text_escape(dtype, bad, sizeof bad);
        diag_fail(d, "%s: %s: '%s' is not a precision kvplan knows (%s)", path, dtype_key, bad,
                  dtype_names());
        cJSON_Delete(root);
        return false;
    }
    if (!dtype_parse(dtype, &m->weight_dtype) || m->weight_dtype == DTYPE_AUTO) {
        m->weight_dtype = DTYPE_BF16;
        note(h, "torch_dtype '%s' not understood: assumed bf16", dtype);
    }
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quantization_config");
    char method[32] = "";
    if (cJSON_IsObject(q)) {
        struct jsonread qr = jsonread_child(&r, "quantization_config", "quantization_config.");
        jsonread_string(&qr, q, "quant_method", false, method, sizeof method, d);
        uint64_t bits = 0;
        if (jsonread_has(q, "bits"))
            jsonread_u64(&qr, q, "bits", false, 1, 64, &bits, d);
        if (strcasecmp(method, "fp8") == 0)
            m->weight_dtype = DTYPE_FP8;
        else if (strcasecmp(method, "mxfp4") == 0)
            a->mxfp4_experts = true;
        else if (bits == 4)
            m->weight_dtype = DTYPE_INT4;
        else if (bits == 8)
            m->weight_dtype = DTYPE_INT8;
    }
    uint64_t total = 0, active = 0;
    if (!params_count(a, &total, &active)) {
        cJSON_Delete(root);
        return diag_fail(d, "%s: the dimensions are too large to count", path);
    }
    /* a multimodal checkpoint also loads its vision tower (Gemma 3, Llama 4) */
    uint64_t vision = 0;
    if (!vision_count(&r, root, a->hidden, &vision, d)) {
        cJSON_Delete(root);
        return false;
    }
    if (vision) {
        total += vision; /* loaded, but not read per generated token: active stays text */
        note(h, "vision tower: %.2f B parameters counted with the weights",
             (double)vision / 1e9);
    }
    m->params = total;
    m->active_params = active;
    if (!mtp_count(&r, root, a, total - vision, m, h, d)) {
        cJSON_Delete(root);
        return false;
    }
    uint64_t in_experts = 0;
    if (a->experts > 0 && params_in_experts(a, &in_experts)) {
        m->expert_params = in_experts; /* what expert parallelism spreads over its GPUs */
        /* and what a decode step reads of them: k of E routed experts a token */
        m->experts = (uint32_t)a->experts;
        m->experts_per_token = (uint32_t)(a->experts_per_token ? a->experts_per_token : 1);
    }
    if (total > ((uint64_t)1 << 53)) {
        cJSON_Delete(root);
        return diag_fail(d, "%s: the dimensions give %llu parameters, more than a preset holds "
                            "(2^53)",
                         path, (unsigned long long)total);
    }
    if (a->mxfp4_experts) {
        /* MXFP4: 4-bit values with an 8-bit scale per 32 (17/32 bytes); the rest as dtype */
        uint64_t experts = 0;
        if (!params_in_experts(a, &experts)) {
            cJSON_Delete(root);
            return diag_fail(d, "%s: quantization_config.quant_method: mxfp4 quantizes experts, "
                                "and a %s model counts none",
                             path, params_family_name(a->family));
        }
        const struct dtype_info *di = dtype_info(m->weight_dtype);
        m->weights_bytes = (experts * 17 + 31) / 32 +
                           (total - experts) * di->bytes_num / di->bytes_den;
        note(h, "MXFP4 experts: %.2f GiB of weights rather than %s x params",
             (double)m->weights_bytes / (double)GIB, di->name);
    }
    double stated = 0;
    if (jsonread_has(root, "num_parameters"))
        jsonread_double(&r, root, "num_parameters", false, 0, 1e15, &stated, d);
    h->stated_params = stated;
    cJSON_Delete(root);
    struct diag v = {0};
    if (!spec_model_validate(m, &v))
        return diag_fail(d, "%s: the imported model is not valid: %s", path, v.message);
    return round_trip(path, m, d);
}
