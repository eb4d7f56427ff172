/* calibration_file: the calibration file of a startup log's memory, written
 * and read back onto a scenario with its speed part (calibration_speed.c);
 * what of it carries to the plan's own scenario is calibration_carry.c's. */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/text.h"
#include "io/fileio.h"
#include "io/jsonout.h"
#include "io/jsonread.h"

bool calibration_save(const char *path, const struct memory_calibration *m, struct diag *d)
{
    /* what calibration_apply reads: the GPU's total with the memory outside the
     * KV cache, or the cache's size (K and V apart, or its tokens) */
    const struct engine_log *log = m->log;
    const struct log_figure *f = log->f;
    bool usable = (m->gpu_total_bytes && m->non_kv_bytes) ||
                  (f[LF_KV_MEMORY].found && f[LF_KV_MEMORY].value > 0) ||
                  (f[LF_K_SIZE].found && f[LF_K_SIZE].value > 0 && f[LF_V_SIZE].found &&
                   f[LF_V_SIZE].value > 0) ||
                  (f[LF_KV_TOKENS].found && f[LF_KV_TOKENS].value > 0);
    if (m->model_id == NULL || m->model_id[0] == '\0')
        return diag_fail(d, "%s: --save needs --model: a calibration holds for the model the log "
                            "is of", path);
    if (log->engine == LOG_TGI && usable)
        return diag_fail(d, "%s: not saved: kvplan has no TGI profile, and the generic rule "
                            "that would plan it takes no logged cache; TGI's max batch total "
                            "tokens (%.0f) is the outcome of its own warmup at its own memory "
                            "fraction, which no option of the plan could move (compare it with "
                            "kvplan's prediction above, without --save)",
                         path, f[LF_KV_TOKENS].value);
    if (!usable)
        return diag_fail(d, "%s: nothing to calibrate: the log gives neither the GPU's total "
                            "and the memory outside the KV cache nor the KV cache's size "
                            "(truncated or trimmed?); %s not saved",
                         m->log_path ? m->log_path : "the log", path);
    enum engine_rule rule;
    enum engine_kind kind = enginelog_profile(log, &rule);
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", "kvplan-calibration");
    jsonout_uint(&o, "format_version", 1);
    jsonout_string(&o, "engine", engine_label(kind, rule));
    jsonout_string(&o, "log_engine", enginelog_engine_name(log->engine));
    jsonout_string(&o, "log", m->log_path);
    jsonout_string(&o, "model", m->model_id);
    if (m->gpu) {
        jsonout_string(&o, "gpu", m->gpu->id);
        jsonout_string(&o, "gpu_name", m->gpu->name);
        if (m->gpu_assumed) /* no --gpu, and no GPU in the log */
            jsonout_bool(&o, "gpu_assumed", true);
    }
    if (log->version[0]) /* as the log states it; the engine's rule is "engine" */
        jsonout_string(&o, "engine_version", log->version);
    if (log->date[0]) /* as written: vLLM's "05-14 10:02:11" states no year */
        jsonout_string(&o, "log_date", log->date);
    if (m->s) {
        jsonout_uint(&o, "tp", scenario_tp(m->s));
        jsonout_string(&o, "weight_dtype", dtype_info(m->s->weight_dtype)->name);
    }
    enum dtype kt, vt; /* llama.cpp's cache types as the log names them (-ctk, -ctv) */
    if (log->k_type[0] && dtype_parse(log->k_type, &kt))
        jsonout_string(&o, "cache_type_k", dtype_info(kt)->name);
    if (log->v_type[0] && dtype_parse(log->v_type, &vt))
        jsonout_string(&o, "cache_type_v", dtype_info(vt)->name);
    if (m->gpu_total_bytes)
        jsonout_uint(&o, "gpu_total_bytes", m->gpu_total_bytes);
    if (m->non_kv_bytes)
        jsonout_uint(&o, "non_kv_bytes", m->non_kv_bytes);
    struct jsonout figs = jsonout_begin();
    for (int k = 0; k < LF_COUNT; k++) {
        const char *name = enginelog_field_name((enum log_field)k);
        if (log->f[k].found && enginelog_field_is_bytes((enum log_field)k) &&
            log->f[k].value < 9e15) /* whole bytes: the log's GiB with 2 decimals are not */
            jsonout_uint(&figs, name, (uint64_t)llround(log->f[k].value));
        else if (log->f[k].found)
            jsonout_double(&figs, name, log->f[k].value);
    }
    jsonout_object(&o, "figures", jsonout_end(&figs));
    return calibration_write(path, jsonout_end(&o), d);
}

bool calibration_write(const char *path, cJSON *root, struct diag *d)
{
    char *text = root ? jsonout_print(root) : NULL;
    cJSON_Delete(root);
    if (text == NULL)
        return diag_fail(d, "%s: cannot build the calibration (out of memory)", path);
    bool ok = fileio_write_atomic(path, text, strlen(text), d);
    free(text);
    return ok;
}

/* The header and what the file is of: format, version, engine, model, GPU. */
static bool header(const struct jsonread *r, const cJSON *root, struct calibration_source *c,
                   struct diag *d)
{
    char format[64] = "", engine[64] = "", weight[32] = "";
    uint32_t version = 0;
    struct diag local = {0};
    bool ok = jsonread_string(r, root, "format", true, format, sizeof format, d) &&
              jsonread_u32(r, root, "format_version", true, 1, 1000, &version, d) &&
              jsonread_string(r, root, "engine", true, engine, sizeof engine, d) &&
              jsonread_string(r, root, "model", false, c->model, sizeof c->model, d) &&
              jsonread_string(r, root, "gpu", false, c->gpu_id, sizeof c->gpu_id, d) &&
              jsonread_string(r, root, "gpu_name", false, c->gpu_name, sizeof c->gpu_name, d) &&
              jsonread_bool(r, root, "gpu_assumed", false, &c->gpu_assumed, d) &&
              jsonread_string(r, root, "engine_version", false, c->version, sizeof c->version,
                              d) &&
              jsonread_u32(r, root, "tp", false, 1, GPUS_MAX, &c->tp, d) &&
              jsonread_string(r, root, "weight_dtype", false, weight, sizeof weight, d);
    c->weight = DTYPE_AUTO;
    c->weight_known = weight[0] != '\0';
    if (ok && c->weight_known && strcmp(weight, "auto") != 0 && !dtype_parse(weight, &c->weight))
        return jsonread_fail(r, d, "weight_dtype: '%s' is not a precision kvplan knows", weight);
    if (ok && strcmp(format, "kvplan-calibration") != 0)
        return jsonread_fail(r, d, "format: '%s' is not a kvplan calibration", format);
    if (ok && version != 1 && version != 2)
        return jsonread_fail(r, d, "format_version: %u is not supported (this kvplan reads "
                                   "versions 1 and 2)", version);
    if (ok && !engine_parse(engine, &c->engine, &c->rule, &local))
        return jsonread_fail(r, d, "engine: %s", local.message);
    char name[sizeof c->gpu_name];
    if (ok && text_sanitize(c->gpu_name, name, sizeof name)) /* a file's words: no controls */
        memcpy(c->gpu_name, name, sizeof name);
    if (ok && c->gpu_name[0] == '\0')
        snprintf(c->gpu_name, sizeof c->gpu_name, "%s", c->gpu_id);
    return ok;
}

/* The memory part: the total and non-KV memory, or the KV cache's size. */
static bool memory(const struct jsonread *r, const cJSON *root, struct calibration_source *c,
                   struct scenario *s, struct diag *d)
{
    uint64_t total = 0, non_kv = 0;
    double kv = 0, k = 0, v = 0, tokens = 0, seqs = 0, cells = 0;
    bool ok = jsonread_u64(r, root, "gpu_total_bytes", false, 1, (uint64_t)1 << 44, &total, d) &&
              jsonread_u64(r, root, "non_kv_bytes", false, 1, (uint64_t)1 << 44, &non_kv, d);
    const cJSON *figs = cJSON_GetObjectItemCaseSensitive(root, "figures");
    if (ok && cJSON_IsObject(figs)) {
        struct jsonread fr = jsonread_child(r, "figures", "figures.");
        ok = jsonread_double(&fr, figs, enginelog_field_name(LF_KV_MEMORY), false, 0, 1e15, &kv, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_K_SIZE), false, 0, 1e15, &k, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_V_SIZE), false, 0, 1e15, &v, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_KV_TOKENS), false, 0, 1e15,
                             &tokens, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_UTILIZATION), false, 0, 1,
                             &c->utilization, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_MEM_FRACTION), false, 0, 1,
                             &c->mem_fraction, d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_SEQS), false, 0, 65536, &seqs,
                             d) &&
             jsonread_double(&fr, figs, enginelog_field_name(LF_CELLS), false, 0, 1e12, &cells,
                             d);
    }
    if (!ok)
        return false;
    /* the generic rule takes no logged memory (a TGI log's, before kvplan
     * refused to save one): applied, it would change nothing, silently */
    char from[32] = "";
    if (!jsonread_string(r, root, "log_engine", false, from, sizeof from, d) ||
        !jsonread_string(r, root, "log", false, c->log, sizeof c->log, d))
        return false;
    text_sanitize(from, c->log_engine, sizeof c->log_engine); /* a file's words: no controls */
    char shown[sizeof c->log];
    if (text_sanitize(c->log, shown, sizeof shown))
        memcpy(c->log, shown, sizeof shown);
    if (!engine_desc(c->engine)->server) /* the generic headroom rule */
        return jsonread_fail(r, d, "engine: a memory calibration of %s under the generic rule "
                             "cannot be applied: kvplan has no profile of that engine, and the "
                             "generic rule takes no logged cache (its figures would change "
                             "nothing); plan without it, by the generic rule's estimate",
                             from[0] ? from : "an engine kvplan has no profile of");
    /* what a log measured holds for its own model: another's weights differ */
    if (c->model[0] && strcasecmp(c->model, s->model.id) != 0)
        return jsonread_fail(r, d, "model: the log is of %s, this plan of %s (give --model %s, or "
                             "calibrate a log of %s)", c->model, s->model.id, c->model,
                             s->model.id);
    if (kv <= 0 && k > 0 && v > 0)
        kv = k + v; /* SGLang logs K and V sizes per rank */
    struct kv_cost cost;
    /* vLLM V1 logs the tokens its cache holds, at the precision its server
     * cached in (the model's under auto: the log names no other); a
     * --kv-dtype given on top changes the tokens, not the memory */
    static struct scenario logged;
    logged = *s;
    logged.kv_dtype = DTYPE_AUTO;
    if (c->tp) { /* the tokens of the log's own split: a GPU's share at its TP */
        logged.tp = c->tp;
        logged.gpus = c->tp;
        logged.pp = 0;
    }
    if (kv <= 0 && tokens > 0 && kvcost_compute(&logged, scenario_tp(&logged), &cost))
        kv = tokens * (double)cost.bytes_per_token;
    if (!(total && non_kv) && kv <= 0)
        return jsonread_fail(r, d, "figures: the log gives neither the GPU's total and the memory "
                             "outside the KV cache nor the KV cache's size: nothing to calibrate");
    if (total && non_kv) {
        s->engine.gpu_total_bytes = total;
        s->engine.non_kv_bytes = non_kv;
        c->gpu_total_bytes = total;
        c->non_kv_bytes = non_kv;
    } else if (engine_desc(c->engine)->fixed_slots) {
        char kt[32] = "", vt[32] = "";
        if (!jsonread_string(r, root, "cache_type_k", false, kt, sizeof kt, d) ||
            !jsonread_string(r, root, "cache_type_v", false, vt, sizeof vt, d))
            return false;
        c->cache_k = c->cache_v = DTYPE_AUTO;
        if (kt[0] && !dtype_parse(kt, &c->cache_k))
            return jsonread_fail(r, d, "cache_type_k: '%s' is not a precision kvplan knows", kt);
        if (vt[0] && !dtype_parse(vt, &c->cache_v))
            return jsonread_fail(r, d, "cache_type_v: '%s' is not a precision kvplan knows", vt);
        /* llama.cpp sizes its cache from n_ctx, not from the memory left
         * (src/llama-context.cpp: n_ctx_seq from -c over -np; the
         * llama_kv_cache constructor, src/llama-kv-cache.cpp, makes each
         * layer's K and V tensors of kv_size cells): the logged size is of
         * the log's -c and -np, no cap on the plan's. What carries is its
         * bytes per cell, checked against the plan's own rule once the
         * options are on top (calibration_slots_check). */
        c->kv_memory_bytes = (uint64_t)kv;
        c->log_cells = cells >= 1 ? (uint64_t)cells : 0;
    } else {
        s->engine.kv_memory_bytes = (uint64_t)kv; /* the logged cache, as --kv-memory */
        c->kv_memory_bytes = s->engine.kv_memory_bytes;
    }
    /* the slots llama.cpp (-np) and Ollama (--parallel, OLLAMA_NUM_PARALLEL)
     * ran with: the cache was sized for them (an option on top wins) */
    if (engine_desc(c->engine)->fixed_slots && seqs >= 1 &&
        seqs == (double)(uint32_t)seqs) {
        c->parallel = (uint32_t)seqs;
        s->engine.parallel = c->parallel;
    }
    c->memory = true;
    return true;
}

/* The origin the plan's warning and speed band are worked out from. */
static void origin(const struct calibration_source *c, struct scenario *s)
{
    struct calibration_origin *o = &s->calibration_from;
    memset(o, 0, sizeof *o);
    o->present = true;
    o->memory = c->memory;
    o->speed = c->speed;
    o->gpu_assumed = c->gpu_assumed;
    o->weight_known = c->weight_known;
    snprintf(o->gpu_id, sizeof o->gpu_id, "%s", c->gpu_id);
    snprintf(o->gpu_name, sizeof o->gpu_name, "%s", c->gpu_name);
    snprintf(o->model, sizeof o->model, "%s", c->model);
    /* the release alone: "b5721" of llama-bench's "b5721 (3f1ae2e3)" */
    snprintf(o->version, sizeof o->version, "%.*s", (int)strcspn(c->version, " "), c->version);
    o->engine = c->engine;
    o->rule = c->rule;
    o->weight = c->weight;
    o->tp = c->tp;
    /* a pool set from the log (not a llama.cpp cache, which is no pool) */
    if (c->kv_memory_bytes && s->engine.kv_memory_bytes == c->kv_memory_bytes)
        o->kv_logged = o->kv_applied = c->kv_memory_bytes;
    o->utilization = c->utilization;
    o->mem_fraction = c->mem_fraction;
    o->gpu_total = c->gpu_total_bytes;
    o->non_kv = c->non_kv_bytes;
    snprintf(o->log, sizeof o->log, "%s", c->log);
    snprintf(o->log_engine, sizeof o->log_engine, "%s", c->log_engine);
    memcpy(o->fit_shape, c->fit_shape, sizeof o->fit_shape);
}

/* The users and prompts the speed fit's points were measured at, by kind
 * (what calibrate wrote: speed.points[].kind, concurrency, input_tokens);
 * a point that says neither is passed over, as is a file without points. */
static void fit_shape(const cJSON *speed, struct calibration_source *c)
{
    memset(c->fit_shape, 0, sizeof c->fit_shape);
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(speed, "points");
    if (!cJSON_IsArray(points))
        return;
    const cJSON *p;
    cJSON_ArrayForEach(p, points)
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "waited")))
            continue; /* measured queued behind others' steps: not fitted on */
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(p, "kind");
        const cJSON *users = cJSON_GetObjectItemCaseSensitive(p, "concurrency");
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(p, "input_tokens");
        if (!cJSON_IsString(kind) || !cJSON_IsNumber(users) || !cJSON_IsNumber(in) ||
            !(users->valuedouble >= 1 && users->valuedouble < 1e9) ||
            !(in->valuedouble >= 1 && in->valuedouble < 1e12))
            continue;
        int k = strcmp(kind->valuestring, "decode") == 0    ? 0
                : strcmp(kind->valuestring, "prefill") == 0 ? 1
                                                            : -1;
        if (k < 0)
            continue;
        struct calibration_shape *sh = &c->fit_shape[k];
        uint64_t u = (uint64_t)users->valuedouble, n = (uint64_t)in->valuedouble;
        if (sh->users_max == 0) {
            sh->users_min = sh->users_max = u;
            sh->prompt_min = sh->prompt_max = n;
            continue;
        }
        sh->users_min = u < sh->users_min ? u : sh->users_min;
        sh->users_max = u > sh->users_max ? u : sh->users_max;
        sh->prompt_min = n < sh->prompt_min ? n : sh->prompt_min;
        sh->prompt_max = n > sh->prompt_max ? n : sh->prompt_max;
    }
}

void calibration_source_of(const struct calibration_origin *o, struct calibration_source *c)
{
    memset(c, 0, sizeof *c);
    c->memory = o->memory;
    c->speed = o->speed;
    snprintf(c->gpu_id, sizeof c->gpu_id, "%s", o->gpu_id);
    snprintf(c->gpu_name, sizeof c->gpu_name, "%s", o->gpu_name);
    c->gpu_assumed = o->gpu_assumed;
    snprintf(c->model, sizeof c->model, "%s", o->model);
    c->engine = o->engine;
    c->rule = o->rule;
    c->kv_memory_bytes = o->kv_logged;
    c->gpu_total_bytes = o->gpu_total;
    c->non_kv_bytes = o->non_kv;
    c->utilization = o->utilization;
    c->mem_fraction = o->mem_fraction;
    snprintf(c->version, sizeof c->version, "%s", o->version);
    c->tp = o->tp;
    c->weight = o->weight;
    c->weight_known = o->weight_known;
}

bool calibration_apply(const char *path, struct scenario *s, struct calibration_source *src,
                       struct diag *d)
{
    memset(src, 0, sizeof *src);
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    cJSON *root = jsonread_parse(path, text, len, d);
    struct jsonread r = {path, text, len, 0, ""};
    bool ok = root != NULL && header(&r, root, src, d);
    const cJSON *speed = ok ? cJSON_GetObjectItemCaseSensitive(root, "speed") : NULL;
    src->speed = speed != NULL && !cJSON_IsNull(speed);
    /* a file of a benchmark alone holds no memory part */
    bool has_memory = jsonread_has(root, "figures") || jsonread_has(root, "gpu_total_bytes") ||
                      jsonread_has(root, "non_kv_bytes") || !src->speed;
    if (ok) {
        s->engine.kind = src->engine;
        s->engine.rule = src->rule;
    }
    ok = ok && (!has_memory || memory(&r, root, src, s, d));
    if (ok && src->speed) {
        struct jsonread sr = jsonread_child(&r, "speed", "speed.");
        ok = calibration_speed_read(&sr, speed, src->gpu_name, s, d) &&
             jsonread_u32(&sr, speed, "tp", false, 1, GPUS_MAX, &src->tp, d) &&
             jsonread_string(&sr, speed, "engine_version", false, src->version,
                             sizeof src->version, d);
        if (ok)
            fit_shape(speed, src);
    }
    if (ok) {
        origin(src, s);
        /* the path as given (the copy line gives it back); one too long for
         * the scenario, or with controls, is not kept */
        if (strlen(path) < sizeof s->calibration_from.file &&
            !text_sanitize(path, s->calibration_from.file, sizeof s->calibration_from.file))
            snprintf(s->calibration_from.file, sizeof s->calibration_from.file, "%s", path);
        else
            s->calibration_from.file[0] = '\0';
    }
    cJSON_Delete(root);
    free(text);
    return ok;
}
