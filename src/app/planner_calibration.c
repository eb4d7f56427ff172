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
    calibration_follow(p->catalog, before, s);
}
