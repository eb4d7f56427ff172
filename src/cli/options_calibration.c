/* options_calibration: a calibration with options given on top of it. The
 * options win (core/scenario.h); what the calibration measured on another
 * GPU, model or engine than the plan's is said on standard error, and a
 * logged KV cache size planned at another memory fraction moves with it. */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/options_table.h"
#include "core/calibration_origin.h"
#include "core/text.h"
#include "io/calibration.h"
#include "io/catalog.h"

/* The mismatches said (the first ROWS_SAID in full) and how many more. */
enum { ROWS_SAID = 3, ROWS_SEEN = 256 };
static char rows_said[ROWS_SEEN][SPEC_ID_MAX];
static int rows_nsaid, rows_more;

void options_calibration_row_warning(const struct scenario *s)
{
    char buf[512], shown[512];
    if (!s->calibration_from.present || calibration_origin_mismatch(s, buf, sizeof buf) <= 0)
        return;
    for (int i = 0; i < rows_nsaid; i++)
        if (strcmp(rows_said[i], s->gpu.id) == 0)
            return;
    if (rows_nsaid < ROWS_SEEN)
        snprintf(rows_said[rows_nsaid++], sizeof rows_said[0], "%s", s->gpu.id);
    if (rows_nsaid > ROWS_SAID) {
        rows_more++;
        return;
    }
    text_escape(buf, shown, sizeof shown);
    fprintf(stderr, "kvplan: warning: %s (the rows of %s)\n", shown, s->gpu.name);
}

void options_calibration_rows_done(void)
{
    if (rows_more)
        fprintf(stderr, "kvplan: warning: the calibration is used on the rows of %d more GPUs "
                "than its own, its figures measured on that one\n", rows_more);
    rows_more = 0;
}

bool options_calibration_on_top(const struct options *o, const struct catalog *cat,
                                const struct calibration_source *c, struct scenario *s,
                                struct diag *d)
{
    char note[512], shown[512], moved[512];
    const struct catalog_gpu *g = c->gpu_id[0] ? catalog_find_gpu(cat, c->gpu_id) : NULL;
    if (!calibration_fraction_on_top(c, g ? &g->spec : NULL, s, moved, sizeof moved, d))
        return false;
    if (s->calibration_from.kv_logged) /* the planner moves it again from here */
        s->calibration_from.kv_applied = s->engine.kv_memory_bytes;
    bool other = c->memory && (calibration_other_layout(c, s) || c->engine != s->engine.kind);
    snprintf(note, sizeof note, "%s", moved);
    if (other) /* said in the warning with the mismatch below */
        note[0] = '\0';
    if (note[0]) {
        enum option_id given = o->given[OPT_MEM_FRACTION]    ? OPT_MEM_FRACTION
                               : o->given[OPT_FREE_FRACTION] ? OPT_FREE_FRACTION
                               : o->given[OPT_UTIL]          ? OPT_UTIL
                               : o->given[OPT_WEIGHT_DTYPE]  ? OPT_WEIGHT_DTYPE
                                                             : OPT_UTIL;
        fprintf(stderr, "kvplan: %s: %s\n", OPTION_FLAG(given), note);
    }
    s->calibration_note[0] = '\0';
    if (c->memory && !c->gpu_id[0]) /* a file of an older kvplan: applied as before */
        fprintf(stderr, "kvplan: note: the calibration names no GPU (an older kvplan wrote it): "
                "its memory is applied as if measured on %s; calibrate the log again to record "
                "the GPU\n", s->gpu.name);
    /* what was done to its memory on another GPU: said after the mismatch,
     * which the plan works out again from its origin (core/calibration_origin.h) */
    if (other)
        text_escape(moved, s->calibration_note, sizeof s->calibration_note);
    char slots[512];
    if (!calibration_slots_check(c, s, slots, sizeof slots, d))
        return false;
    if (slots[0])
        fprintf(stderr, "kvplan: warning: %s\n", slots);
    /* the total the log itself reports, on the GPU it is said to be of */
    if (c->gpu_total_bytes && !other && !calibration_total_check(c->gpu_total_bytes, s, slots,
                                                                 sizeof slots))
        fprintf(stderr, "kvplan: warning: %s\n", slots);
    if (calibration_origin_mismatch(s, shown, sizeof shown) > 0)
        fprintf(stderr, "kvplan: warning: %s%s%s\n", shown, other && moved[0] ? "; " : "",
                other ? s->calibration_note : "");
    return scenario_validate(s, NULL, NULL, d);
}
