/* libFuzzer target: import-hf's round trip. Whatever hfconfig_parse accepts
 * is what `kvplan import-hf` writes, and it must load through the preset
 * loader and read back as the same preset (import-hf once wrote presets
 * kvplan refused, or that held wrapped values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"

#include "io/hfconfig.h"
#include "io/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *preset_text(const struct model_spec *m)
{
    cJSON *j = preset_model_to_json(m, true);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct hf_import h;
    struct diag d = {0};
    if (hfconfig_parse("config.json", text, size, NULL, NULL, &h, &d)) {
        char *written = preset_text(&h.model);
        if (written) {
            struct preset back;
            struct diag d2 = {0};
            if (!preset_parse("imported.json", written, strlen(written), &back, &d2) ||
                back.kind != PRESET_MODEL || back.model.params != h.model.params)
                abort();
            char *again = preset_text(&back.model);
            if (again && strcmp(again, written) != 0)
                abort();
            free(again);
            free(written);
        }
    } else if (d.message[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    free(text);
    return 0;
}
