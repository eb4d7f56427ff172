/* dtype: the number formats a weight or a cached key/value can be stored in,
 * and their exact size as a fraction of bytes per value.
 *
 * Block formats carry their scales: llama.cpp's q8_0 stores 32 values in 34
 * bytes (32 one-byte values and an fp16 scale), so it costs 34/32 bytes. */
#ifndef KVPLAN_CORE_DTYPE_H
#define KVPLAN_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

enum dtype {
    DTYPE_AUTO = 0, /* "the model's own": resolved before computing */
    DTYPE_FP32,
    DTYPE_FP16,
    DTYPE_BF16,
    DTYPE_FP8,
    DTYPE_INT8,
    DTYPE_INT4,
    DTYPE_Q8_0,
    DTYPE_Q4_0,
    /* Weight formats (a cache in them is refused by every engine): */
    DTYPE_FP4,    /* NVFP4: 4-bit values and an fp8 scale per 16 */
    DTYPE_Q6_K,   /* llama.cpp K-quants: Q6_K 210 bytes per 256 values */
    DTYPE_Q5_K_M, /* the mixes llama.cpp users run, at their measured average */
    DTYPE_Q4_K_M,
    DTYPE_COUNT
};

struct dtype_info {
    const char *name;        /* as typed on the command line: "bf16" */
    uint32_t bytes_num;      /* bytes per value = bytes_num / bytes_den */
    uint32_t bytes_den;
    const char *description; /* one line for help and pickers */
};

/* The table entry for a dtype; DTYPE_AUTO has name "auto" and size 0/1. */
const struct dtype_info *dtype_info(enum dtype d);

/* Parses a name (case-insensitive; also accepts float16, bfloat16, float32,
 * fp8_e4m3, fp8_e5m2, e4m3, q8, q4). Returns false when unknown. */
bool dtype_parse(const char *name, enum dtype *out);

/* Exact bytes for `values` values, rounded up to a whole byte. */
uint64_t dtype_bytes_for(enum dtype d, uint64_t values);

/* The list "auto, fp32, fp16, ..." for messages. */
const char *dtype_names(void);

#endif
