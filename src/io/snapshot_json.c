/* snapshot_json: a plan, or a session of plans, as the JSON document kvplan
 * writes (format in doc/FORMATS.md): the scenario, the result and every
 * explain row with its terms. Reading is in snapshot.c. */
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine_desc.h"
#include "core/text.h"
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

static cJSON *engine_detail_json(const struct engine_detail *e)
{
    struct jsonout o = jsonout_begin();
    jsonout_uint(&o, "gpu_total_bytes", e->gpu_total_bytes);
    jsonout_double(&o, "fraction", e->fraction);
    jsonout_uint(&o, "budget_bytes", e->budget_bytes);
    jsonout_uint(&o, "activation_bytes", e->activation_bytes);
    jsonout_uint(&o, "non_kv_bytes", e->non_kv_bytes);
    if (e->held_extra_bytes) /* of non_kv_bytes, held whole beside the weights */
        jsonout_uint(&o, "held_extra_bytes", e->held_extra_bytes);
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
    if (e->offload.placed)
        jsonout_object(&o, "offload", offload_split_json(&e->offload));
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
                                  "bytes_per_s", "tokens_per_s", "ratio", "seconds", "flops",
                                  "bytes_per_s"};
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

/* The rows' texts are referenced, not copied: the rows outlive the tree. */
static cJSON *explain_json(const struct explain *x)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; rows && x && i < x->count; i++) { /* x NULL: no rows */
        const struct explain_row *row = &x->rows[i];
        struct jsonout o = jsonout_begin();
        jsonout_string_ref(&o, "key", row->key);
        jsonout_string_ref(&o, "label", row->label);
        jsonout_string_ref(&o, "scope", row->scope);
        jsonout_string_ref(&o, "formula", row->formula);
        jsonout_string_ref(&o, "value_text", row->result.text);
        if (row->result.unit == XU_USD && row->result.value < 0)
            jsonout_null(&o, "value"); /* unknown, as result.cost_per_user_hour */
        else
            value_json(&o, "value", row->result.value);
        jsonout_string_ref(&o, "unit", xunit_name(row->result.unit));
        cJSON *terms = cJSON_CreateArray();
        for (int t = 0; terms && t < row->nterms; t++) {
            struct jsonout to = jsonout_begin();
            jsonout_string_ref(&to, "name", row->terms[t].name);
            value_json(&to, "value", row->terms[t].value);
            jsonout_string_ref(&to, "unit", xunit_name(row->terms[t].unit));
            jsonout_string_ref(&to, "text", row->terms[t].text);
            if (row->terms[t].ref[0])
                jsonout_string_ref(&to, "row", row->terms[t].ref);
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
    if (s->speed_basis[0]) {
        struct jsonout co = jsonout_begin();
        jsonout_string(&co, "basis", s->speed_basis);
        jsonout_bool(&co, "mbu", (s->speed_calibrated & SPEED_CAL_MBU) != 0);
        jsonout_bool(&co, "mfu", (s->speed_calibrated & SPEED_CAL_MFU) != 0);
        jsonout_bool(&co, "step_overhead", (s->speed_calibrated & SPEED_CAL_OVERHEAD) != 0);
        jsonout_object(&o, "speed_calibration", jsonout_end(&co));
    }
    return jsonout_end(&o);
}

/* The host memory tier: bytes as plain numbers, seconds as numbers (null
 * when unknown). */
static cJSON *host_tier_json(const struct host_tier *h)
{
    struct jsonout o = jsonout_begin();
    jsonout_uint(&o, "pool_bytes_per_gpu", h->pool_bytes_per_gpu);
    jsonout_uint(&o, "user_bytes_per_gpu", h->user_bytes_per_gpu);
    jsonout_uint(&o, "users_per_replica", h->users_per_replica);
    jsonout_uint(&o, "users", h->users);
    jsonout_uint(&o, "users_beyond_gpus", h->beyond_gpu);
    if (h->link_bytes_per_s)
        jsonout_uint(&o, "link_bytes_per_s", h->link_bytes_per_s);
    else
        jsonout_null(&o, "link_bytes_per_s");
    jsonout_double_or_null(&o, "reload_seconds", h->reload_seconds, h->reload_seconds > 0);
    jsonout_double_or_null(&o, "recompute_seconds", h->recompute_seconds,
                           h->recompute_seconds > 0);
    if (h->has_hit_rate) {
        jsonout_double(&o, "prefix_hit_rate", h->hit_rate);
        jsonout_double_or_null(&o, "restore_seconds", h->restore_seconds,
                               h->restore_seconds > 0);
    }
    return jsonout_end(&o);
}

void snapshot_engine_json(struct jsonout *o, enum engine_kind k, enum engine_rule r)
{
    /* the release the profile's rule is named after ("0.15"), and with the engine */
    const char *release = engine_release(k, r);
    char title[64];
    engine_version_title(k, r, title, sizeof title);
    if (release[0]) {
        jsonout_string(o, "engine_version", release);
        jsonout_string(o, "engine_title", title);
    } else {
        jsonout_null(o, "engine_version");
        jsonout_null(o, "engine_title");
    }
}

/* The layout and the precisions. */
static void result_layout_json(struct jsonout *o, const struct plan_result *r)
{
    jsonout_string(o, "profile", engine_label(r->profile, r->rule));
    snapshot_engine_json(o, r->profile, r->rule);
    jsonout_bool(o, "fits", r->fits);
    jsonout_bool(o, "weights_fit", r->weights_fit);
    jsonout_uint(o, "gpus", r->gpus);
    jsonout_uint(o, "tp", r->tp);
    jsonout_uint(o, "replicas", r->replicas);
    if (r->pp > 1)
        jsonout_uint(o, "pp", r->pp);
    if (r->dp_attention)
        jsonout_bool(o, "dp_attention", true);
    jsonout_string(o, "weight_dtype", dtype_info(r->weight_dtype)->name);
    jsonout_bool(o, "weights_as_released", r->weights_as_released);
    jsonout_string(o, "kv_dtype", dtype_info(r->kv_dtype)->name);
}

static void result_answer_json(struct jsonout *o, const struct plan_result *r)
{
    /* the answer, over every replica */
    jsonout_uint(o, "max_users", r->max_users);
    jsonout_uint(o, "max_users_paged", r->max_users_paged);
    jsonout_uint(o, "kv_tokens", r->kv_tokens);
    jsonout_uint(o, "kv_pool_bytes", r->kv_pool_bytes);
    jsonout_double_or_null(o, "price_usd_per_hour", r->price_usd_per_hour,
                           r->price_usd_per_hour >= 0);
    jsonout_double_or_null(o, "cost_per_user_hour", r->cost_per_user_hour,
                           r->cost_per_user_hour >= 0);
    jsonout_double_or_null(o, "cost_per_million_output_tokens", r->cost_per_million_output_tokens,
                           r->cost_per_million_output_tokens >= 0);
    jsonout_double_or_null(o, "cost_per_million_input_tokens", r->cost_per_million_input_tokens,
                           r->cost_per_million_input_tokens >= 0);
    jsonout_double_or_null(o, "decode_tokens_per_s_per_user", r->decode_tokens_per_s_per_user,
                           r->decode_tokens_per_s_per_user > 0);
}

static void result_replica_json(struct jsonout *o, const struct plan_result *r)
{
    /* one replica */
    jsonout_uint(o, "users_per_replica", r->users_per_replica);
    jsonout_uint(o, "users_fit_per_replica", r->users_fit_per_replica);
    jsonout_uint(o, "users_paged_per_replica", r->users_paged_per_replica);
    jsonout_uint(o, "kv_tokens_per_replica", r->kv_tokens_per_replica);
}

/* Speculative decoding: the draft's part (of weights_bytes_per_gpu and the KV
 * per token). */
static cJSON *result_spec_json(const struct plan_result *r)
{
    struct jsonout so = jsonout_begin();
    jsonout_string(&so, "method", spec_method_name(r->spec.method));
    jsonout_uint(&so, "num_speculative_tokens", r->spec.tokens);
    jsonout_uint(&so, "draft_weights_bytes", r->spec.weights_bytes);
    jsonout_uint(&so, "draft_weights_bytes_per_gpu", r->spec.weights_bytes_per_gpu);
    jsonout_uint(&so, "draft_layers", r->spec.layers);
    /* an engine that splits layers splits the draft's like the model's */
    jsonout_uint(&so, "draft_kv_bytes_per_token_per_gpu",
                 engine_desc(r->profile)->splits_layers && r->tp > 1
                     ? kv_ceil_div(r->spec.kv_bytes_per_token, r->tp)
                     : r->spec.kv_bytes_per_token);
    return jsonout_end(&so);
}

/* state layers: a fixed state per sequence (doc/FORMATS.md) */
static cJSON *result_state_json(const struct plan_result *r)
{
    struct jsonout so = jsonout_begin();
    jsonout_uint(&so, "state_layers", r->cost.state_layers);
    jsonout_uint(&so, "conv_values_per_layer_per_gpu", r->cost.state_conv_values);
    jsonout_uint(&so, "ssm_values_per_layer_per_gpu", r->cost.state_ssm_values);
    jsonout_string(&so, "conv_dtype", dtype_info(r->cost.state_conv_dtype)->name);
    jsonout_string(&so, "ssm_dtype", dtype_info(r->cost.state_ssm_dtype)->name);
    jsonout_uint(&so, "bytes_per_layer_per_gpu", r->cost.state_bytes_per_layer);
    jsonout_uint(&so, "bytes_per_user_per_gpu", r->state_bytes_per_user_per_gpu);
    jsonout_uint(&so, "used_bytes_per_gpu", r->state_used_bytes_per_gpu);
    jsonout_uint(&so, "slots_per_replica", r->state_slots_per_replica);
    if (r->state_slots_per_replica) /* a separate pool, whole, and its idle part */
        jsonout_uint(&so, "pool_bytes_per_gpu", r->state_pool_bytes_per_gpu);
    if (r->state_spec_bytes_per_gpu)
        jsonout_uint(&so, "spec_bytes_per_gpu", r->state_spec_bytes_per_gpu);
    return jsonout_end(&so);
}

static void result_gpu_json(struct jsonout *o, const struct plan_result *r)
{
    /* one GPU */
    jsonout_uint(o, "memory_bytes_per_gpu", r->memory_bytes_per_gpu);
    jsonout_uint(o, "reserved_bytes_per_gpu", r->reserved_bytes_per_gpu);
    jsonout_uint(o, "weights_bytes", r->weights_bytes);
    jsonout_uint(o, "weights_bytes_per_gpu", r->weights_bytes_per_gpu);
    if (r->spec.method != SPEC_NONE) /* of weights_bytes_per_gpu and the KV per token */
        jsonout_object(o, "speculative", result_spec_json(r));
    jsonout_uint(o, "runtime_bytes_per_gpu", r->runtime_bytes_per_gpu);
    jsonout_uint(o, "kv_pool_bytes_per_gpu", r->kv_pool_bytes_per_gpu);
    jsonout_uint(o, "shortfall_bytes_per_gpu", r->shortfall_bytes_per_gpu);
    jsonout_uint(o, "kv_heads", r->cost.kv_heads);
    jsonout_uint(o, "kv_heads_per_gpu", r->cost.kv_heads_per_gpu);
    jsonout_uint(o, "global_layers", r->cost.global_layers);
    jsonout_uint(o, "windowed_layers", r->cost.windowed_layers);
    jsonout_uint(o, "window_tokens", r->cost.window_tokens);
    jsonout_uint(o, "kv_bytes_per_layer_per_gpu", r->cost.bytes_per_layer);
    jsonout_uint(o, "kv_bytes_per_token_per_gpu", plan_kv_token_bytes_per_gpu(r));
    jsonout_uint(o, "kv_bytes_per_token_per_replica", plan_kv_token_bytes_per_replica(r));
    jsonout_uint(o, "kv_bytes_per_token_global_per_gpu", r->cost.bytes_per_token_global);
    jsonout_uint(o, "user_bytes_per_gpu", r->user_bytes_per_gpu);
    jsonout_uint(o, "user_bytes_avg_per_gpu", r->user_bytes_avg_per_gpu);
    jsonout_uint(o, "user_bytes_paged_per_gpu", r->user_bytes_paged_per_gpu);
    jsonout_uint(o, "prefix_bytes_per_gpu", r->prefix_bytes_per_gpu);
    jsonout_uint(o, "prefix_bytes_paged_per_gpu", r->prefix_bytes_paged_per_gpu);
    jsonout_uint(o, "kv_used_bytes_per_gpu", r->kv_used_bytes_per_gpu);
    jsonout_uint(o, "spare_bytes_per_gpu", r->spare_bytes_per_gpu);
    jsonout_uint(o, "reservation_waste_bytes_per_gpu", r->reservation_waste_bytes_per_gpu);
    jsonout_uint(o, "decode_step_bytes_per_gpu", r->decode_step_bytes_per_gpu);
    jsonout_uint(o, "context_tokens", r->context_tokens);
    jsonout_uint(o, "avg_context_tokens", r->avg_context_tokens);
    jsonout_uint(o, "block_tokens", r->block_tokens);
    if (r->cost.state_layers > 0)
        jsonout_object(o, "state", result_state_json(r));
}

static void result_lora_images_json(struct jsonout *o, const struct plan_result *r)
{
    if (r->lora.slots) {
        jsonout_uint(o, "lora_slots", r->lora.slots);
        jsonout_uint(o, "lora_rank", r->lora.rank);
        jsonout_uint(o, "lora_features_per_layer", r->lora.features_sum);
        jsonout_uint(o, "lora_slot_bytes_per_gpu", r->lora.slot_bytes);
        jsonout_uint(o, "lora_bytes_per_gpu", r->lora.bytes);
    }
    if (r->image_tokens) {
        jsonout_uint(o, "images", r->images);
        jsonout_uint(o, "tokens_per_image", r->tokens_per_image);
        jsonout_uint(o, "image_tokens", r->image_tokens);
        jsonout_uint(o, "text_tokens", r->text_tokens);
        jsonout_uint(o, "encoder_cache_tokens", r->encoder_cache_tokens);
        jsonout_uint(o, "encoder_cache_bytes_per_gpu", r->encoder_cache_bytes_per_gpu);
    }
}

static void result_warnings_json(struct jsonout *o, const struct plan_result *r)
{
    cJSON *warnings = cJSON_CreateArray();
    for (uint32_t bit = 1; warnings && bit != 0 && bit <= WARN_LAST; bit <<= 1) {
        char line[512];
        if (!(r->warnings & bit))
            continue;
        plan_warning_format(r, (enum plan_warning)bit, line, sizeof line);
        if (!cJSON_AddItemToArray(warnings, cJSON_CreateString(line)))
            o->failed = true;
    }
    jsonout_object(o, "warnings", warnings);
}

static cJSON *result_generic_json(const struct plan_result *r)
{
    struct jsonout g = jsonout_begin();
    jsonout_double(&g, "headroom_percent", r->generic.headroom_percent);
    jsonout_uint(&g, "max_users", r->generic.max_users);
    jsonout_uint(&g, "max_users_paged", r->generic.max_users_paged);
    jsonout_uint(&g, "kv_tokens", r->generic.kv_tokens);
    jsonout_uint(&g, "kv_pool_bytes", r->generic.kv_pool_bytes);
    return jsonout_end(&g);
}

static cJSON *result_json(const struct plan_result *r, const struct explain *x)
{
    struct jsonout o = jsonout_begin();
    result_layout_json(&o, r);
    result_answer_json(&o, r);
    snapshot_speed_json(&o, r);
    result_replica_json(&o, r);
    result_gpu_json(&o, r);
    result_lora_images_json(&o, r);
    result_warnings_json(&o, r);
    jsonout_object(&o, "explain", explain_json(x));
    if (engine_desc(r->profile)->server) {
        cJSON *engine = engine_detail_json(&r->engine);
        cJSON *servers = report_servers_json(r); /* absent on one server */
        if (servers && !(engine && cJSON_AddItemToObject(engine, "launch_servers", servers)))
            cJSON_Delete(servers);
        jsonout_object(&o, "engine", engine);
    }
    if (r->generic.present)
        jsonout_object(&o, "generic", result_generic_json(r));
    if (r->host.present)
        jsonout_object(&o, "host_tier", host_tier_json(&r->host));
    return jsonout_end(&o);
}

/* The document's text; frees root. */
static char *print_document(cJSON *root)
{
    char *text = root ? jsonout_print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

static struct jsonout document_begin(const struct scenario *s, const struct plan_result *r,
                                     const struct explain *x, const char *generator)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", SNAPSHOT_FORMAT);
    jsonout_uint(&o, "format_version", SNAPSHOT_FORMAT_VERSION);
    jsonout_string(&o, "generator", generator);
    jsonout_object(&o, "scenario", scenario_json(s));
    jsonout_object(&o, "result", result_json(r, x));
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
        jsonout_object(&eo, "result", result_json(results[i], explains[i]));
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
