/* safetensors: the tensor bytes a .safetensors file holds, from its header
 * alone (8 bytes little-endian: the header's length; then that many bytes of
 * JSON, tensor name -> dtype, shape, data_offsets into the data that
 * follows). The data is never read. A header that does not describe its own
 * file is refused, naming the field: a length past the file or over
 * SAFETENSORS_MAX_HEADER, an unknown dtype, a shape whose product overflows
 * or does not fill its offsets, offsets past the data or overlapping another
 * tensor's, a name with a control byte or given twice. */
#ifndef KVPLAN_IO_SAFETENSORS_H
#define KVPLAN_IO_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"

enum { SAFETENSORS_MAX_HEADER = 100 * 1000 * 1000 };

/* The dtypes of the safetensors format (its crate's Dtype, 0.8). */
enum st_dtype {
    ST_BOOL, ST_U8, ST_I8, ST_F8_E5M2, ST_F8_E4M3, ST_F8_E8M0, ST_I16, ST_U16, ST_F16, ST_BF16,
    ST_I32, ST_U32, ST_F32, ST_C64, ST_I64, ST_U64, ST_F64, ST_F4, ST_F6_E2M3, ST_F6_E3M2,
    ST_F8_E4M3FNUZ, ST_F8_E5M2FNUZ, ST_DTYPE_COUNT
};

/* Its name in a header ("BF16") and its size in bits (16). */
const char *safetensors_dtype_name(enum st_dtype t);
unsigned safetensors_dtype_bits(enum st_dtype t);
/* The dtype a header names, exactly as the format spells it. */
bool safetensors_dtype_parse(const char *name, enum st_dtype *out);

/* What the headers read so far hold, added to by each. */
struct st_sum {
    uint64_t bytes, tensors, files;
    uint64_t by_dtype[ST_DTYPE_COUNT];
};

/* One header's JSON (len bytes, not NUL-terminated) over data_len bytes of
 * data; name is the file, for messages. */
bool safetensors_header(const char *name, const char *json, size_t len, uint64_t data_len,
                        struct st_sum *sum, struct diag *d);

/* A whole file's bytes as they would be on disk (what the fuzzer feeds). */
bool safetensors_image(const char *name, const uint8_t *buf, size_t len, struct st_sum *sum,
                       struct diag *d);

/* A file on disk: reads its 8 bytes of length and its header, no more. */
bool safetensors_file(const char *path, struct st_sum *sum, struct diag *d);

#endif
