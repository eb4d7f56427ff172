/* import-hf, the preset a config gives: its names and attention, its
 * windows or state layers, the weights' precision and the parameters. */
#include "hfconfig_read.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/text.h"
#include "core/units.h"
#include "io/hf_dsv4.h"
#include "io/hf_late2026.h"
#include "io/hfhybrid.h"
#include "io/hfmoe.h"
#include "io/preset.h"

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
        hf_note(h, "%llu MTP layers not counted for this family", (unsigned long long)nextn);
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
    hf_note(h, "MTP: %llu layer%s of %.2f B parameters, for --speculative-method mtp",
         (unsigned long long)nextn, nextn == 1 ? "" : "s", (double)m->mtp_params / 1e9);
    return true;
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
    bool known = true;
    if (strcmp(type, "siglip_vision_model") == 0)
        v.kind = VISION_SIGLIP;
    else if (strcmp(type, "llama4_vision_model") == 0)
        v.kind = VISION_LLAMA4;
    else if (!hf_late_vision(&vr, vc, type, &v, &known, d))
        return false;
    if (!known)
        return true;
    const uint64_t max = (uint64_t)1 << 24;
    bool ok = v.kind == VISION_QWEN3 || v.kind == VISION_GEMMA4 || /* read by hf_late_vision */
              (jsonread_u64(&vr, vc, "hidden_size", true, 1, max, &v.hidden, d) &&
               jsonread_u64(&vr, vc, "intermediate_size", true, 1, max, &v.intermediate, d) &&
               jsonread_u64(&vr, vc, "num_hidden_layers", true, 1, max, &v.layers, d) &&
               jsonread_u64(&vr, vc, "patch_size", true, 1, max, &v.patch, d) &&
               jsonread_u64(&vr, vc, "image_size", true, 1, max, &v.image, d) &&
               jsonread_u64(&vr, vc, "num_channels", false, 1, 64, &v.channels, d) &&
               jsonread_u64(&vr, vc, "projector_input_dim", false, 1, max, &v.adapter_out, d));
    v.adapter_in = v.intermediate; /* the pixel-shuffle MLP's fc1 takes intermediate_size */
    if (!ok)
        return false;
    if (!params_vision(&v, out))
        return jsonread_fail(&vr, d, "the vision tower's dimensions are too large to count");
    return true;
}

/* The preset's names and its attention: id, name, hf_id, source, the
 * dimensions it keeps, MLA's latent or the KV heads. */
bool hf_fill_spec(struct hf_read *x, const char *id, const char *name)
{
    const struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    struct diag *d = x->d;
    if (id && !preset_id_valid(id))
        return diag_fail(d, "--id: '%s' must be 1 to %d lowercase letters, digits, '-', '.' or "
                            "'_', starting with a letter or digit",
                         id, SPEC_ID_MAX - 1);
    if (name && !name_valid(name, d))
        return false;
    const char *np = x->name_or_path;
    if (id)
        snprintf(m->id, sizeof m->id, "%s", id);
    else
        derive_id(x->path, x->hf_id_ok || strchr("/.~", np[0]) ? np : NULL, m->id, sizeof m->id);
    snprintf(m->name, sizeof m->name, "%s", name ? name : m->id);
    snprintf(m->hf_id, sizeof m->hf_id, "%s", x->hf_id_ok ? np : "");
    char shown[SPEC_TEXT_MAX - 64];
    text_escape(x->path, shown, sizeof shown); /* the source is printed: no controls in it */
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
    if (!jsonread_u32(&x->r, x->root, "mm_tokens_per_image", false, 1, 1000000,
                      &m->image_tokens_per_image, d))
        return false;
    m->max_context_tokens = a->max_positions ? a->max_positions : 2048;
    if (a->max_positions == 0)
        hf_note(x->h, "no max_position_embeddings: assumed 2,048 tokens");
    if (a->kv_lora_rank) {
        m->attention = ATTENTION_MLA;
        m->kv_lora_rank = (uint32_t)a->kv_lora_rank;
        m->qk_rope_head_dim = (uint32_t)a->rope_dim;
        m->qk_nope_head_dim = (uint32_t)a->nope_dim;
        m->v_head_dim = (uint32_t)a->v_head_dim;
        m->q_lora_rank = (uint32_t)a->q_lora_rank;
        m->index_head_dim = (uint32_t)a->index_head_dim;
        m->index_n_heads = (uint32_t)a->index_n_heads;
        m->index_topk = x->index_topk;
        if (x->index_topk)
            hf_note(x->h, "sparse attention: an indexer key of %llu values per token per layer "
                       "beside the latent; attention reads %llu tokens",
                 (unsigned long long)a->index_head_dim, (unsigned long long)x->index_topk);
        hf_note(x->h, "MLA: caching %llu latent values per layer; num_key_value_heads is ignored",
             (unsigned long long)(a->kv_lora_rank + a->rope_dim));
    } else {
        m->kv_heads = (uint32_t)a->kv_heads;
        m->head_dim = (uint32_t)a->head_dim;
        m->attention = a->kv_heads == 1 ? ATTENTION_MQA
                       : a->kv_heads == a->heads ? ATTENTION_MHA : ATTENTION_GQA;
    }
    if (a->family == ARCH_DEEPSEEK_V4)
        hf_dsv4_spec(x);
    return true;
}

/* Windowed layers from layer_types, wrapping a family's windows into
 * sliding_window_pattern's "N local : 1 global", or the family's rule. */
static uint64_t windowed_layers(struct hf_read *x, struct model_spec *m)
{
    const struct arch_dims *a = &x->h->dims;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(x->o, "layer_types");
    uint64_t windowed = 0, window = x->window, pattern = x->pattern;
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
    } else if (a->family == ARCH_GEMMA2 || (a->family == ARCH_GPT_OSS && window)) {
        windowed = (a->layers + 1) / 2; /* even layers local (Gemma2Config, GptOssConfig) */
        snprintf(m->window_pattern, sizeof m->window_pattern, "alternating local/global");
    } else if (a->family == ARCH_LLAMA4 && window) {
        windowed = a->layers - a->layers / 4; /* every 4th layer global */
        snprintf(m->window_pattern, sizeof m->window_pattern, "3 chunked : 1 global");
    } else if (window && (strcmp(x->type, "mistral") == 0 || strcmp(x->type, "mixtral") == 0 ||
                          strcmp(x->type, "qwen3_moe") == 0)) {
        windowed = a->layers; /* their attention takes sliding_window in every layer */
        snprintf(m->window_pattern, sizeof m->window_pattern, "every layer");
    } else if (window && (strcmp(x->type, "qwen2") == 0 || strcmp(x->type, "qwen3") == 0)) {
        /* Qwen2Config, Qwen3Config: layer i slides iff i >= max_window_layers */
        uint64_t full = 0;
        if (!jsonread_u64(&x->tr, x->o, "max_window_layers", true, 0, 100000, &full, x->d))
            return UINT64_MAX;
        windowed = full < a->layers ? a->layers - full : 0;
        snprintf(m->window_pattern, sizeof m->window_pattern, "from layer %llu",
                 (unsigned long long)full);
    } else if (window && a->family == ARCH_DEEPSEEK_V4) {
        windowed = a->layers; /* every layer keeps its window beside its compressed rows */
        snprintf(m->window_pattern, sizeof m->window_pattern, "every layer");
    } else if (window && strcmp(x->type, "phi3") == 0) {
        hf_note(x->h, "sliding_window %llu left out: kernels disagree on honouring it in Phi-3; "
                   "planned as full attention",
             (unsigned long long)window);
    }
    return windowed;
}

/* A window is never dropped unsaid: one the config gives that no layer
 * takes (no layer_types, sliding_window_pattern or rule of the family), or
 * windowed layers without a window, is a warning, and the model is planned
 * with full attention in every layer. */
static bool unplaced_window(struct hf_read *x, bool use_sw, uint64_t windowed)
{
    struct model_spec *m = &x->h->model;
    if (windowed > x->h->dims.layers)
        return jsonread_fail(&x->tr, x->d, "layer_types: %llu windowed layers of %llu",
                             (unsigned long long)windowed,
                             (unsigned long long)x->h->dims.layers);
    if (use_sw && x->window && windowed == 0 && strcmp(x->type, "phi3") != 0) {
        hf_note(x->h, "warning: sliding_window %llu is not placed: no layer_types, "
                      "sliding_window_pattern or rule for model_type %s; planned as full "
                      "attention",
                (unsigned long long)x->window, x->type);
        m->window_pattern[0] = '\0';
    }
    if (use_sw && !x->window && windowed) {
        hf_note(x->h, "warning: %llu sliding layers but no sliding_window; planned as full "
                      "attention",
                (unsigned long long)windowed);
        m->window_pattern[0] = '\0';
    }
    return true;
}

/* Sliding windows (unless use_sliding_window is false), or a hybrid's
 * state layers, whose layer_types name them rather than windows. */
bool hf_read_windows(struct hf_read *x)
{
    struct model_spec *m = &x->h->model;
    bool use_sw = true;
    if (jsonread_has(x->o, "use_sliding_window"))
        jsonread_bool(&x->tr, x->o, "use_sliding_window", false, &use_sw, x->d);
    uint64_t windowed = windowed_layers(x, m);
    if (windowed == UINT64_MAX)
        return false;
    if (!use_sw && x->window)
        hf_note(x->h, "sliding_window %llu is disabled (use_sliding_window false)",
             (unsigned long long)x->window);
    if (!hfhybrid_family(x->h->dims.family) && !unplaced_window(x, use_sw, windowed))
        return false;
    if (hfhybrid_family(x->h->dims.family)) {
        windowed = 0;
        if (!hfhybrid_spec(&x->tr, x->o, &x->h->dims, m, x->d) ||
            !hf_late_state_dtype(&x->tr, x->o, x->type, m, x->d))
            return false;
        hf_note(x->h, "%u %s state layers keep a fixed state per sequence; %u attention layers "
                   "keep KV",
             m->state_layers, m->state_kind, spec_kv_layers(m));
    }
    if (windowed && x->window && use_sw && x->window > m->max_context_tokens)
        hf_note(x->h, "sliding_window %llu is more than the %llu-token context: it never "
                      "fills, planned as full attention",
                (unsigned long long)x->window, (unsigned long long)m->max_context_tokens);
    else if (windowed && x->window && use_sw) {
        m->windowed_layers = (uint32_t)windowed;
        m->window_tokens = x->window;
    }
    return true;
}

/* The weights' precision: torch_dtype (or dtype), in torch's spellings too,
 * then quantization_config's method or bits. */
bool hf_read_precision(struct hf_read *x)
{
    struct model_spec *m = &x->h->model;
    char dtype[32] = "";
    const char *dtype_key = "torch_dtype";
    jsonread_string(&x->tr, x->o, "torch_dtype", false, dtype, sizeof dtype, x->d);
    if (dtype[0] == '\0')
        jsonread_string(&x->r, x->root, "torch_dtype", false, dtype, sizeof dtype, x->d);
    if (dtype[0] == '\0' && (dtype_key = "dtype"))
        jsonread_string(&x->r, x->root, "dtype", false, dtype, sizeof dtype, x->d);
    if (dtype[0] == '\0') /* Qwen3.5 keeps it in text_config only */
        jsonread_string(&x->tr, x->o, "dtype", false, dtype, sizeof dtype, x->d);
    /* torch's own spellings: "torch.bfloat16", "float8_e4m3fn" */
    if (strncmp(dtype, "torch.", 6) == 0)
        memmove(dtype, dtype + 6, strlen(dtype + 6) + 1);
    if (strncmp(dtype, "float8", 6) == 0)
        snprintf(dtype, sizeof dtype, "fp8");
    if (dtype[0] && !dtype_parse(dtype, &m->weight_dtype)) {
        char bad[64];
        text_escape(dtype, bad, sizeof bad);
        return diag_fail(x->d, "%s: %s: '%s' is not a precision kvplan knows (%s)", x->path,
                         dtype_key, bad, dtype_names());
    }
    if (!dtype_parse(dtype, &m->weight_dtype) || m->weight_dtype == DTYPE_AUTO) {
        m->weight_dtype = DTYPE_BF16;
        hf_note(x->h, "torch_dtype '%s' not understood: assumed bf16", dtype);
    }
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(x->root, "quantization_config");
    char method[32] = "";
    if (cJSON_IsObject(q)) {
        struct jsonread qr = jsonread_child(&x->r, "quantization_config", "quantization_config.");
        jsonread_string(&qr, q, "quant_method", false, method, sizeof method, x->d);
        uint64_t bits = 0;
        if (jsonread_has(q, "bits"))
            jsonread_u64(&qr, q, "bits", false, 1, 64, &bits, x->d);
        if (strcasecmp(method, "fp8") == 0)
            m->weight_dtype = DTYPE_FP8;
        else if (strcasecmp(method, "mxfp4") == 0)
            x->h->dims.mxfp4_experts = true;
        else if (bits == 4)
            m->weight_dtype = DTYPE_INT4;
        else if (bits == 8)
            m->weight_dtype = DTYPE_INT8;
    }
    return true;
}

/* MXFP4: 4-bit values with an 8-bit scale per 32 (17/32 bytes); the rest as dtype. */
static bool mxfp4_weights(struct hf_read *x, uint64_t total)
{
    const struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    uint64_t experts = 0;
    if (!params_in_experts(a, &experts))
        return diag_fail(x->d, "%s: quantization_config.quant_method: mxfp4 quantizes experts, "
                               "and a %s model counts none",
                         x->path, params_family_name(a->family));
    const struct dtype_info *di = dtype_info(m->weight_dtype);
    m->weights_bytes = (experts * 17 + 31) / 32 + (total - experts) * di->bytes_num / di->bytes_den;
    hf_note(x->h, "MXFP4 experts: %.2f GiB of weights rather than %s x params",
         (double)m->weights_bytes / (double)GIB, di->name);
    return true;
}

/* Parameters from the dimensions: the text model, a vision tower, MTP
 * layers, what sits in experts, MXFP4 experts' bytes, a stated count. */
bool hf_count_params(struct hf_read *x)
{
    struct arch_dims *a = &x->h->dims;
    struct model_spec *m = &x->h->model;
    uint64_t total = 0, active = 0;
    if (!params_count(a, &total, &active))
        return diag_fail(x->d, "%s: the dimensions are too large to count", x->path);
    /* a multimodal checkpoint also loads its vision tower (Gemma 3, Llama 4) */
    uint64_t vision = 0;
    if (!vision_count(&x->r, x->root, a->hidden, &vision, x->d))
        return false;
    if (vision) {
        total += vision; /* loaded, but not read per generated token: active stays text */
        hf_note(x->h, "vision tower: %.2f B parameters counted with the weights",
             (double)vision / 1e9);
    }
    m->params = total;
    m->active_params = active;
    if (!mtp_count(&x->tr, x->o, a, total - vision, m, x->h, x->d)) /* text_config's (Qwen3.5) */
        return false;
    uint64_t in_experts = 0;
    if (a->experts > 0 && params_in_experts(a, &in_experts)) {
        m->expert_params = in_experts; /* what expert parallelism spreads over its GPUs */
        /* and what a decode step reads of them: k of E routed experts a token */
        m->experts = (uint32_t)a->experts;
        m->experts_per_token = (uint32_t)(a->experts_per_token ? a->experts_per_token : 1);
        if (!hf_moe_layers(x))
            return false;
    }
    if (total > ((uint64_t)1 << 53))
        return diag_fail(x->d, "%s: the dimensions give %llu parameters, more than a preset "
                               "holds (2^53)",
                         x->path, (unsigned long long)total);
    if (a->family == ARCH_DEEPSEEK_V4 ? !hf_dsv4_weights(x)
        : a->mxfp4_experts            ? !mxfp4_weights(x, total)
                                      : !hf_late_int4_experts(x, total))
        return false;
    double stated = 0;
    if (jsonread_has(x->root, "num_parameters"))
        jsonread_double(&x->r, x->root, "num_parameters", false, 0, 1e15, &stated, x->d);
    x->h->stated_params = stated;
    return true;
}
