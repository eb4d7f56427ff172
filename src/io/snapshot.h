/* snapshot: a scenario and its result as JSON ("kvplan-scenario",
 * format_version 2; version 1 files still load), the file `plan --format json` prints and --export writes.
 *
 * The scenario carries the full GPU and model specs, so loading a snapshot
 * reproduces its result even after the presets change; the result is always
 * recomputed on load, never trusted. */
#ifndef KVPLAN_IO_SNAPSHOT_H
#define KVPLAN_IO_SNAPSHOT_H

#include "core/plan.h"

#define SNAPSHOT_FORMAT "kvplan-scenario"
#define SNAPSHOT_FORMAT_VERSION 2

/* The snapshot text (pretty-printed, ending in a newline); caller frees.
 * NULL on out of memory or a non-finite number. */
char *snapshot_to_json(const struct scenario *s, const struct plan_result *r,
                       const char *generator);

/* Parses a snapshot's scenario (its "result" is ignored). Versions 1 and 2
 * share the scenario; a newer format_version is refused; errors name path, line, column and field. */
bool snapshot_parse(const char *path, const char *text, size_t len, struct scenario *s,
                    struct diag *d);

/* Reads and parses a file. */
bool snapshot_load(const char *path, struct scenario *s, struct diag *d);

/* Computes, serialises and writes atomically. */
bool snapshot_export(const char *path, const struct scenario *s, const struct plan_result *r,
                     const char *generator, struct diag *d);

#endif
