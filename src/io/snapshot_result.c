/* snapshot_result: the result half of a snapshot's JSON (doc/FORMATS.md):
 * the answer, the layout, each GPU's memory, the engine's detail, the host
 * tier and every explain row with its terms (snapshot_parts.h); the
 * scenario half and the documents are in snapshot_json.c. */
#include "snapshot.h"

#include <stdio.h>

#include "core/engine_desc.h"
#include "io/jsonout.h"
#include "io/offload_json.h"
#include "io/snapshot_parts.h"

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
    if (e->log_kv_tokens) /* vLLM V1's "GPU KV cache size", in its release's form */
        jsonout_uint(&o, "logged_kv_tokens", e->log_kv_tokens);
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
    jsonout_string(o, "layout_basis", layout_basis_name(r->layout_basis));
    if (r->layout_basis == LAYOUT_MOST_USERS)
        jsonout_uint(o, "layouts_run", r->layouts_run);
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
    /* vLLM's window groups: the users its Maximum concurrency counts, fewer */
    if (r->counted_users_per_replica && r->counted_users_per_replica < r->users_per_replica)
        jsonout_uint(o, "counted_users_per_replica", r->counted_users_per_replica);
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

cJSON *snapshot_result_json(const struct plan_result *r, const struct explain *x)
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
