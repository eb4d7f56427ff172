/* embedded: the preset catalogue compiled into the binary, already parsed
 * and validated at build time (tools/compile-presets.c from presets/), and
 * the length profiles of presets/datasets/. */
#ifndef KVPLAN_IO_EMBEDDED_H
#define KVPLAN_IO_EMBEDDED_H

#include "core/spec.h"
#include "core/workload.h"

struct embedded_gpu {
    const char *path; /* "presets/gpus/h100-sxm.json" */
    struct gpu_spec spec;
};

struct embedded_model {
    const char *path;
    struct model_spec spec;
};

extern const struct embedded_gpu embedded_gpus[];
extern const unsigned long embedded_gpu_count;
extern const struct embedded_model embedded_models[];
extern const unsigned long embedded_model_count;
extern const struct workload_profile embedded_profiles[];
extern const unsigned long embedded_profile_count;

#endif
