/* libFuzzer target: a safetensors file's header, as import-hf reads it
 * beside a config.json. Whatever it accepts describes its own bytes: the
 * tensors' bytes fit in the data after the header; a refusal says why. */
#include <stdint.h>
#include <stdlib.h>

#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct st_sum sum = {0};
    struct diag d = {0};
    if (safetensors_image("fuzz.safetensors", data, size, &sum, &d)) {
        uint64_t by_dtype = 0;
        for (int t = 0; t < ST_DTYPE_COUNT; t++)
            by_dtype += sum.by_dtype[t];
        if (size < 8 || sum.bytes > size - 8 || by_dtype != sum.bytes || sum.files != 1)
            abort();
    } else if (d.message[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    return 0;
}
