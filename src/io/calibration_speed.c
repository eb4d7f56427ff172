/* calibration_speed: the speed part of a calibration file, what kvplan
 * calibrate fitted on a benchmark (core/speedfit.h), written and read back
 * onto a scenario. */
#include "calibration.h"

#include <stdio.h>
#include <string.h>

#include "core/engine_desc.h"
#include "core/text.h"
#include "io/jsonout.h"
#include "io/jsonread.h"

/* One measured figure against kvplan's step with the fitted values. */
static cJSON *point_json(const struct fit_point *p, const char *label)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "figure", label);
    jsonout_string(&o, "kind", p->kind == FIT_DECODE ? "decode" : "prefill");
    jsonout_uint(&o, "concurrency", p->concurrency);
    jsonout_uint(&o, "input_tokens", p->input_tokens);
    jsonout_uint(&o, "output_tokens", p->output_tokens);
    if (p->depth)
        jsonout_uint(&o, "depth", p->depth);
    jsonout_double(&o, "measured_seconds", p->measured_s);
    jsonout_double(&o, "predicted_seconds", p->predicted_s);
    jsonout_string(&o, "binds", p->compute_binds ? "compute" : "memory");
    if (p->waited) /* queued behind the others' steps: not fitted on */
        jsonout_bool(&o, "waited", true);
    return jsonout_end(&o);
}

static const char *const band_names[2] = {"decode", "first_token"};

cJSON *calibration_band_json(const struct calibration_band bands[2])
{
    struct jsonout band = jsonout_begin();
    for (int i = 0; i < 2; i++) {
        const struct calibration_band *b = &bands[i];
        if (b->points == 0)
            continue;
        struct jsonout one = jsonout_begin();
        jsonout_uint(&one, "points", b->points);
        jsonout_double(&one, "residual_min", b->residual_min);
        jsonout_double(&one, "residual_max", b->residual_max);
        jsonout_bool(&one, "stated", b->stated);
        if (b->stated)
            jsonout_double(&one, "stated_band", CALIBRATION_BAND_STATED);
        jsonout_object(&band, band_names[i], jsonout_end(&one));
    }
    return jsonout_end(&band);
}

bool calibration_band_read(const struct jsonread *r, const cJSON *band, const char *prefix,
                           struct calibration_band bands[2], struct diag *d)
{
    memset(bands, 0, 2 * sizeof bands[0]);
    if (band == NULL || cJSON_IsNull(band))
        return true;
    if (!cJSON_IsObject(band))
        return jsonread_fail(r, d, "band: expected an object");
    char at[64];
    snprintf(at, sizeof at, "%s", prefix);
    struct jsonread bandr = jsonread_child(r, "band", at);
    bool ok = true;
    for (int i = 0; ok && i < 2; i++) {
        const cJSON *one = cJSON_GetObjectItemCaseSensitive(band, band_names[i]);
        if (one == NULL || cJSON_IsNull(one))
            continue;
        char inner[96];
        snprintf(inner, sizeof inner, "%s%s.", prefix, band_names[i]);
        struct jsonread br = jsonread_child(&bandr, band_names[i], inner);
        struct calibration_band *b = &bands[i];
        ok = jsonread_u32(&br, one, "points", true, 1, FIT_POINTS_MAX, &b->points, d) &&
             jsonread_double(&br, one, "residual_min", true, -0.99, 100, &b->residual_min, d) &&
             jsonread_double(&br, one, "residual_max", true, -0.99, 100, &b->residual_max, d) &&
             jsonread_bool(&br, one, "stated", false, &b->stated, d);
        if (ok && b->residual_min > b->residual_max)
            ok = jsonread_fail(&br, d, "residual_min: %g is above residual_max %g",
                               b->residual_min, b->residual_max);
    }
    return ok;
}

static cJSON *speed_json(const struct speed_calibration *c)
{
    const struct fit_result *f = c->fit;
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "benchmark", c->benchmark);
    jsonout_string(&o, "benchmark_output", c->output);
    jsonout_string(&o, "benchmark_file", c->benchmark_path);
    cJSON *files = cJSON_CreateArray(); /* every file fitted on, in the order given */
    for (int i = 0; files && i < c->benchmark_files; i++) {
        cJSON *name = cJSON_CreateString(c->benchmark_paths[i]);
        if (name == NULL || !cJSON_AddItemToArray(files, name)) {
            cJSON_Delete(name);
            cJSON_Delete(files);
            files = NULL;
        }
    }
    jsonout_object(&o, "benchmark_files", files);
    if (c->benchmark_date)
        jsonout_string(&o, "benchmark_date", c->benchmark_date);
    if (c->engine_version)
        jsonout_string(&o, "engine_version", c->engine_version);
    jsonout_string(&o, "date", c->date);
    jsonout_uint(&o, "tp", c->tp);
    jsonout_uint(&o, "pp", c->pp);
    jsonout_double(&o, "mbu", f->mbu);
    jsonout_string(&o, "mbu_from", c->from[0]);
    /* fitted, or held at the --mfu given; else the default stays kvplan's */
    jsonout_double_or_null(&o, "mfu", f->mfu, f->mfu_fitted || (c->fixed & SPEED_CAL_MFU));
    jsonout_string(&o, "mfu_from", c->from[1]);
    jsonout_double(&o, "step_overhead_seconds", f->overhead_s);
    jsonout_string(&o, "step_overhead_from", c->from[2]);
    jsonout_double(&o, "rms_residual", f->rms);
    /* each figure's band: the spread of its fitted points' residuals */
    jsonout_object(&o, "band", calibration_band_json(c->bands));
    cJSON *points = cJSON_CreateArray();
    for (int i = 0; points && i < c->npoints; i++) {
        cJSON *p = point_json(&c->points[i], c->labels[i]);
        if (p == NULL || !cJSON_AddItemToArray(points, p)) {
            cJSON_Delete(p);
            cJSON_Delete(points);
            points = NULL;
        }
    }
    jsonout_object(&o, "points", points);
    return jsonout_end(&o);
}

bool calibration_save_speed(const char *path, const struct speed_calibration *c, struct diag *d)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", "kvplan-calibration");
    jsonout_uint(&o, "format_version", 2);
    jsonout_string(&o, "engine", engine_label(c->engine, c->rule));
    jsonout_string(&o, "model", c->model_id);
    jsonout_string(&o, "gpu", c->gpu->id);
    jsonout_string(&o, "gpu_name", c->gpu->name);
    /* the weights' precision the fit ran at: a plan at another is warned */
    jsonout_string(&o, "weight_dtype", c->weight == DTYPE_AUTO ? "auto" : dtype_info(c->weight)->name);
    if (c->gpu_assumed) /* no --gpu, and no GPU in the benchmark's output */
        jsonout_bool(&o, "gpu_assumed", true);
    jsonout_object(&o, "speed", speed_json(c));
    return calibration_write(path, jsonout_end(&o), d);
}

bool calibration_speed_read(const struct jsonread *r, const cJSON *speed, const char *gpu_name,
                            struct scenario *s, struct diag *d)
{
    if (!cJSON_IsObject(speed))
        return jsonread_fail(r, d, "speed: expected an object");
    char bench[64] = "", version[64] = "", date[32] = "";
    double mbu = 0, mfu = 0, overhead = 0;
    bool ok = jsonread_string(r, speed, "benchmark", true, bench, sizeof bench, d) &&
              jsonread_string(r, speed, "engine_version", false, version, sizeof version, d) &&
              jsonread_string(r, speed, "date", false, date, sizeof date, d) &&
              jsonread_double(r, speed, "mbu", true, 0.01, 1.0, &mbu, d) &&
              jsonread_double(r, speed, "mfu", false, 0.01, 1.0, &mfu, d) &&
              jsonread_double(r, speed, "step_overhead_seconds", true, 0, STEP_OVERHEAD_MAX_S,
                              &overhead, d);
    /* the fit's own band (absent from an older kvplan's file: no band) */
    ok = ok && calibration_band_read(r, cJSON_GetObjectItemCaseSensitive(speed, "band"),
                                     "speed.band.", s->calibration_band, d);
    if (!ok)
        return false;
    s->mbu = mbu;
    s->speed_calibrated = SPEED_CAL_MBU | SPEED_CAL_OVERHEAD;
    if (mfu > 0) {
        s->mfu = mfu;
        s->speed_calibrated |= SPEED_CAL_MFU;
    }
    s->has_step_overhead = true;
    s->step_overhead_s = overhead;
    /* "vllm bench serve on NVIDIA H100 SXM5 80GB, vLLM 0.10.1, 2025-06-02" */
    char basis[sizeof s->speed_basis];
    const char *engine = engine_desc(s->engine.kind)->title;
    snprintf(basis, sizeof basis, "%s%s%s, %s%s%s%s%s", bench, gpu_name[0] ? " on " : "",
             gpu_name, engine, version[0] ? " " : ", version unknown", version,
             date[0] ? ", " : "", date);
    text_sanitize(basis, s->speed_basis, sizeof s->speed_basis); /* a file's words: no controls */
    return true;
}
