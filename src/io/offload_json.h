/* offload_json: llama.cpp's placement in JSON (core/offload.h): the
 * scenario's options ("offload" in a snapshot's scenario; absent when none
 * is set, as in older snapshots) and the split a plan chose ("offload" in
 * the result's engine object, bytes as plain numbers; absent when nothing is
 * in host memory). doc/FORMATS.md lists the fields. */
#ifndef KVPLAN_IO_OFFLOAD_JSON_H
#define KVPLAN_IO_OFFLOAD_JSON_H

#include <cJSON.h>

#include "core/offload.h"
#include "io/jsonread.h"

/* NULL when no option is set (the host memory read from this machine is
 * not kept: a loaded snapshot reads the machine it is loaded on). */
cJSON *offload_opts_json(const struct offload_opts *o);
bool offload_opts_from_json(const struct jsonread *r, const cJSON *scenario,
                            struct offload_opts *o, struct diag *d);

/* NULL when the split is inactive. */
cJSON *offload_split_json(const struct offload_split *o);

#endif
