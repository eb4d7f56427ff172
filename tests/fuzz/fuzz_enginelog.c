/* libFuzzer target: engine startup logs (never fails; must not crash). */
#include <stdint.h>
#include <stdlib.h>

#include "io/calibration.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct engine_log log;
    enginelog_parse((const char *)data, size, &log);
    for (int f = 0; f < LF_COUNT; f++)
        if (log.f[f].found && !(log.f[f].value >= 0))
            abort(); /* figures are finite and non-negative */
    return 0;
}
