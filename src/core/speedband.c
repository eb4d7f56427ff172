#include "speedband.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibration_origin.h"
#include "engine_desc.h"
#include "speedfamily.h"

const char *speedband_basis_name(enum speedband_basis b)
{
    switch (b) {
    case SPEEDBAND_FITTED:
        return "fitted";
    case SPEEDBAND_CALIBRATED:
        return "calibrated";
    case SPEEDBAND_GIVEN:
        return "given";
    default:
        return "default";
    }
}

static const struct speedband_spread *spread_of(const struct speedband_entry *e,
                                                enum speedband_figure figure)
{
    return figure == SPEEDBAND_TTFT ? &e->ttft : &e->decode;
}

/* The entry of (family, engine, kind) with a band of the figure, or NULL. */
static const struct speedband_entry *entry_of(const struct speedband_entry *table, size_t n,
                                              const char *family, const char *engine, bool moe,
                                              enum speedband_figure figure)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].moe == moe && strcmp(table[i].family, family) == 0 &&
            strcmp(table[i].engine, engine) == 0)
            return spread_of(&table[i], figure)->cases >= SPEEDBAND_MIN_CASES ? &table[i] : NULL;
    return NULL;
}

/* No band: 1 and 1, nothing measured. */
static struct speed_band band_none(const struct speedband_key *key, enum speedband_figure figure)
{
    struct speed_band b;
    memset(&b, 0, sizeof b); /* its padding too: a plan is compared byte for byte */
    b.basis = SPEEDBAND_DEFAULT;
    b.low = b.high = 1;
    b.moe = key->moe;
    b.figure = figure;
    return b;
}

struct speed_band speedband_find(const struct speedband_entry *table, size_t n,
                                 const struct speedband_key *key, enum speedband_figure figure)
{
    struct speed_band b = band_none(key, figure);
    bool family = key->family && key->family[0];
    const struct speedband_entry *e = NULL;
    const char *title = NULL;
    if (family && key->engine && key->engine[0]) {
        e = entry_of(table, n, key->family, key->engine, key->moe, figure);
        title = key->engine_title;
    }
    if (e == NULL && family) {
        e = entry_of(table, n, key->family, "", key->moe, figure);
        title = NULL; /* every engine of the family */
    }
    if (e == NULL) /* every family, every engine */
        e = entry_of(table, n, "", "", key->moe, figure);
    b.banded = true;
    if (e == NULL) { /* too few cases of the kind anywhere: the stated band */
        b.low = SPEEDBAND_WIDE_LOW;
        b.high = SPEEDBAND_WIDE_HIGH;
        return b;
    }
    const struct speedband_spread *sp = spread_of(e, figure);
    b.low = sp->low;
    b.high = sp->high;
    b.cases = sp->cases;
    b.held_out = sp->held_out;
    b.family = e->family;
    b.engine_title = title;
    b.engines = sp->engines;
    b.models = sp->models;
    return b;
}

/* A calibration's: the spread of its own fit (the step time's residuals as
 * ratios of the figure: a decode speed is per second, so 1 / (1 + r)), each
 * taken with 1 and never inside CALIBRATION_BAND_FLOOR either side (the
 * residuals are in-sample: a fit of two values on three points leaves
 * almost none, which says nothing of the error on another context); none
 * from a file that holds no residuals. */
static struct speed_band calibrated(const struct scenario *s, const struct speedband_key *key,
                                    enum speedband_figure figure)
{
    struct speed_band b = band_none(key, figure);
    b.basis = SPEEDBAND_CALIBRATED;
    const struct calibration_band *c = &s->calibration_band[figure == SPEEDBAND_TTFT];
    /* an option on top (--mbu, --step-overhead) replaced part of the fit: its
     * residuals are not this figure's */
    bool whole = figure == SPEEDBAND_TTFT ||
                 (s->speed_calibrated & (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD)) ==
                     (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD);
    if (c->points == 0 || !whole || !(c->residual_min > -1 && c->residual_max > -1))
        return b;
    double lo = figure == SPEEDBAND_TTFT ? 1 + c->residual_min : 1 / (1 + c->residual_max);
    double hi = figure == SPEEDBAND_TTFT ? 1 + c->residual_max : 1 / (1 + c->residual_min);
    if (c->stated) {
        lo = 1 - CALIBRATION_BAND_STATED;
        hi = 1 + CALIBRATION_BAND_STATED;
    }
    b.floored = lo > 1 - CALIBRATION_BAND_FLOOR || hi < 1 + CALIBRATION_BAND_FLOOR;
    b.low = lo < 1 - CALIBRATION_BAND_FLOOR ? lo : 1 - CALIBRATION_BAND_FLOOR;
    b.high = hi > 1 + CALIBRATION_BAND_FLOOR ? hi : 1 + CALIBRATION_BAND_FLOOR;
    b.cases = c->points;
    b.stated = c->stated;
    b.banded = true;
    return b;
}

/* A ratio as a change from the prediction, whole percent: 0.85 "-15%". */
static long percent(double ratio)
{
    return lround((ratio - 1.0) * 100.0);
}

static const char *kind_name(const struct speed_band *b)
{
    return b->moe ? "MoE" : "dense";
}

void speedband_group(const struct speed_band *b, char *buf, size_t size)
{
    if (b->basis == SPEEDBAND_CALIBRATED && b->banded && !b->elsewhere)
        snprintf(buf, size, "%s", "the calibration's own fit");
    else if (!b->banded || b->family == NULL || b->cases == 0)
        snprintf(buf, size, "%s", "");
    else if (b->family[0] == '\0')
        snprintf(buf, size, "%s, every GPU family", kind_name(b));
    else
        snprintf(buf, size, "%s %s%s%s", kind_name(b), b->family, b->engine_title ? "/" : "",
                 b->engine_title ? b->engine_title : "");
}

/* "; default MBU", "; MFU given" or "" after a band */
static const char *basis_words(const struct speed_band *b)
{
    bool ttft = b->figure == SPEEDBAND_TTFT;
    if (b->basis == SPEEDBAND_DEFAULT)
        return ttft ? "; default MFU" : "; default MBU";
    if (b->basis == SPEEDBAND_GIVEN)
        return ttft ? "; MFU given" : b->overhead_given ? "; step overhead given" : "; MBU given";
    return "";
}

/* Whether `list` ("NIM, vLLM") names `title`, whole */
static bool list_names(const char *list, const char *title)
{
    size_t n = strlen(title);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, title, n) == 0)
            return true;
        p = end ? end + 2 : NULL;
    }
    return false;
}

/* The band's cases are of other models than `model` (a preset id). */
static bool other_models(const struct speed_band *b, const char *model)
{
    return b->models && b->models[0] && model[0] && !list_names(b->models, model);
}

void speedband_of_scenario(struct speed_band *b, const struct scenario *s)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    b->plan_engine = e->server ? e->title : NULL; /* the generic rule: none */
    b->other_models = other_models(b, s->model.id);
}

bool speedband_borrowed(const struct speed_band *b)
{
    return b->banded && b->cases > 0 && b->engine_title == NULL && b->plan_engine != NULL &&
           b->engines != NULL && !list_names(b->engines, b->plan_engine);
}

/* After a band of every engine: " under NIM, vLLM" (a family's) and, when
 * borrowed, "; none under llama.cpp"; "" for a pair's band. */
static void engines_words(const struct speed_band *b, char *buf, size_t size)
{
    buf[0] = '\0';
    if (b->engine_title != NULL || b->engines == NULL || b->engines[0] == '\0')
        return;
    bool family = b->family[0] != '\0';
    if (speedband_borrowed(b))
        snprintf(buf, size, "%s%s; none under %s", family ? " under " : "",
                 family ? b->engines : "", b->plan_engine);
    else if (family)
        snprintf(buf, size, " under %s", b->engines);
}

/* A band measured on other models than the plan's, dense or MoE: ";
 * measured on deepseek-v3", "; measured on llama-2-7b, llama-3.2-3b" (a
 * model's speed is its own: an expert layer's, a dense model's bytes and
 * kernels); "" otherwise. */
static void models_words(const struct speed_band *b, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!b->other_models || b->models == NULL)
        return;
    snprintf(buf, size, "; measured on %s", b->models);
}

void speedband_text(const struct speed_band *b, char *buf, size_t size)
{
    if (b->elsewhere || b->replaced) { /* the public cases' band, and why */
        struct speed_band p = *b;
        p.elsewhere = p.replaced = false;
        p.basis = b->replaced ? SPEEDBAND_GIVEN : SPEEDBAND_FITTED;
        char inner[320];
        speedband_text(&p, inner, sizeof inner);
        snprintf(buf, size, "%s: %s",
                 b->replaced ? "an option on top (--mbu, --mfu or --step-overhead) replaced part "
                               "of the calibration's fit, so its own band does not hold: the "
                               "public cases' band"
                             : "calibrated on another GPU, model, engine, TP, weight precision, "
                               "users or prompt than this plan's (the warning says which), where "
                               "its own band does not hold: the public cases' band",
                 inner);
        return;
    }
    if (!b->banded) {
        snprintf(buf, size, "%s",
                 b->basis == SPEEDBAND_CALIBRATED
                     ? "calibrated; no band: its file holds no residuals (an older kvplan "
                       "wrote it: calibrate again for one), or an option given on top "
                       "replaced part of its fit"
                     : "default: no measurement behind it");
        return;
    }
    if (b->basis == SPEEDBAND_CALIBRATED && b->stated) {
        snprintf(buf, size, "calibrated, %+ld%% to %+ld%%: a stated band, the fit has %lu "
                 "point%s, too few to show a spread", percent(b->low), percent(b->high),
                 (unsigned long)b->cases, b->cases == 1 ? "" : "s");
        return;
    }
    if (b->basis == SPEEDBAND_CALIBRATED) {
        snprintf(buf, size, "calibrated, %+.1f%% to %+.1f%% over the fit's %lu measured points%s",
                 100 * (b->low - 1), 100 * (b->high - 1), (unsigned long)b->cases,
                 b->floored ? ", widened to at least 10% either side: in-sample residuals "
                              "understate the error" : "");
        return;
    }
    if (b->family == NULL || b->cases == 0) {
        snprintf(buf, size, "%+ld%% to %+ld%%: a stated band, fewer than %d %s cases measured%s",
                 percent(b->low), percent(b->high), SPEEDBAND_MIN_CASES, kind_name(b),
                 basis_words(b));
        return;
    }
    char group[SPEEDBAND_GROUP_MAX], engines[SPEEDBAND_GROUP_MAX], models[SPEEDBAND_GROUP_MAX];
    speedband_group(b, group, sizeof group);
    engines_words(b, engines, sizeof engines);
    models_words(b, models, sizeof models);
    if (b->family[0] == '\0')
        snprintf(buf, size, "%+ld%% to %+ld%% over %lu %s cases of every GPU family%s%s%s",
                 percent(b->low), percent(b->high), (unsigned long)b->cases, kind_name(b),
                 engines, models, basis_words(b));
    else
        snprintf(buf, size, "%+ld%% to %+ld%% over %lu %s case%s%s%s%s", percent(b->low),
                 percent(b->high), (unsigned long)b->cases, group, b->cases == 1 ? "" : "s",
                 engines, models, basis_words(b));
}

/* A MoE model on a family whose expert reads are fitted (core/speedfamily.h):
 * most of its step's bytes rest on that fit. */
static bool experts_fitted(const struct scenario *s, bool moe)
{
    return moe && speed_family_terms(s->gpu.family)->expert_mbu > 0;
}

/* What a figure's fraction rests on: a calibration's bit, an option, the
 * preset's fitted figure (its MBU, Apple silicon's compute rate measured
 * in llama.cpp prefill, or llama.cpp's prefill MFU on an NVIDIA GPU where
 * its pp512 was measured: achievable_mfu) or its family's fitted expert
 * reads, or the default. */
static enum speedband_basis basis_of(const struct scenario *s, enum speedband_figure figure,
                                     bool moe)
{
    if (figure == SPEEDBAND_TTFT)
        return (s->speed_calibrated & SPEED_CAL_MFU) ? SPEEDBAND_CALIBRATED
               : s->mfu > 0                          ? SPEEDBAND_GIVEN
               : s->gpu.tflops_bf16 <= 0 && s->gpu.tflops_measured > 0 ? SPEEDBAND_FITTED
               : speed_default_mfu(s) != SPEED_DEFAULT_MFU ? SPEEDBAND_FITTED /* llama.cpp's */
                                                     : SPEEDBAND_DEFAULT;
    return (s->speed_calibrated & (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD)) ? SPEEDBAND_CALIBRATED
           : s->mbu > 0                                                 ? SPEEDBAND_GIVEN
           : s->gpu.achievable_mbu > 0 || experts_fitted(s, moe)        ? SPEEDBAND_FITTED
                                                                        : SPEEDBAND_DEFAULT;
}

/* *dst = *src field by field over zeroed memory: a struct copy may leave
 * its padding as it was, and a plan is compared byte for byte. */
static void band_set(struct speed_band *dst, const struct speed_band *src)
{
    memset(dst, 0, sizeof *dst);
    dst->basis = src->basis;
    dst->low = src->low;
    dst->high = src->high;
    dst->cases = src->cases;
    dst->held_out = src->held_out;
    dst->family = src->family;
    dst->engine_title = src->engine_title;
    dst->engines = src->engines;
    dst->plan_engine = src->plan_engine;
    dst->models = src->models;
    dst->other_models = src->other_models;
    dst->moe = src->moe;
    dst->banded = src->banded;
    dst->stated = src->stated;
    dst->floored = src->floored;
    dst->elsewhere = src->elsewhere;
    dst->replaced = src->replaced;
    dst->overhead_given = src->overhead_given;
    dst->figure = src->figure;
}

void speedband_lookup(const struct scenario *s, struct speed_bands *out)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    struct speedband_key key = {s->gpu.family, e->name, e->title,
                                s->model.experts > 0 &&
                                    s->model.experts_per_token < s->model.experts};
    struct speed_band d = speedband_find(speedband_table, speedband_table_count, &key,
                                         SPEEDBAND_DECODE);
    struct speed_band f = speedband_find(speedband_table, speedband_table_count, &key,
                                         SPEEDBAND_TTFT);
    speedband_of_scenario(&d, s);
    speedband_of_scenario(&f, s);
    d.basis = basis_of(s, SPEEDBAND_DECODE, key.moe);
    f.basis = basis_of(s, SPEEDBAND_TTFT, key.moe);
    /* a calibration's figures rest on the user's own benchmark, not on the
     * public cases: no band of theirs (the fit's residuals are in its file) */
    bool elsewhere = calibration_origin_speed_elsewhere(s);
    /* an option on top replaced part of the decode fit: that figure is given */
    bool replaced = d.basis == SPEEDBAND_CALIBRATED &&
                    (s->speed_calibrated & (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD)) !=
                        (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD);
    if (replaced) {
        d.basis = SPEEDBAND_GIVEN;
        d.replaced = true;
        /* the MBU kept from the fit: it is the step overhead that was given */
        d.overhead_given = (s->speed_calibrated & SPEED_CAL_MBU) != 0;
    } else if (d.basis == SPEEDBAND_CALIBRATED && elsewhere) {
        d.elsewhere = true; /* the public cases' band, basis calibrated */
    } else if (d.basis == SPEEDBAND_CALIBRATED) {
        d = calibrated(s, &key, SPEEDBAND_DECODE);
    }
    if (f.basis == SPEEDBAND_CALIBRATED && elsewhere)
        f.elsewhere = true;
    else if (f.basis == SPEEDBAND_CALIBRATED)
        f = calibrated(s, &key, SPEEDBAND_TTFT);
    band_set(&out->decode, &d);
    band_set(&out->ttft, &f);
}

void speedband_figures(const struct speed_result *sp, struct speed_bands *out)
{
    bool decode = out->decode.banded && sp->tokens_per_s_per_user > 0;
    bool ttft = out->ttft.banded && sp->ttft_seconds > 0;
    /* no band: 0, as a figure kvplan cannot give */
    double dl = decode ? out->decode.low : 0, dh = decode ? out->decode.high : 0;
    out->tokens_per_s_per_user_low = sp->tokens_per_s_per_user * dl;
    out->tokens_per_s_per_user_high = sp->tokens_per_s_per_user * dh;
    out->tokens_per_s_total_low = sp->tokens_per_s_total * dl;
    out->tokens_per_s_total_high = sp->tokens_per_s_total * dh;
    out->ttft_seconds_low = ttft ? sp->ttft_seconds * out->ttft.low : 0;
    out->ttft_seconds_high = ttft ? sp->ttft_seconds * out->ttft.high : 0;
}
