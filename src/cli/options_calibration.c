/* options_calibration: a calibration with options given on top of it. The
 * options win (core/scenario.h); what the calibration measured on another
 * GPU, model or engine than the plan's is said on standard error, and a
 * logged KV cache size planned at another memory fraction moves with it. */
#include "cli/options.h"

#include <stdio.h>

#include "cli/options_table.h"
#include "core/text.h"
#include "io/calibration.h"

bool options_calibration_on_top(const struct options *o, const struct calibration_source *c,
                                struct scenario *s, struct diag *d)
{
    char note[512], shown[512];
    if (!calibration_fraction_on_top(c, s, note, sizeof note, d))
        return false;
    if (note[0]) {
        enum option_id given = o->given[OPT_MEM_FRACTION]    ? OPT_MEM_FRACTION
                               : o->given[OPT_FREE_FRACTION] ? OPT_FREE_FRACTION
                                                             : OPT_UTIL;
        fprintf(stderr, "kvplan: %s: %s\n", OPTION_FLAG(given), note);
    }
    if (calibration_mismatch(c, s, note, sizeof note) > 0) {
        text_escape(note, shown, sizeof shown); /* names from a file: no controls */
        fprintf(stderr, "kvplan: warning: %s\n", shown);
    }
    return scenario_validate(s, NULL, NULL, d);
}
