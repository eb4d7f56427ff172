#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "io/jsonout.h"
#include "io/jsonread.h"
#include "io/preset.h"

static const char *units_key(enum unit_system u)
{
    return u == UNITS_GB ? "gb" : "gib";
}

static cJSON *scenario_json(const struct scenario *s)
{
    struct jsonout o = jsonout_begin();
    jsonout_object(&o, "gpu", preset_gpu_to_json(&s->gpu, false));
    jsonout_object(&o, "model", preset_model_to_json(&s->model, false));
    jsonout_uint(&o, "gpus", s->gpus);
    jsonout_string(&o, "weight_dtype", dtype_info(s->weight_dtype)->name);
    jsonout_string(&o, "kv_dtype", dtype_info(s->kv_dtype)->name);
    if (s->kv_heads)
        jsonout_uint(&o, "kv_heads", s->kv_heads);
    else
        jsonout_null(&o, "kv_heads");
    jsonout_uint(&o, "context_tokens", s->context_tokens);
    jsonout_uint(&o, "prefix_tokens", s->prefix_tokens);
    if (s->avg_context_tokens)
        jsonout_uint(&o, "avg_context_tokens", s->avg_context_tokens);
    else
        jsonout_null(&o, "avg_context_tokens");
    jsonout_uint(&o, "block_tokens", s->block_tokens ? s->block_tokens : 16);
    jsonout_double(&o, "headroom_percent", s->headroom_percent);
    if (s->has_vram)
        jsonout_uint(&o, "vram_bytes", s->vram_bytes);
    else
        jsonout_null(&o, "vram_bytes");
    if (s->has_weights)
        jsonout_uint(&o, "weights_bytes", s->weights_bytes);
    else
        jsonout_null(&o, "weights_bytes");
    jsonout_double_or_null(&o, "price_usd_per_gpu_hour", s->price_usd_per_hour, s->has_price);
    jsonout_bool(&o, "full_attention", s->full_attention);
    jsonout_string(&o, "units", units_key(s->units));
    return jsonout_end(&o);
}

static cJSON *result_json(const struct plan_result *r)
{
    struct jsonout o = jsonout_begin();
    jsonout_bool(&o, "fits", r->fits);
    jsonout_string(&o, "weight_dtype", dtype_info(r->weight_dtype)->name);
    jsonout_string(&o, "kv_dtype", dtype_info(r->kv_dtype)->name);
    jsonout_uint(&o, "gpu_memory_bytes", r->gpu_memory_bytes);
    jsonout_uint(&o, "gpu_memory_bytes_per_gpu", r->gpu_memory_bytes_per_gpu);
    jsonout_uint(&o, "headroom_bytes", r->headroom_bytes);
    jsonout_uint(&o, "weights_bytes", r->weights_bytes);
    jsonout_uint(&o, "weights_bytes_per_gpu", r->weights_bytes_per_gpu);
    jsonout_uint(&o, "kv_pool_bytes", r->kv_pool_bytes);
    jsonout_uint(&o, "shortfall_bytes", r->shortfall_bytes);
    jsonout_uint(&o, "kv_heads", r->kv_heads);
    jsonout_uint(&o, "kv_heads_per_gpu", r->kv_heads_per_gpu);
    jsonout_uint(&o, "global_layers", r->global_layers);
    jsonout_uint(&o, "windowed_layers", r->windowed_layers);
    jsonout_uint(&o, "kv_bytes_per_token", r->kv_bytes_per_token);
    jsonout_uint(&o, "kv_bytes_per_token_per_gpu", r->kv_bytes_per_token_per_gpu);
    jsonout_uint(&o, "kv_bytes_per_token_global", r->kv_bytes_per_token_global);
    jsonout_uint(&o, "kv_bytes_per_user", r->kv_bytes_per_user);
    jsonout_uint(&o, "prefix_bytes", r->prefix_bytes);
    jsonout_uint(&o, "max_users", r->max_users);
    jsonout_uint(&o, "kv_used_bytes", r->kv_used_bytes);
    jsonout_uint(&o, "remainder_bytes", r->remainder_bytes);
    jsonout_uint(&o, "avg_context_tokens", r->avg_context_tokens);
    jsonout_uint(&o, "block_tokens", r->block_tokens);
    jsonout_uint(&o, "kv_bytes_per_user_paged", r->kv_bytes_per_user_paged);
    jsonout_uint(&o, "prefix_bytes_paged", r->prefix_bytes_paged);
    jsonout_uint(&o, "max_users_paged", r->max_users_paged);
    jsonout_uint(&o, "reservation_waste_bytes", r->reservation_waste_bytes);
    jsonout_uint(&o, "paged_waste_bytes", r->paged_waste_bytes);
    jsonout_uint(&o, "kv_tokens", r->kv_tokens);
    jsonout_double_or_null(&o, "price_usd_per_hour", r->price_usd_per_hour,
                           r->price_usd_per_hour >= 0);
    jsonout_double_or_null(&o, "cost_per_user_hour", r->cost_per_user_hour,
                           r->cost_per_user_hour >= 0);
    jsonout_uint(&o, "decode_step_bytes", r->decode_step_bytes);
    jsonout_double_or_null(&o, "decode_tokens_per_s_per_user", r->decode_tokens_per_s_per_user,
                           r->decode_tokens_per_s_per_user > 0);
    cJSON *warnings = cJSON_CreateArray();
    for (uint32_t bit = 1; warnings && bit != 0 && bit <= WARN_MLA_REPLICATED; bit <<= 1) {
        if ((r->warnings & bit) &&
            !cJSON_AddItemToArray(warnings,
                                  cJSON_CreateString(capacity_warning_text((enum plan_warning)bit))))
            o.failed = true;
    }
    jsonout_object(&o, "warnings", warnings);
    return jsonout_end(&o);
}

char *snapshot_to_json(const struct scenario *s, const struct plan_result *r,
                       const char *generator)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", SNAPSHOT_FORMAT);
    jsonout_uint(&o, "format_version", SNAPSHOT_FORMAT_VERSION);
    jsonout_string(&o, "generator", generator);
    jsonout_object(&o, "scenario", scenario_json(s));
    jsonout_object(&o, "result", result_json(r));
    cJSON *root = jsonout_end(&o);
    if (root == NULL)
        return NULL;
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (text == NULL)
        return NULL;
    size_t n = strlen(text);
    char *with_newline = realloc(text, n + 2);
    if (with_newline == NULL) {
        free(text);
        return NULL;
    }
    with_newline[n] = '\n';
    with_newline[n + 1] = '\0';
    return with_newline;
}

static bool read_dtype(const struct jsonread *r, const cJSON *o, const char *key, enum dtype *out,
                       struct diag *d)
{
    char name[32] = "auto";
    if (!jsonread_string(r, o, key, false, name, sizeof name, d))
        return false;
    if (!dtype_parse(name, out)) {
        struct diag local = {0};
        diag_fail(&local, "%s: unknown precision '%s' (expected %s)", key, name, dtype_names());
        jsonread_locate_message(r, &local);
        return diag_fail(d, "%s", local.message);
    }
    return true;
}

bool snapshot_parse(const char *path, const char *text, size_t len, struct scenario *s,
                    struct diag *d)
{
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    char format[64] = "";
    uint32_t version = 0;
    bool ok = jsonread_string(&r, root, "format", true, format, sizeof format, d) &&
              jsonread_u32(&r, root, "format_version", true, 1, 1000000, &version, d);
    struct diag local = {0};
    if (ok && strcmp(format, SNAPSHOT_FORMAT) != 0) {
        diag_fail(&local, "format: '%s' is not a kvplan scenario (expected \"%s\")", format,
                  SNAPSHOT_FORMAT);
        ok = false;
    } else if (ok && version != SNAPSHOT_FORMAT_VERSION) {
        diag_fail(&local,
                  "format_version: %u is not supported (this kvplan %s version %d); "
                  "use a kvplan that writes version %u",
                  version, "reads", SNAPSHOT_FORMAT_VERSION, version);
        ok = false;
    }
    if (local.failed) {
        jsonread_locate_message(&r, &local);
        diag_fail(d, "%s", local.message);
    }
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (ok && !cJSON_IsObject(so)) {
        diag_fail(&local, "scenario: missing (expected an object)");
        jsonread_locate_message(&r, &local);
        ok = diag_fail(d, "%s", local.message);
    }
    struct scenario tmp;
    capacity_scenario_default(&tmp, NULL, NULL);
    if (ok) {
        struct jsonread sr = jsonread_child(&r, "scenario", "");
        const cJSON *go = cJSON_GetObjectItemCaseSensitive(so, "gpu");
        const cJSON *mo = cJSON_GetObjectItemCaseSensitive(so, "model");
        if (!cJSON_IsObject(go) || !cJSON_IsObject(mo)) {
            diag_fail(&local, "%s: missing (expected an object)",
                      cJSON_IsObject(go) ? "model" : "gpu");
            jsonread_locate_message(&sr, &local);
            ok = diag_fail(d, "%s", local.message);
        }
        struct jsonread gr = jsonread_child(&sr, "gpu", "gpu.");
        struct jsonread mr = jsonread_child(&sr, "model", "model.");
        char units[8] = "gib";
        ok = ok && preset_gpu_from_json(&gr, go, &tmp.gpu, d) &&
             preset_model_from_json(&mr, mo, &tmp.model, d) &&
             jsonread_u32(&sr, so, "gpus", true, 1, GPUS_MAX, &tmp.gpus, d) &&
             read_dtype(&sr, so, "weight_dtype", &tmp.weight_dtype, d) &&
             read_dtype(&sr, so, "kv_dtype", &tmp.kv_dtype, d) &&
             jsonread_u32(&sr, so, "kv_heads", false, 1, 100000, &tmp.kv_heads, d) &&
             jsonread_u64(&sr, so, "context_tokens", true, 1, TOKENS_MAX, &tmp.context_tokens,
                          d) &&
             jsonread_u64(&sr, so, "prefix_tokens", false, 0, TOKENS_MAX, &tmp.prefix_tokens,
                          d) &&
             jsonread_u64(&sr, so, "avg_context_tokens", false, 1, TOKENS_MAX,
                          &tmp.avg_context_tokens, d) &&
             jsonread_u64(&sr, so, "block_tokens", false, 1, BLOCK_TOKENS_MAX, &tmp.block_tokens,
                          d) &&
             jsonread_double(&sr, so, "headroom_percent", false, 0.0, 99.999999,
                             &tmp.headroom_percent, d) &&
             jsonread_bool(&sr, so, "full_attention", false, &tmp.full_attention, d) &&
             jsonread_string(&sr, so, "units", false, units, sizeof units, d);
        if (ok && jsonread_has(so, "vram_bytes")) {
            tmp.has_vram = true;
            ok = jsonread_u64(&sr, so, "vram_bytes", true, 1, (uint64_t)1 << 44, &tmp.vram_bytes,
                              d);
        }
        if (ok && jsonread_has(so, "weights_bytes")) {
            tmp.has_weights = true;
            ok = jsonread_u64(&sr, so, "weights_bytes", true, 0, (uint64_t)1 << 53,
                              &tmp.weights_bytes, d);
        }
        if (ok && jsonread_has(so, "price_usd_per_gpu_hour")) {
            tmp.has_price = true;
            ok = jsonread_double(&sr, so, "price_usd_per_gpu_hour", true, 0.0, 1e6,
                                 &tmp.price_usd_per_hour, d);
        }
        if (ok) {
            if (strcmp(units, "gib") == 0)
                tmp.units = UNITS_GIB;
            else if (strcmp(units, "gb") == 0)
                tmp.units = UNITS_GB;
            else {
                diag_fail(&local, "units: '%s' is not gib or gb", units);
                jsonread_locate_message(&sr, &local);
                ok = diag_fail(d, "%s", local.message);
            }
        }
        if (ok && !capacity_validate(&tmp, &local)) {
            ok = diag_fail(d, "%s: scenario: %s", path, local.message);
        }
    }
    cJSON_Delete(root);
    if (ok)
        *s = tmp;
    return ok;
}

bool snapshot_load(const char *path, struct scenario *s, struct diag *d)
{
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    bool ok = snapshot_parse(path, text, len, s, d);
    free(text);
    return ok;
}

bool snapshot_export(const char *path, const struct scenario *s, const struct plan_result *r,
                     const char *generator, struct diag *d)
{
    char *text = snapshot_to_json(s, r, generator);
    if (text == NULL)
        return diag_fail(d, "%s: cannot build the snapshot (out of memory)", path);
    bool ok = fileio_write_atomic(path, text, strlen(text), d);
    free(text);
    return ok;
}
