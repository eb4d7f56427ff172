/* hfweights: the exact bytes of a checkpoint's weights beside its
 * config.json, for import-hf: model.safetensors.index.json's
 * metadata.total_size when the index is there, else the sum of the tensors
 * the *.safetensors files' headers describe (io/safetensors.h; only the
 * headers are read). Nothing beside the config: nothing found. */
#ifndef KVPLAN_IO_HFWEIGHTS_H
#define KVPLAN_IO_HFWEIGHTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/diag.h"
#include "io/safetensors.h"

struct hf_weights {
    bool found, from_index;
    uint64_t bytes;
    struct st_sum sum; /* by dtype, when read from the headers */
};

/* False with d naming the file and field when an index or a header beside
 * config_path is there but wrong. */
bool hfweights_read(const char *config_path, struct hf_weights *w, struct diag *d);

#endif
