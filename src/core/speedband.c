#include "speedband.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"

const char *speedband_basis_name(enum speedband_basis b)
{
    switch (b) {
    case SPEEDBAND_FITTED:
        return "fitted";
    case SPEEDBAND_CALIBRATED:
        return "calibrated";
    default:
        return "default";
    }
}

static const struct speedband_spread *spread_of(const struct speedband_entry *e,
                                                enum speedband_figure figure)
{
    return figure == SPEEDBAND_TTFT ? &e->ttft : &e->decode;
}

/* The entry of (family, engine) with a band of the figure, or NULL. */
static const struct speedband_entry *entry_of(const struct speedband_entry *table, size_t n,
                                              const char *family, const char *engine,
                                              enum speedband_figure figure)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].family, family) == 0 && strcmp(table[i].engine, engine) == 0)
            return spread_of(&table[i], figure)->cases >= SPEEDBAND_MIN_CASES ? &table[i] : NULL;
    return NULL;
}

struct speed_band speedband_find(const struct speedband_entry *table, size_t n, const char *family,
                                 const char *engine, const char *engine_title,
                                 enum speedband_figure figure)
{
    struct speed_band b;
    memset(&b, 0, sizeof b); /* its padding too: a plan is compared byte for byte */
    b.basis = SPEEDBAND_DEFAULT;
    b.low = b.high = 1;
    if (family == NULL || family[0] == '\0')
        return b;
    const struct speedband_entry *e = NULL;
    if (engine && engine[0])
        e = entry_of(table, n, family, engine, figure);
    if (e == NULL) {
        e = entry_of(table, n, family, "", figure);
        engine_title = NULL; /* every engine of the family */
    }
    if (e == NULL)
        return b;
    const struct speedband_spread *sp = spread_of(e, figure);
    b.basis = SPEEDBAND_FITTED;
    b.low = sp->low;
    b.high = sp->high;
    b.cases = sp->cases;
    b.held_out = sp->held_out;
    b.family = e->family;
    b.engine_title = engine_title;
    return b;
}

/* A ratio as a change from the prediction, whole percent: 0.85 "-15%". */
static long percent(double ratio)
{
    return lround((ratio - 1.0) * 100.0);
}

void speedband_group(const struct speed_band *b, char *buf, size_t size)
{
    if (b->family == NULL || b->cases == 0)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s%s%s", b->family, b->engine_title ? "/" : "",
                 b->engine_title ? b->engine_title : "");
}

void speedband_text(const struct speed_band *b, char *buf, size_t size)
{
    if (b->basis == SPEEDBAND_DEFAULT || b->cases == 0) {
        snprintf(buf, size, "%s",
                 b->basis == SPEEDBAND_CALIBRATED ? "calibrated"
                                                  : "default: no measurement behind it");
        return;
    }
    char group[SPEEDBAND_GROUP_MAX];
    speedband_group(b, group, sizeof group);
    snprintf(buf, size, "%+ld%% to %+ld%% over %lu %s%s%s%s", percent(b->low), percent(b->high),
             (unsigned long)b->cases, group, group[0] ? " " : "",
             b->basis == SPEEDBAND_CALIBRATED ? "calibration " : "",
             b->cases == 1 ? "measurement" : "measurements");
}

void speedband_lookup(const struct scenario *s, struct speed_bands *out)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    out->decode = speedband_find(speedband_table, speedband_table_count, s->gpu.family, e->name,
                                 e->title, SPEEDBAND_DECODE);
    out->ttft = speedband_find(speedband_table, speedband_table_count, s->gpu.family, e->name,
                               e->title, SPEEDBAND_TTFT);
    /* a calibration's figures rest on the user's own benchmark, not on the
     * public cases: no band of theirs (the fit's residuals are in its file) */
    struct speed_band own;
    memset(&own, 0, sizeof own); /* its padding too: a plan is compared byte for byte */
    own.basis = SPEEDBAND_CALIBRATED;
    own.low = own.high = 1;
    if (s->speed_calibrated & (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD))
        out->decode = own;
    if (s->speed_calibrated & SPEED_CAL_MFU)
        out->ttft = own;
}

void speedband_figures(const struct speed_result *sp, struct speed_bands *out)
{
    bool decode = out->decode.basis != SPEEDBAND_DEFAULT && out->decode.cases > 0 &&
                  sp->tokens_per_s_per_user > 0;
    bool ttft = out->ttft.basis != SPEEDBAND_DEFAULT && out->ttft.cases > 0 && sp->ttft_seconds > 0;
    /* no band: 0, as a figure kvplan cannot give */
    double dl = decode ? out->decode.low : 0, dh = decode ? out->decode.high : 0;
    out->tokens_per_s_per_user_low = sp->tokens_per_s_per_user * dl;
    out->tokens_per_s_per_user_high = sp->tokens_per_s_per_user * dh;
    out->tokens_per_s_total_low = sp->tokens_per_s_total * dl;
    out->tokens_per_s_total_high = sp->tokens_per_s_total * dh;
    out->ttft_seconds_low = ttft ? sp->ttft_seconds * out->ttft.low : 0;
    out->ttft_seconds_high = ttft ? sp->ttft_seconds * out->ttft.high : 0;
}
