/* localgpu: the GPU of this machine, as its driver reports it (nvidia-smi,
 * or rocm-smi), matched to a preset by name and given the driver's memory. */
#ifndef KVPLAN_IO_LOCALGPU_H
#define KVPLAN_IO_LOCALGPU_H

#include <stdbool.h>

#include "core/spec.h"
#include "io/catalog.h"

/* What a driver tool may take and print before its answer is refused: a
 * line for each GPU, and no host holds more than 64. */
enum {
    LOCALGPU_TIMEOUT_MS = 5000,
    LOCALGPU_MAX_GPUS = 64,
    LOCALGPU_MAX_BYTES = 16384
};

/* Fills out with the closest preset to the GPUs the driver lists, its memory
 * the driver's total; count gets how many GPUs it lists. nvidia-smi is asked
 * first, then rocm-smi. The name is kept without control characters or bytes
 * that are not UTF-8. False (d saying why) when no tool lists a GPU or each
 * one fails (exits non-zero or dies: named, with its status or signal, and
 * nothing it printed is used), when the GPUs are of more than one kind (name
 * and memory: each kind is named with its count, since a plan is for one),
 * when a memory figure is not digits for 1 MiB to 16 TiB (quoted, with its
 * line), when no preset has that name, or when a tool hangs past the timeout
 * or prints past the limits (it is killed with what it started). */
bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d);

#endif
