/* snapshot_json: a plan, or a session of plans, as the JSON document kvplan
 * writes (format in doc/FORMATS.md): the scenario here, the result and every
 * explain row with its terms in snapshot_result.c. Reading is in snapshot.c. */
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine_desc.h"
#include "core/text.h"
#include "io/calibration.h"
#include "io/jsonout.h"
#include "io/loadjson.h"
#include "io/offload_json.h"
#include "io/preset.h"
#include "io/snapshot_parts.h"
static const char *units_key(enum unit_system u)
{
    return u == UNITS_GB ? "gb" : "gib";
}

/* Only what differs from the engine's defaults is written (zero = default). */
static cJSON *engine_flags_json(const struct engine_flags *f)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "name", engine_label(f->kind, f->rule));
    if (f->release_asked[0]) /* --engine vllm@0.11: the vllm@0.13 rule, for 0.11 */
        jsonout_string(&o, "release_asked", f->release_asked);
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

/* What a speed calibration set (kvplan calibrate): its basis, which
 * fractions, and its fit's band when the file held one. */
static cJSON *speed_calibration_json(const struct scenario *s)
{
    struct jsonout co = jsonout_begin();
    jsonout_string(&co, "basis", s->speed_basis);
    jsonout_bool(&co, "mbu", (s->speed_calibrated & SPEED_CAL_MBU) != 0);
    jsonout_bool(&co, "mfu", (s->speed_calibrated & SPEED_CAL_MFU) != 0);
    jsonout_bool(&co, "step_overhead", (s->speed_calibrated & SPEED_CAL_OVERHEAD) != 0);
    if (s->calibration_band[0].points || s->calibration_band[1].points)
        jsonout_object(&co, "band", calibration_band_json(s->calibration_band));
    const struct calibration_shape *sh = s->calibration_from.fit_shape;
    if (sh[0].users_max || sh[1].users_max) { /* where that band holds */
        static const char *const kinds[2] = {"decode", "first_token"};
        struct jsonout shape = jsonout_begin();
        for (int k = 0; k < 2; k++) {
            if (!sh[k].users_max)
                continue;
            struct jsonout one = jsonout_begin();
            jsonout_uint(&one, "users_min", sh[k].users_min);
            jsonout_uint(&one, "users_max", sh[k].users_max);
            jsonout_uint(&one, "prompt_min", sh[k].prompt_min);
            jsonout_uint(&one, "prompt_max", sh[k].prompt_max);
            jsonout_object(&shape, kinds[k], jsonout_end(&one));
        }
        jsonout_object(&co, "fit_shape", jsonout_end(&shape));
    }
    return jsonout_end(&co);
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
    if (s->block_given && (s->block_tokens == 0 || s->block_tokens == 16))
        jsonout_bool(&o, "block_size_given", true); /* 16 asked, not the engine's own */
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
    if (s->output_tokens)
        jsonout_uint(&o, "output_tokens", s->output_tokens);
    if (s->min_tokens_per_s > 0)
        jsonout_double(&o, "min_tokens_per_s", s->min_tokens_per_s);
    if (s->max_ttft_seconds > 0)
        jsonout_double(&o, "max_ttft_seconds", s->max_ttft_seconds);
    if (s->mbu > 0)
        jsonout_double(&o, "mbu", s->mbu);
    if (s->mfu > 0)
        jsonout_double(&o, "mfu", s->mfu);
    if (scenario_pp_written(s))
        jsonout_uint(&o, "pp", s->pp);
    if (s->dp_attention)
        jsonout_bool(&o, "dp_attention", true);
    if (s->expert_parallel)
        jsonout_bool(&o, "expert_parallel", true);
    if (s->allow_long_context)
        jsonout_bool(&o, "allow_long_context", true);
    if (s->spec_method != SPEC_NONE) {
        struct jsonout so = jsonout_begin();
        jsonout_string(&so, "method", spec_method_name(s->spec_method));
        if (s->spec_method == SPEC_DRAFT)
            jsonout_object(&so, "draft_model", preset_model_to_json(&s->draft, false));
        if (s->spec_tokens)
            jsonout_uint(&so, "num_speculative_tokens", s->spec_tokens);
        else
            jsonout_null(&so, "num_speculative_tokens");
        jsonout_object(&o, "speculative", jsonout_end(&so));
    }
    if (s->host_kv_bytes)
        jsonout_uint(&o, "host_kv_bytes", s->host_kv_bytes);
    if (s->has_prefix_hit_rate)
        jsonout_double(&o, "prefix_hit_rate", s->prefix_hit_rate);
    if (s->max_loras)
        jsonout_uint(&o, "max_loras", s->max_loras);
    if (s->max_lora_rank)
        jsonout_uint(&o, "max_lora_rank", s->max_lora_rank);
    if (s->lora_targets) {
        char mods[128];
        lora_targets_format(s->lora_targets, mods, sizeof mods);
        jsonout_string(&o, "lora_target_modules", mods);
    }
    if (s->images)
        jsonout_uint(&o, "images", s->images);
    if (s->image_tokens)
        jsonout_uint(&o, "image_tokens", s->image_tokens);
    if (s->wired_limit_mb)
        jsonout_uint(&o, "wired_limit_mb", s->wired_limit_mb);
    if (s->has_step_overhead)
        jsonout_double(&o, "step_overhead_seconds", s->step_overhead_s);
    cJSON *offload = offload_opts_json(&s->offload);
    if (offload)
        jsonout_object(&o, "offload", offload);
    if (s->speed_basis[0])
        jsonout_object(&o, "speed_calibration", speed_calibration_json(s));
    return jsonout_end(&o);
}

/* The document's text; frees root. */
static char *print_document(cJSON *root)
{
    char *text = root ? jsonout_print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* The calibration file the plan used (plan --calibration), and what it is
 * of; NULL without one (a snapshot keeps none: doc/FORMATS.md). */
static cJSON *calibration_json(const struct scenario *s)
{
    const struct calibration_origin *c = &s->calibration_from;
    if (!c->present)
        return NULL;
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "file", c->file);
    jsonout_string(&o, "kind", c->memory && c->speed ? "memory and speed"
                               : c->memory           ? "memory"
                                                     : "speed");
    if (c->memory)
        jsonout_string(&o, "applied", c->kv_logged   ? "kv_cache_size"
                                      : c->gpu_total ? "gpu_total_and_non_kv"
                                                     : "slots");
    if (c->log[0])
        jsonout_string(&o, "log", c->log);
    if (c->log_engine[0])
        jsonout_string(&o, "log_engine", c->log_engine);
    if (c->gpu_id[0]) {
        jsonout_string(&o, "gpu", c->gpu_id);
        jsonout_string(&o, "gpu_name", c->gpu_name);
        jsonout_bool(&o, "gpu_assumed", c->gpu_assumed);
    }
    if (c->model[0])
        jsonout_string(&o, "model", c->model);
    jsonout_string(&o, "engine", engine_label(c->engine, c->rule));
    if (c->version[0])
        jsonout_string(&o, "engine_version", c->version);
    else
        jsonout_null(&o, "engine_version"); /* the file states none */
    if (c->kv_logged)
        jsonout_uint(&o, "kv_memory_bytes_logged", c->kv_logged);
    return jsonout_end(&o);
}

static struct jsonout document_begin(const struct scenario *s, const struct plan_result *r,
                                     const struct explain *x, const char *generator)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", SNAPSHOT_FORMAT);
    jsonout_uint(&o, "format_version", SNAPSHOT_FORMAT_VERSION);
    jsonout_string(&o, "generator", generator);
    jsonout_object(&o, "scenario", scenario_json(s));
    cJSON *cal = calibration_json(s);
    if (cal)
        jsonout_object(&o, "calibration", cal);
    jsonout_object(&o, "result", snapshot_result_json(r, x));
    return o;
}

char *snapshot_to_json(const struct scenario *s, const struct plan_result *r,
                       const struct explain *x, const char *generator)
{
    struct jsonout o = document_begin(s, r, x, generator);
    return print_document(jsonout_end(&o));
}

bool snapshot_write_json(FILE *out, const struct scenario *s, const struct plan_result *r,
                         const struct explain *x, const char *generator)
{
    struct jsonout o = document_begin(s, r, x, generator);
    cJSON *root = jsonout_end(&o);
    char *text = root ? jsonout_print(root) : NULL;
    /* Written while the tree still stands: freed first, its hundreds of
     * small blocks would be merged again by malloc when stdio allocates the
     * stream's buffer for the first write (5% of `kvplan plan`). */
    if (text)
        fputs(text, out);
    cJSON_Delete(root);
    free(text);
    return text != NULL;
}

char *snapshot_session_to_json(const struct snapshot_session *ss,
                               const struct plan_result *const *results,
                               const struct explain *const *explains, const char *generator)
{
    int cur = ss->current >= 0 && ss->current < ss->count ? ss->current : 0;
    struct jsonout o = document_begin(&ss->entry[cur].scenario, results[cur], explains[cur], generator);
    if (ss->count == 1 && ss->entry[0].note[0] == '\0' && !(ss->entry[0].load.rate > 0))
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
        cJSON *load = loadjson_write(&ss->entry[i].load);
        if (load)
            jsonout_object(&eo, "load", load);
        jsonout_object(&eo, "scenario", scenario_json(&ss->entry[i].scenario));
        jsonout_object(&eo, "result", snapshot_result_json(results[i], explains[i]));
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

/* v as JSON into out ("absent" for NULL), cut at a whole character with
 * "..." when longer. */
static void value_text(const cJSON *v, char *out, size_t size)
{
    char *t = v ? cJSON_PrintUnformatted(v) : NULL;
    if (t == NULL)
        snprintf(out, size, "%s", v ? "(out of memory)" : "absent");
    else if (strlen(t) < size)
        snprintf(out, size, "%s", t);
    else if (size > 4) {
        text_sanitize(t, out, size - 3);
        snprintf(out + strlen(out), 4, "...");
    }
    free(t);
}

/* The first key of objects a and b whose values differ, appended to
 * out->field ("model" then ".num_layers"), with both values; false when
 * none does. */
static bool first_difference(const cJSON *a, const cJSON *b, struct snapshot_difference *out)
{
    const cJSON *x = NULL, *y = NULL;
    for (const cJSON *i = a->child; i && x == NULL; i = i->next) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(b, i->string);
        if (j == NULL || !cJSON_Compare(i, j, true)) {
            x = i;
            y = j;
        }
    }
    for (const cJSON *j = b->child; j && x == NULL && y == NULL; j = j->next)
        if (cJSON_GetObjectItemCaseSensitive(a, j->string) == NULL)
            y = j;
    if (x == NULL && y == NULL)
        return false;
    size_t n = strlen(out->field);
    snprintf(out->field + n, sizeof out->field - n, "%s%s", n ? "." : "", x ? x->string : y->string);
    if (cJSON_IsObject(x) && cJSON_IsObject(y) && first_difference(x, y, out))
        return true;
    value_text(x, out->a, sizeof out->a);
    value_text(y, out->b, sizeof out->b);
    return true;
}

bool snapshot_scenario_difference(const struct scenario *a, const struct scenario *b,
                                  struct snapshot_difference *out)
{
    memset(out, 0, sizeof *out);
    cJSON *ja = scenario_json(a), *jb = scenario_json(b);
    bool differ = ja == NULL || jb == NULL || first_difference(ja, jb, out);
    if (ja == NULL || jb == NULL)
        snprintf(out->a, sizeof out->a, "(out of memory)");
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    return differ;
}
