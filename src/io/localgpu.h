/* localgpu: the GPU of this machine, as its driver reports it (nvidia-smi,
 * or rocm-smi), matched to a preset by name and given the driver's memory. */
#ifndef KVPLAN_IO_LOCALGPU_H
#define KVPLAN_IO_LOCALGPU_H

#include <stdbool.h>

#include "core/spec.h"
#include "io/catalog.h"

/* Fills out with the closest preset to the first GPU the driver lists, its
 * memory the driver's total; count gets how many GPUs it lists. False (d
 * saying why: no driver tool, no GPU, no preset of that name) otherwise. */
bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d);

#endif
