/* calibrate_band: the band of a speed calibration's own fit, saved with it
 * for plan to show beside each calibrated figure (core/scenario.h,
 * calibration_band). */
#include "cli/calibrate.h"

#include <stdio.h>
#include <string.h>

/* Each figure's band from the fit's own points: the decode points' and,
 * with MFU fitted or held, the first tokens' that did not wait; the smallest
 * and largest (measured - predicted) / predicted, stated (the band
 * CALIBRATION_BAND_STATED) when the points are no more than the values
 * fitted on them (or one): they meet by construction. */
void calibrate_fit_bands(const struct fit_result *f, unsigned fixed, const struct fit_point *pts,
                         int n, struct calibration_band bands[2])
{
    int values[2] = {f->mbu_fitted + f->overhead_fitted, f->mfu_fitted};
    memset(bands, 0, 2 * sizeof bands[0]);
    for (int i = 0; i < n; i++) {
        const struct fit_point *p = &pts[i];
        int which = p->kind == FIT_DECODE ? 0 : 1;
        if (p->waited || p->measured_s <= 0 || p->predicted_s <= 0 ||
            (which == 1 && !f->mfu_fitted && !(fixed & SPEED_CAL_MFU)))
            continue;
        double r = (p->measured_s - p->predicted_s) / p->predicted_s;
        struct calibration_band *b = &bands[which];
        b->residual_min = b->points == 0 || r < b->residual_min ? r : b->residual_min;
        b->residual_max = b->points == 0 || r > b->residual_max ? r : b->residual_max;
        b->points++;
    }
    for (int i = 0; i < 2; i++)
        bands[i].stated = bands[i].points > 0 &&
                          (bands[i].points <= 1 || (int)bands[i].points <= values[i]);
}

/* The bands in words, as calibrate prints them: "-1.2% to +0.8% over 3
 * points", or the stated band and why. */
void calibrate_print_bands(const struct calibration_band bands[2])
{
    static const char *const names[2] = {"decode", "first token"};
    for (int i = 0; i < 2; i++) {
        const struct calibration_band *b = &bands[i];
        if (b->points == 0)
            continue;
        if (b->stated)
            printf("  band (%s): %u point%s, as many as the values fitted on them: no spread to "
                   "show; plan states +/-%.0f%%\n", names[i], (unsigned)b->points,
                   b->points == 1 ? "" : "s", 100 * CALIBRATION_BAND_STATED);
        else
            printf("  band (%s): residuals %+.1f%% to %+.1f%% over %u points; plan shows them "
                   "as its band\n", names[i], 100 * b->residual_min, 100 * b->residual_max,
                   (unsigned)b->points);
    }
}

