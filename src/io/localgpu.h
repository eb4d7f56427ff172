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

/* Fills out with the closest preset to the first GPU the driver lists, its
 * memory the driver's total; count gets how many GPUs it lists. The name is
 * kept without control characters or bytes that are not UTF-8. False (d
 * saying why: no driver tool, no GPU, no preset of that name, a tool that
 * hangs past the timeout or prints past the limits, and is then killed with
 * what it started) otherwise. */
bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d);

#endif
