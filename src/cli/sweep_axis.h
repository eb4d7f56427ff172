/* sweep_axis: the axes of a sweep (--vary AXIS=RANGE): context, gpus,
 * concurrency, kv-dtype, gpu, model; and the workload's, which only a
 * simulated sweep has: request-rate, max-concurrency. */
#ifndef KVPLAN_CLI_SWEEP_AXIS_H
#define KVPLAN_CLI_SWEEP_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/dtype.h"
#include "core/engine.h"
#include "core/scenario.h"
#include "io/catalog.h"

enum sweep_axis {
    AXIS_CONTEXT,
    AXIS_GPUS,
    AXIS_KV_DTYPE,
    AXIS_GPU,
    AXIS_MODEL,
    AXIS_CONCURRENCY,
    AXIS_REQUEST_RATE,   /* the workload's requests a second */
    AXIS_MAX_CONCURRENCY /* the client's cap on requests in flight */
};
enum { AXIS_LIST_MAX = 64 }; /* values of a list: request-rate=1,2,5 */
enum { AXIS_LABEL_MAX = 64 }; /* one axis's part of a row's value: "32k", "h100-sxm" */

struct axis {
    enum sweep_axis kind;
    uint64_t lo, hi;
    uint32_t points; /* context: log-spaced points (0 = powers of two) */
    size_t count;    /* values along the axis */
    enum dtype kv[DTYPE_COUNT]; /* kv-dtype: the cache types of the sweep's engine */
    /* context, gpus, concurrency: each value and its label, made once (a
     * value recurs in every combination of the other axes) */
    uint64_t *values;
    char (*labels)[AXIS_LABEL_MAX];
    /* request-rate: its values; a list's values (request-rate, max-concurrency) */
    double *rates;
    double list[AXIS_LIST_MAX];
    bool listed;
};

/* The kv-dtype axis: the cache types the engine has (the K-quant mixes are
 * weight formats, never caches); set once the scenario's engine is known. */
void sweep_axis_kv(struct axis *ax, enum engine_kind engine);
/* One --vary value into ax; its count from the catalogue for gpu and model. */
bool sweep_axis_parse(const char *vary, const struct catalog *cat, struct axis *ax,
                      struct diag *d);
/* Refuses, before any row is planned, a sweep of more than max rows (the
 * product of the axes, saturating). */
bool sweep_rows_allowed(const struct axis *axes, int n, uint64_t max, struct diag *d);
/* The values and labels of a numeric axis, made once; false on out of memory. */
bool sweep_axis_tables(struct axis *ax);
/* Sets value i of ax in s, the axis's own fields only (a context past the
 * base's prefix or average drops them); returns its label. */
const char *sweep_axis_apply(const struct axis *ax, size_t i, const struct catalog *cat,
                             const struct scenario *base, struct scenario *s);
void sweep_axis_free(struct axis *ax);

#endif
