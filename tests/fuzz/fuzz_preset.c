/* libFuzzer target: preset files (GPU and model JSON). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"

#include "io/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct preset p;
    struct diag d = {0};
    if (preset_parse("fuzz.json", text, size, &p, &d)) {
        /* whatever parses must serialise and parse back to the same spec */
        cJSON *j = p.kind == PRESET_GPU ? preset_gpu_to_json(&p.gpu, true)
                                        : preset_model_to_json(&p.model, true);
        char *again = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        if (again) {
            struct preset q;
            struct diag d2 = {0};
            if (!preset_parse("again.json", again, strlen(again), &q, &d2))
                abort();
            if (p.kind == PRESET_MODEL && q.model.params != p.model.params)
                abort();
            free(again);
        }
    } else if (d.message[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    free(text);
    return 0;
}
