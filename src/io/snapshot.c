#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/fileio.h"
#include "io/jsonout.h"
#include "io/jsonread.h"
#include "io/preset.h"

static const char *units_key(enum unit_system u)
{
    return u == UNITS_GB ? "gb" : "gib";
}

/* Only what differs from the engine's defaults is written (zero = default). */
static cJSON *engine_flags_json(const struct engine_flags *f)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "name", engine_label(f->kind, f->rule));
    if (f->gpu_memory_utilization > 0)
        jsonout_double(&o, "gpu_memory_utilization", f->gpu_memory_utilization);
    if (f->max_num_seqs)
        jsonout_uint(&o, "max_num_seqs", f->max_num_seqs);
    if (f->max_num_batched_tokens)
        jsonout_uint(&o, "max_num_batched_tokens", f->max_num_batched_tokens);
    if (f->mem_fraction_static > 0)
        jsonout_double(&o, "mem_fraction_static", f->mem_fraction_static);
    if (f->chunked_prefill_size)
        jsonout_uint(&o, "chunked_prefill_size", f->chunked_prefill_size);
    if (f->parallel)
        jsonout_uint(&o, "parallel", f->parallel);
    if (f->fit_target_bytes)
        jsonout_uint(&o, "fit_target_bytes", f->fit_target_bytes);
    if (f->v_dtype != DTYPE_AUTO)
        jsonout_string(&o, "v_dtype", dtype_info(f->v_dtype)->name);
    if (f->free_gpu_memory_fraction > 0)
        jsonout_double(&o, "free_gpu_memory_fraction", f->free_gpu_memory_fraction);
    if (f->gpu_total_bytes)
        jsonout_uint(&o, "gpu_total_bytes", f->gpu_total_bytes);
    if (f->non_kv_bytes)
        jsonout_uint(&o, "non_kv_bytes", f->non_kv_bytes);
    if (f->kv_memory_bytes)
        jsonout_uint(&o, "kv_memory_bytes", f->kv_memory_bytes);
    return jsonout_end(&o);
}

static cJSON *engine_detail_json(const struct engine_detail *e)
{
    struct jsonout o = jsonout_begin();
    jsonout_uint(&o, "gpu_total_bytes", e->gpu_total_bytes);
    jsonout_double(&o, "fraction", e->fraction);
    jsonout_uint(&o, "budget_bytes", e->budget_bytes);
    jsonout_uint(&o, "activation_bytes", e->activation_bytes);
    jsonout_uint(&o, "non_kv_bytes", e->non_kv_bytes);
    jsonout_uint(&o, "kv_cache_bytes_per_gpu", e->kv_cache_bytes);
    jsonout_uint(&o, "unit_tokens", e->unit_tokens);
    jsonout_uint(&o, "unit_bytes", e->unit_bytes);
    jsonout_uint(&o, "units", e->units);
    jsonout_uint(&o, "request_layer_units", e->request_units);
    jsonout_double(&o, "max_concurrency", e->max_concurrency);
    jsonout_uint(&o, "scheduler_cap", e->scheduler_cap);
    jsonout_uint(&o, "max_num_seqs", e->max_num_seqs);
    jsonout_uint(&o, "max_num_batched_tokens", e->max_num_batched_tokens);
    if (e->slots)
        jsonout_uint(&o, "slots", e->slots);
    cJSON *log = cJSON_CreateArray();
    for (int i = 0; log && i < e->log_lines; i++)
        if (!cJSON_AddItemToArray(log, cJSON_CreateString(e->log[i])))
            o.failed = true;
    jsonout_object(&o, "log_lines", log);
    jsonout_string(&o, "launch", e->launch);
    jsonout_string(&o, "note", e->note);
    return jsonout_end(&o);
}

static const char *xunit_name(enum xunit u)
{
    static const char *names[] = {"count", "tokens", "bytes", "bytes", "bytes_per_value",
                                  "percent", "fraction", "usd_per_hour", "usd",
                                  "bytes_per_s", "tokens_per_s", "ratio", "seconds", "flops"};
    return (size_t)u < sizeof names / sizeof names[0] ? names[u] : "";
}

/* A value: an exact integer when it is one, else a number. */
static void value_json(struct jsonout *o, const char *key, long double v)
{
    if (v >= 0 && v < 1.8e19L && v == (long double)(uint64_t)v)
        jsonout_uint(o, key, (uint64_t)v);
    else
        jsonout_double(o, key, (double)v);
}

static cJSON *explain_json(const struct explain *x)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; rows && i < x->count; i++) {
        const struct explain_row *row = &x->rows[i];
        struct jsonout o = jsonout_begin();
        jsonout_string(&o, "key", row->key);
        jsonout_string(&o, "label", row->label);
        jsonout_string(&o, "scope", row->scope);
        jsonout_string(&o, "formula", row->formula);
        jsonout_string(&o, "value_text", row->result.text);
        if (row->result.unit == XU_USD && row->result.value < 0)
            jsonout_null(&o, "value"); /* unknown, as result.cost_per_user_hour */
        else
            value_json(&o, "value", row->result.value);
        jsonout_string(&o, "unit", xunit_name(row->result.unit));
        cJSON *terms = cJSON_CreateArray();
        for (int t = 0; terms && t < row->nterms; t++) {
            struct jsonout to = jsonout_begin();
            jsonout_string(&to, "name", row->terms[t].name);
            value_json(&to, "value", row->terms[t].value);
            jsonout_string(&to, "unit", xunit_name(row->terms[t].unit));
            jsonout_string(&to, "text", row->terms[t].text);
            if (row->terms[t].ref[0])
                jsonout_string(&to, "row", row->terms[t].ref);
            cJSON *item = jsonout_end(&to);
            if (item == NULL || !cJSON_AddItemToArray(terms, item)) {
                cJSON_Delete(item);
                o.failed = true;
            }
        }
        jsonout_object(&o, "terms", terms);
        cJSON *item = jsonout_end(&o);
        if (item == NULL || !cJSON_AddItemToArray(rows, item)) {
            cJSON_Delete(item);
            cJSON_Delete(rows);
            return NULL;
        }
    }
    return rows;
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
    if (s->tp)
        jsonout_uint(&o, "tp", s->tp);
    else
        jsonout_null(&o, "tp");
    jsonout_object(&o, "engine", engine_flags_json(&s->engine));
    /* the service level: written only when given */
    if (s->concurrency)
        jsonout_uint(&o, "concurrency", s->concurrency);
    if (s->prompt_tokens)
        jsonout_uint(&o, "prompt_tokens", s->prompt_tokens);
    if (s->min_tokens_per_s > 0)
        jsonout_double(&o, "min_tokens_per_s", s->min_tokens_per_s);
    if (s->max_ttft_seconds > 0)
        jsonout_double(&o, "max_ttft_seconds", s->max_ttft_seconds);
    if (s->mbu > 0)
        jsonout_double(&o, "mbu", s->mbu);
    if (s->mfu > 0)
        jsonout_double(&o, "mfu", s->mfu);
    if (s->pp > 1)
        jsonout_uint(&o, "pp", s->pp);
    if (s->dp_attention)
        jsonout_bool(&o, "dp_attention", true);
    if (s->expert_parallel)
        jsonout_bool(&o, "expert_parallel", true);
    return jsonout_end(&o);
}

static cJSON *result_json(const struct plan_result *r)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "profile", engine_label(r->profile, r->rule));
    jsonout_bool(&o, "fits", r->fits);
    jsonout_bool(&o, "weights_fit", r->weights_fit);
    jsonout_uint(&o, "gpus", r->gpus);
    jsonout_uint(&o, "tp", r->tp);
    jsonout_uint(&o, "replicas", r->replicas);
    if (r->pp > 1)
        jsonout_uint(&o, "pp", r->pp);
    if (r->dp_attention)
        jsonout_bool(&o, "dp_attention", true);
    jsonout_string(&o, "weight_dtype", dtype_info(r->weight_dtype)->name);
    jsonout_bool(&o, "weights_as_released", r->weights_as_released);
    jsonout_string(&o, "kv_dtype", dtype_info(r->kv_dtype)->name);
    /* the answer, over every replica */
    jsonout_uint(&o, "max_users", r->max_users);
    jsonout_uint(&o, "max_users_paged", r->max_users_paged);
    jsonout_uint(&o, "kv_tokens", r->kv_tokens);
    jsonout_uint(&o, "kv_pool_bytes", r->kv_pool_bytes);
    jsonout_double_or_null(&o, "price_usd_per_hour", r->price_usd_per_hour,
                           r->price_usd_per_hour >= 0);
    jsonout_double_or_null(&o, "cost_per_user_hour", r->cost_per_user_hour,
                           r->cost_per_user_hour >= 0);
    jsonout_double_or_null(&o, "decode_tokens_per_s_per_user", r->decode_tokens_per_s_per_user,
                           r->decode_tokens_per_s_per_user > 0);
    /* the service level (speed at `concurrency` users decoding at once) */
    const struct speed_result *sp = &r->speed;
    bool fast = sp->step_seconds > 0;
    jsonout_uint(&o, "concurrency", sp->concurrency);
    jsonout_double_or_null(&o, "decode_step_seconds", sp->step_seconds, fast);
    jsonout_double_or_null(&o, "tokens_per_s_per_user", sp->tokens_per_s_per_user, fast);
    jsonout_double_or_null(&o, "tokens_per_s_total", sp->tokens_per_s_total, fast);
    jsonout_uint(&o, "prompt_tokens", sp->prompt_tokens);
    jsonout_double_or_null(&o, "ttft_seconds", sp->ttft_seconds, sp->ttft_seconds > 0);
    jsonout_double_or_null(&o, "prefill_tokens_per_s", sp->prefill_tokens_per_s,
                           sp->prefill_tokens_per_s > 0);
    jsonout_uint(&o, "users_at_service_level", sp->users_at_service_level);
    jsonout_string(&o, "binding_limit", plan_binding_name(sp->binding));
    jsonout_double(&o, "mbu", sp->mbu);
    jsonout_double(&o, "mfu", sp->mfu);
    jsonout_double_or_null(&o, "step_memory_seconds", sp->memory_seconds, fast);
    jsonout_double_or_null(&o, "step_compute_seconds", sp->compute_seconds, fast);
    jsonout_double_or_null(&o, "step_comm_seconds", sp->comm_seconds, fast);
    /* one replica */
    jsonout_uint(&o, "users_per_replica", r->users_per_replica);
    jsonout_uint(&o, "users_fit_per_replica", r->users_fit_per_replica);
    jsonout_uint(&o, "users_paged_per_replica", r->users_paged_per_replica);
    jsonout_uint(&o, "kv_tokens_per_replica", r->kv_tokens_per_replica);
    /* one GPU */
    jsonout_uint(&o, "memory_bytes_per_gpu", r->memory_bytes_per_gpu);
    jsonout_uint(&o, "reserved_bytes_per_gpu", r->reserved_bytes_per_gpu);
    jsonout_uint(&o, "weights_bytes", r->weights_bytes);
    jsonout_uint(&o, "weights_bytes_per_gpu", r->weights_bytes_per_gpu);
    jsonout_uint(&o, "runtime_bytes_per_gpu", r->runtime_bytes_per_gpu);
    jsonout_uint(&o, "kv_pool_bytes_per_gpu", r->kv_pool_bytes_per_gpu);
    jsonout_uint(&o, "shortfall_bytes_per_gpu", r->shortfall_bytes_per_gpu);
    jsonout_uint(&o, "kv_heads", r->cost.kv_heads);
    jsonout_uint(&o, "kv_heads_per_gpu", r->cost.kv_heads_per_gpu);
    jsonout_uint(&o, "global_layers", r->cost.global_layers);
    jsonout_uint(&o, "windowed_layers", r->cost.windowed_layers);
    jsonout_uint(&o, "window_tokens", r->cost.window_tokens);
    jsonout_uint(&o, "kv_bytes_per_layer_per_gpu", r->cost.bytes_per_layer);
    jsonout_uint(&o, "kv_bytes_per_token_per_gpu", r->cost.bytes_per_token);
    jsonout_uint(&o, "kv_bytes_per_token_per_replica", r->cost.bytes_per_token * (uint64_t)r->tp);
    jsonout_uint(&o, "kv_bytes_per_token_global_per_gpu", r->cost.bytes_per_token_global);
    jsonout_uint(&o, "user_bytes_per_gpu", r->user_bytes_per_gpu);
    jsonout_uint(&o, "user_bytes_avg_per_gpu", r->user_bytes_avg_per_gpu);
    jsonout_uint(&o, "user_bytes_paged_per_gpu", r->user_bytes_paged_per_gpu);
    jsonout_uint(&o, "prefix_bytes_per_gpu", r->prefix_bytes_per_gpu);
    jsonout_uint(&o, "prefix_bytes_paged_per_gpu", r->prefix_bytes_paged_per_gpu);
    jsonout_uint(&o, "kv_used_bytes_per_gpu", r->kv_used_bytes_per_gpu);
    jsonout_uint(&o, "spare_bytes_per_gpu", r->spare_bytes_per_gpu);
    jsonout_uint(&o, "reservation_waste_bytes_per_gpu", r->reservation_waste_bytes_per_gpu);
    jsonout_uint(&o, "decode_step_bytes_per_gpu", r->decode_step_bytes_per_gpu);
    jsonout_uint(&o, "context_tokens", r->context_tokens);
    jsonout_uint(&o, "avg_context_tokens", r->avg_context_tokens);
    jsonout_uint(&o, "block_tokens", r->block_tokens);
    cJSON *warnings = cJSON_CreateArray();
    for (uint32_t bit = 1; warnings && bit != 0 && bit <= WARN_LAST; bit <<= 1) {
        char line[512];
        if (!(r->warnings & bit))
            continue;
        plan_warning_format(r, (enum plan_warning)bit, line, sizeof line);
        if (!cJSON_AddItemToArray(warnings, cJSON_CreateString(line)))
            o.failed = true;
    }
    jsonout_object(&o, "warnings", warnings);
    jsonout_object(&o, "explain", explain_json(&r->explain));
    if (r->profile != ENGINE_GENERIC)
        jsonout_object(&o, "engine", engine_detail_json(&r->engine));
    if (r->generic.present) {
        struct jsonout g = jsonout_begin();
        jsonout_double(&g, "headroom_percent", r->generic.headroom_percent);
        jsonout_uint(&g, "max_users", r->generic.max_users);
        jsonout_uint(&g, "max_users_paged", r->generic.max_users_paged);
        jsonout_uint(&g, "kv_tokens", r->generic.kv_tokens);
        jsonout_uint(&g, "kv_pool_bytes", r->generic.kv_pool_bytes);
        jsonout_object(&o, "generic", jsonout_end(&g));
    }
    return jsonout_end(&o);
}

/* cJSON_Print with a final newline; frees root. */
static char *print_document(cJSON *root)
{
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

static struct jsonout document_begin(const struct scenario *s, const struct plan_result *r,
                                     const char *generator)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", SNAPSHOT_FORMAT);
    jsonout_uint(&o, "format_version", SNAPSHOT_FORMAT_VERSION);
    jsonout_string(&o, "generator", generator);
    jsonout_object(&o, "scenario", scenario_json(s));
    jsonout_object(&o, "result", result_json(r));
    return o;
}

char *snapshot_to_json(const struct scenario *s, const struct plan_result *r,
                       const char *generator)
{
    struct jsonout o = document_begin(s, r, generator);
    return print_document(jsonout_end(&o));
}

char *snapshot_session_to_json(const struct snapshot_session *ss,
                               const struct plan_result *const *results, const char *generator)
{
    int cur = ss->current >= 0 && ss->current < ss->count ? ss->current : 0;
    struct jsonout o = document_begin(&ss->entry[cur].scenario, results[cur], generator);
    if (ss->count == 1 && ss->entry[0].note[0] == '\0')
        return print_document(jsonout_end(&o)); /* one scenario: the plain snapshot */
    struct jsonout so = jsonout_begin();
    jsonout_uint(&so, "current", (uint64_t)cur);
    if (ss->reference >= 0 && ss->reference < ss->count)
        jsonout_uint(&so, "reference", (uint64_t)ss->reference);
    else
        jsonout_null(&so, "reference");
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; list && i < ss->count; i++) {
        struct jsonout eo = jsonout_begin();
        jsonout_string(&eo, "label", ss->entry[i].label);
        jsonout_string(&eo, "note", ss->entry[i].note);
        jsonout_object(&eo, "scenario", scenario_json(&ss->entry[i].scenario));
        jsonout_object(&eo, "result", result_json(results[i]));
        cJSON *item = jsonout_end(&eo);
        if (item == NULL || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            so.failed = true;
        }
    }
    jsonout_object(&so, "scenarios", list);
    jsonout_object(&o, "session", jsonout_end(&so));
    return print_document(jsonout_end(&o));
}

static bool engine_flags_from_json(const struct jsonread *r, const cJSON *o,
                                   struct engine_flags *f, struct diag *d)
{
    char name[64] = "generic";
    struct diag local = {0};
    if (!cJSON_IsObject(o))
        return jsonread_fail(r, d, "engine: expected an object");
    if (!jsonread_string(r, o, "name", false, name, sizeof name, d))
        return false;
    if (!engine_parse(name, &f->kind, &f->rule, &local))
        return jsonread_fail(r, d, "name: %s", local.message);
    const uint64_t big = (uint64_t)1 << 44;
    if (!jsonread_double(r, o, "gpu_memory_utilization", false, 0.01, 1.0,
                         &f->gpu_memory_utilization, d) ||
        !jsonread_u32(r, o, "max_num_seqs", false, 1, 1000000, &f->max_num_seqs, d) ||
        !jsonread_u64(r, o, "max_num_batched_tokens", false, 1, TOKENS_MAX,
                      &f->max_num_batched_tokens, d) ||
        !jsonread_double(r, o, "mem_fraction_static", false, 0.01, 1.0, &f->mem_fraction_static,
                         d) ||
        !jsonread_u64(r, o, "chunked_prefill_size", false, 1, TOKENS_MAX,
                      &f->chunked_prefill_size, d) ||
        !jsonread_u32(r, o, "parallel", false, 1, 65536, &f->parallel, d) ||
        !jsonread_u64(r, o, "fit_target_bytes", false, 1, big, &f->fit_target_bytes, d) ||
        !preset_read_dtype(r, o, "v_dtype", false, &f->v_dtype, d) ||
        !jsonread_double(r, o, "free_gpu_memory_fraction", false, 0.01, 1.0,
                         &f->free_gpu_memory_fraction, d) ||
        !jsonread_u64(r, o, "gpu_total_bytes", false, 1, big, &f->gpu_total_bytes, d) ||
        !jsonread_u64(r, o, "non_kv_bytes", false, 1, big, &f->non_kv_bytes, d) ||
        !jsonread_u64(r, o, "kv_memory_bytes", false, 1, big, &f->kv_memory_bytes, d))
        return false;
    return true;
}

/* One scenario object (the top-level "scenario", or a session entry's). */
static bool scenario_from_json(const struct jsonread *sr, const cJSON *so, const char *path,
                               struct scenario *out, struct diag *d)
{
    struct scenario tmp;
    scenario_default(&tmp, NULL, NULL);
    struct diag local = {0};
    bool ok = true;
    const cJSON *go = cJSON_GetObjectItemCaseSensitive(so, "gpu");
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(so, "model");
    if (!cJSON_IsObject(go) || !cJSON_IsObject(mo))
        ok = jsonread_fail(sr, d, "%s: missing (expected an object)",
                           cJSON_IsObject(go) ? "model" : "gpu");
    struct jsonread gr = jsonread_child(sr, "gpu", "gpu.");
    struct jsonread mr = jsonread_child(sr, "model", "model.");
    char units[8] = "gib";
    ok = ok && preset_gpu_from_json(&gr, go, &tmp.gpu, d) &&
         preset_model_from_json(&mr, mo, &tmp.model, d) &&
         jsonread_u32(sr, so, "gpus", true, 1, GPUS_MAX, &tmp.gpus, d) &&
         preset_read_dtype(sr, so, "weight_dtype", false, &tmp.weight_dtype, d) &&
         preset_read_dtype(sr, so, "kv_dtype", false, &tmp.kv_dtype, d) &&
         jsonread_u32(sr, so, "kv_heads", false, 1, 100000, &tmp.kv_heads, d) &&
         jsonread_u64(sr, so, "context_tokens", true, 1, TOKENS_MAX, &tmp.context_tokens,
                      d) &&
         jsonread_u64(sr, so, "prefix_tokens", false, 0, TOKENS_MAX, &tmp.prefix_tokens,
                      d) &&
         jsonread_u64(sr, so, "avg_context_tokens", false, 1, TOKENS_MAX,
                      &tmp.avg_context_tokens, d) &&
         jsonread_u64(sr, so, "block_tokens", false, 1, BLOCK_TOKENS_MAX, &tmp.block_tokens,
                      d) &&
         jsonread_double(sr, so, "headroom_percent", false, 0.0, 99.999999,
                         &tmp.headroom_percent, d) &&
         jsonread_bool(sr, so, "full_attention", false, &tmp.full_attention, d) &&
         jsonread_string(sr, so, "units", false, units, sizeof units, d);
    if (ok && jsonread_has(so, "vram_bytes")) {
        tmp.has_vram = true;
        ok = jsonread_u64(sr, so, "vram_bytes", true, 1, (uint64_t)1 << 44, &tmp.vram_bytes,
                          d);
    }
    if (ok && jsonread_has(so, "weights_bytes")) {
        tmp.has_weights = true;
        ok = jsonread_u64(sr, so, "weights_bytes", true, 0, (uint64_t)1 << 53,
                          &tmp.weights_bytes, d);
    }
    if (ok && jsonread_has(so, "price_usd_per_gpu_hour")) {
        tmp.has_price = true;
        ok = jsonread_double(sr, so, "price_usd_per_gpu_hour", true, 0.0, 1e6,
                             &tmp.price_usd_per_hour, d);
    }
    if (ok) {
        if (strcmp(units, "gib") == 0)
            tmp.units = UNITS_GIB;
        else if (strcmp(units, "gb") == 0)
            tmp.units = UNITS_GB;
        else
            ok = jsonread_fail(sr, d, "units: '%s' is not gib or gb", units);
    }
    if (ok && jsonread_has(so, "tp"))
        ok = jsonread_u32(sr, so, "tp", true, 1, GPUS_MAX, &tmp.tp, d);
    if (ok && jsonread_has(so, "pp"))
        ok = jsonread_u32(sr, so, "pp", true, 1, GPUS_MAX, &tmp.pp, d);
    ok = ok && jsonread_bool(sr, so, "dp_attention", false, &tmp.dp_attention, d) &&
         jsonread_bool(sr, so, "expert_parallel", false, &tmp.expert_parallel, d);
    ok = ok && jsonread_u64(sr, so, "concurrency", false, 1, 100000000, &tmp.concurrency, d) &&
         jsonread_u64(sr, so, "prompt_tokens", false, 1, TOKENS_MAX, &tmp.prompt_tokens, d) &&
         jsonread_double(sr, so, "min_tokens_per_s", false, 0.001, 1e6, &tmp.min_tokens_per_s, d) &&
         jsonread_double(sr, so, "max_ttft_seconds", false, 0.001, 86400, &tmp.max_ttft_seconds,
                         d) &&
         jsonread_double(sr, so, "mbu", false, 0.01, 1.0, &tmp.mbu, d) &&
         jsonread_double(sr, so, "mfu", false, 0.01, 1.0, &tmp.mfu, d);
    const cJSON *eo = cJSON_GetObjectItemCaseSensitive(so, "engine");
    if (ok && eo != NULL && !cJSON_IsNull(eo)) {
        struct jsonread er = jsonread_child(sr, "engine", "engine.");
        ok = engine_flags_from_json(&er, eo, &tmp.engine, d);
    }
    if (ok && !scenario_validate(&tmp, NULL, NULL, &local)) {
        ok = diag_fail(d, "%s: scenario: %s", path, local.message);
    }
    if (ok)
        *out = tmp;
    return ok;
}

/* The header: format and a version this kvplan reads. */
static bool header_from_json(const struct jsonread *r, const cJSON *root, uint32_t *version,
                             struct diag *d)
{
    char format[64] = "";
    bool ok = jsonread_string(r, root, "format", true, format, sizeof format, d) &&
              jsonread_u32(r, root, "format_version", true, 1, 1000000, version, d);
    if (ok && strcmp(format, SNAPSHOT_FORMAT) != 0)
        return jsonread_fail(r, d, "format: '%s' is not a kvplan scenario (expected \"%s\")",
                             format, SNAPSHOT_FORMAT);
    if (ok && (*version < 1 || *version > SNAPSHOT_FORMAT_VERSION))
        return jsonread_fail(r, d,
                             "format_version: %u is not supported (this kvplan reads versions 1 "
                             "to %d); use a kvplan that writes version %u",
                             *version, SNAPSHOT_FORMAT_VERSION, *version);
    return ok;
}

/* The top-level scenario (the current one in a session). */
static bool top_scenario(const struct jsonread *r, const cJSON *root, struct scenario *s,
                         struct diag *d)
{
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsObject(so))
        return jsonread_fail(r, d, "scenario: missing (expected an object)");
    struct jsonread sr = jsonread_child(r, "scenario", "");
    return scenario_from_json(&sr, so, r->path, s, d);
}

bool snapshot_parse(const char *path, const char *text, size_t len, struct scenario *s,
                    struct diag *d)
{
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    uint32_t version = 0;
    struct scenario tmp;
    bool ok = header_from_json(&r, root, &version, d) && top_scenario(&r, root, &tmp, d);
    cJSON_Delete(root);
    if (ok)
        *s = tmp;
    return ok;
}

/* A label from a file name: "meeting.json" -> "meeting". */
static void label_from_path(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, size, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

bool snapshot_parse_session(const char *path, const char *text, size_t len,
                            struct snapshot_session *ss, struct diag *d)
{
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    uint32_t version = 0;
    static struct snapshot_session tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.reference = -1;
    bool ok = header_from_json(&r, root, &version, d);
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "session");
    if (ok && (so == NULL || cJSON_IsNull(so))) {
        /* one scenario: a session of one entry */
        tmp.count = 1;
        label_from_path(path, tmp.entry[0].label, sizeof tmp.entry[0].label);
        ok = top_scenario(&r, root, &tmp.entry[0].scenario, d);
    } else if (ok) {
        struct jsonread sr = jsonread_child(&r, "session", "session.");
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(so, "scenarios");
        if (!cJSON_IsObject(so) || !cJSON_IsArray(list))
            ok = jsonread_fail(&sr, d, "scenarios: missing (expected an array)");
        int n = ok ? cJSON_GetArraySize(list) : 0;
        if (ok && (n < 1 || n > SNAPSHOT_SESSION_MAX))
            ok = jsonread_fail(&sr, d, "scenarios: %d entries (1 to %d)", n, SNAPSHOT_SESSION_MAX);
        uint32_t cur = 0, ref = UINT32_MAX;
        ok = ok && jsonread_u32(&sr, so, "current", false, 0, (uint32_t)n - 1, &cur, d) &&
             jsonread_u32(&sr, so, "reference", false, 0, (uint32_t)n - 1, &ref, d);
        struct jsonread lr = jsonread_child(&sr, "scenarios", "session.scenarios.");
        for (int i = 0; ok && i < n; i++) {
            const cJSON *e = cJSON_GetArrayItem(list, i);
            struct snapshot_entry *en = &tmp.entry[i];
            if (!cJSON_IsObject(e)) {
                ok = jsonread_fail(&lr, d, "entry %d: expected an object", i + 1);
                break;
            }
            ok = jsonread_string(&lr, e, "label", true, en->label, sizeof en->label, d) &&
                 jsonread_string(&lr, e, "note", false, en->note, sizeof en->note, d);
            const cJSON *es = cJSON_GetObjectItemCaseSensitive(e, "scenario");
            if (ok && !cJSON_IsObject(es))
                ok = jsonread_fail(&lr, d, "entry %d: scenario: missing (expected an object)", i + 1);
            struct jsonread er = jsonread_child(&lr, "scenario", "session.scenarios.scenario.");
            ok = ok && scenario_from_json(&er, es, path, &en->scenario, d);
            for (int j = 0; ok && j < i; j++)
                if (strcasecmp(tmp.entry[j].label, en->label) == 0)
                    ok = jsonread_fail(&lr, d, "label: '%s' names two scenarios", en->label);
        }
        tmp.count = n;
        tmp.current = (int)cur;
        tmp.reference = ref == UINT32_MAX ? -1 : (int)ref;
    }
    cJSON_Delete(root);
    if (ok)
        *ss = tmp;
    return ok;
}

bool snapshot_load_session(const char *path, struct snapshot_session *ss, struct diag *d)
{
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    bool ok = snapshot_parse_session(path, text, len, ss, d);
    free(text);
    return ok;
}

bool snapshot_export_session(const char *path, const struct snapshot_session *ss,
                             const struct plan_result *const *results, const char *generator,
                             struct diag *d)
{
    char *text = snapshot_session_to_json(ss, results, generator);
    if (text == NULL)
        return diag_fail(d, "%s: cannot build the snapshot (out of memory)", path);
    bool ok = fileio_write_atomic(path, text, strlen(text), d);
    free(text);
    return ok;
}

int snapshot_session_find(const struct snapshot_session *ss, const char *label)
{
    for (int i = 0; i < ss->count; i++)
        if (strcasecmp(ss->entry[i].label, label) == 0)
            return i;
    return -1;
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
