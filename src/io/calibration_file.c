/* calibration_file: the calibration file of a startup log's memory, read
 * back onto a scenario with its speed part (calibration_speed.c), and the
 * checks once the options given on top of it are applied. */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/policy.h"
#include "core/text.h"
#include "io/catalog.h"
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

/* The pool kvplan's rule gives s, less any shortfall. */
static bool rule_pool(const struct scenario *s, double *pool, struct diag *d)
{
    static struct scenario at;
    static struct plan_result r;
    at = *s;
    at.engine.kv_memory_bytes = 0;
    if (!plan_compute(&at, PLAN_NUMBERS, NULL, &r, d))
        return false;
    *pool = (double)r.kv_pool_bytes_per_gpu - (double)r.shortfall_bytes_per_gpu;
    return true;
}

/* Another GPU: its absolute bytes do not transfer. A logged total is that
 * GPU's (the non-KV memory, which does not depend on the GPU's size, stays);
 * a logged cache size keeps only how far it is from kvplan's rule there. */
static bool other_gpu(const struct calibration_source *c, const struct gpu_spec *measured,
                      bool same_gpu, struct scenario *s, char *note, size_t size, struct diag *d)
{
    struct engine_flags *f = &s->engine;
    if (!same_gpu && f->gpu_total_bytes && f->gpu_total_bytes == c->gpu_total_bytes) {
        f->gpu_total_bytes = 0;
        snprintf(note, size, "only its non-KV memory (%.2f GiB) is applied, with this GPU's "
                 "own total", (double)f->non_kv_bytes / 1073741824.0);
        return true;
    }
    if (!c->kv_memory_bytes || f->kv_memory_bytes != c->kv_memory_bytes)
        return true; /* no logged cache size, or --kv-memory given on top of it */
    double p0 = 0, p1 = 0;
    struct scenario there = *s;
    if (measured) {
        there.gpu = *measured;
        there.engine.gpu_memory_utilization = c->utilization;
        there.engine.mem_fraction_static = c->mem_fraction;
        there.engine.free_gpu_memory_fraction = 0;
        if (c->tp) { /* the log's own split: its pool is of that layout's weights */
            there.tp = c->tp;
            there.gpus = c->tp;
            there.pp = 0;
        }
    }
    if (measured && (!rule_pool(&there, &p0, d) || !rule_pool(s, &p1, d)))
        return false;
    double kv = (double)c->kv_memory_bytes - p0 + p1;
    if (measured == NULL || kv < 1) {
        f->kv_memory_bytes = 0;
        snprintf(note, size, "its KV cache of %.2f GiB is not applied (%s): planned from %s's "
                 "own rule", (double)c->kv_memory_bytes / 1073741824.0,
                 measured ? "what it differs by from kvplan's rule there leaves no pool here"
                          : "that GPU is not in the catalogue",
                 engine_desc(s->engine.kind)->title);
        return true;
    }
    f->kv_memory_bytes = (uint64_t)kv;
    snprintf(note, size, "only its difference from kvplan's rule there (%+.2f GiB, the non-KV "
             "memory the log implies) is applied: KV cache %.2f GiB here",
             ((double)c->kv_memory_bytes - p0) / 1073741824.0, kv / 1073741824.0);
    return true;
}

bool calibration_other_layout(const struct calibration_source *c, const struct scenario *s)
{
    bool gpu = c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0;
    /* the log's tensor parallel, when stated, against the plan's (or, with the
     * layout searched, the GPUs it has) */
    bool tp = c->tp && (s->tp ? s->tp : s->gpus) != c->tp;
    return c->memory && (gpu || tp);
}

/* Another engine: its budget is not this one's. The log's cache size and
 * its memory outside the cache are its own rule's (not applied: the plan is
 * this engine's rule); the GPU's total it saw is the GPU's, kept on the same
 * GPU. */
static bool other_engine(const struct calibration_source *c, struct scenario *s, char *note,
                         size_t size)
{
    struct engine_flags *f = &s->engine;
    bool kv = c->kv_memory_bytes && f->kv_memory_bytes == c->kv_memory_bytes;
    bool non = c->non_kv_bytes && f->non_kv_bytes == c->non_kv_bytes;
    bool gpu = c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0;
    bool total = gpu && c->gpu_total_bytes && f->gpu_total_bytes == c->gpu_total_bytes;
    if (kv)
        f->kv_memory_bytes = 0;
    if (non)
        f->non_kv_bytes = 0;
    if (total)
        f->gpu_total_bytes = 0;
    if (kv || non)
        snprintf(note, size, "its %s%s%s, %s's budget, %s not applied: planned from %s's own "
                 "rule%s", kv ? "KV cache" : "", kv && non ? " and " : "",
                 non ? "memory outside the cache" : "", engine_desc(c->engine)->title,
                 kv && non ? "are" : "is", engine_desc(s->engine.kind)->title,
                 c->gpu_total_bytes && !gpu && f->gpu_total_bytes ? ", with the GPU's logged total"
                                                                  : "");
    return true;
}

bool calibration_fraction_on_top(const struct calibration_source *c,
                                 const struct gpu_spec *measured, struct scenario *s, char *note,
                                 size_t size, struct diag *d)
{
    note[0] = '\0';
    struct engine_flags *f = &s->engine;
    if (c->memory && c->engine != s->engine.kind)
        return other_engine(c, s, note, size);
    if (calibration_other_layout(c, s)) {
        bool same = !(c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0);
        return other_gpu(c, same ? &s->gpu : measured, same, s, note, size, d);
    }
    if (!c->kv_memory_bytes || f->kv_memory_bytes != c->kv_memory_bytes)
        return true; /* no logged cache size, or --kv-memory given on top of it */
    /* a fraction not given here is the log's: the plan runs as the log's
     * server ran (its launch line says so), nothing moves */
    if (f->gpu_memory_utilization == 0 && c->utilization > 0)
        f->gpu_memory_utilization = c->utilization;
    if (f->mem_fraction_static == 0 && c->mem_fraction > 0)
        f->mem_fraction_static = c->mem_fraction;
    /* the fractions the log ran at (0: the engine's default) */
    struct engine_flags at = *f;
    at.gpu_memory_utilization = c->utilization;
    at.mem_fraction_static = c->mem_fraction;
    at.free_gpu_memory_fraction = 0;
    /* the weights' precision it ran at: another given here moves the cache
     * by what the weights free or take (the engine's budget holds both) */
    bool weights = c->weight_known && s->weight_dtype != c->weight;
    if (!weights && at.gpu_memory_utilization == f->gpu_memory_utilization &&
        at.mem_fraction_static == f->mem_fraction_static &&
        at.free_gpu_memory_fraction == f->free_gpu_memory_fraction)
        return true;
    static struct scenario base;
    base = *s;
    base.engine = at;
    if (weights)
        base.weight_dtype = c->weight;
    double p0, p1;
    if (!rule_pool(&base, &p0, d) || !rule_pool(s, &p1, d))
        return false;
    double kv = (double)c->kv_memory_bytes + p1 - p0;
    f->kv_memory_bytes = kv >= 1 ? (uint64_t)kv : 1; /* none left: nothing fits */
    snprintf(note, size, "the calibration's KV cache of %.2f GiB (at the log's %s) becomes %.2f "
             "GiB at the %s given, moved by %+.2f GiB as %s's budget moves",
             (double)c->kv_memory_bytes / 1073741824.0,
             weights ? "weights' precision and memory fraction" : "memory fraction",
             (double)f->kv_memory_bytes / 1073741824.0, weights ? "precision and fraction" : "fraction",
             (p1 - p0) / 1073741824.0, engine_desc(s->engine.kind)->title);
    return true;
}

void calibration_follow(const struct catalog *cat, const struct scenario *before,
                        struct scenario *s)
{
    struct calibration_origin *o = &s->calibration_from;
    if (!o->present || !o->memory)
        return;
    /* the cache and total are still the calibration's (not --kv-memory's,
     * or a snapshot's, or changed in this step): moved again from the log's */
    bool kv = o->kv_logged && before->engine.kv_memory_bytes == before->calibration_from.kv_applied &&
              s->engine.kv_memory_bytes == before->engine.kv_memory_bytes;
    bool total = o->gpu_total &&
                 (before->engine.gpu_total_bytes == o->gpu_total ||
                  before->engine.gpu_total_bytes == 0) && /* dropped on another GPU */
                 s->engine.gpu_total_bytes == before->engine.gpu_total_bytes;
    if (!kv && !total)
        return;
    struct calibration_source c;
    calibration_source_of(o, &c);
    if (!kv)
        c.kv_memory_bytes = 0;
    if (!total)
        c.gpu_total_bytes = 0;
    const struct catalog_gpu *g = o->gpu_id[0] ? catalog_find_gpu(cat, o->gpu_id) : NULL;
    static struct scenario at;
    at = *s;
    if (kv)
        at.engine.kv_memory_bytes = o->kv_logged;
    if (total)
        at.engine.gpu_total_bytes = o->gpu_total;
    char note[512];
    struct diag d = {0};
    if (!calibration_fraction_on_top(&c, g ? &g->spec : NULL, &at, note, sizeof note, &d))
        return; /* no plan to move it by: as it was */
    *s = at;
    if (kv)
        s->calibration_from.kv_applied = s->engine.kv_memory_bytes;
}

bool calibration_slots_check(const struct calibration_source *c, const struct scenario *s,
                             char *note, size_t size, struct diag *d)
{
    note[0] = '\0';
    if (!c->memory || !engine_desc(c->engine)->fixed_slots || !c->kv_memory_bytes ||
        !c->log_cells || s->engine.kv_memory_bytes || s->engine.non_kv_bytes)
        return true; /* nothing logged of the cache's size, or --kv-memory given */
    /* kvplan's cache of the log's own -c, -np and cache types (the plan's
     * where the file names none) */
    static struct scenario at;
    static struct plan_result r;
    at = *s;
    if (c->cache_k != DTYPE_AUTO) {
        at.kv_dtype = c->cache_k;
        at.engine.v_dtype = c->cache_v != DTYPE_AUTO && c->cache_v != c->cache_k ? c->cache_v
                                                                                  : DTYPE_AUTO;
    }
    uint32_t np = c->parallel ? c->parallel : 1;
    at.engine.parallel = np;
    at.context_tokens = c->log_cells / np;
    at.avg_context_tokens = 0;
    at.prefix_tokens = 0;
    struct diag quiet = {0};
    if (at.context_tokens == 0 || !plan_compute(&at, PLAN_NUMBERS, NULL, &r, &quiet))
        return true; /* no plan of the log's layout to set it against */
    (void)d;
    double rule = (double)r.engine.unit_bytes * (double)r.engine.units;
    double logged = (double)c->kv_memory_bytes;
    /* the log prints MiB with two decimals: a difference within 0.5% is its rounding */
    if (rule > 0 && fabs(logged - rule) <= 0.005 * rule)
        return true;
    char kt[16];
    enum dtype tk = at.kv_dtype != DTYPE_AUTO ? at.kv_dtype : engine_desc(c->engine)->cache_default;
    if (tk == DTYPE_AUTO)
        tk = DTYPE_FP16;
    enum dtype tv = at.engine.v_dtype != DTYPE_AUTO ? at.engine.v_dtype : tk;
    snprintf(kt, sizeof kt, "%s", dtype_info(tk)->name);
    snprintf(note, size, "the log's KV cache of %.2f GiB for %llu cells (%.0f B a cell) is not "
             "what %s's rule gives for them at %s cache types (K %s, V %s): %.2f GiB "
             "(%.0f B a cell); the plan sizes its cache by the rule from its own --context and "
             "--parallel (check the model and --kv-dtype)",
             logged / 1073741824.0, (unsigned long long)c->log_cells,
             logged / (double)c->log_cells, engine_desc(c->engine)->title,
             c->cache_k != DTYPE_AUTO ? "the log's" : "the plan's", kt,
             dtype_info(tv)->name, rule / 1073741824.0,
             r.engine.units ? rule / (double)r.engine.units : 0.0);
    return true;
}

bool calibration_total_check(uint64_t logged, const struct scenario *s, char *note, size_t size)
{
    note[0] = '\0';
    if (logged == 0)
        return true;
    static struct scenario preset;
    preset = *s;
    preset.engine.gpu_total_bytes = 0;
    uint64_t own = policy_cuda_total(&preset);
    /* a driver's or a MIG slice's few percent aside, the log ran on another card */
    if (own == 0 || fabs((double)logged - (double)own) <= 0.03 * (double)own)
        return true;
    snprintf(note, size, "the log's own CUDA-visible GPU memory is %.2f GiB, the %s preset's "
             "(%s) %.2f GiB: the log was not run on that GPU (give calibrate --gpu the log's "
             "GPU, or plan on it)",
             (double)logged / 1073741824.0, s->gpu.name, s->gpu.id, (double)own / 1073741824.0);
    return false;
}
