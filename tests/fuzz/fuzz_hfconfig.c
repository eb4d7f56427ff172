/* libFuzzer target: Hugging Face config.json import. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"

#include "io/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct hf_import h;
    struct diag d = {0};
    if (!hfconfig_parse("config.json", text, size, NULL, NULL, &h, &d) && d.message[0] == '\0')
        abort();
    free(text);
    return 0;
}
