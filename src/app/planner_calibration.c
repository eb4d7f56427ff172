/* planner_calibration: a logged KV cache size follows the planner's changes
 * as it follows the options of plan --calibration (cli/options_calibration.c):
 * measured at the log's memory fraction and weights, it moves by what a
 * fraction or precision changed in the planner moves in the engine's budget
 * (io/calibration.h calibration_fraction_on_top), from the log's own size,
 * not from the last move. */
#include "planner.h"

#include <stdio.h>
#include <string.h>

#include "io/calibration.h"
#include "io/catalog.h"

void planner_calibration_follow(struct planner *p, const struct scenario *before,
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
    const struct catalog_gpu *g = o->gpu_id[0] ? catalog_find_gpu(p->catalog, o->gpu_id) : NULL;
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
