/* svg: pictures of plans for a design document, beside its Markdown: each
 * scenario's memory of one GPU as a bar with every segment labelled with its
 * name and size, then the users-against-context chart (both axes
 * logarithmic, every tick labelled, one line pattern and mark a scenario),
 * all drawn from the plans and curves given (core), legible in print and in
 * monochrome (each fill a pattern too, each series a dash and a mark). The
 * elements carry their numbers (data-bytes, data-users, data-points) so
 * that a reader can check them against the plan. */
#ifndef KVPLAN_IO_SVG_H
#define KVPLAN_IO_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "core/curve.h"
#include "core/diag.h"
#include "core/plan.h"

enum { SVG_SCENARIOS_MAX = 4 };

struct svg_item {
    const char *label; /* the scenario's name; "" for one alone */
    const struct scenario *s;
    const struct plan_result *r;
    const struct users_curve *c;
};

/* The picture of n (1 to SVG_SCENARIOS_MAX) scenarios to out. */
void svg_write(FILE *out, const struct svg_item *v, int n);

/* The same written to path atomically (fileio_write_atomic): a failed
 * export leaves an existing file as it was. */
bool svg_export(const char *path, const struct svg_item *v, int n, struct diag *d);

#endif
