/* libFuzzer target: the option parsers for sizes, token counts and numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/engine.h"
#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[256];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    uint64_t v;
    double x;
    enum dtype t;
    enum engine_kind k;
    enum engine_rule r;
    struct diag d = {0};
    if (units_parse_tokens(text, true, &v, &d) && v > TOKENS_MAX)
        abort();
    diag_clear(&d);
    if (units_parse_size(text, &v, &d) && v > 9000000000000000000ull)
        abort();
    diag_clear(&d);
    if (units_parse_number(text, -1e9, 1e9, &x, &d) && !(x >= -1e9 && x <= 1e9))
        abort();
    dtype_parse(text, &t);
    diag_clear(&d);
    engine_parse(text, &k, &r, &d);
    char buf[64];
    units_format_bytes(v, UNITS_GIB, buf, sizeof buf);
    units_format_tokens(v, buf, sizeof buf);
    return 0;
}
