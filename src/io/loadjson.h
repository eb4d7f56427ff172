/* loadjson: the Load screen's settings (core/loadrun.h) in a session file,
 * each scenario's under "load" beside its label and note: written when the
 * screen was opened on it (rate above 0), read back with their ranges; a
 * file without them (older ones) loads with none (doc/FORMATS.md). */
#ifndef KVPLAN_IO_LOADJSON_H
#define KVPLAN_IO_LOADJSON_H

#include <stdbool.h>

#include <cJSON.h>

#include "core/loadrun.h"
#include "io/jsonread.h"

/* The settings as an object; NULL when none were set (rate 0) or out of memory. */
cJSON *loadjson_write(const struct load_settings *ls);

/* Reads entry e's "load" when it has one (else leaves ls zero); false with
 * d naming the field when one is out of range. */
bool loadjson_read(const struct jsonread *r, const cJSON *e, struct load_settings *ls,
                   struct diag *d);

#endif
