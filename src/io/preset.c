#include "preset.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/text.h"
#include "core/units.h"
#include "io/preset_compressed.h"
#include "io/preset_global.h"
#include "io/preset_gguf.h"
#include "io/jsonout.h"

/* A letter or digit first: an id can be the model word of a launch line,
 * where a leading '-' would read as an option ("vllm serve --trust-remote-code")
 * and a leading '.' as a path. */
bool preset_id_valid(const char *id)
{
    bool ok = ((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= '0' && id[0] <= '9')) &&
              strlen(id) < SPEC_ID_MAX;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
              *p == '_'))
            ok = false;
    return ok;
}

static bool check_id(const struct jsonread *r, const char *id, struct diag *d)
{
    if (!preset_id_valid(id))
        return jsonread_fail(r, d, "id: '%s' must be lowercase letters, digits, '-', '.' or '_', "
                                   "starting with a letter or digit",
                             id);
    return true;
}

bool preset_read_dtype(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                       enum dtype *out, struct diag *d)
{
    char name[32] = "";
    if (!jsonread_string(r, obj, key, required, name, sizeof name, d))
        return false;
    if (name[0] == '\0' && !required)
        return true;
    if (!dtype_parse(name, out))
        return jsonread_fail(r, d, "%s: unknown precision '%s' (expected %s)", key, name,
                          dtype_names());
    return true;
}

bool preset_gpu_from_json(const struct jsonread *r, const cJSON *o, struct gpu_spec *g,
                          struct diag *d)
{
    memset(g, 0, sizeof *g);
    g->price_usd_per_hour = -1.0;
    const uint64_t big = (uint64_t)1 << 53;
    if (!jsonread_string(r, o, "id", true, g->id, sizeof g->id, d) || !check_id(r, g->id, d) ||
        !jsonread_string(r, o, "name", true, g->name, sizeof g->name, d) ||
        !jsonread_string(r, o, "vendor", false, g->vendor, sizeof g->vendor, d) ||
        !jsonread_string(r, o, "family", false, g->family, sizeof g->family, d) ||
        !jsonread_string(r, o, "source", true, g->source, sizeof g->source, d) ||
        !jsonread_u64(r, o, "unified_memory_bytes", false, 1, (uint64_t)1 << 44,
                      &g->unified_bytes, d) ||
        !jsonread_u64(r, o, "memory_bytes", !jsonread_has(o, "unified_memory_bytes"), 1,
                      (uint64_t)1 << 44, &g->memory_bytes, d) ||
        !jsonread_string(r, o, "memory_label", false, g->memory_label, sizeof g->memory_label,
                         d) ||
        !jsonread_string(r, o, "memory_basis", false, g->memory_basis, sizeof g->memory_basis,
                         d) ||
        !jsonread_u64(r, o, "bandwidth_bytes_per_s", false, 0, big, &g->bandwidth_bytes_per_s,
                      d) ||
        !jsonread_bool(r, o, "fp8", false, &g->fp8, d) ||
        !jsonread_double(r, o, "price_usd_per_hour", false, 0.0, 1e6, &g->price_usd_per_hour,
                         d) ||
        !jsonread_string(r, o, "price_date", false, g->price_date, sizeof g->price_date, d) ||
        !jsonread_u64(r, o, "cuda_visible_bytes", false, 1, (uint64_t)1 << 44,
                      &g->cuda_visible_bytes, d) ||
        !jsonread_double(r, o, "dense_bf16_tflops", false, 0.0, 1e6, &g->tflops_bf16, d) ||
        !jsonread_double(r, o, "dense_fp8_tflops", false, 0.0, 1e6, &g->tflops_fp8, d) ||
        !jsonread_double(r, o, "dense_int8_tops", false, 0.0, 1e6, &g->tops_int8, d) ||
        !jsonread_double(r, o, "dense_fp4_tflops", false, 0.0, 1e6, &g->tflops_fp4, d) ||
        !jsonread_double(r, o, "measured_fp16_tflops", false, 0.0, 1e6, &g->tflops_measured, d) ||
        !jsonread_string(r, o, "measured_fp16_tflops_basis", jsonread_has(o, "measured_fp16_tflops"),
                         g->tflops_measured_basis, sizeof g->tflops_measured_basis, d) ||
        !jsonread_double(r, o, "layer_overhead_seconds", false, 0.0, 0.01, &g->layer_overhead_s,
                         d) ||
        !jsonread_string(r, o, "layer_overhead_basis", jsonread_has(o, "layer_overhead_seconds"),
                         g->layer_overhead_basis, sizeof g->layer_overhead_basis, d) ||
        !jsonread_u64(r, o, "interconnect_bytes_per_s", false, 0, big, &g->link_bytes_per_s, d) ||
        !jsonread_double(r, o, "achievable_mbu", false, 0.01, 1.0, &g->achievable_mbu, d) ||
        !jsonread_string(r, o, "achievable_mbu_basis", false, g->achievable_mbu_basis,
                         sizeof g->achievable_mbu_basis, d) ||
        !jsonread_double(r, o, "achievable_mfu", false, 0.01, 1.0, &g->achievable_mfu, d) ||
        !jsonread_string(r, o, "achievable_mfu_basis", jsonread_has(o, "achievable_mfu"),
                         g->achievable_mfu_basis, sizeof g->achievable_mfu_basis, d) ||
        !jsonread_u64(r, o, "host_link_bytes_per_s", false, 0, big, &g->host_link_bytes_per_s,
                      d) ||
        !jsonread_string(r, o, "host_link_basis", false, g->host_link_basis,
                         sizeof g->host_link_basis, d) ||
        !jsonread_u32(r, o, "nvlink_domain_gpus", false, 1, 1u << 16, &g->nvlink_domain_gpus, d) ||
        !jsonread_u32(r, o, "gpus_per_node", false, 1, 64, &g->gpus_per_node, d) ||
        !jsonread_u32(r, o, "sm_count", false, 1, 4096, &g->sm_count, d) ||
        !jsonread_string(r, o, "sm_count_basis", jsonread_has(o, "sm_count"), g->sm_count_basis,
                         sizeof g->sm_count_basis, d))
        return false;
    /* unified memory: the GPU may use Metal's default working set of it */
    if (g->unified_bytes && !g->memory_bytes)
        g->memory_bytes = spec_metal_working_set(g->unified_bytes);
    if (g->cuda_visible_bytes > g->memory_bytes)
        return jsonread_fail(r, d, "cuda_visible_bytes: %llu is more than memory_bytes %llu",
                          (unsigned long long)g->cuda_visible_bytes,
                          (unsigned long long)g->memory_bytes);
    struct diag v = {0};
    if (!spec_gpu_validate(g, &v))
        return jsonread_fail(r, d, "%s", v.message);
    return true;
}

/* A served_from record kept for the whole process, one copy of each: the
 * same record gives the same pointer (specs are compared byte for byte). */
const struct model_served *preset_keep_served(const struct model_served *v)
{
    static struct kept {
        struct kept *next;
        struct model_served v;
    } *kept;
    for (const struct kept *k = kept; k; k = k->next)
        if (memcmp(&k->v, v, sizeof *v) == 0)
            return &k->v;
    struct kept *k = malloc(sizeof *k);
    if (k == NULL)
        return NULL;
    k->v = *v;
    k->next = kept;
    kept = k;
    return &k->v;
}

/* "served_from": {"vllm": "0.11.0", ...}, an engine's name and the first
 * release (or llama.cpp build) that serves the model; "served_from_source"
 * where those are read, required with it. */
static bool read_served(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                        struct diag *d)
{
    const cJSON *sf = cJSON_GetObjectItemCaseSensitive(o, "served_from");
    if (sf == NULL || cJSON_IsNull(sf))
        return true;
    if (!cJSON_IsObject(sf))
        return jsonread_fail(r, d, "served_from: expected an object of engine: first release");
    struct model_served v;
    memset(&v, 0, sizeof v); /* compared whole when kept */
    int n = 0;
    for (const cJSON *e = sf->child; e; e = e->next) {
        enum engine_kind kind;
        enum engine_rule rule;
        struct diag ignore = {0};
        if (n == SPEC_SERVED_MAX)
            return jsonread_fail(r, d, "served_from: more than %d engines", SPEC_SERVED_MAX);
        if (!e->string || strchr(e->string, '@') || strlen(e->string) >= sizeof v.engine[0] ||
            !engine_parse(e->string, &kind, &rule, &ignore))
            return jsonread_fail(r, d, "served_from: '%s' is not an engine's name",
                                 e->string ? e->string : "");
        if (!cJSON_IsString(e) || !e->valuestring[0] || strlen(e->valuestring) >= sizeof v.first[0])
            return jsonread_fail(r, d, "served_from.%s: expected a release such as \"0.11.0\" "
                                       "(a llama.cpp build: \"b6500\")", e->string);
        snprintf(v.engine[n], sizeof v.engine[n], "%s", e->string);
        snprintf(v.first[n], sizeof v.first[n], "%s", e->valuestring);
        n++;
    }
    if (!jsonread_string(r, o, "served_from_source", true, v.source, sizeof v.source, d))
        return false;
    m->served = preset_keep_served(&v);
    if (m->served == NULL)
        return jsonread_fail(r, d, "served_from: out of memory");
    return true;
}

/* "ollama": a name as the Ollama library spells one: lower-case letters,
 * digits and . _ - : / only ("llama3.1:8b", "gpt-oss:120b"). */
static bool read_ollama_tag(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                            struct diag *d)
{
    if (!jsonread_string(r, o, "ollama", false, m->ollama_tag, sizeof m->ollama_tag, d))
        return false;
    for (const char *c = m->ollama_tag; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._-:/", *c)))
            return jsonread_fail(r, d, "ollama: '%s' is not an Ollama model name (lower-case "
                                       "letters, digits and . _ - : / only)",
                                 m->ollama_tag);
    return true;
}

static bool read_model_fields(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                              struct diag *d)
{
    const uint64_t big = (uint64_t)1 << 53;
    char attention[16] = "";
    if (!jsonread_string(r, o, "id", true, m->id, sizeof m->id, d) || !check_id(r, m->id, d) ||
        !jsonread_string(r, o, "name", true, m->name, sizeof m->name, d) ||
        !jsonread_string(r, o, "hf_id", false, m->hf_id, sizeof m->hf_id, d) ||
        !read_ollama_tag(r, o, m, d) ||
        !jsonread_string(r, o, "source", true, m->source, sizeof m->source, d) ||
        !read_served(r, o, m, d) ||
        !jsonread_string(r, o, "attention", true, attention, sizeof attention, d))
        return false;
    if (!spec_attention_parse(attention, &m->attention))
        return jsonread_fail(r, d, "attention: '%s' is not one of MHA, GQA, MQA, MLA", attention);
    bool mla = m->attention == ATTENTION_MLA;
    if (!jsonread_u32(r, o, "num_layers", true, 1, 100000, &m->layers, d) ||
        !jsonread_u32(r, o, "hidden_size", false, 1, 10000000, &m->hidden_size, d) ||
        !jsonread_u32(r, o, "num_attention_heads", true, 1, 100000, &m->attention_heads, d) ||
        !jsonread_u32(r, o, "num_kv_heads", !mla, 1, 100000, &m->kv_heads, d) ||
        !jsonread_u32(r, o, "head_dim", !mla, 1, 100000, &m->head_dim, d) ||
        !jsonread_u64(r, o, "params", true, 1, big, &m->params, d) ||
        !jsonread_u64(r, o, "active_params", false, 1, big, &m->active_params, d) ||
        !preset_read_dtype(r, o, "weight_dtype", true, &m->weight_dtype, d) ||
        !jsonread_u64(r, o, "weights_bytes", false, 1, big, &m->weights_bytes, d) ||
        !jsonread_u64(r, o, "max_context_tokens", true, 1, TOKENS_MAX, &m->max_context_tokens,
                      d) ||
        !jsonread_u32(r, o, "vocab_size", false, 1, 100000000, &m->vocab_size, d) ||
        !jsonread_u32(r, o, "intermediate_size", false, 1, 100000000, &m->intermediate_size, d) ||
        !jsonread_u32(r, o, "num_nextn_predict_layers", false, 0, 64, &m->nextn_layers, d) ||
        !jsonread_u64(r, o, "mtp_params", false, 1, big, &m->mtp_params, d) ||
        !jsonread_u32(r, o, "image_tokens_per_image", false, 1, 1000000,
                      &m->image_tokens_per_image, d))
        return false;
    char mlp[16] = "";
    if (!jsonread_string(r, o, "mlp", false, mlp, sizeof mlp, d))
        return false;
    if (mlp[0] && strcmp(mlp, "gated") != 0 && strcmp(mlp, "ungated") != 0)
        return jsonread_fail(r, d, "mlp: '%s' is not gated or ungated", mlp);
    m->mlp_ungated = strcmp(mlp, "ungated") == 0;
    if ((m->nextn_layers > 0) != (m->mtp_params > 0))
        return jsonread_fail(r, d, "mtp_params: give it with num_nextn_predict_layers (both or neither)");
    if (m->weight_dtype == DTYPE_AUTO)
        return jsonread_fail(r, d, "weight_dtype: name the released precision, not auto");
    return true;
}

static bool read_model_mla(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                           struct diag *d)
{
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(o, "mla");
    if (m->attention == ATTENTION_MLA) {
        if (!cJSON_IsObject(mo))
            return jsonread_fail(r, d, "mla: an MLA model needs an object with kv_lora_rank and "
                                    "qk_rope_head_dim");
        struct jsonread c = jsonread_child(r, "mla", "mla.");
        if (!jsonread_u32(&c, mo, "kv_lora_rank", true, 1, 1000000, &m->kv_lora_rank, d) ||
            !jsonread_u32(&c, mo, "qk_rope_head_dim", true, 0, 1000000, &m->qk_rope_head_dim, d) ||
            !jsonread_u32(&c, mo, "qk_nope_head_dim", false, 0, 1000000, &m->qk_nope_head_dim,
                          d) ||
            !jsonread_u32(&c, mo, "v_head_dim", false, 0, 1000000, &m->v_head_dim, d) ||
            !jsonread_u32(&c, mo, "q_lora_rank", false, 0, 1000000, &m->q_lora_rank, d) ||
            !jsonread_u32(&c, mo, "index_head_dim", false, 0, 100000, &m->index_head_dim, d) ||
            !jsonread_u32(&c, mo, "index_n_heads", false, 0, 100000, &m->index_n_heads, d) ||
            !jsonread_u64(&c, mo, "index_topk", false, 0, TOKENS_MAX, &m->index_topk, d))
            return false;
        if ((m->index_head_dim != 0) != (m->index_topk != 0))
            return jsonread_fail(&c, d, "%s: sparse attention needs both index_head_dim and "
                                        "index_topk",
                                 m->index_head_dim ? "index_topk" : "index_head_dim");
    }
    return true;
}

static bool read_model_moe(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                           struct diag *d)
{
    const uint64_t big = (uint64_t)1 << 53;
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(o, "moe");
    if (moe != NULL && !cJSON_IsNull(moe)) {
        if (!cJSON_IsObject(moe))
            return jsonread_fail(r, d, "moe: expected an object or null");
        struct jsonread c = jsonread_child(r, "moe", "moe.");
        if (!jsonread_u32(&c, moe, "experts", true, 2, 100000, &m->experts, d) ||
            !jsonread_u32(&c, moe, "experts_per_token", true, 1, 100000, &m->experts_per_token, d) ||
            !jsonread_u64(&c, moe, "expert_params", true, 1, big, &m->expert_params, d))
            return false;
        if (m->experts_per_token > m->experts)
            return jsonread_fail(&c, d, "experts_per_token: %u is more than experts %u",
                                 m->experts_per_token, m->experts);
        if (m->expert_params > m->params)
            return jsonread_fail(&c, d, "expert_params: more than params");
        /* which layers hold them (core/spec.h): every one when left out */
        if (!jsonread_u32(&c, moe, "first_dense", false, 0, 100000, &m->moe_first_dense, d) ||
            !jsonread_u32(&c, moe, "layer_period", false, 1, 100000, &m->moe_period, d) ||
            !jsonread_u32(&c, moe, "layer_offset", false, 0, 100000, &m->moe_offset, d))
            return false;
    }
    return true;
}

static bool read_model_sliding_window(const struct jsonread *r, const cJSON *o,
                                      struct model_spec *m, struct diag *d)
{
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(o, "sliding_window");
    if (sw != NULL && !cJSON_IsNull(sw)) {
        if (!cJSON_IsObject(sw))
            return jsonread_fail(r, d, "sliding_window: expected an object or null");
        struct jsonread c = jsonread_child(r, "sliding_window", "sliding_window.");
        if (!jsonread_u64(&c, sw, "window_tokens", true, 1, TOKENS_MAX, &m->window_tokens, d) ||
            !jsonread_u32(&c, sw, "windowed_layers", true, 0, 100000, &m->windowed_layers, d) ||
            !jsonread_string(&c, sw, "pattern", false, m->window_pattern,
                             sizeof m->window_pattern, d))
            return false;
    }
    return true;
}

static bool read_model_state(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                             struct diag *d)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "state");
    if (st != NULL && !cJSON_IsNull(st)) {
        if (!cJSON_IsObject(st))
            return jsonread_fail(r, d, "state: expected an object or null");
        struct jsonread c = jsonread_child(r, "state", "state.");
        if (!jsonread_string(&c, st, "kind", true, m->state_kind, sizeof m->state_kind, d) ||
            !jsonread_u32(&c, st, "layers", true, 1, 100000, &m->state_layers, d) ||
            !jsonread_u32(&c, st, "plain_layers", false, 0, 100000, &m->plain_layers, d) ||
            !jsonread_u32(&c, st, "conv_kernel", true, 2, 1024, &m->state_conv_kernel, d) ||
            !jsonread_u32(&c, st, "heads", true, 1, 1000000, &m->state_heads, d) ||
            !jsonread_u32(&c, st, "head_dim", true, 1, 100000, &m->state_head_dim, d) ||
            !jsonread_u32(&c, st, "groups", true, 0, 100000, &m->state_groups, d) ||
            !jsonread_u32(&c, st, "d_state", true, 1, 100000, &m->state_size, d) ||
            !preset_read_dtype(&c, st, "ssm_dtype", false, &m->state_dtype, d) ||
            !jsonread_bool(&c, st, "parallel", false, &m->state_parallel, d))
            return false;
        /* the state layers kvplan can size (policy_common.c reads the kind) */
        if (strcmp(m->state_kind, "mamba") != 0 && strcmp(m->state_kind, "mamba2") != 0 &&
            strcmp(m->state_kind, "gated-deltanet") != 0 && strcmp(m->state_kind, "kda") != 0) {
            char shown[64];
            text_escape(m->state_kind, shown, sizeof shown);
            return jsonread_fail(r, d, "state.kind: '%s' is not mamba, mamba2, gated-deltanet or kda",
                                 shown);
        }
    }
    return true;
}

bool preset_model_from_json(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                            struct diag *d)
{
    memset(m, 0, sizeof *m);
    if (!read_model_fields(r, o, m, d) || !read_model_mla(r, o, m, d) ||
        !read_model_moe(r, o, m, d) || !read_model_sliding_window(r, o, m, d) ||
        !read_model_state(r, o, m, d) || !preset_read_global(r, o, m, d) ||
        !preset_read_compressed(r, o, m, d) || !preset_read_gguf(r, o, m, d))
        return false;
    struct diag v = {0};
    if (!spec_model_validate(m, &v))
        return jsonread_fail(r, d, "%s", v.message);
    return true;
}

bool preset_parse(const char *path, const char *text, size_t len, struct preset *out,
                  struct diag *d)
{
    memset(out, 0, sizeof *out);
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    char format[32] = "";
    uint32_t version = 0;
    bool ok = jsonread_string(&r, root, "format", true, format, sizeof format, d);
    if (ok && strcmp(format, PRESET_GPU_FORMAT) != 0 && strcmp(format, PRESET_MODEL_FORMAT) != 0)
        ok = jsonread_fail(&r, d, "format: '%s' is not a preset (expected \"%s\" or \"%s\")", format,
                        PRESET_GPU_FORMAT, PRESET_MODEL_FORMAT);
    if (ok)
        ok = jsonread_u32(&r, root, "format_version", true, 1, 1000000, &version, d);
    if (ok && version != PRESET_FORMAT_VERSION)
        ok = jsonread_fail(&r, d, "format_version: %u is not supported (this kvplan reads version %d)",
                        version, PRESET_FORMAT_VERSION);
    if (ok) {
        if (strcmp(format, PRESET_GPU_FORMAT) == 0) {
            out->kind = PRESET_GPU;
            ok = preset_gpu_from_json(&r, root, &out->gpu, d);
        } else {
            out->kind = PRESET_MODEL;
            ok = preset_model_from_json(&r, root, &out->model, d);
        }
    }
    cJSON_Delete(root);
    return ok;
}

cJSON *preset_gpu_to_json(const struct gpu_spec *g, bool with_format)
{
    struct jsonout o = jsonout_begin();
    if (with_format) {
        jsonout_string(&o, "format", PRESET_GPU_FORMAT);
        jsonout_uint(&o, "format_version", PRESET_FORMAT_VERSION);
    }
    jsonout_string(&o, "id", g->id);
    jsonout_string(&o, "name", g->name);
    jsonout_string(&o, "vendor", g->vendor);
    if (g->family[0])
        jsonout_string(&o, "family", g->family);
    if (g->unified_bytes)
        jsonout_uint(&o, "unified_memory_bytes", g->unified_bytes);
    jsonout_uint(&o, "memory_bytes", g->memory_bytes);
    jsonout_string(&o, "memory_label", g->memory_label);
    jsonout_string(&o, "memory_basis", g->memory_basis);
    jsonout_uint(&o, "bandwidth_bytes_per_s", g->bandwidth_bytes_per_s);
    jsonout_bool(&o, "fp8", g->fp8);
    jsonout_double_or_null(&o, "price_usd_per_hour", g->price_usd_per_hour,
                           g->price_usd_per_hour >= 0);
    jsonout_string(&o, "price_date", g->price_date);
    if (g->cuda_visible_bytes)
        jsonout_uint(&o, "cuda_visible_bytes", g->cuda_visible_bytes);
    if (g->tflops_bf16 > 0)
        jsonout_double(&o, "dense_bf16_tflops", g->tflops_bf16);
    if (g->tflops_fp8 > 0)
        jsonout_double(&o, "dense_fp8_tflops", g->tflops_fp8);
    if (g->tops_int8 > 0)
        jsonout_double(&o, "dense_int8_tops", g->tops_int8);
    if (g->tflops_fp4 > 0)
        jsonout_double(&o, "dense_fp4_tflops", g->tflops_fp4);
    if (g->tflops_measured > 0) {
        jsonout_double(&o, "measured_fp16_tflops", g->tflops_measured);
        jsonout_string(&o, "measured_fp16_tflops_basis", g->tflops_measured_basis);
    }
    if (g->link_bytes_per_s)
        jsonout_uint(&o, "interconnect_bytes_per_s", g->link_bytes_per_s);
    if (g->nvlink_domain_gpus)
        jsonout_uint(&o, "nvlink_domain_gpus", g->nvlink_domain_gpus);
    if (g->gpus_per_node)
        jsonout_uint(&o, "gpus_per_node", g->gpus_per_node);
    if (g->sm_count) {
        jsonout_uint(&o, "sm_count", g->sm_count);
        jsonout_string(&o, "sm_count_basis", g->sm_count_basis);
    }
    if (g->achievable_mbu > 0) {
        jsonout_double(&o, "achievable_mbu", g->achievable_mbu);
        jsonout_string(&o, "achievable_mbu_basis", g->achievable_mbu_basis);
    }
    if (g->achievable_mfu > 0) {
        jsonout_double(&o, "achievable_mfu", g->achievable_mfu);
        jsonout_string(&o, "achievable_mfu_basis", g->achievable_mfu_basis);
    }
    if (g->layer_overhead_s > 0) {
        jsonout_double(&o, "layer_overhead_seconds", g->layer_overhead_s);
        jsonout_string(&o, "layer_overhead_basis", g->layer_overhead_basis);
    }
    if (g->host_link_bytes_per_s) {
        jsonout_uint(&o, "host_link_bytes_per_s", g->host_link_bytes_per_s);
        jsonout_string(&o, "host_link_basis", g->host_link_basis);
    }
    jsonout_string(&o, "source", g->source);
    return jsonout_end(&o);
}

/* The "mla" object: the latent's ranks and dimensions, the indexer's. */
static cJSON *mla_json(const struct model_spec *m)
{
    struct jsonout mo = jsonout_begin();
    jsonout_uint(&mo, "kv_lora_rank", m->kv_lora_rank);
    jsonout_uint(&mo, "qk_rope_head_dim", m->qk_rope_head_dim);
    if (m->qk_nope_head_dim)
        jsonout_uint(&mo, "qk_nope_head_dim", m->qk_nope_head_dim);
    if (m->v_head_dim)
        jsonout_uint(&mo, "v_head_dim", m->v_head_dim);
    if (m->q_lora_rank)
        jsonout_uint(&mo, "q_lora_rank", m->q_lora_rank);
    if (m->index_head_dim) {
        jsonout_uint(&mo, "index_head_dim", m->index_head_dim);
        jsonout_uint(&mo, "index_n_heads", m->index_n_heads);
        jsonout_uint(&mo, "index_topk", m->index_topk);
    }
    return jsonout_end(&mo);
}

/* The "state" object of a hybrid's recurrent layers. */
static cJSON *state_json(const struct model_spec *m)
{
    struct jsonout so = jsonout_begin();
    jsonout_string(&so, "kind", m->state_kind);
    jsonout_uint(&so, "layers", m->state_layers);
    if (m->plain_layers)
        jsonout_uint(&so, "plain_layers", m->plain_layers);
    jsonout_uint(&so, "conv_kernel", m->state_conv_kernel);
    jsonout_uint(&so, "heads", m->state_heads);
    jsonout_uint(&so, "head_dim", m->state_head_dim);
    jsonout_uint(&so, "groups", m->state_groups);
    jsonout_uint(&so, "d_state", m->state_size);
    if (m->state_dtype != DTYPE_AUTO)
        jsonout_string(&so, "ssm_dtype", dtype_info(m->state_dtype)->name);
    if (m->state_parallel)
        jsonout_bool(&so, "parallel", true);
    return jsonout_end(&so);
}

/* The "moe" object: the experts, the routed ones per token, their layers. */
static cJSON *moe_json(const struct model_spec *m)
{
    struct jsonout e = jsonout_begin();
    jsonout_uint(&e, "experts", m->experts);
    jsonout_uint(&e, "experts_per_token", m->experts_per_token);
    jsonout_uint(&e, "expert_params", m->expert_params);
    if (m->moe_first_dense)
        jsonout_uint(&e, "first_dense", m->moe_first_dense);
    if (m->moe_period > 1) {
        jsonout_uint(&e, "layer_period", m->moe_period);
        jsonout_uint(&e, "layer_offset", m->moe_offset);
    }
    return jsonout_end(&e);
}

cJSON *preset_model_to_json(const struct model_spec *m, bool with_format)
{
    struct jsonout o = jsonout_begin();
    if (with_format) {
        jsonout_string(&o, "format", PRESET_MODEL_FORMAT);
        jsonout_uint(&o, "format_version", PRESET_FORMAT_VERSION);
    }
    jsonout_string(&o, "id", m->id);
    jsonout_string(&o, "name", m->name);
    jsonout_string(&o, "hf_id", m->hf_id);
    if (m->ollama_tag[0])
        jsonout_string(&o, "ollama", m->ollama_tag);
    if (m->served) {
        struct jsonout so = jsonout_begin();
        for (int i = 0; i < SPEC_SERVED_MAX && m->served->engine[i][0]; i++)
            jsonout_string(&so, m->served->engine[i], m->served->first[i]);
        jsonout_object(&o, "served_from", jsonout_end(&so));
        jsonout_string(&o, "served_from_source", m->served->source);
    }
    jsonout_string(&o, "attention", spec_attention_name(m->attention));
    jsonout_uint(&o, "num_layers", m->layers);
    if (m->hidden_size)
        jsonout_uint(&o, "hidden_size", m->hidden_size);
    jsonout_uint(&o, "num_attention_heads", m->attention_heads);
    if (m->attention != ATTENTION_MLA) {
        jsonout_uint(&o, "num_kv_heads", m->kv_heads);
        jsonout_uint(&o, "head_dim", m->head_dim);
    } else {
        jsonout_object(&o, "mla", mla_json(m));
    }
    if (m->windowed_layers > 0) {
        struct jsonout so = jsonout_begin();
        jsonout_uint(&so, "window_tokens", m->window_tokens);
        jsonout_uint(&so, "windowed_layers", m->windowed_layers);
        jsonout_string(&so, "pattern", m->window_pattern);
        jsonout_object(&o, "sliding_window", jsonout_end(&so));
    } else {
        jsonout_null(&o, "sliding_window");
    }
    preset_write_global(&o, m);
    preset_write_compressed(&o, m);
    if (m->state_layers > 0)
        jsonout_object(&o, "state", state_json(m));
    jsonout_uint(&o, "params", m->params);
    if (m->active_params)
        jsonout_uint(&o, "active_params", m->active_params);
    jsonout_string(&o, "weight_dtype", dtype_info(m->weight_dtype)->name);
    if (m->weights_bytes)
        jsonout_uint(&o, "weights_bytes", m->weights_bytes);
    jsonout_uint(&o, "max_context_tokens", m->max_context_tokens);
    if (m->vocab_size)
        jsonout_uint(&o, "vocab_size", m->vocab_size);
    if (m->intermediate_size)
        jsonout_uint(&o, "intermediate_size", m->intermediate_size);
    if (m->nextn_layers) {
        jsonout_uint(&o, "num_nextn_predict_layers", m->nextn_layers);
        jsonout_uint(&o, "mtp_params", m->mtp_params);
    }
    if (m->image_tokens_per_image)
        jsonout_uint(&o, "image_tokens_per_image", m->image_tokens_per_image);
    if (m->mlp_ungated)
        jsonout_string(&o, "mlp", "ungated");
    if (m->experts)
        jsonout_object(&o, "moe", moe_json(m));
    preset_write_gguf(&o, m);
    jsonout_string(&o, "source", m->source);
    return jsonout_end(&o);
}

/* Takes a and b (either may be NULL: out of memory). */
static bool same_json(cJSON *a, cJSON *b)
{
    bool same = a && b && cJSON_Compare(a, b, true);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return same;
}

bool preset_gpu_same(const struct gpu_spec *a, const struct gpu_spec *b)
{
    return same_json(preset_gpu_to_json(a, false), preset_gpu_to_json(b, false));
}

bool preset_model_same(const struct model_spec *a, const struct model_spec *b)
{
    return same_json(preset_model_to_json(a, false), preset_model_to_json(b, false));
}
